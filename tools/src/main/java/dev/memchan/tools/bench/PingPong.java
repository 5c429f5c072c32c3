package dev.memchan.tools.bench;

import dev.memchan.Fabric;
import dev.memchan.IncomingMapping;
import dev.memchan.MemchanException;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.Route;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The 8-byte ping-pong of seed 000 (Table 2, first row) between two nodes: ping stores round r
 * into the ping region (point-to-point to the pong node), pong waits for it in its receive copy and
 * stores r into the pong region, ping waits for that. One-way latency = round trip / 2.
 *
 * <pre>
 *  ping region (ping -> pong):  +0 u64 round   +8 u64 hello (a nonce, repeated until answered)
 *  pong region (pong -> ping):  +0 u64 round   +8 u64 the last hello pong saw
 * </pre>
 *
 * The hello is a question, not a flag: on a board a store reaches only nodes that have their node ID
 * when it is made, so a ready flag written once by pong is lost if ping's node gets its ID later. Ping repeats its
 * hello until pong's answer arrives; pong answers each one it sees until the first round. Round r
 * is stored as hello + r: a board's receive page keeps what an earlier region on it received (no
 * receiver saw the creator's zeroing), so a round counted from 0 could be taken from a stale page.
 */
public final class PingPong {
    static final int WARMUP_BATCHES = 3;
    private static final int ROUND = 0;
    private static final int HELLO = 8;
    private static final long HELLO_REPEAT_NANOS = 10_000_000L;
    private static final Duration HELLO_TIMEOUT = Duration.ofSeconds(30);
    /** A silent pinger is checked for every 4,096 empty polls: the clock stays off the echo path. */
    private static final int SILENCE_CHECK_MASK = 4095;

    private PingPong() {
    }

    /** Per-batch mean one-way latency in ns, and (optionally) a histogram of per-round one-way ns. */
    public record Result(double[] batchOneWayNanos, Histogram oneWayNanos) {
    }

    /** A progress callback: batches done so far. */
    public interface Progress {
        void batchDone(int done, int total);
    }

    public static Result ping(Fabric f, long pingKey, long pongKey, int pongNode, int rounds, int batches,
                              boolean perRound, Progress progress) {
        try (Region pingRegion = f.allocate(pingKey, f.pageSize(), 0660);
             Region pongRegion = f.allocate(pongKey, f.pageSize(), 0660)) {
            OutgoingMapping out = pingRegion.attachTransmit(Route.node(pongNode), false);
            IncomingMapping in = pongRegion.attachReceive(false);
            long hello = awaitPong(out, in, pongNode);
            double[] means = new double[batches];
            Histogram h = perRound ? new Histogram(3_600_000_000_000L, 3) : null;
            long r = hello + 1;
            // Three uncounted batches first: both JVMs' loops reach C2 (on-stack replacement) before timing.
            for (int b = -WARMUP_BATCHES; b < batches; b++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < rounds; i++, r++) {
                    long s = perRound ? System.nanoTime() : 0;
                    out.putLongVolatile(ROUND, r);
                    while (in.getLongAcquire(ROUND) != r) {
                        Thread.onSpinWait();
                    }
                    if (perRound && b >= 0) {
                        h.recordValue(Math.max(1, (System.nanoTime() - s) / 2));
                    }
                }
                long t1 = System.nanoTime();
                if (b >= 0) {
                    means[b] = (t1 - t0) / (2.0 * rounds);
                    if (progress != null) {
                        progress.batchDone(b + 1, batches);
                    }
                }
            }
            out.putLongVolatile(ROUND, -1); // tells pong to stop
            return new Result(means, h);
        }
    }

    /** The echoing side; returns after the pinger's stop value (waits for it without a bound). */
    public static void pong(Fabric f, long pingKey, long pongKey, int pingNode) {
        pong(f, pingKey, pongKey, pingNode, Duration.ZERO);
    }

    /**
     * The echoing side; returns after the pinger's stop value, or throws a time-out when the pinger
     * stays silent (no new hello or round) for {@code silence} ({@link Duration#ZERO}: no bound). A
     * server across hosts needs the bound: a pinger that died never sends its stop value.
     */
    public static void pong(Fabric f, long pingKey, long pongKey, int pingNode, Duration silence) {
        long bound = silence.toNanos();
        try (Region pingRegion = f.allocate(pingKey, f.pageSize(), 0660);
             Region pongRegion = f.allocate(pongKey, f.pageSize(), 0660)) {
            IncomingMapping in = pingRegion.attachReceive(false);
            OutgoingMapping out = pongRegion.attachTransmit(Route.node(pingNode), false);
            long answered = 0;
            long heard = System.nanoTime();
            int spins = 0;
            // before the first round (hello + 1): answer the pinger's hellos, a stale one too (the pinger
            // takes only its own)
            while (answered == 0 || in.getLongAcquire(ROUND) != answered + 1) {
                long hello = in.getLongAcquire(HELLO);
                if (hello != answered) {
                    out.putLongVolatile(HELLO, hello);
                    answered = hello;
                    heard = System.nanoTime();
                } else if (bound > 0 && (++spins & SILENCE_CHECK_MASK) == 0) {
                    heard = checkSilence(heard, bound, pingNode);
                }
                Thread.onSpinWait();
            }
            long last = answered;
            heard = System.nanoTime();
            while (true) {
                long v = in.getLongAcquire(ROUND);
                if (v == last) {
                    if (bound > 0 && (++spins & SILENCE_CHECK_MASK) == 0) {
                        heard = checkSilence(heard, bound, pingNode);
                    }
                    Thread.onSpinWait();
                    continue;
                }
                if (v == -1) {
                    return;
                }
                out.putLongVolatile(ROUND, v);
                last = v;
                spins = 0;
                heard = System.nanoTime();
            }
        }
    }

    /** Throws when more than {@code bound} ns passed since {@code heard}; returns {@code heard}. */
    private static long checkSilence(long heard, long bound, int pingNode) {
        if (System.nanoTime() - heard > bound) {
            throw new MemchanException(MemchanException.Kind.TIMEOUT, "the pinger on node " + pingNode
                    + " was silent for " + TimeUnit.NANOSECONDS.toSeconds(bound) + " s");
        }
        return heard;
    }

    /** Repeats a hello until pong's answer to it arrives (then pong is attached both ways); returns the hello. */
    private static long awaitPong(OutgoingMapping out, IncomingMapping in, int pongNode) {
        long hello = ThreadLocalRandom.current().nextLong(1, 1L << 62); // rounds count on from it, never to -1
        long start = System.nanoTime();
        long repeatAt = start;
        while (in.getLongAcquire(HELLO) != hello) {
            long now = System.nanoTime();
            if (now - repeatAt >= 0) {
                if (now - start > HELLO_TIMEOUT.toNanos()) {
                    throw new MemchanException(MemchanException.Kind.TIMEOUT, "the pong side on node " + pongNode
                            + " did not answer within " + HELLO_TIMEOUT.toSeconds() + " s");
                }
                out.putLongVolatile(HELLO, hello);
                repeatAt = now + HELLO_REPEAT_NANOS;
            }
            Thread.onSpinWait();
        }
        return hello;
    }
}
