package dev.memchan.internal;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.nativeio.Posix;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The one liveness rule of the library, for a node's member slot, a soft-fabric node block's OWNER and
 * the admin view alike. A node is judged by the process its slot (or OWNER) names, by the processes its
 * node-local table lists, and by its membership HEARTBEAT:
 * <ol>
 *   <li>on this host (same boot ID and PID namespace, {@link HostIdentity}) the node is alive while that
 *       pid exists, or while its node-local table (of the same incarnation) lists another process that
 *       exists: the kernel's word. When none does, the node is dead unless the slot names another live
 *       process within the hand-over window (half the failure timeout, at least two heartbeat periods):
 *       a survivor among the node's processes that had not registered yet, or whose table this process
 *       cannot read. (Not the heartbeat: the ivshmem driver beats for its node whether or not a process
 *       lives.)</li>
 *   <li>on another host (a VM sharing the fabric) the node is dead once its heartbeat has not moved for
 *       the failure timeout.</li>
 * </ol>
 * Both windows are stretched by this detector's <em>local health</em> (after Lifeguard, Dadgar et al.
 * 2018): the heartbeat agent reports how late each of its sleeps returned ({@link #tickReturned}); while
 * its own ticks run late the machine is busy, the judged node's processes are likely late too, and the
 * windows grow by one base window per point of the score (at most {@link #MAX_SCORE}); on-time ticks
 * bring the score back down, one point per {@link #DECAY_TICKS} of them.
 * <p>
 * Rule 2 is also the driver's: the ivshmem backend takes over a node block only after its heartbeat
 * stood still for {@code MEMCHAN_STALE_MS}, longer than the default failure timeout.
 */
public final class Liveness {
    /** What the kernel of this host can say about a process without waiting. */
    public enum Verdict { ALIVE, DEAD, ANOTHER_HOST }

    /** The local-health score's ceiling: the windows are at most (1 + MAX_SCORE) times their base. */
    public static final int MAX_SCORE = 8;
    /** On-time ticks in a row that take one point off the score. */
    public static final int DECAY_TICKS = 10;

    private final long heartbeatPeriodNanos;
    private final long failureTimeoutNanos;
    private volatile int score;
    private int onTime;
    private volatile long worstLateNanos;

    public Liveness(long heartbeatPeriodNanos, long failureTimeoutNanos) {
        this.heartbeatPeriodNanos = heartbeatPeriodNanos;
        this.failureTimeoutNanos = failureTimeoutNanos;
    }

    /**
     * How late a sleep may return and still count as on time: a quarter of the heartbeat period, at
     * least 5 ms (the scheduler's ordinary wake-up latency on a loaded machine is a few ms).
     */
    public long lateThresholdNanos() {
        return Math.max(5_000_000L, heartbeatPeriodNanos / 4);
    }

    /**
     * The heartbeat agent's report: a sleep of {@code askedNanos} returned after {@code tookNanos}. A late
     * return raises the score by one, plus one per whole heartbeat period of lateness; an on-time one
     * counts towards the decay. Called by one thread (the agent).
     */
    public void tickReturned(long askedNanos, long tookNanos) {
        long late = tookNanos - askedNanos;
        if (late > worstLateNanos) {
            worstLateNanos = late;
        }
        if (late > lateThresholdNanos()) {
            score = (int) Math.min(MAX_SCORE, score + 1 + late / heartbeatPeriodNanos);
            onTime = 0;
        } else if (score > 0 && ++onTime >= DECAY_TICKS) {
            score--;
            onTime = 0;
        }
    }

    /** The local-health score: 0 while this detector's ticks are on time, up to {@link #MAX_SCORE}. */
    public int score() {
        return score;
    }

    /** The latest any tick has returned so far (for reports). */
    public long worstLateNanos() {
        return worstLateNanos;
    }

    /** The factor the windows are stretched by now: 1 + the score. */
    public int multiplier() {
        return 1 + score;
    }

    /**
     * How long a node whose named process died on this host has to show another live process: half the
     * failure timeout, at least two heartbeat periods, times the {@link #multiplier}.
     */
    public long handOverNanos() {
        return baseHandOverNanos() * multiplier();
    }

    /** The hand-over window of a healthy detector. */
    public long baseHandOverNanos() {
        return Math.max(2 * heartbeatPeriodNanos, failureTimeoutNanos / 2);
    }

    /** The failure timeout (rule 2) now: the configured one times the {@link #multiplier}. */
    public long failureTimeoutNanos() {
        return failureTimeoutNanos * multiplier();
    }

    /** The configured failure timeout. */
    public long baseFailureTimeoutNanos() {
        return failureTimeoutNanos;
    }

    /** How long the rule observes: the hand-over window on this host, the failure timeout elsewhere. */
    private long silenceNanos(Verdict v) {
        return v == Verdict.DEAD ? handOverNanos() : failureTimeoutNanos();
    }

    /** Rule 1: the process {@code pid} of host {@code hostId}. */
    public static Verdict ofProcess(long hostId, long pid) {
        if (hostId != HostIdentity.hostId()) {
            return Verdict.ANOTHER_HOST;
        }
        return pid > 0 && Posix.processExists((int) pid) ? Verdict.ALIVE : Verdict.DEAD;
    }

    /**
     * Rule 1 for a node: the process {@code pid} its slot names, and when that one is gone on this host,
     * {@code listsLiveProcess} (its node-local table lists another process that exists; asked only then).
     */
    public static Verdict ofNode(long hostId, long pid, BooleanSupplier listsLiveProcess) {
        Verdict v = ofProcess(hostId, pid);
        return v == Verdict.DEAD && listsLiveProcess.getAsBoolean() ? Verdict.ALIVE : v;
    }

    /** Without waiting: false when the named process is gone on this host (for read-only views). */
    public static boolean mayBeAlive(long hostId, long pid) {
        return ofProcess(hostId, pid) != Verdict.DEAD;
    }

    /**
     * Rules 1 and 2, observing now for as long as the rule needs: on this host the process the slot
     * names ({@code pidNow}, read anew) and the node's table ({@code listsLiveProcess}) for the hand-over
     * window, elsewhere {@code heartbeat} for the failure timeout.
     */
    public boolean isDeadObserving(long hostId, LongSupplier pidNow, BooleanSupplier listsLiveProcess, LongSupplier heartbeat) {
        Verdict v = ofNode(hostId, pidNow.getAsLong(), listsLiveProcess);
        if (v == Verdict.ALIVE) {
            return false;
        }
        long first = heartbeat.getAsLong();
        long start = System.nanoTime();
        while (System.nanoTime() - start < silenceNanos(v)) { // the window as stretched now
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
            boolean alive = v == Verdict.DEAD ? ofNode(hostId, pidNow.getAsLong(), listsLiveProcess) == Verdict.ALIVE
                    : heartbeat.getAsLong() != first;
            if (alive) {
                return false;
            }
            sleepNanos(Math.max(1_000_000L, heartbeatPeriodNanos / 2));
        }
        return true;
    }

    /**
     * Rules 1 and 2 for a node already watched, judged at this tick as {@code v} ({@link #ofNode}): its
     * heartbeat last moved at {@code lastChangeNanos}; on this host no live process of it was seen since
     * {@code goneSinceNanos}.
     */
    public boolean isDeadWatched(Verdict v, long lastChangeNanos, long goneSinceNanos, long nowNanos) {
        if (v == Verdict.ALIVE) {
            return false;
        }
        return v == Verdict.DEAD ? nowNanos - goneSinceNanos > handOverNanos() : nowNanos - lastChangeNanos > failureTimeoutNanos();
    }

    /** The refusal of node {@code n} of {@code location}, which member process {@code pid} holds. */
    public static MemchanException nodeInUse(int n, String location, long pid) {
        return new MemchanException(Kind.IN_USE, "node ID " + n + " of " + location + " is in use by pid "
                + pid + " (a member process)");
    }

    /** Sleeps {@code nanos}, keeping an interrupt as the thread's status. */
    public static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
