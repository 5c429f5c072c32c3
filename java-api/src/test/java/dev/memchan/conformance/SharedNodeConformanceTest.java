package dev.memchan.conformance;

import dev.memchan.ClusterEvent;
import dev.memchan.Fabric;
import dev.memchan.admin.DirectoryEntry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several processes per node (Tru64's IMC_SHARED): real processes, two nodes with three processes each,
 * and an observer node in the test's JVM. Membership events describe nodes; lock sets exclude
 * processes of one node as well as nodes; one process's death releases only what it held.
 */
@Tag(TestBackend.PROCESSES_OF_ONE_NODE)
class SharedNodeConformanceTest {
    private static final Duration T = TestBackend.allowance(Duration.ofSeconds(120));
    private static final int PER_NODE = 3;

    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    /**
     * The two nodes the processes share, and the observer's: a third node where the backend has one,
     * else the first shared node (the observer is then one more process of it, as on the two adapters
     * of the co-simulated board).
     */
    private static int[] castNodes() {
        return TestBackend.nodes() >= 3 ? new int[]{1, 2, 0} : new int[]{0, 1, 0};
    }

    private static Optional<DirectoryEntry> entry(Fabric f, long key) {
        return f.admin().view().regions().stream().filter(e -> e.key() == key).findFirst();
    }

    /** The events the observer has seen so far hold no LEAVE of {@code node}. */
    private static void assertNoLeaveOf(Fabric observer, int node) throws InterruptedException {
        for (ClusterEvent e = observer.awaitClusterEvent(Duration.ZERO); e != null; e = observer.awaitClusterEvent(Duration.ZERO)) {
            assertFalse(e.type() == ClusterEvent.Type.LEAVE && e.node() == node, "no LEAVE for a node with live processes: " + e);
        }
    }

    private static void closeAll(List<NodeProcess> ps) throws InterruptedException {
        for (NodeProcess p : ps) {
            p.close();
        }
    }

    @Test
    void twoNodesOfThreeProcessesAllocateAttachAndShareTheirNodes() throws Exception {
        int[] n = castNodes();
        String fabric = TestBackend.newFabric("shared-alloc");
        long common = TestBackend.key();
        long[] own = new long[2 * PER_NODE];
        List<NodeProcess> ps = new ArrayList<>();
        try (Fabric observer = Fabric.open(fabric, TestBackend.joinOptions().withNodeId(n[2]))) {
            for (int i = 0; i < own.length; i++) {
                own[i] = TestBackend.key();
                ps.add(NodeProcess.startOnNode("p" + i, n[i / PER_NODE], "proc-alloc", fabric, "" + common, "" + own[i],
                        "" + i, "" + own.length));
            }
            int[][] runs = new int[own.length][];
            for (int i = 0; i < own.length; i++) {
                String ready = ps.get(i).expect("READY", T);
                assertTrue(ready.startsWith("READY node=" + n[i / PER_NODE] + " "), "process " + i + " joined its node: " + ready);
                int first = Integer.parseInt(ready.replaceAll(".*first=(\\d+).*", "$1"));
                runs[i] = new int[]{first, first + Integer.parseInt(ready.replaceAll(".*pages=(\\d+).*", "$1"))};
            }
            for (int i = 0; i < runs.length; i++) {
                for (int j = i + 1; j < runs.length; j++) {
                    assertTrue(runs[i][1] <= runs[j][0] || runs[j][1] <= runs[i][0], "regions of processes " + i + " and " + j
                            + " overlap: " + runs[i][0] + ".." + runs[i][1] + " and " + runs[j][0] + ".." + runs[j][1]);
                }
            }
            int both = (1 << n[0]) | (1 << n[1]);
            assertEquals(both, entry(observer, common).orElseThrow().users(), "the common region's users are nodes");
            assertEquals(both, entry(observer, common).orElseThrow().txNodes());
            for (int i = 0; i < own.length; i++) {
                assertEquals(1 << n[i / PER_NODE], entry(observer, own[i]).orElseThrow().users());
            }
            for (NodeProcess p : ps) {
                p.send("GO");
            }
            for (NodeProcess p : ps) {
                String ok = p.expect("OK", T);
                int members = Integer.parseInt(ok.replaceAll(".*members=(\\d+).*", "$1"));
                assertEquals(both | (1 << n[2]), members & (both | (1 << n[2])), ok);
            }
            // one process of node n[0] leaves cleanly: its region goes, the node and the common region stay
            ps.getFirst().send("QUIT");
            assertEquals(0, ps.getFirst().waitFor(T));
            assertFalse(entry(observer, own[0]).isPresent(), "the leaver's own region is freed");
            assertEquals(both, entry(observer, common).orElseThrow().users(), "its node still uses the common region");
            assertNotEquals(0, observer.members() & (1 << n[0]), "its node is still a member");
            assertNoLeaveOf(observer, n[0]);
            for (NodeProcess p : ps.subList(1, ps.size())) {
                p.send("QUIT");
                assertEquals(0, p.waitFor(T));
            }
            assertFalse(entry(observer, common).isPresent(), "the last user freed the common region");
            int observers = 1 << n[2]; // the observer's node stays while the observer does
            assertEquals(both & observers, observer.members() & both, "the nodes left with their last processes");
        } finally {
            closeAll(ps);
        }
    }

    @Test
    void aLockSetExcludesProcessesOfOneNodeAndACounterEndsExact() throws Exception {
        int[] n = castNodes();
        String fabric = TestBackend.newFabric("shared-lock");
        long lockKey = TestBackend.key();
        long dataKey = TestBackend.key();
        int each = TestBackend.count(1_000, 50);
        List<NodeProcess> ps = new ArrayList<>();
        try {
            for (int i = 0; i < 2 * PER_NODE; i++) {
                ps.add(NodeProcess.startOnNode("lock" + i, n[i / PER_NODE], "lock-count", fabric, "" + lockKey, "" + dataKey, "" + each));
            }
            for (int i = 0; i < ps.size(); i++) {
                assertEquals("READY node=" + n[i / PER_NODE], ps.get(i).expect("READY", T));
            }
            for (NodeProcess p : ps) {
                p.send("GO");
            }
            for (NodeProcess p : ps) {
                assertEquals("DONE iterations=" + each, p.expect("DONE", T));
            }
            for (NodeProcess p : ps) {
                p.send("REPORT");
                assertEquals("COUNT " + (long) each * ps.size(), p.expect("COUNT", T), "every increment under the lock counted once");
            }
        } finally {
            closeAll(ps);
        }
    }

    @Test
    void sigkillOfOneProcessReleasesOnlyWhatItHeld() throws Exception {
        int[] n = castNodes();
        String fabric = TestBackend.newFabric("shared-kill");
        long lockKey = TestBackend.key();
        long victimKey = TestBackend.key();
        List<NodeProcess> ps = new ArrayList<>();
        try {
            // the victim joins node n[0] first: the member slot and the claim name it
            NodeProcess victim = NodeProcess.startOnNode("victim", n[0], "hold-lock", fabric, "" + lockKey, "" + victimKey);
            ps.add(victim);
            assertEquals("HOLDING node=" + n[0], victim.expect("HOLDING", T));
            try (Fabric observer = Fabric.open(fabric, TestBackend.joinOptions().withNodeId(n[2]))) {
                long[] own = new long[2 * PER_NODE - 1];
                for (int i = 0; i < own.length; i++) {
                    own[i] = TestBackend.key();
                    int node = i < PER_NODE - 1 ? n[0] : n[1];
                    ps.add(NodeProcess.startOnNode("s" + i, node, "survive", fabric, "" + lockKey, "" + own[i]));
                    assertEquals("READY node=" + node, ps.getLast().expect("READY", T));
                }
                long victimPid = victim.hostPid();
                assertEquals(victimPid, observer.admin().view().member(n[0]).pid(), "the member slot names the victim before it dies");
                victim.kill();
                for (NodeProcess p : ps.subList(1, ps.size())) {
                    p.send("GO");
                }
                int both = (1 << n[0]) | (1 << n[1]);
                for (NodeProcess p : ps.subList(1, ps.size())) {
                    String ok = p.expect("OK", T); // the victim's lock was released to them
                    assertEquals(both, Integer.parseInt(ok.replaceAll(".*members=(\\d+).*", "$1")) & both, ok);
                }
                assertNotEquals(0, observer.members() & (1 << n[0]), "the victim's node is still a member");
                assertNoLeaveOf(observer, n[0]);
                long deadline = System.nanoTime() + TestBackend.allowance(Duration.ofSeconds(10)).toNanos();
                while (entry(observer, victimKey).isPresent() && System.nanoTime() < deadline) {
                    Thread.sleep(20); // the survivors' agents release it within a heartbeat period or two
                }
                assertFalse(entry(observer, victimKey).isPresent(), "the victim's region is freed");
                for (int i = 0; i < own.length; i++) {
                    assertEquals(1 << (i < PER_NODE - 1 ? n[0] : n[1]), entry(observer, own[i]).orElseThrow().users(),
                            "survivor " + i + "'s region is intact");
                }
                // a survivor's agent takes the member slot over in its own tick, which may come after the
                // region's release: wait for it within the same allowance
                while (observer.admin().view().member(n[0]).pid() == victimPid && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertNotEquals(victimPid, observer.admin().view().member(n[0]).pid(), "the member slot names a live process");
            }
        } finally {
            closeAll(ps);
        }
    }
}
