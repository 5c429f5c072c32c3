package dev.memchan.tools.bench;

import dev.memchan.ClusterLockSet;
import dev.memchan.Fabric;
import dev.memchan.LockKind;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.Route;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** Uncontended cluster-lock acquire + release, and a compare-and-set spinlock on the same kind of memory. */
public final class LockTiming {
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private LockTiming() {
    }

    /** ns per acquire+release of a memchan cluster lock of {@code kind} nobody else bids for (after as many warm-up rounds). */
    public static double clusterLock(Fabric f, long key, int iterations, LockKind kind) {
        try (ClusterLockSet locks = f.lockSet(key, 1, kind)) {
            double ns = 0;
            for (int pass = 0; pass < 2; pass++) { // pass 0 warms up
                long t0 = System.nanoTime();
                for (int i = 0; i < iterations; i++) {
                    locks.acquire(0);
                    locks.release(0);
                }
                ns = (System.nanoTime() - t0) / (double) iterations;
            }
            return ns;
        }
    }

    /**
     * ns per acquire+release of a CAS spinlock in a fabric page: the floor for any lock in shared memory on
     * this machine. (Memory Channel has no remote atomics, which is why its lock bids; the CAS lock is this
     * spinlock through the remote-atomic path: the home's grant check, the page counter.)
     */
    public static double casSpinlock(Fabric f, long key, int iterations) {
        try (Region r = f.allocate(key, f.pageSize(), 0660)) {
            OutgoingMapping out = r.attachTransmit(Route.broadcast(), true);
            MemorySegment word = out.segment();
            double ns = 0;
            for (int pass = 0; pass < 2; pass++) { // pass 0 warms up
                long t0 = System.nanoTime();
                for (int i = 0; i < iterations; i++) {
                    while (!LONG.compareAndSet(word, 0L, 0L, 1L)) {
                        Thread.onSpinWait();
                    }
                    LONG.setRelease(word, 0L, 0L);
                }
                ns = (System.nanoTime() - t0) / (double) iterations;
            }
            return ns;
        }
    }
}
