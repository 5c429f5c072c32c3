package dev.memchan.tools.bench;

import dev.memchan.ClusterLockSet;
import dev.memchan.Fabric;
import dev.memchan.LockKind;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.Route;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** Uncontended cluster-lock acquire + release, and a compare-and-set spinlock on the same kind of memory. */
public final class LockTiming {
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private static final VarHandle INT = JAVA_INT.varHandle();

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

    /**
     * ns per acquire+release of the CAS lock's own atomics written out by hand on a fabric page, without the
     * remote-atomic path: acquire CAS 0 -> mine, release CAS mine -> 0 (a release that checks the holder is a
     * second locked instruction where the spinlock stores). With {@code FETCH_AND_ADD}, each CAS is followed by a
     * fetch-and-add on a counter word in another cache line of another page, as the soft fabric's home counts
     * a served atomic; with {@code SINGLE_WRITER}, a plain load and release store of that word instead: what a
     * counter stripe with one writer (the calling thread) would cost. The CAS lock's floors: what is left above
     * them is the path's checks.
     */
    public static double casPairFloor(Fabric f, long key, int iterations, Counting counting) {
        try (Region r = f.allocate(key, 2L * f.pageSize(), 0660)) {
            OutgoingMapping out = r.attachTransmit(Route.broadcast(), true);
            MemorySegment seg = out.segment();
            long counter = f.pageSize() + Integer.BYTES; // the ATOMICS half of a page-counter slot
            long mine = 1L << 32 | 1;
            double ns = 0;
            for (int pass = 0; pass < 2; pass++) { // pass 0 warms up
                long t0 = System.nanoTime();
                for (int i = 0; i < iterations; i++) {
                    while ((long) LONG.compareAndExchange(seg, 0L, 0L, mine) != 0L) {
                        Thread.onSpinWait();
                    }
                    count(seg, counter, counting);
                    if ((long) LONG.compareAndExchange(seg, 0L, mine, 0L) != mine) {
                        throw new IllegalStateException("the floor's lock word changed under its only user");
                    }
                    count(seg, counter, counting);
                }
                ns = (System.nanoTime() - t0) / (double) iterations;
            }
            return ns;
        }
    }

    /** How a floor counts each CAS it performs. */
    public enum Counting { NONE, FETCH_AND_ADD, SINGLE_WRITER }

    private static void count(MemorySegment seg, long counter, Counting counting) {
        switch (counting) {
            case FETCH_AND_ADD -> INT.getAndAdd(seg, counter, 1);
            case SINGLE_WRITER -> INT.setRelease(seg, counter, (int) INT.get(seg, counter) + 1);
            case NONE -> { }
        }
    }
}
