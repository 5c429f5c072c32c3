package dev.memchan.internal.local;

import dev.memchan.internal.nativeio.Posix;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A mutex between the processes of one node on one host: a u64 word {@code owner pid << 32 | depth}
 * in the node's local table. A process holds it while any of its threads does (depth counts them;
 * threads of one process are serialized by their own Java locks in front of it). An owner that died
 * is recognized by its pid (same host: the kernel's word) and the mutex taken over; the process that
 * took it then runs the {@code recover} action, which undoes what the dead owner may have left half
 * done, before anyone can hold it.
 * <pre>
 *   63        32 31         30                          0
 *  +------------+-----------+----------------------------+
 *  | owner pid  | RECOVERING| depth (threads of the pid) |
 *  +------------+-----------+----------------------------+
 * </pre>
 * RECOVERING: the owner is undoing a dead owner's state and does not hold the mutex for its threads,
 * so they wait as any other process does. Recovery runs only in the process whose compare-and-set
 * took the word from the dead pid: two processes recovering at once would let the slower one undo
 * what the faster one did after its recovery (a lock set's recovery clears the node's bids, and the
 * faster one's new bid is the node's bid).
 */
public final class NodeMutex {
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private static final long RECOVERING = 1L << 31;

    private NodeMutex() {
    }

    public static int owner(MemorySegment table, long word) {
        return (int) ((long) LONG.getVolatile(table, word) >>> 32);
    }

    /** Takes the mutex for process {@code pid} (or one more level of it if {@code pid} holds it). */
    public static void acquire(MemorySegment table, long word, int pid, Runnable recover) {
        for (int attempt = 0; ; attempt++) {
            long w = (long) LONG.getVolatile(table, word);
            int owner = (int) (w >>> 32);
            if (w == 0) {
                if (LONG.compareAndSet(table, word, 0L, ((long) pid << 32) | 1)) {
                    return;
                }
            } else if (owner == pid && (w & RECOVERING) == 0) {
                if (LONG.compareAndSet(table, word, w, w + 1)) {
                    return;
                }
            } else if (attempt < 64) {
                Thread.onSpinWait(); // a live owner's critical section is short: spin before asking the kernel
            } else if (owner != pid && !Posix.processExists(owner)) { // reads /proc: once per park, not per spin
                if (recoverFrom(table, word, w, pid, recover)) {
                    LONG.setVolatile(table, word, ((long) pid << 32) | 1);
                    return;
                }
            } else {
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(20_000, 200_000));
            }
        }
    }

    /**
     * Frees the mutex if process {@code deadPid} (dead) still holds it, after {@code recover} has run in this
     * process ({@code pid}); false (and nothing run) if another process holds it or took it over first.
     */
    public static boolean freeIfHeldBy(MemorySegment table, long word, int deadPid, int pid, Runnable recover) {
        long w = (long) LONG.getVolatile(table, word);
        if ((int) (w >>> 32) != deadPid || !recoverFrom(table, word, w, pid, recover)) {
            return false;
        }
        LONG.setVolatile(table, word, 0L);
        return true;
    }

    /**
     * Takes the word {@code w} (a dead owner's) for {@code pid} marked RECOVERING and runs {@code recover}; the
     * caller then sets the word. False if another process changed it first. If {@code recover} throws, the
     * word is the dead owner's again, so that the next process to find it recovers.
     */
    private static boolean recoverFrom(MemorySegment table, long word, long w, int pid, Runnable recover) {
        if (!LONG.compareAndSet(table, word, w, ((long) pid << 32) | RECOVERING)) {
            return false;
        }
        try {
            recover.run();
        } catch (RuntimeException | Error e) {
            LONG.setVolatile(table, word, w);
            throw e;
        }
        return true;
    }

    /** One attempt: true when {@code pid} now holds the mutex (one level more if it held it). */
    public static boolean tryAcquire(MemorySegment table, long word, int pid) {
        long w = (long) LONG.getVolatile(table, word);
        if (w == 0) {
            return LONG.compareAndSet(table, word, 0L, ((long) pid << 32) | 1);
        }
        return (int) (w >>> 32) == pid && (w & RECOVERING) == 0 && LONG.compareAndSet(table, word, w, w + 1);
    }

    /** Gives up one level; the last one frees the mutex. */
    public static void release(MemorySegment table, long word, int pid) {
        while (true) {
            long w = (long) LONG.getVolatile(table, word);
            if ((int) (w >>> 32) != pid) {
                throw new IllegalStateException("node mutex released by pid " + pid + " but held by " + (w >>> 32));
            }
            long next = (w & 0xFFFF_FFFFL) == 1 ? 0L : w - 1;
            if (LONG.compareAndSet(table, word, w, next)) {
                return;
            }
        }
    }
}
