package dev.memchan.layout;

import static dev.memchan.layout.Regs.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Transmit PCT entries with the request OPs: valid on a board, refused on an emulated adapter. */
class TxPctTest {
    private static final int TO_NODE_1 = TxPct.encode(true, false, false, DEST_KIND_NODE, 1);

    @Test
    void requestPagesNeedOneNodeAndCasNeedsSwap() {
        int read = TO_NODE_1 | OP_READ << TX_PCT_OP_SHIFT;
        int cas = TO_NODE_1 | OP_SWAP << TX_PCT_OP_SHIFT | TX_PCT_CAS_MASK;
        assertEquals(OP_READ, TxPct.op(read));
        assertNull(TxPct.problem(read, 32));
        assertNull(TxPct.problem(cas, 32));
        assertNotNull(TxPct.problem(TO_NODE_1 | TX_PCT_CAS_MASK, 32), "CAS with OP WRITE");
        int broadcastRead = TxPct.encode(true, false, false, DEST_KIND_BROADCAST, 0) | OP_READ << TX_PCT_OP_SHIFT;
        assertTrue(TxPct.problem(broadcastRead, 32).contains("one node"));
    }

    @Test
    void emulatedAdaptersRefuseRequestPagesAndKeepWrites() {
        assertNull(TxPct.problemOnEmulatedAdapter(TO_NODE_1, 32));
        for (int op : new int[] {OP_READ, OP_FETCH_ADD, OP_SWAP}) {
            String problem = TxPct.problemOnEmulatedAdapter(TO_NODE_1 | op << TX_PCT_OP_SHIFT, 32);
            assertTrue(problem != null && problem.contains("attachRemote"), "OP " + op + ": " + problem);
        }
    }

    @Test
    void aBoardWithoutTheCapabilityCannotServeTheRequestPage() {
        int fetchAdd = TO_NODE_1 | OP_FETCH_ADD << TX_PCT_OP_SHIFT;
        int readOnly = CAPS_REMOTE_READ_MASK;
        assertTrue(TxPct.unsupported(fetchAdd, 32, readOnly, false));
        assertTrue(TxPct.problem(fetchAdd, 32, readOnly, false).contains("0x" + Integer.toHexString(CAPS_ATOMICS_MASK)));
        assertNull(TxPct.problem(TO_NODE_1 | OP_READ << TX_PCT_OP_SHIFT, 32, readOnly, false));
        int toNode40 = TxPct.encode(true, false, false, DEST_KIND_NODE, 40) | OP_FETCH_ADD << TX_PCT_OP_SHIFT;
        assertTrue(!TxPct.unsupported(toNode40, 32, readOnly, true), "an invalid entry is invalid before it is unsupported");
        assertTrue(TxPct.problem(toNode40, 32, readOnly, true).contains("out of range"));
    }
}
