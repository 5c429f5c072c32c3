package dev.memchan.internal.cluster;

import dev.memchan.Fabric;
import dev.memchan.MemchanException;
import dev.memchan.Region;
import dev.memchan.admin.ClusterAdmin;
import dev.memchan.admin.DirectoryEntry;
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

    private static DirectoryEntry entryAt(ClusterAdmin c, int firstPage) {
        return c.view().regions().stream().filter(e -> e.firstPage() == firstPage).findFirst().orElse(null);
    }

    @Test
    void theAllocatorStepsAroundCarveOutsAndTheyOutliveMembers() {
        String location = TestBackend.newFabric("static");
        int first = SYS_PAGES; // where the first-fit allocator would start
        try (Fabric admin = Fabric.open(location, TestBackend.joinOptions())) {
            ClusterAdmin c = admin.admin();
            int node = admin.nodeId();
            c.transaction(carve -> {
                carve.reserve(node, first, 4);
                carve.reserve(node, first + 2, 4); // overlaps the first: only pages first+4.. are new
                return null;
            });
            assertEquals(4, entryAt(c, first).pageCount());
            assertTrue(entryAt(c, first).isStatic());
            assertEquals(2, entryAt(c, first + 4).pageCount());
            try (Fabric program = Fabric.open(location, TestBackend.joinOptions());
                 Region _ = program.allocate(TestBackend.key(), 2L * program.pageSize(), 0600)) {
                DirectoryEntry e = c.view().regions().stream().filter(x -> !x.isStatic()).findFirst().orElseThrow();
                assertTrue(e.firstPage() >= first + 6, "region at page " + e.firstPage() + " overlaps the carve-outs " + first + ".." + (first + 5));
                MemchanException refused = assertThrows(MemchanException.class,
                        () -> program.allocate(SYS_STATIC_KEY | first, program.pageSize(), 0600));
                assertEquals(MemchanException.Kind.IN_USE, refused.kind());
                assertThrows(MemchanException.class, () -> c.transaction(carve -> {
                    carve.reserve(node, e.firstPage(), 1); // a region's page is never static
                    return null;
                }));
            }
            // the program node left: its cleanup did not touch the carve-outs
            assertTrue(entryAt(c, first).isStatic());
            // node holds entries on the first carve-out only: the second goes, the first stays
            c.transaction(carve -> {
                carve.release(1 << node, (n, p) -> p == first);
                return null;
            });
            assertTrue(entryAt(c, first).isStatic());
            assertEquals(null, entryAt(c, first + 4));
            // another node's bits are not judged when that node is not visible
            c.transaction(carve -> {
                carve.release(0, (n, p) -> false);
                return null;
            });
            assertTrue(entryAt(c, first).isStatic());
            c.transaction(carve -> {
                carve.release(1 << node, (n, p) -> false);
                return null;
            });
            assertFalse(c.view().regions().stream().anyMatch(DirectoryEntry::isStatic));
        }
    }
}
