package dev.memchan.layout;

import static dev.memchan.layout.Regs.*;

/**
 * Receive PCT entry codec: one u64 per network page.
 *
 * <pre>
 *  63                                    12 11     4   3        2      1        0
 * +----------------------------------------+--------+--------+-----+---------+-------+
 * |      REMAP_ADDR (host address >> 12)     |reserved|REMAP_EN| res |IRQ_ON_RX| RX_EN |
 * +----------------------------------------+--------+--------+-----+---------+-------+
 * </pre>
 * REMAP is programmed by the driver on hardware (receive-side remapping); user requests carry only
 * RX_EN and IRQ_ON_RX.
 */
public final class RxPct {
    private RxPct() {
    }

    public static long encode(boolean enable, boolean interruptOnReceive) {
        return (enable ? RX_PCT_RX_EN_MASK : 0) | (interruptOnReceive ? RX_PCT_IRQ_ON_RX_MASK : 0);
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
        if (!enabled(entry)) {
            return "-";
        }
        return "rx" + (interruptOnReceive(entry) ? " +irq" : "")
                + ((entry & RX_PCT_REMAP_EN_MASK) != 0 ? String.format(" remap 0x%x", entry & RX_PCT_REMAP_ADDR_MASK) : "");
    }
}
