package dev.memchan.internal.cluster;

import dev.memchan.internal.HostIdentity;
import dev.memchan.internal.nativeio.Posix;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The one liveness rule of the library, for a node's member slot, a soft-fabric node block's OWNER and
 * the admin view alike. A node is judged by the process its slot (or OWNER) names and by its
 * membership HEARTBEAT:
 * <ol>
 *   <li>on this host (same boot ID and PID namespace, {@link HostIdentity}) the node is alive while that
 *       pid exists: the kernel's word. When the pid is gone, the node is dead unless the slot names
 *       another live process within the hand-over window (half the failure timeout, at least two
 *       heartbeat periods): a survivor among the node's processes names itself. (Not the heartbeat:
 *       the ivshmem driver beats for its node whether or not a process lives.)</li>
 *   <li>on another host (a VM sharing the fabric) the node is dead once its heartbeat has not moved for
 *       the failure timeout.</li>
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

    /**
     * How long a node whose named process died on this host has to show another live process: half the
     * failure timeout, at least two heartbeat periods (a survivor's agent, stalled on a loaded machine,
     * still gets several ticks).
     */
    public long handOverNanos() {
        return Math.max(2 * heartbeatPeriodNanos, failureTimeoutNanos / 2);
    }

    /** How long the rule observes: the hand-over window on this host, the failure timeout elsewhere. */
    private long silenceNanos(Verdict v) {
        return v == Verdict.DEAD ? handOverNanos() : failureTimeoutNanos;
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

    /** Without waiting: false when the named process is gone on this host (for read-only views). */
    public static boolean mayBeAlive(long hostId, long pid) {
        return ofProcess(hostId, pid) != Verdict.DEAD;
    }

    /**
     * Rules 1 and 2, observing now for as long as the rule needs: on this host the process the slot
     * names ({@code pidNow}, read anew) for the hand-over window, elsewhere {@code heartbeat} for the
     * failure timeout.
     */
    public boolean isDeadObserving(long hostId, LongSupplier pidNow, LongSupplier heartbeat) {
        Verdict v = ofProcess(hostId, pidNow.getAsLong());
        if (v == Verdict.ALIVE) {
            return false;
        }
        long first = heartbeat.getAsLong();
        long deadline = System.nanoTime() + silenceNanos(v);
        while (System.nanoTime() - deadline < 0) {
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
            boolean alive = v == Verdict.DEAD ? ofProcess(hostId, pidNow.getAsLong()) == Verdict.ALIVE
                    : heartbeat.getAsLong() != first;
            if (alive) {
                return false;
            }
            sleepNanos(Math.max(1_000_000L, heartbeatPeriodNanos / 2));
        }
        return true;
    }

    /**
     * Rules 1 and 2 for a node already watched: its heartbeat last moved at {@code lastChangeNanos}; on
     * this host the process its slot names was first seen gone at {@code goneSinceNanos}.
     */
    public boolean isDeadWatched(long hostId, long pid, long lastChangeNanos, long goneSinceNanos, long nowNanos) {
        Verdict v = ofProcess(hostId, pid);
        if (v == Verdict.ALIVE) {
            return false;
        }
        return v == Verdict.DEAD ? nowNanos - goneSinceNanos > handOverNanos() : nowNanos - lastChangeNanos > failureTimeoutNanos;
    }

    static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
