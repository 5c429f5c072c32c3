package dev.memchan.layout;

import static dev.memchan.layout.Regs.*;

/**
 * Receive PCT entry codec: one u64 per network page.
 *
 * <pre>
 *  63                               12 11   7     6        5        4       3      2     1       0
 * +-----------------------------------+-------+---------+---------+-------+--------+---+---------+-----+
 * |   REMAP_ADDR (host address >> 12)   |  res  |COUNT_IRQ|ATOMIC_EN|READ_EN|REMAP_EN|res|IRQ_ON_RX|RX_EN|
 * +-----------------------------------+-------+---------+---------+-------+--------+---+---------+-----+
 * </pre>
 * REMAP is programmed by the driver on hardware (receive-side remapping); user requests carry
 * RX_EN, IRQ_ON_RX and the home's remote grants READ_EN, ATOMIC_EN, COUNT_IRQ.
 */
public final class RxPct {
    private RxPct() {
    }

    public static long encode(boolean enable, boolean interruptOnReceive) {
        return (enable ? RX_PCT_RX_EN_MASK : 0) | (interruptOnReceive ? RX_PCT_IRQ_ON_RX_MASK : 0);
    }

    /** An entry with the home's remote grants: other nodes may read ({@code read}) or run atomics ({@code atomic}) on the page. */
    public static long encode(boolean enable, boolean interruptOnReceive, boolean read, boolean atomic, boolean countInterrupt) {
        return encode(enable, interruptOnReceive) | (read ? RX_PCT_READ_EN_MASK : 0) | (atomic ? RX_PCT_ATOMIC_EN_MASK : 0)
                | (countInterrupt ? RX_PCT_COUNT_IRQ_MASK : 0);
    }

    /** The bits a home grants other nodes: READ_EN, ATOMIC_EN, COUNT_IRQ. */
    public static final long REMOTE_GRANTS = RX_PCT_READ_EN_MASK | RX_PCT_ATOMIC_EN_MASK | RX_PCT_COUNT_IRQ_MASK;

    public static boolean readable(long entry) {
        return (entry & RX_PCT_READ_EN_MASK) != 0;
    }

    public static boolean atomics(long entry) {
        return (entry & RX_PCT_ATOMIC_EN_MASK) != 0;
    }

    public static boolean countInterrupt(long entry) {
        return (entry & RX_PCT_COUNT_IRQ_MASK) != 0;
    }

    public static boolean enabled(long entry) {
        return (entry & RX_PCT_RX_EN_MASK) != 0;
    }

    public static boolean interruptOnReceive(long entry) {
        return (entry & RX_PCT_IRQ_ON_RX_MASK) != 0;
    }

    /** Why an entry is invalid, or null when it is valid. */
    public static String problem(long entry) {
        if ((entry & ~RX_PCT_VALID_MASK) != 0) {
            return String.format("reserved bits set (0x%016x)", entry & ~RX_PCT_VALID_MASK);
        }
        return null;
    }

    public static String describe(long entry) {
        String grants = (readable(entry) ? " +read" : "") + (atomics(entry) ? " +atomic" : "") + (countInterrupt(entry) ? " +count-irq" : "");
        if (!enabled(entry)) {
            return grants.isEmpty() ? "-" : grants.substring(1);
        }
        return "rx" + (interruptOnReceive(entry) ? " +irq" : "") + grants
                + ((entry & RX_PCT_REMAP_EN_MASK) != 0 ? String.format(" remap 0x%x", entry & RX_PCT_REMAP_ADDR_MASK) : "");
    }
}
