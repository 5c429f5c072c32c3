package dev.memchan.conformance;

import dev.memchan.Fabric;
import dev.memchan.IncomingMapping;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.Route;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Regions as imc_asalloc hands them out, with two nodes in this JVM. */
class RegionConformanceTest {
    private static final int PAGES = 2;

    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    /**
     * A region allocated over pages a freed region had written reads zero at every node: the allocator zeroes
     * them, and where transmit grants are shadows the zeros must be sent as they are (a diff sends nothing
     * for a word whose twin already holds 0, and would leave the old contents).
     */
    @Test
    void aRegionOverFreedPagesStartsZeroedAtEveryNode() {
        TestBackend.assumeNodes(2, "nodes 0 and 1 in this process: a writer and a reader");
        String location = TestBackend.newFabric("zero");
        // named nodes: on a device backend each is its own adapter, and a process uses a node once
        try (Fabric a = Fabric.open(location, TestBackend.joinOptions().withNodeId(0));
             Fabric b = Fabric.open(location, TestBackend.joinOptions().withNodeId(1))) {
            long bytes = (long) PAGES * a.pageSize();
            int firstPage;
            try (Region written = a.allocate(TestBackend.key(), bytes, 0600);
                 Region seen = b.allocate(written.key(), bytes, 0600)) {
                firstPage = written.firstPage();
                IncomingMapping in = seen.attachReceive(false);
                OutgoingMapping out = written.attachTransmit(Route.node(b.nodeId()), false);
                for (long off = 0; off < bytes - Long.BYTES; off += Long.BYTES) {
                    out.putLong(off, ~off);
                }
                out.putLongRelease(bytes - Long.BYTES, 1);
                long deadline = System.nanoTime() + TestBackend.allowance(Duration.ofSeconds(30)).toNanos();
                while (in.getLongAcquire(bytes - Long.BYTES) != 1) {
                    assertTrue(System.nanoTime() - deadline < 0, "the first region's flag never arrived");
                    Thread.onSpinWait();
                }
                assertEquals(~8L, in.getLong(8), "the first region's stores arrived");
            }
            try (Region fresh = a.allocate(TestBackend.key(), bytes, 0600);
                 Region joined = b.allocate(fresh.key(), bytes, 0600);
                 IncomingMapping in = joined.attachReceive(false)) {
                if (TestBackend.freshFabrics()) { // nothing else allocates on this fabric: first fit takes the freed pages
                    assertEquals(firstPage, fresh.firstPage(), "the new region lies on the freed pages");
                }
                for (long off = 0; off < bytes; off += Long.BYTES) {
                    assertEquals(0, in.getLong(off), "word at " + off + " of a new region");
                }
            }
        }
    }
}
