package dev.memchan.internal.cluster;

import dev.memchan.Fabric;
import dev.memchan.MemchanException;
import dev.memchan.Region;
import dev.memchan.conformance.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import static dev.memchan.layout.Regs.SYS_PAGES;
import static dev.memchan.layout.Regs.SYS_STATIC_KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Static carve-outs (pages an operator routed with mcctl pct / apply) in the region directory: the
 * allocator steps around them, their key cannot be allocated, a member leaving does not take them
 * away, and they go when no node holds an entry on their pages any more.
 */
class StaticCarveOutTest {
    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    private static ClusterService.RegionEntry entryAt(ClusterService c, int firstPage) {
        return c.regions().stream().filter(e -> e.firstPage == firstPage).findFirst().orElse(null);
    }

    @Test
    void theAllocatorStepsAroundCarveOutsAndTheyOutliveMembers() {
        String location = TestBackend.newFabric("static");
        int first = SYS_PAGES; // where the first-fit allocator would start
        try (Fabric admin = Fabric.open(location, TestBackend.joinOptions())) {
            ClusterService c = admin.cluster();
            int node = admin.nodeId();
            c.withClusterLock(() -> {
                c.reserveStaticLocked(node, first, 4);
                c.reserveStaticLocked(node, first + 2, 4); // overlaps the first: only pages first+4.. are new
                return null;
            });
            assertEquals(4, entryAt(c, first).pageCount);
            assertTrue(entryAt(c, first).isStatic());
            assertEquals(2, entryAt(c, first + 4).pageCount);
            try (Fabric program = Fabric.open(location, TestBackend.joinOptions());
                 Region r = program.allocate(TestBackend.key(), 2L * program.pageSize(), 0600)) {
                ClusterService.RegionEntry e = c.regions().stream().filter(x -> !x.isStatic()).findFirst().orElseThrow();
                assertTrue(e.firstPage >= first + 6, "region at page " + e.firstPage + " overlaps the carve-outs " + first + ".." + (first + 5));
                MemchanException refused = assertThrows(MemchanException.class,
                        () -> program.allocate(SYS_STATIC_KEY | first, program.pageSize(), 0600));
                assertEquals(MemchanException.Kind.IN_USE, refused.kind());
                assertThrows(MemchanException.class, () -> c.withClusterLock(() -> {
                    c.reserveStaticLocked(node, e.firstPage, 1); // a region's page is never static
                    return null;
                }));
            }
            // the program node left: its cleanup did not touch the carve-outs
            assertTrue(entryAt(c, first).isStatic());
            // node holds entries on the first carve-out only: the second goes, the first stays
            c.withClusterLock(() -> {
                c.releaseStaticLocked(1 << node, (n, p) -> p == first);
                return null;
            });
            assertTrue(entryAt(c, first).isStatic());
            assertEquals(null, entryAt(c, first + 4));
            // another node's bits are not judged when that node is not visible
            c.withClusterLock(() -> {
                c.releaseStaticLocked(0, (n, p) -> false);
                return null;
            });
            assertTrue(entryAt(c, first).isStatic());
            c.withClusterLock(() -> {
                c.releaseStaticLocked(1 << node, (n, p) -> false);
                return null;
            });
            assertFalse(c.regions().stream().anyMatch(ClusterService.RegionEntry::isStatic));
        }
    }
}
