package dev.memchan.tools.mcctl;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.memchan.layout.Regs.*;

/** The adapter counters mcctl shows (status, monitor) and the self-test compares. */
final class Counters {
    record Counter(String name, int offset) {
    }

    static final List<Counter> ALL = List.of(
            new Counter("tx_packets", REG_TX_PACKETS), new Counter("tx_bytes", REG_TX_BYTES),
            new Counter("rx_packets", REG_RX_PACKETS), new Counter("rx_bytes", REG_RX_BYTES),
            new Counter("notify_count", REG_NOTIFY_COUNT), new Counter("acks_received", REG_ACKS_RECEIVED),
            new Counter("tx_drop_disabled", REG_TX_DROP_DISABLED), new Counter("rx_drop_disabled", REG_RX_DROP_DISABLED),
            new Counter("tx_drop_partial", REG_TX_DROP_PARTIAL), new Counter("crc_errors", REG_CRC_ERRORS),
            new Counter("link_retries", REG_LINK_RETRIES), new Counter("error_count", REG_ERROR_COUNT),
            new Counter("remote_refused", REG_REMOTE_REFUSED));

    private Counters() {
    }

    /** Every counter of {@code node}'s adapter, unsigned. */
    static Map<String, Long> read(Target t, int node) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : ALL) {
            m.put(c.name(), Integer.toUnsignedLong(t.readRegister(node, c.offset())));
        }
        return m;
    }

    /**
     * The pages {@code node} is home of whose page counters are non-zero: page, remote reads and atomics
     * served, hottest first (at most {@code limit}). Empty where the backend has no page counters.
     */
    static List<Object> hotPages(Target t, int node, int limit) {
        List<long[]> pages = new java.util.ArrayList<>();
        for (int p = 0; p < t.pageCount(); p++) {
            long reads = t.pageCounter(node, p, SF_PAGE_COUNTER_READS);
            if (reads < 0) {
                return List.of();
            }
            long atomics = t.pageCounter(node, p, SF_PAGE_COUNTER_ATOMICS);
            if (reads != 0 || atomics != 0) {
                pages.add(new long[]{p, reads, atomics});
            }
        }
        pages.sort((a, b) -> Long.compare(b[1] + b[2], a[1] + a[2]));
        List<Object> out = new java.util.ArrayList<>();
        for (long[] p : pages.subList(0, Math.min(limit, pages.size()))) {
            out.add(Json.obj("page", p[0], "remote_reads", p[1], "remote_atomics", p[2]));
        }
        return out;
    }

    /** Remote reads and atomics {@code node} served as a home, over all pages; null without page counters. */
    static long[] servedTotals(Target t, int node) {
        long[] sum = new long[2];
        for (int p = 0; p < t.pageCount(); p++) {
            long reads = t.pageCounter(node, p, SF_PAGE_COUNTER_READS);
            if (reads < 0) {
                return null;
            }
            sum[0] += reads;
            sum[1] += t.pageCounter(node, p, SF_PAGE_COUNTER_ATOMICS);
        }
        return sum;
    }

    /** Enabled transmit and receive entries of {@code node}'s PCT. */
    static int[] pctUsage(Target t, int node) {
        int tx = 0;
        int rx = 0;
        for (int p = 0; p < t.pageCount(); p++) {
            if ((t.txPct(node, p) & TX_PCT_TX_EN_MASK) != 0) {
                tx++;
            }
            if ((t.rxPct(node, p) & RX_PCT_RX_EN_MASK) != 0) {
                rx++;
            }
        }
        return new int[]{tx, rx};
    }

    static String link(int linkStatus) {
        if ((linkStatus & LINK_STATUS_UP_MASK) == 0) {
            return "down";
        }
        return (linkStatus & LINK_STATUS_DISCARDING_MASK) != 0 ? "discarding" : "up";
    }

    static String nodeIdRegister(int reg) {
        return (reg & NODE_ID_VALID_MASK) != 0 ? Integer.toString(reg & NODE_ID_ID_MASK) : "-";
    }

    static String caps(int caps) {
        StringBuilder sb = new StringBuilder();
        String[] names = {"LINK_RETRY", "LOOPBACK_INTERNAL", "LOOPBACK_EXTERNAL", "MULTICAST", "RX_REMAP", "REMOTE_READ",
            "ATOMICS", "PAGE_COUNTERS", "HUB_MODE", "GLOBAL_CLOCK"};
        for (int b = 0; b < names.length; b++) {
            if ((caps & (1 << b)) != 0) {
                sb.append(sb.isEmpty() ? "" : ",").append(names[b]);
            }
        }
        if ((caps & CAPS_SOFT_MASK) != 0) {
            sb.append(sb.isEmpty() ? "" : ",").append("SOFT");
        }
        return sb.isEmpty() ? "none" : sb.toString();
    }
}
