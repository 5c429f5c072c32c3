package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.internal.ucx.JoinHandshake.HubSide;
import dev.memchan.internal.ucx.JoinRefusal.Reason;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * The hub's front door: a plain TCP listener of the JVM at exactly the address given (never a wildcard the
 * caller did not give), on which every connection runs the hub's side of {@link JoinHandshake}; only the nodes
 * that proved they hold the fabric's secret reach the hub, through its {@link Admission}. No UCX code reads
 * a byte from this port, so nothing a client sends there reaches UCX's own parsers.
 *
 * <p>Each connection is served by a virtual thread: at most {@value #MAX_PENDING} handshakes run at once (one
 * more is refused {@code BUSY} at once and closed), each must finish within the handshake time
 * ({@code TIMEOUT}), and each frame's length is checked before it is read ({@link JoinLink}). A refused
 * connection is counted ({@link #counters()}), logged (the peer and the reason, never the secret or a MAC),
 * sent REFUSED where the peer can still read it, and closed; nothing else changes: the admission is not called.
 *
 * <p>An admitted node's connection stays open for its life as its control connection: its end (the process
 * exited or died, or the node left) is reported once to {@link Admission#gone}; a REFUSED the node sends after
 * the WELCOME (its check of the hub's MAC failed) is counted and ends it the same way. The hub closes a member's
 * connection with {@link Member#close()} when it lets the node go, which the node sees at once.
 */
public final class JoinGate implements AutoCloseable {
    /** Handshakes in progress at once. */
    public static final int MAX_PENDING = 64;
    /** How long a handshake may take by default. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private static final System.Logger LOG = System.getLogger("dev.memchan.ucx.join");

    /** An admitted node's control connection. */
    public static final class Member implements AutoCloseable {
        private final JoinLink link;
        /** What serves the connection after the WELCOME instead of the gate's wait for its end (a standby's replication). */
        private volatile java.util.function.Consumer<JoinLink> carrier;

        Member(JoinLink link) {
            this.link = link;
        }

        JoinLink link() {
            return link;
        }

        /** The node's address as the connection sees it. */
        public String peer() {
            return link.peer();
        }

        /**
         * After the WELCOME, {@code carrier} serves the connection on its thread (it returns when the connection
         * ends) in place of the gate's wait for a node's REFUSED or end; then {@link Admission#gone} as for a node.
         */
        public void carry(java.util.function.Consumer<JoinLink> carrier) {
            this.carrier = carrier;
        }

        /**
         * Sends {@code message} as one frame on the control connection (why the hub lets the node go, before {@link
         * #close}); a connection that is gone changes nothing.
         */
        public void tell(byte[] message) {
            link.writeQuietly(message);
        }

        /** Ends the control connection: the node learns at once that the hub let it go. */
        @Override
        public void close() {
            link.close();
        }

        @Override
        public String toString() {
            return "member " + link.peer();
        }
    }

    /** The hub's decisions on authenticated nodes. */
    public interface Admission {
        /**
         * Admits the node on {@code member} with {@code node}'s fields and returns the hub's fields for its
         * WELCOME; a {@link MemchanException} refuses it ({@code NOT_ADMITTED}, with the exception's message
         * sent to the node), and must leave the hub's state as it was. Runs on the connection's thread.
         */
        JoinFields admit(Member member, JoinFields node);

        /** {@code member}'s control connection ended (after {@link #admit} returned for it). Runs on the connection's thread. */
        void gone(Member member);
    }

    private final JoinSecret secret;
    private final String fabric;
    private final Admission admission;
    private final long timeoutNanos;
    private final int version;
    private final ServerSocketChannel server;
    private final InetSocketAddress address;
    private final JoinCounters counters = new JoinCounters();
    private final Semaphore handshakes = new Semaphore(MAX_PENDING);
    private final Set<JoinLink> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean closed;

    /** A gate for fabric {@code fabric} listening at exactly {@code at} (port 0: a free one), handshakes bounded by {@code timeout}. */
    public JoinGate(InetSocketAddress at, JoinSecret secret, String fabric, Admission admission, Duration timeout) {
        this(at, secret, fabric, admission, timeout, JoinMessages.VERSION);
    }

    /** A gate speaking protocol {@code version}: the tests' hub of another version. */
    JoinGate(InetSocketAddress at, JoinSecret secret, String fabric, Admission admission, Duration timeout, int version) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "a join gate's handshake time must be positive, not " + timeout);
        }
        SocketAddresses.require(at, "listen");
        JoinMessages.hello(version, new byte[JoinMessages.NONCE_LENGTH], fabric); // refuses a name the wire cannot carry
        this.secret = secret;
        this.fabric = fabric;
        this.admission = admission;
        this.timeoutNanos = timeout.toNanos();
        this.version = version;
        try {
            server = ServerSocketChannel.open();
        } catch (IOException e) {
            throw new MemchanException(MemchanException.Kind.DEVICE_ERROR, "listening on " + at + ": " + e.getMessage(), e);
        }
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(at, MAX_PENDING);
            address = (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            closeServer();
            throw new MemchanException(MemchanException.Kind.IN_USE, "listening on " + at + ": " + e.getMessage(), e);
        }
        acceptor = Thread.ofPlatform().daemon().name("memchan-join-" + address.getPort()).start(this::acceptLoop);
    }

    /** The address it listens at (the port chosen when 0 was asked for). */
    public InetSocketAddress address() {
        return address;
    }

    /** The counts of handshakes, admissions and refusals by reason. */
    public JoinCounters counters() {
        return counters;
    }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                LOG.log(Level.WARNING, "memchan join: accepting on {0}: {1}", address, e.getMessage());
                continue;
            }
            JoinLink link;
            try {
                link = new JoinLink(channel);
            } catch (IOException e) {
                closeQuietly(channel); // the client left before it was set up
                continue;
            }
            counters.countStarted();
            if (!handshakes.tryAcquire()) {
                refuse(link, Reason.BUSY, "the hub has " + MAX_PENDING + " handshakes in progress", new HubSide(secret, fabric, version));
                continue;
            }
            open.add(link);
            Thread.ofVirtual().name("memchan-join-" + link.peer()).start(() -> serve(link));
        }
    }

    private void serve(JoinLink link) {
        Member member = null;
        try {
            member = handshake(link);
        } finally {
            handshakes.release();
        }
        if (member != null && member.carrier != null) {
            member.carrier.accept(link);
            member.close();
            admission.gone(member);
        } else if (member != null) {
            attend(member);
        }
        open.remove(link);
        link.close();
    }

    /** The member {@code link} became, or null when it was refused (counted, logged, told and closed). */
    private Member handshake(JoinLink link) {
        HubSide side = new HubSide(secret, fabric, version);
        long deadline = System.nanoTime() + timeoutNanos;
        JoinFields node;
        try {
            link.write(side.onAsk(link.read(deadline)));
            node = side.verifyJoin(link.read(deadline));
        } catch (JoinRefusal r) {
            refuse(link, r.reason(), r.getMessage(), r.byPeer() ? null : side);
            return null;
        }
        Member member = new Member(link);
        JoinFields hubFields;
        try {
            hubFields = admission.admit(member, node);
        } catch (RuntimeException e) {
            refuse(link, Reason.NOT_ADMITTED, "the hub does not admit " + node + ": " + e.getMessage(), side);
            return null;
        }
        // counted before the WELCOME goes: the node may act on it at once
        counters.countAdmitted();
        try {
            link.write(side.welcome(hubFields));
        } catch (JoinRefusal r) {
            LOG.log(Level.WARNING, "memchan join: the WELCOME to {0} could not be sent: {1}", link.peer(), r.getMessage());
            admission.gone(member);
            return null;
        }
        LOG.log(Level.INFO, "memchan join: {0} joined fabric {1} with {2}", link.peer(), fabric, node);
        return member;
    }

    /**
     * Waits for the end of an admitted node's control connection, then tells the admission. The node sends
     * nothing more on it but a REFUSED when its check of the WELCOME failed; anything else ends it too.
     */
    private void attend(Member member) {
        try {
            byte[] message = member.link().read(Long.MAX_VALUE);
            JoinMessages.Message m = JoinMessages.decode(message, version);
            if (m instanceof JoinMessages.Refused r) {
                counters.countRefused(r.reason());
                LOG.log(Level.WARNING, "memchan join refused: {0}, fabric {1}: the node refused the hub after its WELCOME: {2}: {3}",
                        member.peer(), fabric, r.reason(), r.text());
            } else {
                counters.countRefused(Reason.UNEXPECTED);
                LOG.log(Level.WARNING, "memchan join: {0} sent a handshake message after its WELCOME: its connection ends", member.peer());
            }
        } catch (JoinRefusal r) {
            if (r.reason() != Reason.DISCONNECTED) {
                counters.countRefused(r.reason());
                LOG.log(Level.WARNING, "memchan join: {0}'s control connection: {1}: {2}", member.peer(), r.reason(), r.getMessage());
            }
        }
        member.close();
        admission.gone(member);
    }

    /**
     * Counts and logs a refusal, sends the peer a REFUSED made by {@code tellWith} unless that is null (the peer
     * refused, or its connection is gone), and closes the connection.
     */
    private void refuse(JoinLink link, Reason reason, String text, HubSide tellWith) {
        counters.countRefused(reason);
        LOG.log(Level.WARNING, "memchan join refused: {0}, fabric {1}: {2}: {3}", link.peer(), fabric, reason, text);
        if (tellWith != null) {
            link.writeQuietly(tellWith.refused(reason, text));
        }
        link.close();
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // a client that left: released all the same
        }
    }

    private void closeServer() {
        try {
            server.close();
        } catch (IOException e) {
            // the listening socket is released all the same
        }
    }

    /** Stops listening and closes every connection: handshakes end, members see their control connection end. */
    @Override
    public void close() {
        closed = true;
        closeServer();
        for (JoinLink link : open) {
            link.close();
        }
        try {
            acceptor.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
