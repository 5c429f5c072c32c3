package dev.memchan.tools.mcctl;

import dev.memchan.admin.AdapterView;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.Region;
import dev.memchan.RemoteAccess;
import dev.memchan.RemoteMapping;
import dev.memchan.admin.FabricAdmin;
import dev.memchan.admin.SoftFabricView;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static dev.memchan.layout.Regs.RX_PCT_RX_EN_MASK;
import static dev.memchan.layout.Regs.TX_PCT_TX_EN_MASK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * mcctl status and monitor read each page's PCT entries and page counters once per node (on a board every
 * read is BAR accesses through the adapter) and report what reading every page one by one through the
 * library gives: the hottest pages (ties in page order, at most 8), the PCT usage and entries, the totals
 * served.
 */
class StatusPageScanTest {
    private static final int HOT_LIMIT = 8;
    /** Remote reads and atomics to serve on each page of the region: ties, reads only, atomics only, cold pages. */
    private static final int[][] SERVED = {{3, 0}, {0, 5}, {2, 2}, {1, 0}, {4, 1}, {0, 0}, {5, 0}, {2, 1}, {1, 1}, {0, 7}, {0, 0}, {6, 3}};
    /** The region's pages by reads + atomics, hottest first, ties in page order, cut at HOT_LIMIT. */
    private static final int[] HOTTEST = {11, 9, 1, 4, 6, 2, 0, 7};

    @Test
    void statusAndMonitorReadEachPageOnceAndReportWhatEveryPageSays() throws Exception {
        String name = "mcctl-scan-" + ProcessHandle.current().pid();
        FabricAdmin.create("shm:" + name, FabricOptions.defaults().withGeometry(4 << 20, 4096, 4));
        try (Fabric f = Fabric.open("shm:" + name, FabricOptions.defaults());
             Region r = f.allocate(0x5CA4, (long) SERVED.length * f.pageSize(), 0660)) {
            r.attachReceive(false, RemoteAccess.READ, RemoteAccess.ATOMIC);
            try (RemoteMapping m = r.attachRemote(f.nodeId())) { // this node is the home: its own requests count
                for (int i = 0; i < SERVED.length; i++) {
                    for (int k = 0; k < SERVED[i][0]; k++) {
                        m.getLongAcquire((long) i * f.pageSize());
                    }
                    for (int k = 0; k < SERVED[i][1]; k++) {
                        m.getAndAddLong((long) i * f.pageSize() + 8, 1);
                    }
                }
            }
            int node = f.nodeId();
            List<Object> hot = expectedHotPages(f);
            List<Integer> hotPages = hot.stream().map(h -> ((Number) ((Map<?, ?>) h).get("page")).intValue() - r.firstPage()).toList();
            assertEquals(java.util.Arrays.stream(HOTTEST).boxed().toList(), hotPages, "hottest pages of the region: " + hot);

            Map<String, Integer> calls = new TreeMap<>();
            try (AdapterView t = counting(Targets.view("shm:" + name), calls)) {
                Map<String, Object> doc = StatusCommand.snapshot(t, false, true);
                // one joined node: one scan of its PCT and one of its counters, no entry read on its own
                assertEquals(Map.of("readPct", 1, "readPageCounters", 1), perPageReads(calls), "the per-page reads of one status");
                calls.clear();
                StatusCommand.snapshot(t, true, false); // --all: every node's adapter, once each
                assertEquals(Map.of("readPct", t.maxNodes(), "readPageCounters", t.maxNodes()), perPageReads(calls),
                        "the per-page reads of status --all");

                Map<?, ?> n = theNode(doc, node);
                assertEquals(Json.write(hot), Json.write(n.get("hot_pages")));
                assertEquals(expectedUsage(t, node, TX_PCT_TX_EN_MASK, true), n.get("tx_pages"));
                assertEquals(expectedUsage(t, node, RX_PCT_RX_EN_MASK, false), n.get("rx_pages"));
                assertEquals(Json.write(expectedPct(t, node)), Json.write(n.get("pct")));
            }

            McctlModelTest.Result text = McctlModelTest.run("--fabric", "shm:" + name, "status");
            assertEquals(0, text.code(), text.err());
            StringBuilder line = new StringBuilder("node " + node + " as home: 0 remote requests refused; page reads/atomics served:");
            for (Object h : hot) {
                Map<?, ?> p = (Map<?, ?>) h;
                line.append(' ').append(p.get("page")).append(':').append(p.get("remote_reads")).append('/').append(p.get("remote_atomics"));
            }
            line.append(" (threshold 0)");
            assertTrue(text.out().lines().anyMatch(line.toString()::equals), "no line '" + line + "' in\n" + text.out());

            McctlModelTest.Result monitor = McctlModelTest.run("--fabric", "shm:" + name, "monitor", "--count", "1", "--json");
            assertEquals(0, monitor.code(), monitor.err());
            JsonNode row = new ObjectMapper().readTree(monitor.out()).get("nodes").get(0);
            long reads = 0;
            long atomics = 0;
            for (int p = 0; p < f.pageCount(); p++) {
                reads += f.remoteReadsServed(p);
                atomics += f.remoteAtomicsServed(p);
            }
            assertEquals(java.util.Arrays.stream(SERVED).mapToLong(s -> s[0]).sum(), reads);
            assertEquals(reads, row.get("served_reads").asLong(), row.toString());
            assertEquals(atomics, row.get("served_atomics").asLong(), row.toString());
        } finally {
            FabricAdmin.remove("shm:" + name);
        }
    }

    /** The hot pages as reading each page's counters one by one gives them: hottest first, ties in page order. */
    private static List<Object> expectedHotPages(Fabric f) {
        List<long[]> pages = new ArrayList<>();
        for (int p = 0; p < f.pageCount(); p++) {
            long reads = f.remoteReadsServed(p);
            long atomics = f.remoteAtomicsServed(p);
            if (reads + atomics != 0) {
                pages.add(new long[]{p, reads, atomics});
            }
        }
        pages.sort((a, b) -> Long.compare(b[1] + b[2], a[1] + a[2])); // stable
        List<Object> out = new ArrayList<>();
        for (long[] p : pages.subList(0, Math.min(HOT_LIMIT, pages.size()))) {
            out.add(Json.obj("page", p[0], "remote_reads", p[1], "remote_atomics", p[2]));
        }
        return out;
    }

    private static int expectedUsage(AdapterView t, int node, long enable, boolean tx) {
        int n = 0;
        for (int p = 0; p < t.pageCount(); p++) {
            if (((tx ? t.txPct(node, p) : t.rxPct(node, p)) & enable) != 0) {
                n++;
            }
        }
        return n;
    }

    private static List<Object> expectedPct(AdapterView t, int node) {
        List<Object> entries = new ArrayList<>();
        for (int p = 0; p < t.pageCount(); p++) {
            int tx = t.txPct(node, p);
            long rx = t.rxPct(node, p);
            if (tx != 0 || rx != 0) {
                entries.add(Json.obj("page", p, "tx", String.format("0x%08x", tx), "rx", String.format("0x%x", rx)));
            }
        }
        assertTrue(entries.size() > SERVED.length, "the region's receive entries at least: " + entries);
        return entries;
    }

    /** The calls among {@code calls} that read PCT entries or page counters. */
    private static Map<String, Integer> perPageReads(Map<String, Integer> calls) {
        Map<String, Integer> reads = new TreeMap<>(calls);
        reads.keySet().retainAll(List.of("readPct", "readPageCounters", "txPct", "rxPct"));
        return reads;
    }

    private static Map<?, ?> theNode(Map<String, Object> doc, int node) {
        for (Object o : (List<?>) doc.get("nodes")) {
            if (((Map<?, ?>) o).get("node").equals(node)) {
                return (Map<?, ?>) o;
            }
        }
        throw new AssertionError("node " + node + " not in " + Json.write(doc));
    }

    /** {@code view} itself (a soft fabric's, so identity lines stay), counting the calls of each of its methods by name. */
    private static AdapterView counting(AdapterView view, Map<String, Integer> calls) {
        return (AdapterView) Proxy.newProxyInstance(SoftFabricView.class.getClassLoader(), new Class<?>[]{SoftFabricView.class}, (proxy, method, args) -> {
            calls.merge(method.getName(), 1, Integer::sum);
            try {
                return method.invoke(view, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }
}
