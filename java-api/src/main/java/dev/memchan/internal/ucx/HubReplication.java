package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What a primary hub tells its standby on the standby's join connection after the WELCOME, and the standby's
 * answer: one frame per record ({@link JoinLink}), little-endian, {@code [kind: 1 byte][body]}. The primary sends
 * its state at the standby's join (the image, the hosts with their unacknowledged stream, the ports' sessions),
 * then every change in the order it made them; the standby answers {@link Ack} with the count of records it holds.
 * The primary sends nothing that a record carries (a stream message, a SEQUENCED, a WELCOME) before the standby
 * has acknowledged that record. A record that does not parse is BAD_FORMAT.
 */
final class HubReplication {
    /** The largest record: a WRITE's runs with their envelope, or a chunk of the image. */
    static final int MAX_RECORD = 4 * HubWire.MAX_WRITE_BYTES;
    /** The image travels in chunks of this many bytes. */
    static final int IMAGE_CHUNK = 2 * HubWire.MAX_WRITE_BYTES;

    private HubReplication() {
    }

    /** One record of the primary's state or of a change to it. */
    sealed interface Record {
    }

    /** {@code bytes} of the page image at {@code offset}. */
    record Image(long offset, byte[] bytes) implements Record {
    }

    /** A host: its stream's last sequence, what it has acknowledged, whether its fabric is made. */
    record Host(long hostKey, long lastSeq, long acked, boolean ready) implements Record {
    }

    /** A host's fabric is made. */
    record HostReady(long hostKey) implements Record {
    }

    /** A host left: its last port is gone. */
    record HostGone(long hostKey) implements Record {
    }

    /** One message of a host's unacknowledged stream, as sent to the host. */
    record Logged(long hostKey, byte[] message) implements Record {
    }

    /** A port: a node process's session, its node ID and host, and its messages sequenced up to {@code sequenced}. */
    record Port(long session, int node, long hostKey, long sequenced) implements Record {
    }

    /** A port is gone. */
    record PortGone(long session) implements Record {
    }

    /**
     * A message sequenced: {@code message} (a node's WRITE, NOTIFY, or the hub's REMOTE or a new host's image) from
     * port {@code session}'s message {@code portSeq} (0, 0: the hub's own) went into the stream of each host of
     * {@code hostKeys} as {@code streamType} with the matching {@code hostSeqs}.
     */
    record Sequenced(long session, long portSeq, HubWire.Type streamType, long[] hostKeys, long[] hostSeqs, byte[] message)
            implements Record {
        @Override
        public String toString() {
            return "Sequenced[session=" + Long.toHexString(session) + ", portSeq=" + portSeq + ", " + streamType + " to "
                    + hostKeys.length + " hosts, " + message.length + " bytes]";
        }
    }

    /** A host has acknowledged its stream up to {@code acked}. */
    record Acked(long hostKey, long acked) implements Record {
    }

    /**
     * Port {@code session}'s node {@code node} has incarnation {@code incarnation}, as its process reported it; session
     * 0 in the state a standby gets at its join: the highest incarnation of a node seen so far, of processes gone too.
     */
    record Incarnation(long session, int node, long incarnation) implements Record {
    }

    /** The hub's next remote request id. */
    record NextRemote(long next) implements Record {
    }

    /** Standby to primary: the standby holds the first {@code records} records. */
    record Ack(long records) implements Record {
    }

    private enum Code {
        IMAGE, HOST, HOST_READY, HOST_GONE, LOGGED, PORT, PORT_GONE, SEQUENCED, ACKED, NEXT_REMOTE, ACK, INCARNATION;

        private static final Code[] ALL = values();
    }

    static byte[] encode(Record r) {
        return switch (r) {
            case Image i -> head(Code.IMAGE, 12 + i.bytes().length).putLong(i.offset()).putInt(i.bytes().length).put(i.bytes()).array();
            case Host h -> head(Code.HOST, 25).putLong(h.hostKey()).putLong(h.lastSeq()).putLong(h.acked()).put((byte) (h.ready() ? 1 : 0))
                    .array();
            case HostReady h -> head(Code.HOST_READY, 8).putLong(h.hostKey()).array();
            case HostGone h -> head(Code.HOST_GONE, 8).putLong(h.hostKey()).array();
            case Logged l -> head(Code.LOGGED, 12 + l.message().length).putLong(l.hostKey()).putInt(l.message().length).put(l.message()).array();
            case Port p -> head(Code.PORT, 28).putLong(p.session()).putInt(p.node()).putLong(p.hostKey()).putLong(p.sequenced()).array();
            case PortGone p -> head(Code.PORT_GONE, 8).putLong(p.session()).array();
            case Sequenced s -> {
                ByteBuffer b = head(Code.SEQUENCED, 8 + 8 + 1 + 4 + 16 * s.hostKeys().length + 4 + s.message().length)
                        .putLong(s.session()).putLong(s.portSeq()).put((byte) s.streamType().ordinal()).putInt(s.hostKeys().length);
                for (int i = 0; i < s.hostKeys().length; i++) {
                    b.putLong(s.hostKeys()[i]).putLong(s.hostSeqs()[i]);
                }
                yield b.putInt(s.message().length).put(s.message()).array();
            }
            case Acked a -> head(Code.ACKED, 16).putLong(a.hostKey()).putLong(a.acked()).array();
            case NextRemote n -> head(Code.NEXT_REMOTE, 8).putLong(n.next()).array();
            case Ack a -> head(Code.ACK, 8).putLong(a.records()).array();
            case Incarnation i -> head(Code.INCARNATION, 20).putLong(i.session()).putInt(i.node()).putLong(i.incarnation()).array();
        };
    }

    private static ByteBuffer head(Code code, int body) {
        return ByteBuffer.allocate(1 + body).order(ByteOrder.LITTLE_ENDIAN).put((byte) code.ordinal());
    }

    /** The record in {@code bytes}; BAD_FORMAT naming what is wrong when it does not parse. */
    static Record decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        try {
            int code = Byte.toUnsignedInt(b.get());
            if (code >= Code.ALL.length) {
                throw bad("unknown record kind " + code);
            }
            Record r = switch (Code.ALL[code]) {
                case IMAGE -> new Image(b.getLong(), bytes(b));
                case HOST -> new Host(b.getLong(), b.getLong(), b.getLong(), b.get() != 0);
                case HOST_READY -> new HostReady(b.getLong());
                case HOST_GONE -> new HostGone(b.getLong());
                case LOGGED -> new Logged(b.getLong(), bytes(b));
                case PORT -> new Port(b.getLong(), b.getInt(), b.getLong(), b.getLong());
                case PORT_GONE -> new PortGone(b.getLong());
                case SEQUENCED -> sequenced(b);
                case ACKED -> new Acked(b.getLong(), b.getLong());
                case NEXT_REMOTE -> new NextRemote(b.getLong());
                case ACK -> new Ack(b.getLong());
                case INCARNATION -> new Incarnation(b.getLong(), b.getInt(), b.getLong());
            };
            if (b.hasRemaining()) {
                throw bad(Code.ALL[code] + " with " + b.remaining() + " bytes too many");
            }
            return r;
        } catch (BufferUnderflowException e) {
            throw bad("a truncated record of " + bytes.length + " bytes");
        }
    }

    private static Sequenced sequenced(ByteBuffer b) {
        long session = b.getLong();
        long portSeq = b.getLong();
        int type = Byte.toUnsignedInt(b.get());
        HubWire.Type[] types = HubWire.Type.values();
        if (type >= types.length || !(types[type] == HubWire.Type.STREAM_WRITE || types[type] == HubWire.Type.STREAM_NOTIFY
                || types[type] == HubWire.Type.STREAM_REMOTE)) {
            throw bad("a sequenced message of type " + type + ", not a stream's");
        }
        int hosts = b.getInt();
        if (hosts < 0 || hosts > b.remaining() / 16) {
            throw bad("a sequenced message to " + hosts + " hosts in " + b.remaining() + " bytes");
        }
        long[] keys = new long[hosts];
        long[] seqs = new long[hosts];
        for (int i = 0; i < hosts; i++) {
            keys[i] = b.getLong();
            seqs[i] = b.getLong();
        }
        return new Sequenced(session, portSeq, types[type], keys, seqs, bytes(b));
    }

    private static byte[] bytes(ByteBuffer b) {
        int length = b.getInt();
        if (length < 0 || length > b.remaining()) {
            throw bad("a field of " + length + " bytes with " + b.remaining() + " left");
        }
        byte[] out = new byte[length];
        b.get(out);
        return out;
    }

    private static MemchanException bad(String what) {
        return new MemchanException(Kind.BAD_FORMAT, "hub replication: " + what);
    }
}
