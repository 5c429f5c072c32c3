package dev.memchan.tools.mcctl;

import dev.memchan.admin.AdapterView;
import dev.memchan.admin.ClusterView;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.admin.NodeStatus;
import dev.memchan.admin.PctWrite;
import dev.memchan.layout.SystemPagesDescriptor;
import dev.memchan.layout.RxPct;
import dev.memchan.layout.TxPct;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.memchan.layout.Regs.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Validation of apply's config files against an in-memory adapter view: every problem, with its line. */
class ClusterConfigTest {

    /**
     * An in-memory adapter view: 4 nodes (0 and 1 joined), 100 pages of 4096 bytes, PCTs in arrays, the system
     * pages (multicast groups, directory) in a heap segment read by the library's {@link ClusterView}.
     */
    static final class ModelView implements AdapterView {
        private static final VarHandle INT = JAVA_INT.varHandle();
        private static final VarHandle LONG = JAVA_LONG.varHandle();
        final int[][] tx = new int[4][100];
        final long[][] rx = new long[4][100];
        /** The system pages, long-aligned for the cluster view's 8-byte reads. */
        private final MemorySegment system = MemorySegment.ofArray(new long[SYS_PAGES * 4096 / Long.BYTES]);

        /** Adapters whose PCT this view reads: all (soft fabric), or this host's (a device). */
        int[] visible = {0, 1, 2, 3};

        void setGroup(int group, int mask) {
            INT.setVolatile(system, SystemPagesDescriptor.mcastGroup(4096, group), mask);
        }

        /** Writes {@code e} into its directory slot, field by field at the layout's offsets. */
        void addRegion(DirectoryEntry e) {
            long o = SystemPagesDescriptor.regionEntry(4096, e.index());
            INT.setVolatile(system, o + SYS_REGION_MODE, e.mode());
            LONG.setVolatile(system, o + SYS_REGION_KEY, e.key());
            INT.setVolatile(system, o + SYS_REGION_UID, e.uid());
            INT.setVolatile(system, o + SYS_REGION_GID, e.gid());
            INT.setVolatile(system, o + SYS_REGION_FIRST_PAGE, e.firstPage());
            INT.setVolatile(system, o + SYS_REGION_PAGE_COUNT, e.pageCount());
            INT.setVolatile(system, o + SYS_REGION_USERS, e.users());
            INT.setVolatile(system, o + SYS_REGION_TX_NODES, e.txNodes());
            INT.setVolatile(system, o + SYS_REGION_RX_NODES, e.rxNodes());
            INT.setVolatile(system, o + SYS_REGION_TX_LOOPBACK, e.txLoopback());
            INT.setVolatile(system, o + SYS_REGION_ROUTE, e.route());
            INT.setVolatile(system, o + SYS_REGION_FLAGS, e.flags());
            LONG.setVolatile(system, o + SYS_REGION_GENERATION, e.generation());
            INT.setVolatile(system, o + SYS_REGION_STATE, e.state());
        }

        @Override
        public String location() {
            return "shm:model";
        }

        @Override
        public String kind() {
            return visible.length == 1 ? "dev" : "soft";
        }

        @Override
        public int maxNodes() {
            return 4;
        }

        @Override
        public int pageSize() {
            return 4096;
        }

        @Override
        public int pageCount() {
            return 100;
        }

        @Override
        public int[] adapters() {
            return visible;
        }

        @Override
        public int readRegister(int node, int offset) {
            return 0;
        }

        @Override
        public int txPct(int node, int page) {
            if (java.util.Arrays.stream(visible).noneMatch(n -> n == node)) {
                throw McctlException.usage("node " + node + " is another host's adapter");
            }
            return tx[node][page];
        }

        @Override
        public long rxPct(int node, int page) {
            return rx[node][page];
        }

        @Override
        public boolean readPageCounters(int node, long[] reads, long[] atomics) {
            return false; // a configuration model has no page counters
        }

        @Override
        public NodeStatus node(int node) {
            boolean live = node < 2;
            return new NodeStatus(node, live, live, live ? 100 + node : 0, 1, live ? SYS_NODE_STATE_ALIVE : SYS_NODE_STATE_ABSENT, 0);
        }

        @Override
        public ClusterView cluster() {
            return ClusterView.of(system, 4096, 4);
        }

        @Override
        public List<String> problems(List<PctWrite> batch) {
            return List.of();
        }

        @Override
        public void write(List<PctWrite> batch) {
            throw new AssertionError("validation must not write");
        }

        @Override
        public void close() {
        }
    }

    private final ModelView fabric = new ModelView();

    private Map<Integer, String> problems(String yaml) {
        ClusterConfig c = ClusterConfig.check("c.yaml", yaml, fabric);
        Map<Integer, String> out = new HashMap<>();
        for (ClusterConfig.Problem p : c.problems()) {
            out.merge(p.line(), p.message(), (a, b) -> a + " | " + b);
        }
        if (!out.isEmpty()) {
            assertTrue(c.plan().writes().isEmpty(), "a file with problems plans no writes");
        }
        return out;
    }

    @Test
    void onADeviceOnlyThisAdaptersEntriesAreCheckedForRouteConflicts() {
        fabric.visible = new int[]{0};
        fabric.tx[1][30] = TxPct.encode(true, false, false, DEST_KIND_NODE, 2); // another host's: not readable here
        assertEquals(Map.of(), problems("""
                nodes: [0, 3]
                pct:
                  - {node: 0, pages: 30, tx: node:3}
                """), "on a device, listed nodes need no member process (node 3 has none)");
        fabric.visible = new int[]{0, 1, 2, 3}; // the soft fabric sees node 1's entry: a conflict
        assertTrue(problems("""
                nodes: [0, 1]
                pct:
                  - {node: 0, pages: 30, tx: node:1}
                """).get(3).contains("one route"));
    }

    @Test
    void validFileExpandsRegionsAndEntries() {
        ClusterConfig c = ClusterConfig.check("c.yaml", """
                nodes: [0, 1]
                groups: {2: [0, 1]}
                regions:
                  - {pages: 10-11, route: broadcast, transmitters: [0], receivers: [0, 1], local_copy: true, interrupt: true}
                pct:
                  - {node: 1, pages: 20, tx: group:2, ack: true, rx: true}
                """, fabric);
        assertEquals(List.of(), c.problems());
        ClusterConfig.Plan plan = c.plan();
        assertEquals(Map.of(2, 0b11), plan.groups());
        int bc = TxPct.encode(true, true, false, DEST_KIND_BROADCAST, 0);
        long rxIrq = RxPct.encode(true, true);
        assertEquals(List.of(new PctWrite(0, 10, bc, rxIrq), new PctWrite(1, 10, null, rxIrq), new PctWrite(0, 11, bc, rxIrq),
                new PctWrite(1, 11, null, rxIrq), new PctWrite(1, 20, TxPct.encode(true, false, true, DEST_KIND_MULTICAST, 2),
                        RxPct.encode(true, false))).stream().sorted(java.util.Comparator.comparingInt(PctWrite::page)
                .thenComparingInt(PctWrite::node)).toList(),
                plan.writes().stream().sorted(java.util.Comparator.comparingInt(PctWrite::page).thenComparingInt(PctWrite::node)).toList());
        assertEquals(1, plan.regions());
    }

    @Test
    void syntaxErrorsHaveTheirLine() {
        Map<Integer, String> p = problems("nodes: [0, 1]\npct:\n  - {node: 0, pages: 10\n");
        assertEquals(1, p.size(), p.toString());
        assertTrue(p.values().iterator().next().contains("not valid YAML"), p.toString());
        assertTrue(p.keySet().iterator().next() >= 3, p.toString());
    }

    @Test
    void everyProblemIsListedWithItsLine() {
        fabric.tx[0][30] = TxPct.encode(true, false, false, DEST_KIND_NODE, 1); // node 0 routes page 30 to node 1
        Map<Integer, String> p = problems("""
                nodes: [0, 1, 1, 7]
                groups: {16: [0], 3: [2], 4: []}
                colour: blue
                regions:
                  - {pages: 2-3, route: node:1, transmitters: [0]}
                  - {pages: 40, route: broadcast, transmitters: [0], receivers: [0]}
                  - {pages: 41, route: node:5, transmitters: [0]}
                pct:
                  - {node: 1, pages: 30, tx: broadcast}
                  - {node: 1, pages: 50, tx: node:0}
                  - {node: 1, pages: 50, tx: node:1}
                  - {node: 0, pages: 99+2, tx: node:1}
                  - {node: 0, pages: 60, tx: node:1, interrupt: true}
                  - {node: 0, pages: 61, tx: group:9}
                  - {pages: 62}
                """);
        assertTrue(p.get(1).contains("listed twice") && p.get(1).contains("out of range"), p.toString());
        assertTrue(p.get(2).contains("group 16 out of range") && p.get(2).contains("node 2 is not listed")
                && p.get(2).contains("group 4 has no members"), p.toString());
        assertTrue(p.get(3).contains("unknown key 'colour'"), p.toString());
        assertTrue(p.get(5).contains("system pages"), p.toString());
        assertTrue(p.get(6).contains("does not deliver to receiver 0"), p.toString());
        assertTrue(p.get(7).contains("node 5"), p.toString());
        assertTrue(p.get(9).contains("conflicting routes for page 30"), p.toString());
        assertTrue(p.get(11).contains("also set, differently, at line 10"), p.toString());
        assertTrue(p.get(12).contains("outside the window"), p.toString());
        assertTrue(p.get(13).contains("interrupt needs rx"), p.toString());
        assertTrue(p.get(14).contains("unknown destination: multicast group 9"), p.toString());
        assertTrue(p.get(15).contains("needs node"), p.toString());
    }

    @Test
    void groupsAndDirectoryRegionsAreRespected() {
        fabric.setGroup(5, 0b10);
        fabric.addRegion(new DirectoryEntry(0, SYS_REGION_STATE_ALLOCATED, 0660, 0x42, 0, 0, 70, 4, 0b1, 0b1, 0, 0,
                TxPct.encode(true, false, false, DEST_KIND_MULTICAST, 5), 0, 1));
        Map<Integer, String> p = problems("""
                nodes: [0, 1]
                groups: {5: [0, 1]}
                pct:
                  - {node: 0, pages: 72, tx: node:1}
                  - {node: 0, pages: 80, tx: group:5}
                """);
        assertTrue(p.get(2).contains("in use by region 0x42"), p.toString());
        assertTrue(p.get(4).contains("belongs to region 0x42"), p.toString());
        assertEquals(2, p.size(), p.toString());
        // an existing group may be used without being redefined
        assertEquals(Map.of(), problems("nodes: [0, 1]\npct:\n  - {node: 0, pages: 80, tx: group:5}\n"));
    }

    @Test
    void nodesMustBeJoined() {
        Map<Integer, String> p = problems("nodes: [0, 3]\n");
        assertTrue(p.get(1).contains("node 3 is not joined"), p.toString());
        assertTrue(problems("groups: {1: [0]}\n").get(1).contains("missing nodes"));
    }
}
