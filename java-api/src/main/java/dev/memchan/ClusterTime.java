package dev.memchan;

/**
 * The cluster's global time as one node read it ({@link Fabric#clusterTime()}), after Memory Channel 2's
 * global clock (seed 000): every node reads the same time, within {@link #bound()} of the clock master's.
 *
 * @param time   the global time in {@link #unit()} ticks
 * @param bound  error bound of {@code time} against the clock master's time, in ticks: the master's time at
 *               the moment of the read lies in {@code time .. time + bound} (a node is never ahead of the
 *               master). Two nodes' readings at one moment differ by at most the larger of their bounds.
 * @param offset this node's time minus the master's as its last synchronization measured it, in ticks
 *               (0 on the master and where every node reads one clock)
 * @param unit   what a tick is
 */
public record ClusterTime(long time, long bound, long offset, Unit unit) {
    /** What a tick of a {@link ClusterTime} is. */
    public enum Unit {
        /**
         * Nanoseconds of a monotonic clock: the host's on the soft fabric (every node is a process on one host
         * and reads the same clock, so the bound is 0); the clock master guest's on the driver's ivshmem
         * backend (each other node estimates it, with a bound).
         */
        NANOSECONDS,
        /**
         * Cycles of the adapter's link clock since the master (the hub, or node 0 of two adapters back to
         * back) came out of reset: the adapter's GLOBAL_TIME register.
         */
        LINK_CYCLES
    }
}
