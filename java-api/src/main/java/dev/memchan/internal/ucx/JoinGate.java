package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.internal.ucx.JoinHandshake.HubSide;
import dev.memchan.internal.ucx.JoinRefusal.Reason;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The hub's side of {@link JoinHandshake}: runs the handshake on every connection its listener accepts
 * and hands the hub only the nodes that proved they hold the fabric's secret.
 *
 * <p><b>Contract with the hub.</b> The hub's worker event listener passes every
 * {@link UcxEvent.Accepted} of the fabric's listener to {@link #accepted} and every
 * {@link UcxEvent.PeerFailed} to {@link #peerFailed}. The gate answers the node's ASK with a HELLO, checks
 * the JOIN and, when it verifies, calls the {@link Admission} with the endpoint and the node's fields; what that returns goes
 * to the node in the WELCOME, and from then on {@link #isAuthenticated} is true for the endpoint. Until
 * then the hub must not act on any message from that endpoint: its handlers drop a message whose
 * endpoint is not authenticated (or null). A refused connection is counted ({@link #counters()}), logged
 * (the peer and the reason, never the secret or a MAC), sent REFUSED and closed; nothing else changes:
 * the admission is not called. The gate owns the handler of {@link JoinHandshake#TO_HUB} on the worker.
 *
 * <p>The gate sends nothing on a connection before a message arrived on it: a connection that has
 * carried none may be a UCX connection request replayed by a plain TCP client, whose wire-up never
 * completes, and a send on it blocks the sending thread until that client leaves. At most
 * {@value #MAX_PENDING} handshakes are in progress at once: beyond that the oldest connection that has
 * sent nothing yet is closed ({@code BUSY}), or the new one when all have; a handshake not finished
 * within the handshake time is refused as {@code TIMEOUT} when the gate next accepts or hears from a
 * connection. Connections closed before they spoke are force-closed (a flush would wait for a wire-up
 * that may never come).
 *
 * <p><b>What UCX 1.13.1 does with a plain TCP client on the listener's port</b> (measured; Debian's build has
 * assertions on). The port speaks UCX's connection-request framing first (tcp_sockcm: an 8-byte length,
 * 8 more header bytes, then that many bytes of UCP's wire-up data), and nothing reaches the application
 * before a whole request arrived: random bytes whose length word exceeds what follows, and a truncated
 * request, are waited on and dropped when the client leaves; a whole request of random wire-up data is
 * refused when the worker accepts it ("unsupported sa_data version", a {@link UcxEvent.HandlerFailed});
 * a replayed real request is accepted as an endpoint that never speaks. But a client that sends more
 * bytes at once than its length word declares (64 zero bytes will do) trips UCX's assertion
 * {@code tcp_sockcm_ep.c:825 comm_ctx.offset <= comm_ctx.length} and aborts the whole process: the
 * listener's port must not be reachable by untrusted hosts with this UCX (a firewall, or a UCX without
 * that assertion), whatever this gate does.
 *
 * <p>All of the gate's work runs on the worker's progress thread ({@link UcxWorker#execute}), the
 * admission included; {@link #isAuthenticated}, {@link #forget} and {@link #counters()} are thread-safe.
 */
public final class JoinGate implements AutoCloseable {
    /** Handshakes in progress at once. */
    public static final int MAX_PENDING = 64;
    /** How long a handshake may take by default. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private static final System.Logger LOG = System.getLogger("dev.memchan.ucx.join");

    /** The hub's decision on an authenticated node. */
    @FunctionalInterface
    public interface Admission {
        /**
         * Admits the node on {@code endpoint} with {@code node}'s fields and returns the hub's fields for its
         * WELCOME; a {@link MemchanException} refuses it ({@code NOT_ADMITTED}, with the exception's message
         * sent to the node), and must leave the hub's state as it was. Runs on the progress thread.
         */
        JoinFields admit(UcxEndpoint endpoint, JoinFields node);
    }

    private record Pending(HubSide side, long startNanos) {
    }

    /** Closes a connection the gate gives up on: forced when it never spoke (its wire-up may never finish). */
    private static void closeConnection(UcxEndpoint endpoint, boolean spoke) {
        endpoint.close(!spoke || endpoint.failed());
    }

    private final UcxWorker worker;
    private final JoinSecret secret;
    private final String fabric;
    private final Admission admission;
    private final long timeoutNanos;
    private final int version;
    private final JoinCounters counters = new JoinCounters();
    /** Handshakes in progress, oldest first; the progress thread's only. */
    private final Map<UcxEndpoint, Pending> pending = new LinkedHashMap<>();
    private final Set<UcxEndpoint> authenticated = ConcurrentHashMap.newKeySet();

    /** A gate for fabric {@code fabric} on {@code worker}, handshakes bounded by {@code timeout}. */
    public JoinGate(UcxWorker worker, JoinSecret secret, String fabric, Admission admission, Duration timeout) {
        this(worker, secret, fabric, admission, timeout, JoinMessages.VERSION);
    }

    /** A gate speaking protocol {@code version}: the tests' hub of another version. */
    JoinGate(UcxWorker worker, JoinSecret secret, String fabric, Admission admission, Duration timeout, int version) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "a join gate's handshake time must be positive, not " + timeout);
        }
        JoinMessages.hello(version, new byte[JoinMessages.NONCE_LENGTH], fabric); // refuses a name the wire cannot carry
        this.worker = worker;
        this.secret = secret;
        this.fabric = fabric;
        this.admission = admission;
        this.timeoutNanos = timeout.toNanos();
        this.version = version;
        worker.setHandler(JoinHandshake.TO_HUB, (from, header, payload) -> {
            byte[] message = payload.toArray(JAVA_BYTE);
            boolean headerSet = header.byteSize() != 0;
            worker.execute(() -> received(from, message, headerSet)); // replies block: not inside the handler
        });
    }

    /** The counts of handshakes, admissions and refusals by reason. */
    public JoinCounters counters() {
        return counters;
    }

    /** Whether {@code endpoint} is a node that completed the handshake (and was not forgotten since). */
    public boolean isAuthenticated(UcxEndpoint endpoint) {
        return endpoint != null && authenticated.contains(endpoint);
    }

    /** Drops {@code endpoint} from the authenticated set (the hub let the node go). */
    public void forget(UcxEndpoint endpoint) {
        authenticated.remove(endpoint);
    }

    /** Starts the handshake on a connection the fabric's listener accepted. */
    public void accepted(UcxEndpoint endpoint) {
        worker.execute(() -> start(endpoint));
    }

    /** A connection failed: a handshake in progress on it ends as {@code DISCONNECTED}; an authenticated node is forgotten. */
    public void peerFailed(UcxEndpoint endpoint) {
        worker.execute(() -> {
            authenticated.remove(endpoint);
            Pending p = pending.remove(endpoint);
            if (p != null) {
                refuse(endpoint, Reason.DISCONNECTED, "the connection failed during the handshake", null, p.side().asked());
            }
        });
    }

    private void start(UcxEndpoint endpoint) {
        expire();
        counters.countStarted();
        HubSide side = new HubSide(secret, fabric, version);
        if (pending.size() >= MAX_PENDING) {
            UcxEndpoint silent = pending.entrySet().stream().filter(e -> !e.getValue().side().asked()).map(Map.Entry::getKey)
                    .findFirst().orElse(endpoint);
            Pending evicted = pending.remove(silent);
            refuse(silent, Reason.BUSY, "the hub has " + MAX_PENDING + " handshakes in progress; this connection had sent nothing",
                    null, evicted != null && evicted.side().asked());
            if (silent == endpoint) {
                return;
            }
        }
        pending.put(endpoint, new Pending(side, System.nanoTime()));
    }

    /** Refuses the handshakes older than the handshake time. */
    private void expire() {
        long now = System.nanoTime();
        for (Iterator<Map.Entry<UcxEndpoint, Pending>> i = pending.entrySet().iterator(); i.hasNext(); ) {
            Map.Entry<UcxEndpoint, Pending> e = i.next();
            if (now - e.getValue().startNanos() < timeoutNanos) {
                break; // oldest first: the rest are younger
            }
            i.remove();
            HubSide side = e.getValue().side();
            refuse(e.getKey(), Reason.TIMEOUT, "the handshake did not finish within " + Duration.ofNanos(timeoutNanos),
                    side.asked() ? side : null, side.asked());
        }
    }

    private void received(UcxEndpoint from, byte[] message, boolean headerSet) {
        expire();
        Pending p = from == null ? null : pending.get(from);
        if (p == null) {
            strayMessage(from, message);
            return;
        }
        JoinFields node;
        try {
            if (headerSet) {
                throw new JoinRefusal(Reason.MALFORMED, "a handshake message with an active-message header");
            }
            if (!p.side().asked()) {
                byte[] hello = p.side().onAsk(message);
                try {
                    JoinHandshake.send(from, JoinHandshake.TO_NODE, hello);
                } catch (MemchanException e) {
                    pending.remove(from);
                    refuse(from, Reason.DISCONNECTED, "the HELLO could not be sent: " + e.getMessage(), null, true);
                }
                return;
            }
            pending.remove(from);
            node = p.side().verifyJoin(message);
        } catch (JoinRefusal r) {
            pending.remove(from);
            refuse(from, r.reason(), r.getMessage(), r.byPeer() ? null : p.side(), true);
            return;
        }
        JoinFields hubFields;
        try {
            hubFields = admission.admit(from, node);
        } catch (RuntimeException e) {
            refuse(from, Reason.NOT_ADMITTED, "the hub does not admit " + node + ": " + e.getMessage(), p.side(), true);
            return;
        }
        // counted and marked before the WELCOME goes: the node may act on it at once
        counters.countAdmitted();
        authenticated.add(from);
        try {
            JoinHandshake.send(from, JoinHandshake.TO_NODE, p.side().welcome(hubFields));
        } catch (MemchanException e) {
            authenticated.remove(from);
            refuse(from, Reason.DISCONNECTED, "the WELCOME could not be sent: " + e.getMessage(), null, true);
            return;
        }
        LOG.log(Level.INFO, "memchan join: {0} joined fabric {1} with {2}", describe(from), fabric, node);
    }

    /**
     * A handshake message from a connection not in a handshake. A REFUSED from an admitted node (its check
     * of the WELCOME failed) ends its membership: it is forgotten and closed. Anything else is dropped.
     */
    private void strayMessage(UcxEndpoint from, byte[] message) {
        JoinMessages.Message m;
        try {
            m = JoinMessages.decode(message, version);
        } catch (JoinRefusal r) {
            m = null;
        }
        if (from != null && m instanceof JoinMessages.Refused r && authenticated.remove(from)) {
            refuse(from, r.reason(), "the node refused the hub after its WELCOME: " + r.text(), null, true);
            return;
        }
        counters.countRefused(Reason.UNEXPECTED);
        LOG.log(Level.WARNING, "memchan join: a handshake message of {0} bytes from {1}, which is not in a handshake: dropped",
                message.length, from == null ? "an unknown connection" : describe(from));
    }

    /**
     * Counts and logs a refusal, sends the peer a REFUSED made by {@code tellWith} unless that is null (the
     * peer refused, its connection is gone, or it never spoke), and closes the connection ({@code spoke}:
     * whether a message arrived on it).
     */
    private void refuse(UcxEndpoint endpoint, Reason reason, String text, HubSide tellWith, boolean spoke) {
        counters.countRefused(reason);
        LOG.log(Level.WARNING, "memchan join refused: {0}, fabric {1}: {2}: {3}", describe(endpoint), fabric, reason, text);
        if (tellWith != null) {
            try {
                JoinHandshake.send(endpoint, JoinHandshake.TO_NODE, tellWith.refused(reason, text));
            } catch (MemchanException e) {
                // the connection is gone: nobody to tell; the refusal is counted and logged all the same
            }
        }
        closeConnection(endpoint, spoke);
    }

    private static String describe(UcxEndpoint endpoint) {
        return endpoint.peer() + " (connection " + Integer.toHexString(System.identityHashCode(endpoint)) + ")";
    }

    /** Stops handling handshake messages; handshakes in progress are closed as they are (their nodes see the connection go). */
    @Override
    public void close() {
        worker.removeHandler(JoinHandshake.TO_HUB);
        worker.execute(() -> {
            for (Map.Entry<UcxEndpoint, Pending> e : pending.entrySet()) {
                closeConnection(e.getKey(), e.getValue().side().asked());
            }
            pending.clear();
        });
    }
}
