package dev.memchan.conformance;

import dev.memchan.Fabric;
import dev.memchan.IncomingMapping;
import dev.memchan.MemchanException;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.Route;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Multicast groups: members receive, non-members are refused, a group in use cannot change. */
class MulticastConformanceTest {
    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    @Test
    void onlyGroupMembersReceiveAMulticastRegion() {
        TestBackend.assumeNodes(4, "nodes 1, 2 and 3: a sender, a member and a non-member");
        String location = TestBackend.newFabric("mcast");
        long key = TestBackend.key();
        try (Fabric a = Fabric.open(location, TestBackend.joinOptions().withNodeId(1));
             Fabric b = Fabric.open(location, TestBackend.joinOptions().withNodeId(2));
             Fabric c = Fabric.open(location, TestBackend.joinOptions().withNodeId(3))) {
            a.setMulticastGroup(5, (1 << 2) | (1 << 4));
            assertEquals((1 << 2) | (1 << 4), c.multicastGroup(5), "groups are cluster-wide");
            Region ra = a.allocate(key, a.pageSize(), 0660);
            Region rb = b.allocate(key, b.pageSize(), 0660);
            Region rc = c.allocate(key, c.pageSize(), 0660);
            OutgoingMapping out = ra.attachTransmit(Route.multicast(5), false);
            IncomingMapping in = rb.attachReceive(false);
            MemchanException refused = assertThrows(MemchanException.class, () -> rc.attachReceive(false));
            assertEquals(MemchanException.Kind.INVALID_ARGUMENT, refused.kind());
            assertTrue(refused.getMessage().contains("group 5"), refused.getMessage());
            MemchanException inUse = assertThrows(MemchanException.class, () -> c.setMulticastGroup(5, 1 << 3));
            assertEquals(MemchanException.Kind.IN_USE, inUse.kind());
            assertEquals((1 << 2) | (1 << 4), c.multicastGroup(5), "a refused change changes nothing");
            if (c.maxNodes() < Integer.SIZE) { // a mask bit past the node IDs exists below 32 of them
                MemchanException outOfRange = assertThrows(MemchanException.class, () -> c.setMulticastGroup(6, 1 << c.maxNodes()));
                assertEquals(MemchanException.Kind.INVALID_ARGUMENT, outOfRange.kind());
            }
            out.putLongRelease(0, 77);
            a.ackBarrier(); // the store has reached the members (on a board it crosses the hub; no load may race it)
            assertEquals(77, in.getLongAcquire(0));
            // a device fabric outlives the test: leave the group as found
            ra.close();
            rb.close();
            rc.close();
            a.setMulticastGroup(5, 0);
            assertEquals(0, c.multicastGroup(5));
        }
    }
}
