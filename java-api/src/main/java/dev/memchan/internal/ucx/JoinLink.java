package dev.memchan.internal.ucx;

import dev.memchan.internal.ucx.JoinRefusal.Reason;
import jdk.net.ExtendedSocketOptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * The join handshake's carrier and, after it, a node's control connection to the hub: a plain TCP connection
 * of the JVM (no UCX) carrying {@link JoinMessages} as frames, each a 4-byte big-endian length, then that many
 * bytes. A length of 0 or above {@link JoinMessages#MAX_LENGTH} is refused before anything is read for it
 * ({@code OVERSIZED}); a read waits at most until the caller's deadline ({@code TIMEOUT}); a connection that
 * ends inside a frame is {@code TRUNCATED}, between frames {@code DISCONNECTED}. The connection stays open for
 * the node's life: its end is how either side learns the other's process is gone.
 */
final class JoinLink implements AutoCloseable {
    /** The frame's length prefix. */
    static final int PREFIX = 4;

    private final SocketChannel channel;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String peer;

    /**
     * TCP keepalive on the connection, in seconds: idle time before the first probe, time between probes, and
     * probes unanswered before the kernel ends it. A peer whose link is cut (no FIN, no RST) is so found gone
     * within about {@value #KEEP_IDLE_S} + {@value #KEEP_COUNT} x {@value #KEEP_INTERVAL_S} s, at both ends, as a
     * process's death is at once: the hub drops its port (its node ID free, barriers no longer waiting for it,
     * nothing it sends later applied) and the cut node fails with DEVICE_ERROR. A stopped or busy process still
     * answers (its kernel does).
     */
    static final int KEEP_IDLE_S = 1;
    static final int KEEP_INTERVAL_S = 1;
    static final int KEEP_COUNT = 3;

    JoinLink(SocketChannel channel) throws IOException {
        this.channel = channel;
        channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        channel.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, KEEP_IDLE_S);
        channel.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, KEEP_INTERVAL_S);
        channel.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, KEEP_COUNT);
        this.socket = channel.socket();
        this.socket.setTcpNoDelay(true);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.peer = String.valueOf(channel.getRemoteAddress());
    }

    /** A connection to {@code address}, made within {@code timeoutMillis}. */
    static JoinLink connect(InetSocketAddress address, int timeoutMillis) throws IOException {
        SocketChannel channel = SocketChannel.open();
        try {
            channel.socket().connect(address, timeoutMillis);
            return new JoinLink(channel);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** The peer's address, for messages. */
    String peer() {
        return peer;
    }

    /**
     * The next frame's bytes, read by {@code deadline} ({@link System#nanoTime()}; {@code Long.MAX_VALUE}: no
     * limit); a {@link JoinRefusal} says what was wrong. A connection closed between frames is
     * {@code DISCONNECTED}.
     */
    byte[] read(long deadline) {
        return read(deadline, JoinMessages.MAX_LENGTH);
    }

    /** {@link #read(long)} of a frame of at most {@code maxLength} bytes: a primary hub's records to its standby. */
    byte[] read(long deadline, int maxLength) {
        byte[] prefix = new byte[PREFIX];
        if (!readFully(prefix, deadline, true)) {
            throw new JoinRefusal(Reason.DISCONNECTED, "the connection closed", true);
        }
        long length = ByteBuffer.wrap(prefix).getInt() & 0xFFFF_FFFFL;
        if (length == 0) {
            throw new JoinRefusal(Reason.MALFORMED, "an empty frame: a handshake message has at least its header");
        }
        if (length > maxLength) {
            throw new JoinRefusal(Reason.OVERSIZED, "a frame of " + length + " bytes: a message here has 1 to " + maxLength);
        }
        byte[] message = new byte[(int) length];
        readFully(message, deadline, false);
        return message;
    }

    /** Fills {@code into}; false when the connection ended before its first byte and {@code endAllowed}. */
    private boolean readFully(byte[] into, long deadline, boolean endAllowed) {
        int at = 0;
        try {
            while (at < into.length) {
                if (deadline != Long.MAX_VALUE) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        throw new SocketTimeoutException();
                    }
                    socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
                } else {
                    socket.setSoTimeout(0);
                }
                int n = in.read(into, at, into.length - at);
                if (n < 0) {
                    if (at == 0 && endAllowed) {
                        return false;
                    }
                    throw new JoinRefusal(Reason.TRUNCATED, "the connection closed after " + at + " of " + into.length
                            + " bytes of a frame", true);
                }
                at += n;
            }
            return true;
        } catch (SocketTimeoutException e) {
            throw new JoinRefusal(Reason.TIMEOUT, "no whole message within the handshake's time (" + at + " of " + into.length
                    + " bytes of a frame arrived)");
        } catch (IOException e) {
            throw new JoinRefusal(Reason.DISCONNECTED, "the connection failed: " + e.getMessage(), true);
        }
    }

    /** Sends {@code message} as one frame; a failed connection is {@code DISCONNECTED}. */
    void write(byte[] message) {
        ByteBuffer frame = ByteBuffer.allocate(PREFIX + message.length).putInt(message.length).put(message);
        try {
            synchronized (out) {
                out.write(frame.array());
                out.flush();
            }
        } catch (IOException e) {
            throw new JoinRefusal(Reason.DISCONNECTED, "the connection failed: " + e.getMessage(), true);
        }
    }

    /** Whether bytes have arrived that no read took yet (a reader answers a batch of frames once). */
    boolean hasUnread() {
        try {
            return in.available() > 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Sends {@code message} unless the connection is gone, which changes nothing for the caller. */
    void writeQuietly(byte[] message) {
        try {
            write(message);
        } catch (JoinRefusal r) {
            // the peer is gone: nobody to tell
        }
    }

    /** Whether {@link #close()} was called. */
    boolean isClosed() {
        return !channel.isOpen();
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // closing a socket whose peer is gone: it is released all the same
        }
    }
}
