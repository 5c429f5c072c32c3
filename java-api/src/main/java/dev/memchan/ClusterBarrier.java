package dev.memchan;

import dev.memchan.MemchanException.Kind;

import java.time.Duration;

/**
 * A rendezvous of {@code parties} nodes. Each arrival first sweeps this node's earlier stores to
 * their destinations ({@link Fabric#ackBarrier()}), then publishes its generation; so when
 * {@link #await} returns, every store any party made before arriving is visible.
 *
 * <pre>
 *  region KEY (broadcast + local copy):  u64 generation[node], at 8 * node
 * </pre>
 */
public final class ClusterBarrier implements AutoCloseable {
    private final Fabric fabric;
    private final Region region;
    private final OutgoingMapping out;
    private final IncomingMapping in;
    private final int parties;
    private long generation;

    private ClusterBarrier(Fabric fabric, Region region, OutgoingMapping out, IncomingMapping in, int parties) {
        this.fabric = fabric;
        this.region = region;
        this.out = out;
        this.in = in;
        this.parties = parties;
        this.generation = in.getLongAcquire(8L * fabric.nodeId());
    }

    public static ClusterBarrier open(Fabric fabric, long key, int parties) {
        if (parties < 1 || parties > fabric.maxNodes()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "a barrier has 1.." + fabric.maxNodes() + " parties, not " + parties);
        }
        Region r = fabric.allocate(key, 8L * fabric.maxNodes(), 0660);
        try {
            return fabric.track(new ClusterBarrier(fabric, r, r.attachTransmit(Route.broadcast(), true), r.attachReceive(false), parties));
        } catch (RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /** Arrives and waits for the other parties; throws TIMEOUT after {@code timeout}. */
    public void await(Duration timeout) {
        fabric.ackBarrier();
        long gen = ++generation;
        out.putLongReleaseAfterPushes(8L * fabric.nodeId(), gen); // the ack barrier pushed every grant
        long deadline = System.nanoTime() + timeout.toNanos();
        int spins = 0;
        while (arrived(gen) < parties) {
            if (System.nanoTime() - deadline > 0) {
                throw new MemchanException(Kind.TIMEOUT, "barrier generation " + gen + ": " + arrived(gen) + " of "
                        + parties + " parties arrived within " + timeout.toMillis() + " ms");
            }
            if (++spins > 1000) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private int arrived(long gen) {
        int n = 0;
        for (int node = 0; node < fabric.maxNodes(); node++) {
            if (in.getLongAcquire(8L * node) >= gen) {
                n++;
            }
        }
        return n;
    }

    @Override
    public void close() {
        region.close();
        fabric.untrack(this);
    }
}
