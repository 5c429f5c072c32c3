package dev.memchan.admin;

import dev.memchan.spi.Backend;

import java.util.List;
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

    /**
     * Operator PCT writes ({@code mcctl pct}, {@code apply}) through {@code view} (of this member's fabric) as
     * one {@link #transaction} with the directory: the batch is validated against the directory as it is now
     * ({@link AdapterView#problems}; INVALID_ARGUMENT, nothing changed, on any problem), written, and the pages
     * that hold an entry after it become static carve-outs (so the allocator never hands them to a region)
     * while carve-outs whose pages no visible node holds any more are freed. When the directory refuses (it
     * is full), the PCT entries are put back as they were.
     */
    void writePct(AdapterView view, List<PctWrite> batch);

    /**
     * This member's adapter itself (registers, raw PCT writes, grants): privileged, for tools and tests that
     * exercise the adapter beneath the programming model. Valid while the fabric is open.
     */
    Backend adapter();
}
