package dev.memchan;

import dev.memchan.layout.Regs;

import java.time.Duration;

/**
 * How to open a fabric. Immutable; each {@code withX} returns a copy.
 *
 * @param nodeId          node ID to join, or {@link #ANY_NODE} for the first free one (soft fabric) / the
 *                        adapter's own (dev:/dev/memchanN) / the first adapter without a member process
 *                        (dev:/dev/memchan*); {@link #withNodeId} takes only real IDs, {@link #withAnyNode} the other.
 *                        A node that live processes of this host already use is joined as one more process
 *                        of it (docs/architecture.md, "Several processes per node")
 * @param create          create the soft fabric file when it does not exist
 * @param fabricSize      bytes of a created soft fabric (a power of two, at least 1 MiB)
 * @param pageSize        network page size of a created soft fabric (4096 or 8192)
 * @param maxNodes        node blocks of a created soft fabric (2..32)
 * @param group           group ID of a created soft fabric file (mode 0660), or {@link #CREATOR_GROUP} for the
 *                        creator's; {@link #withGroup} takes only real group IDs
 * @param heartbeatPeriod how often this node's agent heartbeats and watches the others
 * @param failureTimeout  a node on another host whose heartbeat stops this long is declared dead (on this
 *                        host, half of it without a live process); a detector whose own heartbeat ticks
 *                        run late stretches both, up to nine times, until they run on time again
 *                        (docs/architecture.md, "Liveness: one rule")
 */
public record FabricOptions(int nodeId, boolean create, long fabricSize, int pageSize, int maxNodes, int group,
                            Duration heartbeatPeriod, Duration failureTimeout) {

    /** {@link #nodeId()} of options that join as any node ({@link #defaults()}, {@link #withAnyNode()}). */
    public static final int ANY_NODE = -1;
    /** {@link #group()} of options that leave a created file in the creator's group. */
    public static final int CREATOR_GROUP = -1;

    public FabricOptions {
        if (nodeId != ANY_NODE) {
            checkNodeId(nodeId);
        }
        if (group != CREATOR_GROUP) {
            checkGroup(group);
        }
        if (heartbeatPeriod.isNegative() || heartbeatPeriod.isZero() || failureTimeout.compareTo(heartbeatPeriod.multipliedBy(2)) < 0) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "failure timeout " + failureTimeout
                    + " must be at least twice the heartbeat period " + heartbeatPeriod);
        }
    }

    /** Join as any free node; create a 16 MiB fabric with 4 KiB pages and 16 nodes when missing. */
    public static FabricOptions defaults() {
        return new FabricOptions(ANY_NODE, true, Regs.SF_DEFAULT_FILE_SIZE, Regs.SF_DEFAULT_PAGE_SIZE, Regs.SF_DEFAULT_MAX_NODES,
                CREATOR_GROUP, Duration.ofMillis(Regs.SYS_DEFAULT_HEARTBEAT_MS), Duration.ofMillis(Regs.SYS_DEFAULT_FAILURE_TIMEOUT_MS));
    }

    /**
     * Join as node {@code id}, 0..31 (the fabric may have fewer).
     *
     * @throws MemchanException INVALID_ARGUMENT for any other value, including -1: use {@link #withAnyNode()}
     */
    public FabricOptions withNodeId(int id) {
        return new FabricOptions(checkNodeId(id), create, fabricSize, pageSize, maxNodes, group, heartbeatPeriod, failureTimeout);
    }

    /** Join as the first free node (soft fabric) or the adapter's own node, as {@link #defaults()} does. */
    public FabricOptions withAnyNode() {
        return new FabricOptions(ANY_NODE, create, fabricSize, pageSize, maxNodes, group, heartbeatPeriod, failureTimeout);
    }

    public FabricOptions withCreate(boolean c) {
        return new FabricOptions(nodeId, c, fabricSize, pageSize, maxNodes, group, heartbeatPeriod, failureTimeout);
    }

    public FabricOptions withGeometry(long size, int page, int nodes) {
        return new FabricOptions(nodeId, create, size, page, nodes, group, heartbeatPeriod, failureTimeout);
    }

    /**
     * Give a created soft fabric file to group {@code gid} (0 or more).
     *
     * @throws MemchanException INVALID_ARGUMENT for a negative gid
     */
    public FabricOptions withGroup(int gid) {
        return new FabricOptions(nodeId, create, fabricSize, pageSize, maxNodes, checkGroup(gid), heartbeatPeriod, failureTimeout);
    }

    public FabricOptions withTiming(Duration heartbeat, Duration failure) {
        return new FabricOptions(nodeId, create, fabricSize, pageSize, maxNodes, group, heartbeat, failure);
    }

    private static int checkNodeId(int id) {
        if (id < 0 || id >= Regs.MAX_NODES) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT,
                    "node ID " + id + " out of range 0.." + (Regs.MAX_NODES - 1));
        }
        return id;
    }

    private static int checkGroup(int gid) {
        if (gid < 0) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "group ID " + gid + " out of range (0 or more)");
        }
        return gid;
    }
}
