package dev.memchan.internal.cluster;

import dev.memchan.internal.HostIdentity;
import dev.memchan.internal.nativeio.Posix;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The one liveness rule of the library, for a member slot, a soft-fabric node block's OWNER and the
 * admin view alike:
 * <ol>
 *   <li>a process of this host (same boot ID and PID namespace, {@link HostIdentity}) is alive while its
 *       pid exists: the kernel's word, no waiting;</li>
 *   <li>a process on another host (a VM sharing the fabric) is dead once its node's membership
 *       HEARTBEAT has not moved for the failure timeout.</li>
 * </ol>
 * Rule 2 is also the driver's: the ivshmem backend takes over a node block only after its heartbeat
 * stood still for {@code MEMCHAN_STALE_MS}, longer than the default failure timeout.
 */
public final class Liveness {
    /** What the kernel of this host can say about a process without waiting. */
    public enum Verdict { ALIVE, DEAD, ANOTHER_HOST }

    private final long heartbeatPeriodNanos;
    private final long failureTimeoutNanos;

    public Liveness(long heartbeatPeriodNanos, long failureTimeoutNanos) {
        this.heartbeatPeriodNanos = heartbeatPeriodNanos;
        this.failureTimeoutNanos = failureTimeoutNanos;
    }

    public long failureTimeoutNanos() {
        return failureTimeoutNanos;
    }

    /** Rule 1: the process {@code pid} of host {@code hostId}. */
    public static Verdict ofProcess(long hostId, long pid) {
        if (hostId != HostIdentity.hostId()) {
            return Verdict.ANOTHER_HOST;
        }
        return pid > 0 && Posix.processExists((int) pid) ? Verdict.ALIVE : Verdict.DEAD;
    }

    /** Without waiting: false only when rule 1 proves the process dead (for read-only views). */
    public static boolean mayBeAlive(long hostId, long pid) {
        return ofProcess(hostId, pid) != Verdict.DEAD;
    }

    /** Rules 1 and 2, observing {@code heartbeat} for up to the failure timeout now when on another host. */
    public boolean isDeadObserving(long hostId, long pid, LongSupplier heartbeat) {
        Verdict v = ofProcess(hostId, pid);
        if (v != Verdict.ANOTHER_HOST) {
            return v == Verdict.DEAD;
        }
        long first = heartbeat.getAsLong();
        long deadline = System.nanoTime() + failureTimeoutNanos;
        while (System.nanoTime() - deadline < 0) {
            if (heartbeat.getAsLong() != first || Thread.currentThread().isInterrupted()) {
                return false;
            }
            sleepNanos(Math.max(1_000_000L, heartbeatPeriodNanos / 2));
        }
        return true;
    }

    /** Rules 1 and 2 for a node already watched: its heartbeat last moved at {@code lastChangeNanos}. */
    public boolean isDeadWatched(long hostId, long pid, long lastChangeNanos, long nowNanos) {
        Verdict v = ofProcess(hostId, pid);
        if (v != Verdict.ANOTHER_HOST) {
            return v == Verdict.DEAD;
        }
        return nowNanos - lastChangeNanos > failureTimeoutNanos;
    }

    static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
