package dev.memchan.internal;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.Route;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.admin.PctWrite;
import dev.memchan.layout.RxPct;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.memchan.layout.Regs.SYS_PAGES;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one rule set for operator PCT writes, on tables in memory: 4 nodes of 64 pages, nodes 0 and 1
 * writable here, node 2 read but not joined, node 3 another host's (not read); a region of the directory
 * on pages 40..43. The backends differ only in what {@link PctTables} answers.
 */
class PctRulesTest {
    private static final int TX_NODE1 = Route.node(1).pctEntry(false, false);
    private static final int TX_NODE2 = Route.node(2).pctEntry(false, false);
    private static final long RX = RxPct.encode(true, false);

    static final class Tables implements PctTables {
        final int[][] tx = new int[4][64];
        final long[][] rx = new long[4][64];
        /** A page whose transmit entry the adapter refuses to change (-1: none). */
        int refusedPage = -1;

        @Override
        public String location() {
            return "mem:test";
        }

        @Override
        public int maxNodes() {
            return 4;
        }

        @Override
        public int pageCount() {
            return 64;
        }

        @Override
        public String nodeProblem(int node) {
            return node < 2 ? null : "node " + node + " is not writable here";
        }

        @Override
        public String txProblem(int node, int entry) {
            return (entry & 0x8000_0000) != 0 ? "reserved bits set" : null;
        }

        @Override
        public boolean visible(int node) {
            return node < 3;
        }

        @Override
        public int txPct(int node, int page) {
            return tx[node][page];
        }

        @Override
        public long rxPct(int node, int page) {
            return rx[node][page];
        }

        @Override
        public List<DirectoryEntry> regions() {
            return List.of(DirectoryEntry.allocated(0, 0x77, 0660, 0, 0, 40, 4, 1, 0, 1));
        }

        @Override
        public void writeTx(int node, int page, int entry) {
            if (page == refusedPage && entry != tx[node][page]) {
                throw new MemchanException(Kind.INVALID_ARGUMENT, "the adapter refuses page " + page);
            }
            tx[node][page] = entry;
        }

        @Override
        public void writeRx(int node, int page, long entry) {
            rx[node][page] = entry;
        }
    }

    private final Tables t = new Tables();

    private static PctWrite tx(int node, int page, int entry) {
        return new PctWrite(node, page, entry, null);
    }

    private void assertOneProblem(String fragment, PctWrite... batch) {
        List<String> problems = PctRules.problems(t, List.of(batch));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.getFirst().contains(fragment), "'" + fragment + "' not in " + problems);
    }

    @Test
    void aValidBatchIsWrittenWhole() {
        List<PctWrite> batch = List.of(tx(0, 20, TX_NODE1), new PctWrite(1, 20, null, RX), tx(0, 21, TX_NODE1),
                tx(0, 21, TX_NODE1)); // the same entry twice is no conflict
        assertEquals(List.of(), PctRules.problems(t, batch));
        PctRules.write(t, batch);
        assertEquals(TX_NODE1, t.tx[0][20]);
        assertEquals(TX_NODE1, t.tx[0][21]);
        assertEquals(RX, t.rx[1][20]);
    }

    @Test
    void everyPlaceAndEntryIsChecked() {
        assertOneProblem("node ID 4 out of range 0..3 for mem:test", tx(4, 20, TX_NODE1));
        assertOneProblem("page 64 is outside the window 0..63 of mem:test", tx(0, 64, TX_NODE1));
        assertOneProblem("node 2 is not writable here", tx(2, 20, TX_NODE1));
        assertOneProblem("page 3 is a system page (0.." + (SYS_PAGES - 1), tx(0, 3, TX_NODE1));
        assertOneProblem("page 41 belongs to region 0x77", tx(0, 41, TX_NODE1));
        assertOneProblem("transmit PCT entry for page 20: reserved bits set", tx(0, 20, 0x8000_0001));
        assertOneProblem("receive PCT entry for page 20: ", new PctWrite(0, 20, null, -1L));
    }

    @Test
    void aPageNamedTwiceWithDifferentEntriesIsRefused() {
        assertOneProblem("page 20 of node 0 is set twice", tx(0, 20, TX_NODE1), tx(0, 20, TX_NODE2));
        assertOneProblem("receive entry of page 20 of node 0 is set twice",
                new PctWrite(0, 20, null, RX), new PctWrite(0, 20, null, 0L));
    }

    @Test
    void aNetworkPageHasOneRouteAcrossTheVisibleNodes() {
        t.tx[2][30] = TX_NODE2; // a node read here, though not writable
        assertOneProblem("page 30: node 2 already routes it to", tx(0, 30, TX_NODE1));
        List<String> within = PctRules.problems(t, List.of(tx(0, 31, TX_NODE1), tx(1, 31, TX_NODE2)));
        assertEquals(2, within.size(), "each entry of the batch is refused: " + within);
        assertTrue(within.stream().anyMatch(p -> p.startsWith("page 31: node 1 already routes it to node 2")), within.toString());
        assertTrue(within.stream().anyMatch(p -> p.startsWith("page 31: node 0 already routes it to node 1")), within.toString());
        t.tx[3][32] = TX_NODE2; // another host's adapter: not known here
        assertEquals(List.of(), PctRules.problems(t, List.of(tx(0, 32, TX_NODE1))));
        t.tx[1][33] = TX_NODE2;
        assertEquals(List.of(), PctRules.problems(t, List.of(tx(0, 33, TX_NODE1), tx(1, 33, 0))), "the batch moves the route");
    }

    @Test
    void aRefusedBatchWritesNothing() {
        int[][] before = {t.tx[0].clone(), t.tx[1].clone()};
        MemchanException e = assertThrows(MemchanException.class,
                () -> PctRules.write(t, List.of(tx(0, 20, TX_NODE1), tx(0, 3, TX_NODE1), tx(5, 20, TX_NODE1))));
        assertEquals(Kind.INVALID_ARGUMENT, e.kind());
        assertTrue(e.getMessage().endsWith("(and 1 more problems); nothing was changed"), e.getMessage());
        assertArrayEquals(before[0], t.tx[0]);
        assertArrayEquals(before[1], t.tx[1]);
    }

    @Test
    void anEntryTheAdapterRefusesPutsBackWhatWasWritten() {
        t.tx[0][19] = TX_NODE2;
        t.rx[0][19] = RX;
        t.refusedPage = 21;
        List<PctWrite> batch = new ArrayList<>();
        for (int p = 18; p <= 22; p++) {
            batch.add(new PctWrite(0, p, TX_NODE1, 0L));
        }
        assertEquals(List.of(), PctRules.problems(t, batch));
        MemchanException e = assertThrows(MemchanException.class, () -> PctRules.write(t, batch));
        assertTrue(e.getMessage().contains("refuses page 21"), e.getMessage());
        for (int p = 18; p <= 22; p++) {
            assertEquals(p == 19 ? TX_NODE2 : 0, t.tx[0][p], "transmit entry of page " + p);
            assertEquals(p == 19 ? RX : 0, t.rx[0][p], "receive entry of page " + p);
        }
    }
}
