package dev.memchan.conformance;

import dev.memchan.Fabric;
import dev.memchan.MemchanException;
import dev.memchan.Region;
import dev.memchan.RemoteMapping;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Remote read, remote atomics and the CAS lock across real processes. */
class RemoteConformanceTest {
    private static final Duration T = TestBackend.allowance(Duration.ofSeconds(180));
    /**
     * The failure bound is FailureConformanceTest's: the configured failure timeout, stretched by the
     * watcher's local-health multiplier, plus two heartbeat periods; scheduling slack on top.
     */
    private static final long SCHEDULING_SLACK_MS = 500;

    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    @BeforeEach
    void onlyWhereTheBackendGrantsRemoteAccess() {
        String unsupported = TestBackend.remoteUnsupported();
        assumeTrue(unsupported == null, unsupported);
    }

    private static void closeAll(List<NodeProcess> nodes) throws InterruptedException {
        for (NodeProcess p : nodes) {
            p.close();
        }
    }

    private static int nodeOf(String ready) {
        return Integer.parseInt(ready.replaceAll(".*node=(\\d+).*", "$1"));
    }

    @Test
    void fetchAndAddFromFourProcessesIsExact() throws Exception {
        String fabric = TestBackend.newFabric("faa");
        long key = TestBackend.key();
        int processes = Math.min(4, TestBackend.nodes());
        int each = TestBackend.count(10_000, 200);
        List<NodeProcess> nodes = new ArrayList<>();
        try {
            nodes.add(NodeProcess.start("faa0", "faa-home", fabric, "" + key, "" + each));
            int home = nodeOf(nodes.get(0).expect("READY", T));
            for (int i = 1; i < processes; i++) {
                nodes.add(NodeProcess.start("faa" + i, "faa", fabric, "" + key, "" + each, "" + home));
                nodes.get(i).expect("READY", T);
            }
            long total = (long) processes * each;
            assertEquals("COUNT " + total + " atomics=" + total, NodeProcess.countRound(nodes, T),
                    "lost or doubled fetch-and-adds, or the home's atomic counter disagrees");
        } finally {
            closeAll(nodes);
        }
    }

    /**
     * Requesters SIGKILLed in the middle of their fetch-and-adds, then one more that runs to its end: the
     * home's atomic counter is never above the word (nothing double-counted, nothing of a dead requester's
     * counts dropped), and below it by at most one per killed requester: the one access a requester may
     * have been served between its atomic and its count store when the signal came.
     */
    @Test
    void pageCountersStayExactWhenRequestersAreKilled() throws Exception {
        String fabric = TestBackend.newFabric("faakill");
        long key = TestBackend.key();
        int victims = Math.min(2, TestBackend.nodes() - 2);
        assumeTrue(victims > 0, "needs a home, a victim and a last requester");
        int last = TestBackend.count(10_000, 200);
        List<NodeProcess> nodes = new ArrayList<>();
        try (NodeProcess home = NodeProcess.start("faakill-home", "faa-home", fabric, "" + key, "0")) {
            int homeNode = nodeOf(home.expect("READY", T));
            // every JVM starts at once (under TCG a start costs tens of seconds); the victims spin only once told GO
            for (int i = 0; i < victims; i++) {
                nodes.add(NodeProcess.start("faakill" + i, "faa-until-killed", fabric, "" + key, "" + homeNode));
            }
            NodeProcess after = NodeProcess.start("faakill-after", "faa", fabric, "" + key, "" + last, "" + homeNode);
            nodes.add(after);
            for (NodeProcess p : nodes) {
                p.expect("READY", T);
            }
            home.send("GO");
            List<NodeProcess> killed = nodes.subList(0, victims);
            for (NodeProcess v : killed) {
                v.send("GO");
            }
            for (NodeProcess v : killed) {
                v.expect("RUNNING", T);
            }
            for (NodeProcess v : killed) {
                v.kill();
            }
            after.send("GO");
            after.expect("DONE", T);
            home.expect("DONE", T);
            home.send("REPORT");
            String count = home.expect("COUNT", T);
            long word = Long.parseLong(count.replaceAll("COUNT (\\d+) .*", "$1"));
            long atomics = Long.parseLong(count.replaceAll(".*atomics=(\\d+).*", "$1"));
            System.out.println("SIGKILL of " + victims + " requesters: word " + word + ", atomics counted " + atomics);
            assertTrue(word >= last + 1000L * victims, "every victim ran 1000 adds before the kill: " + count);
            assertTrue(atomics <= word, "an atomic counted twice: " + count);
            assertTrue(word - atomics <= victims, "counts of killed requesters lost: " + count);
            home.send("QUIT");
            after.send("QUIT");
        } finally {
            closeAll(nodes);
        }
    }

    @Test
    void remoteReadIsNeverTornNorOlderThanTheSignal() throws Exception {
        String fabric = TestBackend.newFabric("rread");
        long key = TestBackend.key();
        int stores = TestBackend.count(200_000, 2_000);
        try (NodeProcess home = NodeProcess.start("home", "read-home", fabric, "" + key, "" + stores)) {
            int homeNode = nodeOf(home.expect("READY", T));
            try (NodeProcess reader = NodeProcess.start("reader", "read-remote", fabric, "" + key, "" + stores, "" + homeNode)) {
                reader.expect("READY", T);
                reader.send("GO");
                home.send("GO");
                home.expect("DONE", T);
                String ok = reader.expect("OK", T);
                assertTrue(ok.contains("last=" + stores), "the reader must end on the last value: " + ok);
            }
        }
    }

    @Test
    void badRemoteAccessIsRefusedCountedAndChangesNothing() throws Exception {
        String fabric = TestBackend.newFabric("rbad");
        long key = TestBackend.key();
        try (NodeProcess home = NodeProcess.start("home", "grant-home", fabric, "" + key);
             Fabric f = Fabric.open(fabric, TestBackend.joinOptions())) {
            int homeNode = nodeOf(home.expect("READY", T));
            int ps = f.pageSize();
            try (Region r = f.allocate(key, 2L * ps, 0660)) {
                long mine = f.remoteRefused();
                // not homed where asked: this node receives nothing of the region
                MemchanException notHome = assertThrows(MemchanException.class, () -> r.attachRemote(f.nodeId()));
                assertEquals(MemchanException.Kind.PERMISSION, notHome.kind());
                assertTrue(notHome.getMessage().contains("not the home"), notHome.getMessage());
                assertEquals(mine + 1, f.remoteRefused(), "the asked node counts the refusal");
                // page 1 is received at the home without any grant
                assertEquals(MemchanException.Kind.PERMISSION,
                        assertThrows(MemchanException.class, () -> r.attachRemote(homeNode, ps, ps)).kind());
                try (RemoteMapping m = r.attachRemote(homeNode, 0, ps)) {
                    MemchanException noAtomic = assertThrows(MemchanException.class, () -> m.getAndAddLong(0, 1));
                    assertEquals(MemchanException.Kind.PERMISSION, noAtomic.kind());
                    assertTrue(noAtomic.getMessage().contains("ATOMIC_EN"), noAtomic.getMessage());
                    assertEquals(MemchanException.Kind.PERMISSION,
                            assertThrows(MemchanException.class, () -> m.compareAndExchangeLong(3, 42, 0)).kind());
                    MemchanException misaligned = assertThrows(MemchanException.class, () -> m.getLongAcquire(4));
                    assertTrue(misaligned.getMessage().contains("aligned"), misaligned.getMessage());
                    // outside the mapping: the requester's own error, never sent, not counted
                    assertEquals(MemchanException.Kind.INVALID_ARGUMENT,
                            assertThrows(MemchanException.class, () -> m.getLongAcquire(ps)).kind());
                    assertEquals(42, m.getLongAcquire(0), "the refused operations changed the word");
                }
                home.send("REPORT");
                // the hardware adapter (TestBackend.isHardware) refuses the misaligned CAS and read before they
                // are sent; at another home, the attach of page 1 is two refused probes, that of page 0 a read
                boolean hardware = TestBackend.isHardware(f);
                boolean probed = hardware && homeNode != f.nodeId();
                int refused = 4 - (hardware ? 2 : 0) + (probed ? 1 : 0);
                int reads = 1 + (probed ? 1 : 0);
                assertEquals("REFUSED " + refused + " reads=" + reads + " atomics=0 words=42,7", home.expect("REFUSED", T),
                        "the home counts each refusal, serves the one good read, and its words are unchanged");
                assertEquals(mine + 1, f.remoteRefused());
            }
        }
    }

    @Test
    void pageCountersCountWhatTheHomeServedAndNotifyAtTheThreshold() throws Exception {
        String fabric = TestBackend.newFabric("rhot");
        long key = TestBackend.key();
        int threshold = 50;
        try (NodeProcess home = NodeProcess.start("home", "hot-home", fabric, "" + key, "" + threshold);
             Fabric f = Fabric.open(fabric, TestBackend.joinOptions())) {
            String ready = home.expect("READY", T);
            int homeNode = nodeOf(ready);
            int first = Integer.parseInt(ready.replaceAll(".*first=(\\d+).*", "$1"));
            int ps = f.pageSize();
            try (Region r = f.allocate(key, 2L * ps, 0660); RemoteMapping m = r.attachRemote(homeNode)) {
                // the attach's read of each page, counted there (TestBackend.isHardware)
                int attach = TestBackend.isHardware(f) && homeNode != f.nodeId() ? 1 : 0;
                for (int i = 0; i < threshold - 1 - attach; i++) { // page 0: one read short of the threshold
                    m.getLongAcquire(8);
                }
                for (int i = 0; i < 3; i++) { // page 1: three atomics
                    m.getAndAddLong(ps, 1);
                }
                m.getLongAcquire(ps + 8);      // page 1: one read
                m.getLongAcquire(0);           // page 0 reaches the threshold: the home is notified
                assertEquals("HOT page=" + first + " reads=" + threshold + " atomics=0", home.expect("HOT", T));
                for (int i = 0; i < threshold; i++) { // past the threshold: no second notification
                    m.getLongAcquire(0);
                }
                home.send("REPORT");
                assertEquals("COUNTS reads=" + 2 * threshold + "," + (1 + attach) + " atomics=0,3 again=-1",
                        home.expect("COUNTS", T));
                assertEquals(3, m.getLongAcquire(ps), "the atomics landed at the home");
            }
        }
    }

    @Test
    void sigkilledCasLockHolderIsReleasedWithinTheFailureBound() throws Exception {
        String fabric = TestBackend.newFabric("casdeath");
        long lockKey = TestBackend.key();
        long regionKey = TestBackend.key();
        try (NodeProcess watcher = NodeProcess.start("watcher", "cas-watch", fabric, "" + lockKey)) {
            watcher.expect("READY", T); // the watcher allocated the set: it is the home
            try (NodeProcess victim = NodeProcess.start("victim", "hold-lock", fabric, "" + lockKey, "" + regionKey, "CAS")) {
                int victimNode = nodeOf(victim.expect("HOLDING", T));
                watcher.send("GO");
                assertEquals("HELD holder=" + victimNode, watcher.expect("HELD", T));
                long killedAt = System.currentTimeMillis();
                victim.kill();
                String leave = watcher.expect("LEAVE", TestBackend.failureTimeout().plus(TestBackend.allowance(Duration.ofSeconds(10))));
                long latency = Long.parseLong(leave.replaceAll(".*at=(\\d+).*", "$1")) - killedAt;
                String acquired = watcher.expect("ACQUIRED", T);
                long releasedAfter = Long.parseLong(acquired.replaceAll(".*at=(\\d+).*", "$1")) - killedAt;
                System.out.println("CAS lock: holder declared dead after " + latency + " ms, lock taken after " + releasedAfter + " ms");
                long slack = TestBackend.allowance(Duration.ofMillis(SCHEDULING_SLACK_MS)).toMillis();
                assertTrue(leave.contains("failed=true"), leave);
                int multiplier = FailureConformanceTest.multiplierAtDeath(watcher.logTail(), victimNode);
                long bound = TestBackend.failureTimeout().toMillis() * multiplier + 2 * TestBackend.heartbeatPeriod().toMillis();
                assertTrue(releasedAfter <= bound + slack, "CAS lock released " + releasedAfter + " ms after SIGKILL (bound "
                        + bound + " ms, the watcher's local-health multiplier " + multiplier + ", + " + slack + " ms of scheduling slack)");
            }
        }
    }
}
