package dev.memchan.conformance;

import dev.memchan.ClusterEvent;
import dev.memchan.Fabric;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The failure detector under load, measured (docs/performance.md, "Failure detection under load"); run
 * by {@code scripts/detector-load}, on the soft fabric with the default timing.
 * <ul>
 *   <li>{@code soak SECONDS [NODES PER_NODE [CHURN_SECONDS]]}: NODES nodes of PER_NODE processes each
 *       (default 4 x 2) and an observer node in this JVM stay members for SECONDS, each process reporting
 *       every cluster event it sees. Every CHURN_SECONDS (default 5; 0: never) the process one node's
 *       member slot names is SIGKILLed and replaced, round robin over the nodes: the survivor has to take
 *       the slot over (a late survivor's false death). Every node keeps a live process throughout, so any LEAVE
 *       with failed=true, and any EVICTED, is a false death.</li>
 *   <li>{@code kills COUNT}: COUNT times, a node of two processes joins and both are SIGKILLed; this JVM,
 *       another node, times the kill to its LEAVE (failed=true) event.</li>
 * </ul>
 * The load average is sampled every second and reported with the figures.
 */
public final class DetectorLoadMain {
    private DetectorLoadMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || !(args[0].equals("soak") || args[0].equals("kills"))) {
            System.err.println("usage: DetectorLoadMain soak SECONDS [NODES PER_NODE [CHURN_SECONDS]] | kills COUNT");
            System.exit(2);
        }
        LoadSampler load = new LoadSampler();
        load.start();
        int rc;
        try {
            rc = args[0].equals("soak") ? soak(Integer.parseInt(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 4,
                    args.length > 3 ? Integer.parseInt(args[3]) : 2, args.length > 4 ? Integer.parseInt(args[4]) : 5)
                    : kills(Integer.parseInt(args[1]));
        } finally {
            load.interrupt();
            TestBackend.cleanup();
        }
        System.out.println(load.summary());
        System.exit(rc);
    }

    /** A node process of the soak and whether the soak killed it. */
    private record Member(int node, NodeProcess process, java.util.concurrent.atomic.AtomicBoolean killed) {
    }

    private static int soak(int seconds, int nodes, int perNode, int churnSeconds) throws Exception {
        String fabric = TestBackend.newFabric("soak");
        List<Member> members = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.Set<String> falseDeaths = java.util.concurrent.ConcurrentHashMap.newKeySet(); // node:incarnation
        AtomicInteger falseDeathEvents = new AtomicInteger();
        AtomicInteger evictions = new AtomicInteger();
        AtomicInteger exits = new AtomicInteger();
        int kills = 0;
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        try (Fabric observer = Fabric.open(fabric, TestBackend.joinOptions().withNodeId(TestBackend.nodes() - 1))) {
            observer.onClusterEvent(e -> {
                if (e.type() == ClusterEvent.Type.LEAVE && e.failed()) {
                    falseDeathEvents.incrementAndGet();
                    if (falseDeaths.add(e.node() + ":" + e.incarnation())) {
                        System.out.println("FALSE DEATH seen by the observer: " + e);
                    }
                }
            });
            for (int n = 0; n < nodes; n++) {
                for (int i = 0; i < perNode; i++) {
                    members.add(startMember(fabric, n, falseDeaths, falseDeathEvents, evictions, exits));
                }
            }
            System.out.println("soak: " + nodes + " nodes x " + perNode + " processes and an observer joined " + fabric + "; "
                    + seconds + " s" + (churnSeconds > 0 ? ", every " + churnSeconds + " s the process a node's member slot names"
                    + " is SIGKILLed (its node's other processes live) and replaced" : ""));
            while (System.nanoTime() < end) {
                long left = (end - System.nanoTime()) / 1_000_000;
                Thread.sleep(Math.max(1, Math.min(left, churnSeconds > 0 ? churnSeconds * 1000L : left)));
                if (churnSeconds <= 0 || System.nanoTime() >= end) {
                    continue;
                }
                int n = kills % nodes;
                long named = observer.admin().view().member(n).pid();
                Member victim = members.stream().filter(m -> m.node() == n && m.process().pid() == named).findFirst().orElse(null);
                if (victim == null) {
                    System.out.println("node " + n + "'s slot names pid " + named + ", not one of its processes (a survivor has not renamed it yet)");
                    continue;
                }
                victim.killed().set(true);
                victim.process().kill();
                members.remove(victim);
                kills++;
                members.add(startMember(fabric, n, falseDeaths, falseDeathEvents, evictions, exits));
            }
        } finally {
            for (Member m : members) {
                m.killed().set(true);
                m.process().close();
            }
        }
        System.out.printf(Locale.ROOT, "soak result: %d s, %d nodes x %d processes, %d SIGKILLs of a named process:"
                        + " nodes falsely declared dead %d (%d LEAVE failed=true events seen), EVICTED %d, processes exited %d%n",
                seconds, nodes, perNode, kills, falseDeaths.size(), falseDeathEvents.get(), evictions.get(), exits.get());
        return falseDeaths.isEmpty() && evictions.get() == 0 && exits.get() == 0 ? 0 : 1;
    }

    /** Starts a process of node {@code n} and a thread that reads its events into the counts. */
    private static Member startMember(String fabric, int n, java.util.Set<String> falseDeaths, AtomicInteger falseDeathEvents,
                                      AtomicInteger evictions, AtomicInteger exits) throws Exception {
        NodeProcess p = NodeProcess.startOnNode("soak-n" + n, n, "events", fabric);
        p.expect("READY node=" + n, Duration.ofSeconds(120));
        Member m = new Member(n, p, new java.util.concurrent.atomic.AtomicBoolean());
        Thread.ofPlatform().daemon().start(() -> {
            try {
                while (true) {
                    String line;
                    try {
                        line = p.next(Duration.ofSeconds(1));
                    } catch (AssertionError quiet) {
                        continue; // no event this second
                    }
                    if (line.startsWith("EVENT LEAVE") && line.contains("failed=true")) {
                        falseDeathEvents.incrementAndGet();
                        String key = line.replaceAll(".*node=(\\d+) incarnation=(-?\\d+).*", "$1:$2");
                        if (falseDeaths.add(key)) {
                            System.out.println("FALSE DEATH seen by pid " + p.pid() + ": " + line);
                        }
                    } else if (line.startsWith("EVENT EVICTED")) {
                        evictions.incrementAndGet();
                        System.out.println("EVICTED pid " + p.pid() + ": " + line);
                    } else if (line.equals("<EOF>")) {
                        if (!m.killed().get()) {
                            exits.incrementAndGet();
                            System.out.println("process " + p.pid() + " exited" + p.logTail());
                        }
                        return;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return m;
    }

    private static int kills(int count) throws Exception {
        String fabric = TestBackend.newFabric("kills");
        int victimNode = 1;
        long[] ms = new long[count];
        try (Fabric watcher = Fabric.open(fabric, TestBackend.joinOptions().withNodeId(0))) {
            for (int k = 0; k < count; k++) {
                NodeProcess a = NodeProcess.startOnNode("victim-a", victimNode, "events", fabric);
                NodeProcess b = null;
                try {
                    a.expect("READY node=" + victimNode, Duration.ofSeconds(120));
                    b = NodeProcess.startOnNode("victim-b", victimNode, "events", fabric);
                    b.expect("READY node=" + victimNode, Duration.ofSeconds(120));
                    ClusterEvent e;
                    do {
                        e = watcher.awaitClusterEvent(Duration.ofSeconds(30));
                    } while (e != null && !(e.type() == ClusterEvent.Type.JOIN && e.node() == victimNode));
                    if (e == null) {
                        throw new AssertionError("no JOIN of node " + victimNode);
                    }
                    Thread.sleep(1000); // the agents settle: the watcher's score is back to what the machine gives
                    long t0 = System.nanoTime();
                    ProcessHandle.of(a.pid()).ifPresent(ProcessHandle::destroyForcibly);
                    ProcessHandle.of(b.pid()).ifPresent(ProcessHandle::destroyForcibly);
                    do {
                        e = watcher.awaitClusterEvent(Duration.ofSeconds(30));
                    } while (e != null && !(e.type() == ClusterEvent.Type.LEAVE && e.node() == victimNode));
                    long t = System.nanoTime();
                    if (e == null || !e.failed()) {
                        throw new AssertionError("kill " + k + ": no failed LEAVE of node " + victimNode + ": " + e);
                    }
                    ms[k] = (t - t0) / 1_000_000;
                    System.out.println("kill " + (k + 1) + ": declared dead after " + ms[k] + " ms");
                } finally {
                    a.close();
                    if (b != null) {
                        b.close();
                    }
                }
            }
        }
        long[] sorted = ms.clone();
        Arrays.sort(sorted);
        long median = count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
        System.out.printf(Locale.ROOT, "kills result: %d SIGKILLs of a node of two processes: declared dead after median %d ms,"
                + " min %d ms, max %d ms (failure timeout %d ms, heartbeat %d ms)%n", count, median, sorted[0], sorted[count - 1],
                TestBackend.failureTimeout().toMillis(), TestBackend.heartbeatPeriod().toMillis());
        return 0;
    }

    /** The 1-minute load average, sampled every second. */
    private static final class LoadSampler extends Thread {
        private double sum;
        private double max;
        private int samples;

        LoadSampler() {
            setDaemon(true);
        }

        @Override
        public void run() {
            while (!isInterrupted()) {
                try {
                    double l = Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
                    synchronized (this) {
                        sum += l;
                        max = Math.max(max, l);
                        samples++;
                    }
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    return; // no /proc/loadavg
                }
            }
        }

        synchronized String summary() {
            return String.format(Locale.ROOT, "load average (1 min, sampled each second): mean %.2f, max %.2f over %d samples; %d CPUs",
                    samples == 0 ? 0 : sum / samples, max, samples, Runtime.getRuntime().availableProcessors());
        }
    }
}
