package dev.memchan.tools.bench;

import dev.memchan.Fabric;
import dev.memchan.IncomingMapping;
import dev.memchan.MemchanException;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.Route;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The far end of a benchmark between two hosts: {@code mcctl bench serve} on node S runs the echoing or
 * receiving side of whatever a client on another node asks for ({@code mcctl bench pingpong --peer S}).
 * Two regions per server, found by key in the cluster directory:
 *
 * <pre>
 *  request region  REQUEST_KEY | S   (clients -> S, route node:S)
 *    +0  u64 seq        written last: a new value is a new request
 *    +8  u64 kind       1 ping-pong, 2 channel bandwidth
 *    +16 u64 client     the client's node ID
 *    +24 u64 key        the benchmark's region key (ping-pong: key and key + 1)
 *    +32 u64 param0     ping-pong: unused; bandwidth: ring capacity in bytes
 *    +40 u64 param1     ping-pong: unused; bandwidth: messages to receive
 *    +48 u64 hello      a client's nonce, written alone and repeated until answered
 *
 *  status region   STATUS_KEY | S    (S -> every node, route broadcast)
 *    +0  u64 done       seq of the last request served (0 before the first)
 *    +8  u64 ready      the server's start time in ns (non-zero while it serves)
 *    +16 u64 failed     seq of a request the server could not serve
 *    +24 u64 answered   the last hello seen; written after done, ready and failed
 * </pre>
 *
 * A client asks for the status and the server answers, instead of the server publishing it once:
 * on a board a store reaches only the nodes that have their node ID when it is made, so a client whose node
 * got its ID after the server started would never see a status written at start. The client repeats its hello
 * (the server may not be attached to the request region yet either); the server answers each new
 * one by storing its whole status again, then the hello, so the answer implies the status.
 *
 * One client at a time per server: requests carry no client arbitration, as in RFM2g's
 * performancetest pairs. The ping-pong and bandwidth sides themselves are {@link PingPong} and
 * {@link ChannelThroughput}, the same code as the two-node runs in one process.
 */
public final class BenchService {
    /** "mcbenq" + server node: the request region of a server. */
    public static final long REQUEST_KEY = 0x6D63_6265_6E71_0000L;
    /** "mcbens" + server node: the status region of a server. */
    public static final long STATUS_KEY = 0x6D63_6265_6E73_0000L;
    public static final int KIND_PINGPONG = 1;
    public static final int KIND_BANDWIDTH = 2;

    private static final int SEQ = 0;
    private static final int KIND = 8;
    private static final int CLIENT = 16;
    private static final int KEY = 24;
    private static final int PARAM0 = 32;
    private static final int PARAM1 = 40;
    private static final int HELLO = 48;
    private static final int DONE = 0;
    private static final int READY = 8;
    private static final int FAILED = 16;
    private static final int ANSWERED = 24;
    private static final long HELLO_REPEAT_NANOS = 20_000_000L;

    private BenchService() {
    }

    /** A request as the server read it. */
    public record Request(long seq, int kind, int client, long key, long param0, long param1) {
    }

    /** What the server reports after each request. */
    public interface Listener {
        void served(Request r, RuntimeException failure);
    }

    /**
     * Serves requests until {@code count} were served ({@code count <= 0}: until the process is stopped;
     * the cluster's clean-up of a node that leaves or dies frees its regions). Returns the number served.
     * With an {@code idle} bound ({@link Duration#ZERO}: none) it stops when no request arrives within
     * it of the start or of the last one served (its status says it stopped, then it throws a time-out),
     * and a started ping-pong or bandwidth run fails when its client stays silent that long: a server
     * whose client died ends by itself, closing its fabric as a normal exit does.
     */
    public static int serve(Fabric f, int count, Duration idle, Listener listener) {
        long bound = idle.toNanos();
        int me = f.nodeId();
        try (Region request = f.allocate(REQUEST_KEY | me, f.pageSize(), 0660);
             Region status = f.allocate(STATUS_KEY | me, f.pageSize(), 0660)) {
            IncomingMapping in = request.attachReceive(false);
            OutgoingMapping out = status.attachTransmit(Route.broadcast(), false);
            long seen = in.getLongAcquire(SEQ); // a request left from an earlier server is not taken again
            long failedSeq = 0;
            long ready = Math.max(1, System.nanoTime());
            publishStatus(out, seen, failedSeq, ready);
            long answered = 0; // a hello left from a client that waited before this server started is answered
            int served = 0;
            int emptyPolls = 0;
            long since = System.nanoTime();
            while (count <= 0 || served < count) {
                long seq = in.getLongAcquire(SEQ);
                if (seq == seen) {
                    long hello = in.getLongAcquire(HELLO);
                    if (hello != answered) {
                        publishStatus(out, seen, failedSeq, ready);
                        out.putLongVolatile(ANSWERED, hello);
                        answered = hello;
                    }
                    if (bound > 0 && emptyPolls > 1000 && System.nanoTime() - since > bound) {
                        out.putLongVolatile(READY, 0);
                        throw new MemchanException(MemchanException.Kind.TIMEOUT, "no benchmark request within "
                                + idle.toSeconds() + " s (served " + served + (count > 0 ? " of " + count : "") + ")");
                    }
                    if (++emptyPolls > 1000) {
                        sleepMillis(1);
                    } else {
                        Thread.onSpinWait();
                    }
                    continue;
                }
                emptyPolls = 0;
                seen = seq;
                Request r = new Request(seq, (int) in.getLongAcquire(KIND), (int) in.getLongAcquire(CLIENT),
                        in.getLongAcquire(KEY), in.getLongAcquire(PARAM0), in.getLongAcquire(PARAM1));
                RuntimeException failure = null;
                try {
                    switch (r.kind()) {
                        case KIND_PINGPONG -> PingPong.pong(f, r.key(), r.key() + 1, r.client(), idle);
                        case KIND_BANDWIDTH -> ChannelThroughput.receive(f, r.key(), r.client(), (int) r.param0(), r.param1(), idle);
                        default -> throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT,
                                "benchmark request of unknown kind " + r.kind() + " from node " + r.client());
                    }
                } catch (RuntimeException e) {
                    failure = e;
                    failedSeq = seq;
                    out.putLongRelease(FAILED, seq);
                }
                out.putLongVolatile(DONE, seq);
                served++;
                since = System.nanoTime();
                listener.served(r, failure);
            }
            out.putLongVolatile(READY, 0);
            return served;
        }
    }

    /** Failed before done, done before ready: a client that sees ready sees the rest (rule 1). */
    private static void publishStatus(OutgoingMapping out, long done, long failedSeq, long ready) {
        out.putLongRelease(FAILED, failedSeq);
        out.putLongRelease(DONE, done);
        out.putLongVolatile(READY, ready);
    }

    /** A client's connection to the server on node {@code server}. */
    public static final class Client implements AutoCloseable {
        private final Fabric fabric;
        private final int server;
        private final Region request;
        private final Region status;
        private final OutgoingMapping out;
        private final IncomingMapping in;
        private long seq;

        /** Connects, waiting up to {@code timeout} for a server to be ready on node {@code server}. */
        public Client(Fabric f, int server, Duration timeout) {
            if (server == f.nodeId()) {
                throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT,
                        "--peer " + server + " is this node; the peer runs mcctl bench serve on another node");
            }
            this.fabric = f;
            this.server = server;
            Region req = f.allocate(REQUEST_KEY | server, f.pageSize(), 0660);
            Region st = null;
            try {
                st = f.allocate(STATUS_KEY | server, f.pageSize(), 0660);
                this.out = req.attachTransmit(Route.node(server), false);
                this.in = st.attachReceive(false);
            } catch (RuntimeException e) {
                if (st != null) {
                    st.close();
                }
                req.close();
                throw e;
            }
            this.request = req;
            this.status = st;
            long hello = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
            long deadline = System.nanoTime() + timeout.toNanos();
            long repeatAt = System.nanoTime();
            while (in.getLongAcquire(ANSWERED) != hello) {
                long now = System.nanoTime();
                if (now - deadline > 0) {
                    close();
                    throw new MemchanException(MemchanException.Kind.TIMEOUT, "no benchmark server on node " + server
                            + " within " + timeout.toSeconds() + " s: start mcctl bench serve on that node first");
                }
                if (now - repeatAt >= 0) {
                    out.putLongVolatile(HELLO, hello);
                    repeatAt = now + HELLO_REPEAT_NANOS;
                }
                sleepMillis(1);
            }
            this.seq = in.getLongAcquire(DONE);
        }

        /** Asks the server to run its side of one benchmark; returns at once (the sides meet in their regions). */
        public void start(int kind, long key, long param0, long param1) {
            if (in.getLongVolatile(READY) == 0) {
                throw new MemchanException(MemchanException.Kind.TIMEOUT, "the benchmark server on node " + server
                        + " stopped (it serves --count benchmarks): start it again");
            }
            out.putLongRelease(KIND, kind);
            out.putLongRelease(CLIENT, fabric.nodeId());
            out.putLongRelease(KEY, key);
            out.putLongRelease(PARAM0, param0);
            out.putLongRelease(PARAM1, param1);
            out.fence(); // the request body before its sequence number, as the message channel does
            out.putLongVolatile(SEQ, ++seq);
        }

        /** Waits until the server finished the last request; throws if it could not serve it. */
        public void awaitDone(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (in.getLongAcquire(DONE) != seq) {
                if (in.getLongVolatile(READY) == 0) {
                    throw new MemchanException(MemchanException.Kind.TIMEOUT, "the benchmark server on node " + server + " stopped");
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new MemchanException(MemchanException.Kind.TIMEOUT, "the benchmark server on node " + server
                            + " did not finish request " + seq + " within " + timeout.toSeconds() + " s");
                }
                sleepMillis(1);
            }
            if (in.getLongAcquire(FAILED) == seq) {
                throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT,
                        "the benchmark server on node " + server + " could not serve the request (see its output)");
            }
        }

        @Override
        public void close() {
            try {
                status.close();
            } finally {
                request.close();
            }
        }
    }

    private static void sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MemchanException(MemchanException.Kind.TIMEOUT, "interrupted");
        }
    }
}
