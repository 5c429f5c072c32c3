package dev.memchan.layout;

import static dev.memchan.layout.Regs.*;

/**
 * Transmit PCT entry codec: one u32 per network page.
 *
 * <pre>
 *  31            16 15           8 7   6 5   4 3   2     1         0
 * +----------------+--------------+-----+-----+---+-------+----------+--------+
 * |    reserved    |     DEST     | res |KIND |res|ACK_REQ|LOCAL_COPY| TX_EN  |
 * +----------------+--------------+-----+-----+---+-------+----------+--------+
 *   KIND: 0 one node, 1 broadcast, 2 multicast group
 * </pre>
 */
public final class TxPct {
    private TxPct() {
    }

    public static int encode(boolean enable, boolean localCopy, boolean ackRequest, int destKind, int dest) {
        return (enable ? TX_PCT_TX_EN_MASK : 0)
                | (localCopy ? TX_PCT_LOCAL_COPY_MASK : 0)
                | (ackRequest ? TX_PCT_ACK_REQ_MASK : 0)
                | ((destKind << TX_PCT_DEST_KIND_SHIFT) & TX_PCT_DEST_KIND_MASK)
                | ((dest << TX_PCT_DEST_SHIFT) & TX_PCT_DEST_MASK);
    }

    public static boolean enabled(int entry) {
        return (entry & TX_PCT_TX_EN_MASK) != 0;
    }

    public static boolean localCopy(int entry) {
        return (entry & TX_PCT_LOCAL_COPY_MASK) != 0;
    }

    public static boolean ackRequest(int entry) {
        return (entry & TX_PCT_ACK_REQ_MASK) != 0;
    }

    public static int destKind(int entry) {
        return (entry & TX_PCT_DEST_KIND_MASK) >>> TX_PCT_DEST_KIND_SHIFT;
    }

    public static int dest(int entry) {
        return (entry & TX_PCT_DEST_MASK) >>> TX_PCT_DEST_SHIFT;
    }

    /** The route part of an entry (kind and destination), comparable between nodes. */
    public static int route(int entry) {
        return entry & (TX_PCT_DEST_KIND_MASK | TX_PCT_DEST_MASK);
    }

    /**
     * Why an entry is invalid for a cluster of {@code maxNodes} nodes, or null when it is valid.
     */
    public static String problem(int entry, int maxNodes) {
        if ((entry & ~TX_PCT_VALID_MASK) != 0) {
            return String.format("reserved bits set (0x%08x)", entry & ~TX_PCT_VALID_MASK);
        }
        int kind = destKind(entry);
        int dest = dest(entry);
        return switch (kind) {
            case DEST_KIND_NODE -> dest < maxNodes ? null : "destination node " + dest + " out of range 0.." + (maxNodes - 1);
            case DEST_KIND_BROADCAST -> dest == 0 ? null : "broadcast entry with non-zero DEST " + dest;
            case DEST_KIND_MULTICAST -> dest < MULTICAST_GROUPS ? null
                    : "multicast group " + dest + " out of range 0.." + (MULTICAST_GROUPS - 1);
            default -> "unknown DEST_KIND " + kind;
        };
    }

    public static String describe(int entry) {
        if (!enabled(entry)) {
            return "-";
        }
        String where = switch (destKind(entry)) {
            case DEST_KIND_NODE -> "node " + dest(entry);
            case DEST_KIND_BROADCAST -> "broadcast";
            case DEST_KIND_MULTICAST -> "group " + dest(entry);
            default -> "kind?" + destKind(entry);
        };
        return where + (localCopy(entry) ? " +local" : "") + (ackRequest(entry) ? " +ack" : "");
    }
}
