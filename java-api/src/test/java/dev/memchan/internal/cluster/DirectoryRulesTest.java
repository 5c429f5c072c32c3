package dev.memchan.internal.cluster;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.Route;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.layout.SystemPagesDescriptor;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static dev.memchan.layout.Regs.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The directory's pure rules on system pages held in a heap segment (as Agrona tests its buffers):
 * first fit around regions and static carve-outs, one route per page, every receiver reachable,
 * multicast membership, carve-out planning, and the codec's round trip.
 */
class DirectoryRulesTest {
    private static final int PS = 4096;
    private static final int NODES = 4;
    private static final int PAGES = 64;

    private final MemorySegment sys = MemorySegment.ofArray(new long[SYS_PAGES * PS / Long.BYTES]);
    private final TransmitStores sysTx = new TransmitStores(sys);

    private DirectoryEntry put(int index, long key, int first, int count, int flags) {
        DirectoryEntry e = DirectoryEntry.allocated(index, key, 0660, 1000, 1000, first, count, 1, flags, index + 1);
        SystemPagesCodec.writeEntry(sysTx, PS, e);
        return e;
    }

    private static int routeBits(Route r) {
        return r.pctEntry(false, false) & (SYS_REGION_ROUTE_DEST_KIND_MASK | SYS_REGION_ROUTE_DEST_MASK);
    }

    private static Kind kind(Runnable r) {
        return assertThrows(MemchanException.class, r::run).kind();
    }

    @Test
    void codecRoundTripsEveryFieldAndFreeZeroesTheEntry() {
        DirectoryEntry e = new DirectoryEntry(7, SYS_REGION_STATE_ALLOCATED, 0640, 0x1234_5678_9abcL, 11, 12, 20, 3, 0b101,
                0b100, 0b001, 0b100, SystemPagesDescriptor.regionRoute(true, DEST_KIND_NODE, 0),
                SystemPagesDescriptor.regionFlags(true, false, false, 0, 5), 99);
        SystemPagesCodec.writeEntry(sysTx, PS, e);
        assertEquals(e, DirectoryEntry.read(sys, PS, 7));
        assertEquals(5, e.lockCount());
        assertTrue(e.isLockSet() && e.routed());
        SystemPagesCodec.freeEntry(sysTx, PS, 7);
        assertEquals(new DirectoryEntry(7, SYS_REGION_STATE_FREE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
                DirectoryEntry.read(sys, PS, 7));
    }

    @Test
    void firstFitStartsAfterTheSystemPagesAndStepsAroundEveryEntry() {
        assertEquals(SYS_PAGES, DirectoryRules.firstFit(sys, PS, PAGES, 4, "test"));
        put(0, 0x1, SYS_PAGES, 4, 0);
        put(1, DirectoryRules.staticKey(SYS_PAGES + 6), SYS_PAGES + 6, 2, SystemPagesDescriptor.regionFlags(false, true, false, 0, 0));
        // the 2-page hole between them fits 2 pages, not 3
        assertEquals(SYS_PAGES + 4, DirectoryRules.firstFit(sys, PS, PAGES, 2, "test"));
        assertEquals(SYS_PAGES + 8, DirectoryRules.firstFit(sys, PS, PAGES, 3, "test"));
        // entries out of index order are sorted by page
        put(5, 0x2, SYS_PAGES + 4, 2, 0);
        assertEquals(SYS_PAGES + 8, DirectoryRules.firstFit(sys, PS, PAGES, 1, "test"));
        assertEquals(SYS_PAGES + 8, DirectoryRules.firstFit(sys, PS, PAGES, PAGES - (SYS_PAGES + 8), "test"), "the tail fits exactly");
        MemchanException full = assertThrows(MemchanException.class,
                () -> DirectoryRules.firstFit(sys, PS, PAGES, PAGES - (SYS_PAGES + 8) + 1, "test"));
        assertEquals(Kind.IN_USE, full.kind());
        assertTrue(full.getMessage().contains("largest free run is " + (PAGES - (SYS_PAGES + 8)) + " pages"), full.getMessage());
    }

    @Test
    void findAndFreeIndexSeeOnlyAllocatedEntries() {
        assertEquals(0, DirectoryRules.freeEntryIndex(sys, PS));
        put(0, 0x42, SYS_PAGES, 1, 0);
        put(2, 0x43, SYS_PAGES + 1, 1, 0);
        assertEquals(1, DirectoryRules.freeEntryIndex(sys, PS));
        assertEquals(2, DirectoryRules.find(sys, PS, 0x43).index());
        assertNull(DirectoryRules.find(sys, PS, 0x44));
        for (int i = 0; i < SystemPagesCodec.regionCapacity(PS); i++) {
            put(i, 0x100 + i, SYS_PAGES, 1, 0);
        }
        assertEquals(-1, DirectoryRules.freeEntryIndex(sys, PS));
    }

    @Test
    void onePageHasOneRoute() {
        DirectoryEntry e = put(0, 0x42, SYS_PAGES, 1, 0);
        DirectoryEntry routed = DirectoryRules.withTransmitter(sys, PS, NODES, e, 0, routeBits(Route.broadcast()), false);
        assertEquals(0b1, routed.txNodes());
        assertTrue(routed.routed());
        DirectoryEntry two = DirectoryRules.withTransmitter(sys, PS, NODES, routed, 1, routeBits(Route.broadcast()), true);
        assertEquals(0b11, two.txNodes());
        assertEquals(0b10, two.txLoopback());
        assertEquals(Kind.INVALID_ARGUMENT, kind(() -> DirectoryRules.withTransmitter(sys, PS, NODES, two, 2, routeBits(Route.node(3)), false)));
        // the same node cannot change its local copy choice
        assertEquals(Kind.INVALID_ARGUMENT, kind(() -> DirectoryRules.withTransmitter(sys, PS, NODES, two, 1, routeBits(Route.broadcast()), false)));
        // the last transmitter leaving drops the route
        assertEquals(0, two.withoutNodes(0b11).route());
    }

    @Test
    void everyReceiverIsReachedByEveryTransmitter() {
        DirectoryEntry e = put(0, 0x42, SYS_PAGES, 1, 0);
        DirectoryEntry toNode2 = DirectoryRules.withTransmitter(sys, PS, NODES, e, 0, routeBits(Route.node(2)), false);
        assertEquals(0b100, DirectoryRules.withReceiver(sys, PS, NODES, toNode2, 2).rxNodes());
        MemchanException missed = assertThrows(MemchanException.class, () -> DirectoryRules.withReceiver(sys, PS, NODES, toNode2, 3));
        assertTrue(missed.getMessage().contains("node 3 receives the region but transmitter node 0"), missed.getMessage());
        // a transmitter receiving its own pages needs local copy
        MemchanException self = assertThrows(MemchanException.class, () -> DirectoryRules.withReceiver(sys, PS, NODES, toNode2, 0));
        assertTrue(self.getMessage().contains("without local copy"), self.getMessage());
        DirectoryEntry loop = DirectoryRules.withTransmitter(sys, PS, NODES, e, 0, routeBits(Route.broadcast()), true);
        assertEquals(0b1, DirectoryRules.withReceiver(sys, PS, NODES, loop, 0).rxNodes());
        // a receiver first: a transmitter that would not reach it is refused
        DirectoryEntry rx3 = DirectoryRules.withReceiver(sys, PS, NODES, e, 3);
        assertEquals(Kind.INVALID_ARGUMENT, kind(() -> DirectoryRules.withTransmitter(sys, PS, NODES, rx3, 0, routeBits(Route.node(1)), false)));
    }

    @Test
    void multicastReachesTheGroupsMembersOnly() {
        SystemPagesCodec.setMulticastGroup(sysTx, PS, 5, 0b0110);
        int route = routeBits(Route.multicast(5));
        assertEquals(0b0110, DirectoryRules.destinations(sys, PS, NODES, route, 0));
        assertEquals(0b0100, DirectoryRules.destinations(sys, PS, NODES, route, 1), "a member's own pages come back by local copy only");
        assertEquals(0b1110, DirectoryRules.destinations(sys, PS, NODES, routeBits(Route.broadcast()), 0));
        assertEquals(-1 & ~1, DirectoryRules.destinations(sys, PS, 32, routeBits(Route.broadcast()), 0));
        DirectoryEntry e = DirectoryRules.withTransmitter(sys, PS, NODES, put(0, 0x42, SYS_PAGES, 1, 0), 0, route, false);
        assertEquals(0b0110, DirectoryRules.withReceiver(sys, PS, NODES, DirectoryRules.withReceiver(sys, PS, NODES, e, 1), 2).rxNodes());
        assertEquals(Kind.INVALID_ARGUMENT, kind(() -> DirectoryRules.withReceiver(sys, PS, NODES, e, 3)));
        // the group is in use while a routed entry sends to it
        SystemPagesCodec.writeEntry(sysTx, PS, e);
        assertEquals(Kind.IN_USE, kind(() -> DirectoryRules.checkGroupUnused(sys, PS, 5)));
        DirectoryRules.checkGroupUnused(sys, PS, 4);
    }

    @Test
    void staticPlanJoinsCoveringCarveOutsAndAddsTheUncoveredRuns() {
        int staticFlags = SystemPagesDescriptor.regionFlags(false, true, false, 0, 0);
        put(0, DirectoryRules.staticKey(20), 20, 4, staticFlags); // users = node 0
        DirectoryRules.StaticPlan plan = DirectoryRules.planStatic(sys, PS, 1, 18, 10);
        assertEquals(1, plan.joined().size());
        assertEquals(0b11, plan.joined().getFirst().users());
        assertEquals(2, plan.newRuns().size());
        assertArrayEquals(new int[]{18, 20}, plan.newRuns().get(0));
        assertArrayEquals(new int[]{24, 28}, plan.newRuns().get(1));
        // node 0 already holds it: nothing to join, nothing new
        DirectoryRules.StaticPlan again = DirectoryRules.planStatic(sys, PS, 0, 20, 4);
        assertEquals(List.of(), again.joined());
        assertEquals(0, again.newRuns().size());
        // a region's page is never static, and the refusal names it
        put(1, 0x42, 30, 2, 0);
        MemchanException owned = assertThrows(MemchanException.class, () -> DirectoryRules.planStatic(sys, PS, 0, 29, 2));
        assertEquals(Kind.IN_USE, owned.kind());
        assertTrue(owned.getMessage().contains("page 30 belongs to region 0x42"), owned.getMessage());
    }
}
