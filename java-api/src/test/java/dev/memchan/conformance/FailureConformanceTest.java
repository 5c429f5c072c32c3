package dev.memchan.conformance;

import dev.memchan.ClusterEvent;
import dev.memchan.Fabric;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Node membership and failure detection across real processes. */
class FailureConformanceTest {
    private static final Duration T = TestBackend.allowance(Duration.ofSeconds(60));
    /**
     * The documented bound of a death's detection is the cluster's failure timeout (default 800 ms) plus
     * two heartbeat periods (the watcher's tick), below 1 s by default, with the failure timeout stretched
     * by the watcher's local-health multiplier while its own ticks run late (1 on a machine that runs it on
     * time); process-scheduling slack comes on top.
     */
    private static final long SCHEDULING_SLACK_MS = 500;

    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    /**
     * A failed node (SIGKILL, or its link cut: {@link NodeProcess#fail()}) is declared dead within the bound, and
     * the lock it held and its directory state are released.
     */
    @Test
    void aFailedNodeIsDeclaredDeadAndItsLocksAreReleased() throws Exception {
        String fabric = TestBackend.newFabric("death");
        long lockKey = TestBackend.key();
        long regionKey = TestBackend.key();
        try (NodeProcess victim = NodeProcess.start("victim", "hold-lock", fabric, "" + lockKey, "" + regionKey)) {
            String holding = victim.expect("HOLDING", T);
            int victimNode = Integer.parseInt(holding.substring(holding.indexOf('=') + 1));
            try (NodeProcess watcher = NodeProcess.start("watcher", "watch-death", fabric, "" + lockKey, "" + regionKey, "" + victimNode)) {
                String ready = watcher.expect("READY", T);
                assertTrue(ready.endsWith("holder=" + victimNode), "the victim must hold the lock before it dies: " + ready);
                long killedAt = System.currentTimeMillis();
                victim.fail();
                String leave = watcher.expect("LEAVE", TestBackend.failureTimeout().plus(TestBackend.allowance(Duration.ofSeconds(10))));
                long detectedAt = Long.parseLong(leave.replaceAll(".*at=(\\d+).*", "$1"));
                long latency = detectedAt - killedAt;
                System.out.println("failure detection latency after the failure (" + NodeProcess.failureBy() + "): " + latency + " ms");
                assertTrue(leave.contains("failed=true"), "a killed node is a failure, not a clean leave: " + leave);
                // the slack, not the bound, scales: a TCG guest's vCPUs stall for hundreds of ms on a loaded host
                long slack = TestBackend.allowance(Duration.ofMillis(SCHEDULING_SLACK_MS)).toMillis();
                // a watcher whose own ticks ran late stretched its windows (local health): the bound is
                // the failure timeout as stretched when it declared the death, which its agent reports
                int multiplier = multiplierAtDeath(watcher.logTail(), victimNode);
                long bound = TestBackend.failureTimeout().toMillis() * multiplier + 2 * TestBackend.heartbeatPeriod().toMillis();
                assertTrue(latency <= bound + slack, "declared dead after " + latency + " ms (bound " + bound
                        + " ms, the watcher's local-health multiplier " + multiplier + ", + " + slack + " ms of scheduling slack)"
                        + watcher.logTail());
                watcher.expect("ACQUIRED", T); // the dead node's lock was released
                watcher.expect("CLEAN", T);    // and its directory state removed
            }
        }
    }

    /**
     * Nothing is lost at the survivors: a sender's stores to a receiver (each store i into data word i mod 512, then i
     * into the flag, as in the single-sender check) keep arriving, each once the stores before it have, before a
     * third node's failure, between the failure and its declaration, and after it; the sender's acknowledge
     * barrier at the end completes. An observer that does not judge deaths itself sees the LEAVE as a failure.
     */
    @Test
    void storesBetweenSurvivorsArriveInOrderThroughAThirdNodesFailure() throws Exception {
        TestBackend.assumeNodes(4, "an observer, a sender, a receiver and the node that fails");
        String fabric = TestBackend.newFabric("survivors");
        long key = TestBackend.key();
        int step = TestBackend.count(1000, 100);
        // the observer's own failure timeout is far past the test's: the death is judged by the sender or the
        // receiver, never by it, and its LEAVE must still say failed (the slot's DEPARTED, not its own judgement)
        try (Fabric observer = Fabric.open(fabric, TestBackend.joinOptions().withTiming(TestBackend.heartbeatPeriod(), Duration.ofMinutes(30)));
             NodeProcess victim = NodeProcess.start("victim", "events", fabric);
             NodeProcess recv = NodeProcess.start("recv", "order-recv", fabric, "" + key, "" + 3 * step);
             NodeProcess send = NodeProcess.start("send", "order-send-steps", fabric, "" + key)) {
            String ready = victim.expect("READY node=", T);
            int victimNode = Integer.parseInt(ready.substring(ready.indexOf('=') + 1));
            recv.expect("READY", T);
            send.expect("READY", T);
            recv.send("GO");
            send.send("SEND " + step);
            assertEquals("SENT last=" + step, send.expect("SENT", T), "before the failure");
            victim.fail();
            send.send("SEND " + step);
            assertEquals("SENT last=" + 2 * step, send.expect("SENT", T), "after the failure");
            ClusterEvent leave = nextFor(observer, victimNode);
            if (leave.type() == ClusterEvent.Type.JOIN) { // its join, if the observer had not taken it yet
                leave = nextFor(observer, victimNode);
            }
            assertEquals(ClusterEvent.Type.LEAVE, leave.type(), "the failed node is declared dead: " + leave);
            assertTrue(leave.failed(), "a death another node judged is a failure at this observer too: " + leave);
            send.send("SEND " + step);
            assertEquals("SENT last=" + 3 * step, send.expect("SENT", T), "after the declaration");
            send.send("END");
            assertEquals("DONE sent=" + 3 * step, send.expect("DONE", T), "the sender's acknowledge barrier completes");
            // order-recv: every store up to the last, each flag value seen only with the stores before it
            recv.expect("OK", T);
        }
    }

    /**
     * The local-health multiplier with which the watcher's agent declared {@code node} dead, from its
     * stderr report ("node N (incarnation I) declared dead, ... multiplier M)"); 1 when it made none.
     */
    static int multiplierAtDeath(String log, int node) {
        int m = 1;
        for (String line : log.lines().toList()) {
            if (line.contains("cluster agent: node " + node + " (incarnation ") && line.contains("declared dead")) {
                m = Integer.parseInt(line.replaceAll(".*local-health multiplier (\\d+).*", "$1"));
            }
        }
        return m;
    }

    @Test
    void joinAndCleanLeaveAreReportedAsEvents() throws Exception {
        String fabric = TestBackend.newFabric("events");
        int member = Math.min(5, TestBackend.nodes() - 1);
        try (Fabric observer = Fabric.open(fabric, TestBackend.joinOptions().withNodeId(0))) {
            try (NodeProcess node = NodeProcess.start("member", "claim", fabric, "" + member)) {
                node.expect("JOINED node=" + member, T);
                ClusterEvent join = nextFor(observer, member);
                assertEquals(ClusterEvent.Type.JOIN, join.type());
                assertTrue((observer.members() & (1 << member)) != 0);
                node.send("QUIT");
                assertEquals(0, node.waitFor(T));
                ClusterEvent leave = nextFor(observer, member);
                assertEquals(ClusterEvent.Type.LEAVE, leave.type());
                assertFalse(leave.failed(), "a clean leave is not a failure");
                assertEquals(0, observer.members() & (1 << member));
            }
        }
    }

    /**
     * A busy node's false death, made certain: the process a node's member slot names is SIGKILLed while the
     * node's other process is stopped (SIGSTOP), so no agent of the node can rename the slot for longer
     * than the hand-over window. The node's table lists the stopped process, which the kernel says exists:
     * the node lives, and the survivor takes the slot over once continued.
     */
    @Test
    @Tag(TestBackend.PROCESSES_OF_ONE_NODE)
    void aNodeWhoseNamedProcessDiesLivesWhileItsTableListsAStoppedSurvivor() throws Exception {
        // The watcher finds the node's table where the node's processes opened the fabric on this host
        // (Backend.locationsOfNodeHere: the soft fabric's file, or the adapter whose node ID is the
        // node's): every node of the test is on this host, started without a launcher
        String fabric = TestBackend.newFabric("stopped-survivor");
        int node = 1;
        try (Fabric observer = Fabric.open(fabric, TestBackend.joinOptions().withNodeId(0));
             NodeProcess named = NodeProcess.startOnNodeHere("named", node, "events", fabric);
             NodeProcess survivor = named.expect("READY node=" + node, T) == null ? null
                     : NodeProcess.startOnNodeHere("survivor", node, "events", fabric)) {
            survivor.expect("READY node=" + node, T);
            assertEquals(named.pid(), observer.admin().view().member(node).pid(), "the slot names the first process");
            while (observer.awaitClusterEvent(Duration.ofMillis(200)) != null) {
                // the joins so far
            }
            signal("STOP", survivor.pid());
            try {
                named.kill();
                long killed = System.nanoTime();
                // past the hand-over window as the observer's detector stretches it (the largest
                // stretch seen while waiting: a late detector decides later, never earlier)
                long window = Math.max(2 * TestBackend.heartbeatPeriod().toMillis(), TestBackend.failureTimeout().toMillis() / 2);
                int stretch = observer.admin().detectorStretch();
                while (System.nanoTime() - killed < (window * stretch + 2 * TestBackend.heartbeatPeriod().toMillis()) * 1_000_000L) {
                    ClusterEvent e = observer.awaitClusterEvent(Duration.ofMillis(100));
                    assertFalse(e != null && e.node() == node, "no event for a node with a live process: " + e);
                    stretch = Math.max(stretch, observer.admin().detectorStretch());
                }
                assertNotEquals(0, observer.members() & (1 << node), "the node is still a member");
            } finally {
                signal("CONT", survivor.pid());
            }
            long deadline = System.nanoTime() + TestBackend.allowance(Duration.ofSeconds(10)).toNanos();
            while (observer.admin().view().member(node).pid() != survivor.pid() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(survivor.pid(), observer.admin().view().member(node).pid(), "the survivor took the slot over");
            assertNotEquals(0, observer.members() & (1 << node));
        }
    }

    /**
     * A false death, forced: the member runs in its own PID namespace (another "host" to the rule, so
     * it is judged by its heartbeat) and is stopped with SIGSTOP past the failure timeout, then continued.
     * The cluster declares it dead; the node learns it (EVICTED, its cluster operations refused) and
     * rejoins as a new incarnation, which the others see as LEAVE (failed) and JOIN.
     */
    @Test
    void aNodeDeclaredDeadWhileAliveLearnsItAndRejoinsAsANewIncarnation() throws Exception {
        List<String> ns = List.of("unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc");
        boolean canUnshare;
        try {
            Process probe = new ProcessBuilder(concat(ns, "true")).redirectErrorStream(true).start();
            canUnshare = probe.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) && probe.exitValue() == 0;
        } catch (java.io.IOException e) {
            canUnshare = false;
        }
        Assumptions.assumeTrue(canUnshare, "unshare --user --pid is not available here: a node on another host cannot be staged");
        String fabric = TestBackend.newFabric("evict");
        int member = Math.min(3, TestBackend.nodes() - 1);
        try (Fabric observer = Fabric.open(fabric, TestBackend.joinOptions().withNodeId(0));
             NodeProcess node = NodeProcess.startAs("evictable", ns, true, "evictable", fabric, "" + member)) {
            String joined = node.expect("JOINED node=" + member, T);
            long first = Long.parseLong(joined.replaceAll(".*incarnation=(-?\\d+).*", "$1"));
            assertEquals(ClusterEvent.Type.JOIN, nextFor(observer, member).type());
            // the JVM below unshare (and below a launcher's own processes, if any)
            ProcessHandle jvm = ProcessHandle.of(node.pid()).orElseThrow().descendants()
                    .filter(h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false)).findFirst()
                    .orElseThrow(() -> new AssertionError("unshare has no java process below it"));
            signal("STOP", jvm.pid());
            ClusterEvent leave;
            try {
                leave = nextFor(observer, member);
            } finally {
                signal("CONT", jvm.pid());
            }
            assertEquals(ClusterEvent.Type.LEAVE, leave.type(), "the stopped node is declared dead: " + leave);
            assertTrue(leave.failed());
            assertEquals(first, leave.incarnation());
            assertEquals("EVICTED node=" + member + " incarnation=" + first + " failed=true", node.expect("EVICTED", T),
                    "the node learns it was declared dead");
            assertEquals("FENCED CLOSED", node.expect("FENCED", T), "the old Fabric's cluster operations are refused");
            String rejoined = node.expect("REJOINED node=" + member, T);
            long second = Long.parseLong(rejoined.replaceAll(".*incarnation=(-?\\d+).*", "$1"));
            assertNotEquals(first, second, "a new incarnation");
            ClusterEvent join = nextFor(observer, member);
            assertEquals(ClusterEvent.Type.JOIN, join.type());
            assertEquals(second, join.incarnation());
            assertEquals(second, observer.admin().view().member(member).incarnation(), "the slot is the new incarnation's alone");
            assertNotEquals(0, observer.members() & (1 << member));
            node.send("QUIT");
            assertEquals(0, node.waitFor(T));
            ClusterEvent left = nextFor(observer, member);
            assertEquals(ClusterEvent.Type.LEAVE, left.type());
            assertFalse(left.failed(), "the new incarnation leaves cleanly");
        }
    }

    private static List<String> concat(List<String> a, String... b) {
        List<String> all = new java.util.ArrayList<>(a);
        all.addAll(List.of(b));
        return all;
    }

    private static void signal(String sig, long pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + sig, "" + pid).inheritIO().start().waitFor(), "kill -" + sig);
    }

    private static ClusterEvent nextFor(Fabric f, int node) throws InterruptedException {
        long deadline = System.nanoTime() + TestBackend.allowance(Duration.ofSeconds(20)).toNanos();
        while (System.nanoTime() < deadline) {
            ClusterEvent e = f.awaitClusterEvent(Duration.ofSeconds(1));
            if (e != null && e.node() == node) {
                return e;
            }
        }
        return org.junit.jupiter.api.Assertions.fail("no event for node " + node + " within " + TestBackend.allowance(Duration.ofSeconds(20)).toSeconds() + " s");
    }
}
