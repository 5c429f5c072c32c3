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

    /** OP: WRITE, or a request page of the board (READ, FETCH_ADD, SWAP; docs/firmware.md). */
    public static int op(int entry) {
        return (entry & TX_PCT_OP_MASK) >>> TX_PCT_OP_SHIFT;
    }

    /**
     * Why an entry cannot be used on an emulated adapter (soft fabric, ivshmem), or null: there a
     * page only writes. Remote reads and atomics are served there by Region.attachRemote, not by
     * request pages of the transmit window, which only a board's adapter turns into requests.
     */
    public static String problemOnEmulatedAdapter(int entry, int maxNodes) {
        return problem(entry, maxNodes, ALL_CAPS, true);
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

    /** Every capability: the entry's own validity, whatever the adapter lacks. */
    private static final int ALL_CAPS = -1;

    /**
     * Why an entry is invalid for a cluster of {@code maxNodes} nodes, or null when it is valid (on a board
     * with every capability).
     */
    public static String problem(int entry, int maxNodes) {
        return problem(entry, maxNodes, ALL_CAPS, false);
    }

    /**
     * Why an entry cannot be used on an adapter of {@code maxNodes} nodes with CAPS {@code caps} ({@code emulated}:
     * soft fabric or ivshmem), or null: the verdict of the generated rule ({@link TxPctRule}, regmap/memchan.toml
     * [tx_pct_rule], the driver's check too) in words. {@link #unsupported(int, int, int, boolean)} tells an entry
     * this adapter cannot serve from an invalid one.
     */
    public static String problem(int entry, int maxNodes, int caps, boolean emulated) {
        int op = op(entry);
        int kind = destKind(entry);
        int dest = dest(entry);
        return switch (TxPctRule.check(entry, maxNodes, caps, emulated)) {
            case TX_RULE_OK -> null;
            case TX_RULE_RESERVED -> String.format("reserved bits set (0x%08x)", entry & ~TX_PCT_VALID_MASK);
            case TX_RULE_CAS -> "CAS is a kind of SWAP: it needs OP SWAP, not OP " + op;
            case TX_RULE_DEST_KIND -> op != OP_WRITE
                    ? "a remote read or atomic page (OP " + op + ") must name one node, not DEST_KIND " + kind
                    : "unknown DEST_KIND " + kind;
            case TX_RULE_DEST_RANGE -> switch (kind) {
                case DEST_KIND_NODE -> "destination node " + dest + " out of range 0.." + (maxNodes - 1);
                case DEST_KIND_BROADCAST -> "broadcast entry with non-zero DEST " + dest;
                default -> "multicast group " + dest + " out of range 0.." + (MULTICAST_GROUPS - 1);
            };
            case TX_RULE_EMULATED -> "request pages (OP " + op + ") are the board adapter's; on an emulated adapter "
                    + "remote reads and atomics go through Region.attachRemote";
            case TX_RULE_CAPS -> "OP " + op + " needs an adapter with CAPS bits 0x" + Integer.toHexString(TxPctRule.capsNeeded(op))
                    + "; this one has CAPS 0x" + Integer.toHexString(caps);
            default -> "transmit PCT rule verdict " + TxPctRule.name(TxPctRule.check(entry, maxNodes, caps, emulated));
        };
    }

    /** Whether the entry is valid but this adapter cannot serve it (the driver's EOPNOTSUPP, not EINVAL). */
    public static boolean unsupported(int entry, int maxNodes, int caps, boolean emulated) {
        int verdict = TxPctRule.check(entry, maxNodes, caps, emulated);
        return verdict == TX_RULE_EMULATED || verdict == TX_RULE_CAPS;
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
