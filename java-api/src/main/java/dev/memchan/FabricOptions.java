package dev.memchan;

import dev.memchan.layout.Regs;

import java.time.Duration;

/**
 * How to open a fabric. Immutable; each {@code withX} returns a copy.
 *
 * @param nodeId          node ID to claim, or -1 for the first free one (soft fabric) / the adapter's own
 *                        (dev:/dev/memchanN) / the first adapter without a member process (dev:/dev/memchan*)
 * @param create          create the soft fabric file when it does not exist
 * @param fabricSize      bytes of a created soft fabric (a power of two, at least 1 MiB)
 * @param pageSize        network page size of a created soft fabric (4096 or 8192)
 * @param maxNodes        node blocks of a created soft fabric (2..32)
 * @param group           group ID of a created soft fabric file (mode 0660), or -1 for the creator's
 * @param heartbeatPeriod how often this node's agent heartbeats and watches the others
 * @param failureTimeout  a node on another host whose heartbeat stops this long is declared dead
 */
public record FabricOptions(int nodeId, boolean create, long fabricSize, int pageSize, int maxNodes, int group,
                            Duration heartbeatPeriod, Duration failureTimeout) {

    public FabricOptions {
        if (heartbeatPeriod.isNegative() || heartbeatPeriod.isZero() || failureTimeout.compareTo(heartbeatPeriod.multipliedBy(2)) < 0) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "failure timeout " + failureTimeout
                    + " must be at least twice the heartbeat period " + heartbeatPeriod);
        }
    }

    /** Join as any free node; create a 16 MiB fabric with 4 KiB pages and 16 nodes when missing. */
    public static FabricOptions defaults() {
        return new FabricOptions(-1, true, Regs.SF_DEFAULT_FILE_SIZE, Regs.SF_DEFAULT_PAGE_SIZE, Regs.SF_DEFAULT_MAX_NODES, -1,
                Duration.ofMillis(100), Duration.ofMillis(800));
    }

    public FabricOptions withNodeId(int id) {
        return new FabricOptions(id, create, fabricSize, pageSize, maxNodes, group, heartbeatPeriod, failureTimeout);
    }

    public FabricOptions withCreate(boolean c) {
        return new FabricOptions(nodeId, c, fabricSize, pageSize, maxNodes, group, heartbeatPeriod, failureTimeout);
    }

    public FabricOptions withGeometry(long size, int page, int nodes) {
        return new FabricOptions(nodeId, create, size, page, nodes, group, heartbeatPeriod, failureTimeout);
    }

    public FabricOptions withGroup(int gid) {
        return new FabricOptions(nodeId, create, fabricSize, pageSize, maxNodes, gid, heartbeatPeriod, failureTimeout);
    }

    public FabricOptions withTiming(Duration heartbeat, Duration failure) {
        return new FabricOptions(nodeId, create, fabricSize, pageSize, maxNodes, group, heartbeat, failure);
    }
}
