package dev.memchan.conformance;

import org.junit.jupiter.api.AfterAll;
import dev.memchan.LockKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Barrier, cluster locks and notification across real processes. */
class SynchronizationConformanceTest {
    private static final Duration T = TestBackend.allowance(Duration.ofSeconds(180));

    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    @Test
    void barrierCompletesOnlyAfterEveryEarlierStoreIsVisible() throws Exception {
        String fabric = TestBackend.newFabric("barrier");
        long dataKey = TestBackend.key();
        long barrierKey = TestBackend.key();
        int parties = Math.min(3, TestBackend.nodes());
        int rounds = TestBackend.count(300, 20);
        List<NodeProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < parties; i++) {
                nodes.add(NodeProcess.start("b" + i, "barrier", fabric, "" + dataKey, "" + barrierKey, "" + parties, "" + rounds));
            }
            for (NodeProcess p : nodes) {
                p.expect("READY", T);
            }
            for (NodeProcess p : nodes) {
                p.send("GO");
            }
            for (NodeProcess p : nodes) {
                assertEquals("OK rounds=" + rounds, p.expect("OK", T));
            }
        } finally {
            for (NodeProcess p : nodes) {
                p.close();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void clusterLockGivesMutualExclusionToFourProcesses(LockKind kind) throws Exception {
        assumeTrue(kind == LockKind.BID || TestBackend.remoteUnsupported() == null, "the CAS lock needs remote atomics: "
                + TestBackend.remoteUnsupported());
        String fabric = TestBackend.newFabric("lock");
        long lockKey = TestBackend.key();
        long dataKey = TestBackend.key();
        int processes = Math.min(4, TestBackend.nodes());
        // 12,000 bid-lock acquisitions in all on four nodes; 40,000 CAS-lock acquisitions
        int each = kind == LockKind.BID ? TestBackend.count(3_000, 100) : TestBackend.count(10_000, 200);
        List<NodeProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < processes; i++) { // a CAS set's home is the first to allocate it; all stay until QUIT
                nodes.add(NodeProcess.start("lock" + i, "lock-count", fabric, "" + lockKey, "" + dataKey, "" + each, kind.name()));
                nodes.get(i).expect("READY", T);
            }
            // every process waited for its stores' acknowledgements before DONE: the counter is final
            assertEquals("COUNT " + (long) processes * each, NodeProcess.countRound(nodes, T),
                    "lost updates: the counter was incremented without mutual exclusion");
        } finally {
            for (NodeProcess p : nodes) {
                p.close();
            }
        }
    }

    @Test
    void notificationWakesABlockedReceiver() throws Exception {
        String fabric = TestBackend.newFabric("notify");
        long key = TestBackend.key();
        try (NodeProcess waiter = NodeProcess.start("waiter", "notify-wait", fabric, "" + key)) {
            String ready = waiter.expect("READY", T);
            int waiterNode = Integer.parseInt(ready.substring(ready.indexOf('=') + 1));
            try (NodeProcess signaller = NodeProcess.start("signaller", "notify-signal", fabric, "" + key, "" + waiterNode)) {
                String sready = signaller.expect("READY", T);
                long signallerNode = Long.parseLong(sready.substring(sready.indexOf('=') + 1));
                // the waiter has long finished polling and sleeps on the adapter (scaled: a loaded host or a
                // TCG guest may not have run it since its READY)
                Thread.sleep(TestBackend.allowance(Duration.ofMillis(500)).toMillis());
                signaller.send("GO");
                signaller.expect("SIGNALLED", T);
                String woke = waiter.expect("WOKE", TestBackend.allowance(Duration.ofSeconds(20)));
                long sleeps = Long.parseLong(woke.replaceAll(".*sleeps=(\\d+).*", "$1"));
                assertTrue(sleeps >= 1, "the receiver never slept, so nothing was woken: " + woke);
                assertEquals((signallerNode << 48) | 1, Long.parseLong(woke.replaceAll(".*value=(\\d+).*", "$1")),
                        "the woken receiver must read the signaller's first notification: " + woke);
            }
        }
    }
}
