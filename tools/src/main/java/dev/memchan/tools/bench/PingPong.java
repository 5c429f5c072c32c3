package dev.memchan.tools.bench;

import dev.memchan.Fabric;
import dev.memchan.IncomingMapping;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.Route;
import org.HdrHistogram.Histogram;

/**
 * The 8-byte ping-pong of seed 000 (Table 2, first row) between two nodes: ping stores round r
 * into the ping region (point-to-point to the pong node), pong waits for it in its receive copy and
 * stores r into the pong region, ping waits for that. One-way latency = round trip / 2.
 *
 * <pre>
 *  ping region (ping -> pong):  +0 u64 round
 *  pong region (pong -> ping):  +0 u64 round   +8 u64 ready flag
 * </pre>
 */
public final class PingPong {
    static final int WARMUP_BATCHES = 3;

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
            while (in.getLongVolatile(8) != 1) { // the pong node has attached
                Thread.onSpinWait();
            }
            double[] means = new double[batches];
            Histogram h = perRound ? new Histogram(3_600_000_000_000L, 3) : null;
            long r = 1;
            // Three uncounted batches first: both JVMs' loops reach C2 (on-stack replacement) before timing.
            for (int b = -WARMUP_BATCHES; b < batches; b++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < rounds; i++, r++) {
                    long s = perRound ? System.nanoTime() : 0;
                    out.putLongVolatile(0, r);
                    while (in.getLongAcquire(0) != r) {
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
            out.putLongVolatile(0, -1); // tells pong to stop
            return new Result(means, h);
        }
    }

    /** The echoing side; returns after the pinger's stop value. */
    public static void pong(Fabric f, long pingKey, long pongKey, int pingNode) {
        try (Region pingRegion = f.allocate(pingKey, f.pageSize(), 0660);
             Region pongRegion = f.allocate(pongKey, f.pageSize(), 0660)) {
            IncomingMapping in = pingRegion.attachReceive(false);
            OutgoingMapping out = pongRegion.attachTransmit(Route.node(pingNode), false);
            out.putLongVolatile(8, 1);
            long last = 0;
            while (true) {
                long v = in.getLongAcquire(0);
                if (v == last) {
                    Thread.onSpinWait();
                    continue;
                }
                if (v == -1) {
                    return;
                }
                out.putLongVolatile(0, v);
                last = v;
            }
        }
    }
}
