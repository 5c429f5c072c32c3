package dev.memchan.tools.mcctl;

import dev.memchan.admin.AdapterView;
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
    static Map<String, Long> read(AdapterView t, int node) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : ALL) {
            m.put(c.name(), Integer.toUnsignedLong(t.readRegister(node, c.offset())));
        }
        return m;
    }

    /**
     * The pages whose counters ({@link AdapterView#readPageCounters}) are non-zero: page, remote reads and atomics
     * served, hottest first, ties in page order (at most {@code limit}).
     */
    static List<Object> hotPages(long[] reads, long[] atomics, int limit) {
        int[] top = new int[limit]; // pages, hottest first: a top-limit insertion, nothing per page
        int n = 0;
        for (int p = 0; p < reads.length; p++) {
            long total = reads[p] + atomics[p];
            if (total == 0) {
                continue;
            }
            int at = n;
            while (at > 0 && reads[top[at - 1]] + atomics[top[at - 1]] < total) {
                at--;
            }
            if (at == limit) {
                continue;
            }
            if (n < limit) {
                n++;
            }
            System.arraycopy(top, at, top, at + 1, n - 1 - at);
            top[at] = p;
        }
        List<Object> out = new java.util.ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(Json.obj("page", (long) top[i], "remote_reads", reads[top[i]], "remote_atomics", atomics[top[i]]));
        }
        return out;
    }

    /** Remote reads and atomics served as a home over all pages, from {@link AdapterView#readPageCounters}. */
    static long[] servedTotals(long[] reads, long[] atomics) {
        long[] sum = new long[2];
        for (int p = 0; p < reads.length; p++) {
            sum[0] += reads[p];
            sum[1] += atomics[p];
        }
        return sum;
    }

    /** Enabled transmit and receive entries of a PCT read by {@link AdapterView#readPct}. */
    static int[] pctUsage(int[] tx, long[] rx) {
        int txPages = 0;
        int rxPages = 0;
        for (int p = 0; p < tx.length; p++) {
            if ((tx[p] & TX_PCT_TX_EN_MASK) != 0) {
                txPages++;
            }
            if ((rx[p] & RX_PCT_RX_EN_MASK) != 0) {
                rxPages++;
            }
        }
        return new int[]{txPages, rxPages};
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
