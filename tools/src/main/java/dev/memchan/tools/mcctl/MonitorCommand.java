package dev.memchan.tools.mcctl;

import dev.memchan.admin.AdapterView;
import dev.memchan.admin.NodeStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.memchan.layout.Regs.*;

@Command(name = "monitor", mixinStandardHelpOptions = true,
        description = {"Live adapter counters of every joined node, refreshed in place on a terminal "
                + "(one block, or with --json one line, per sample otherwise). Rates are per second since the previous sample."},
        footerHeading = "%nExamples:%n",
        footer = {"  mcctl monitor --fabric shm:lab", "  mcctl monitor --interval 500 --count 10 --json"})
final class MonitorCommand extends Base {
    @Option(names = "--interval", paramLabel = "MS", defaultValue = "1000", description = "Milliseconds between samples (default ${DEFAULT-VALUE}).")
    long intervalMillis;

    @Option(names = "--count", paramLabel = "N", defaultValue = "0", description = "Stop after N samples (default: until Ctrl-C).")
    long count;

    @Override
    public Integer call() throws InterruptedException {
        if (intervalMillis < 10) {
            throw McctlException.usage("--interval must be at least 10 ms, not " + intervalMillis);
        }
        if (count < 0) {
            throw McctlException.usage("--count must not be negative");
        }
        boolean inPlace = terminal() && !json();
        try (AdapterView t = openView()) {
            Map<Integer, Map<String, Long>> previous = new HashMap<>();
            long[] reads = new long[t.pageCount()]; // every page's counters, read once per sample and node
            long[] atomics = new long[t.pageCount()];
            long prevNanos = 0;
            for (long sample = 0; count == 0 || sample < count; sample++) {
                if (sample > 0) {
                    Thread.sleep(intervalMillis);
                }
                long now = System.nanoTime();
                double seconds = prevNanos == 0 ? 0 : (now - prevNanos) / 1e9;
                List<Object> nodes = new ArrayList<>();
                for (int n : t.adapters()) {
                    NodeStatus info = t.node(n);
                    if (!StatusCommand.listed(t, info)) {
                        previous.remove(n);
                        continue;
                    }
                    Map<String, Long> c = Counters.read(t, n);
                    Map<String, Long> before = previous.put(n, c);
                    Map<String, Object> row = Json.obj("node", n, "state", info.state(), "link",
                            Counters.link(t.readRegister(n, REG_LINK_STATUS)), "counters", c);
                    if (t.readPageCounters(n, reads, atomics)) { // what this node served as a home, all pages
                        long[] served = Counters.servedTotals(reads, atomics);
                        row.put("served_reads", served[0]);
                        row.put("served_atomics", served[1]);
                    }
                    if (before != null && seconds > 0) {
                        row.put("tx_packets_per_s", (c.get("tx_packets") - before.get("tx_packets")) / seconds);
                        row.put("rx_packets_per_s", (c.get("rx_packets") - before.get("rx_packets")) / seconds);
                        row.put("notify_per_s", (c.get("notify_count") - before.get("notify_count")) / seconds);
                    }
                    nodes.add(row);
                }
                prevNanos = now;
                Map<String, Object> doc = Json.obj("time", Instant.now().toString(), "sample", sample + 1, "fabric", t.location(), "nodes", nodes);
                if (json()) {
                    printJson(doc);
                } else {
                    print(doc, inPlace);
                }
            }
        }
        return Exit.OK;
    }

    @SuppressWarnings("unchecked")
    private void print(Map<String, Object> doc, boolean inPlace) {
        var out = out();
        if (inPlace) {
            out.print("\033[H\033[2J"); // home and clear: the table is redrawn in place
        } else if (!doc.get("sample").equals(1L)) {
            out.println();
        }
        out.printf("%s  %s  sample %s%n", doc.get("fabric"), doc.get("time"), doc.get("sample"));
        out.printf("%-4s %-7s %-5s %12s %12s %10s %10s %8s %8s %8s %8s %8s %12s %12s%n", "NODE", "STATE", "LINK", "TX_PACKETS", "RX_PACKETS",
                "TX/s", "NOTIFY/s", "NOTIFY", "ERRORS", "CRC", "DROPS", "REFUSED", "REMOTE_READS", "REMOTE_ATOMS");
        for (Object o : (List<?>) doc.get("nodes")) {
            Map<String, Object> n = (Map<String, Object>) o;
            Map<String, Long> c = (Map<String, Long>) n.get("counters");
            out.printf("%-4s %-7s %-5s %12d %12d %10s %10s %8d %8d %8d %8d %8d %12s %12s%n", n.get("node"), n.get("state"), n.get("link"),
                    c.get("tx_packets"), c.get("rx_packets"), rate(n.get("tx_packets_per_s")), rate(n.get("notify_per_s")),
                    c.get("notify_count"), c.get("error_count"), c.get("crc_errors"),
                    c.get("tx_drop_disabled") + c.get("rx_drop_disabled") + c.get("tx_drop_partial"), c.get("remote_refused"),
                    total(n.get("served_reads")), total(n.get("served_atomics")));
        }
        if (((List<?>) doc.get("nodes")).isEmpty()) {
            out.println("(no node joined)");
        }
        out.flush();
    }

    private static String total(Object v) {
        return v == null ? "-" : v.toString();
    }

    private static String rate(Object v) {
        return v == null ? "-" : String.format("%.0f", (Double) v);
    }
}
