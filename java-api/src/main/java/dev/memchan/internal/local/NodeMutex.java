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
 * is recognized by its pid (same host: the kernel's word) and the mutex taken over, after the
 * {@code recover} action has undone what the dead owner may have left half done.
 */
public final class NodeMutex {
    private static final VarHandle LONG = JAVA_LONG.varHandle();

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
            } else if (owner == pid) {
                if (LONG.compareAndSet(table, word, w, w + 1)) {
                    return;
                }
            } else if (!Posix.processExists(owner)) {
                recover.run();
                if (LONG.compareAndSet(table, word, w, ((long) pid << 32) | 1)) {
                    return;
                }
            } else if (attempt < 64) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(20_000, 200_000));
            }
        }
    }

    /** Frees the mutex if process {@code pid} (dead) still holds it. */
    public static void clearOwnedBy(MemorySegment table, long word, int pid) {
        long w = (long) LONG.getVolatile(table, word);
        if ((int) (w >>> 32) == pid) {
            LONG.compareAndSet(table, word, w, 0L);
        }
    }

    /** One attempt: true when {@code pid} now holds the mutex (one level more if it held it). */
    public static boolean tryAcquire(MemorySegment table, long word, int pid) {
        long w = (long) LONG.getVolatile(table, word);
        if (w == 0) {
            return LONG.compareAndSet(table, word, 0L, ((long) pid << 32) | 1);
        }
        return (int) (w >>> 32) == pid && LONG.compareAndSet(table, word, w, w + 1);
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
