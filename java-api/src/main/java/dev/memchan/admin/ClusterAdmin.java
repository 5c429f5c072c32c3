package dev.memchan.admin;

import java.util.function.Function;

/**
 * What an operator tool (mcctl) needs of a cluster member beyond the programming model: a read-only
 * view of the cluster, and transactions that change the operator's static carve-outs under the
 * cluster lock. Obtained from {@code Fabric.admin()}; valid while that fabric is open.
 */
public interface ClusterAdmin {
    /** The cluster as this member's receive mapping of the system pages shows it. */
    ClusterView view();

    /**
     * How many times its configured windows (failure timeout, hand-over window) this member's failure
     * detector waits now before it declares another node dead: 1 while its own heartbeat ticks come on
     * time, more while they come late (a busy host), at most 9; back to 1 after on-time ticks (local
     * health, as in Lifeguard).
     */
    int detectorStretch();

    /**
     * Runs {@code body} holding the cluster lock, so no program allocates in between; the directory
     * writes of {@code body} are swept out to every node before the lock is released. The
     * {@link StaticCarveOuts} handle is valid only inside {@code body}.
     */
    <T> T transaction(Function<StaticCarveOuts, T> body);
}
