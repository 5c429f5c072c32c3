package dev.memchan.conformance;

import dev.memchan.ClusterEvent;
import dev.memchan.Fabric;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The failure detector under load, measured (docs/performance.md, "Failure detection under load"); run
 * by {@code scripts/detector-load}, on the soft fabric with the default timing.
 * <ul>
 *   <li>{@code soak SECONDS [NODES PER_NODE]}: NODES nodes of PER_NODE processes each (default 4 x 2) stay
 *       members for SECONDS, each process reporting every cluster event it sees. Every process lives
 *       throughout, so any LEAVE with failed=true, and any EVICTED, is a false death.</li>
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
            System.err.println("usage: DetectorLoadMain soak SECONDS [NODES PER_NODE] | kills COUNT");
            System.exit(2);
        }
        LoadSampler load = new LoadSampler();
        load.start();
        int rc;
        try {
            rc = args[0].equals("soak") ? soak(Integer.parseInt(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 4,
                    args.length > 3 ? Integer.parseInt(args[3]) : 2) : kills(Integer.parseInt(args[1]));
        } finally {
            load.interrupt();
            TestBackend.cleanup();
        }
        System.out.println(load.summary());
        System.exit(rc);
    }

    private static int soak(int seconds, int nodes, int perNode) throws Exception {
        String fabric = TestBackend.newFabric("soak");
        List<NodeProcess> ps = new ArrayList<>();
        AtomicInteger falseDeaths = new AtomicInteger();
        AtomicInteger evictions = new AtomicInteger();
        AtomicInteger exits = new AtomicInteger();
        List<Thread> readers = new ArrayList<>();
        Duration start = Duration.ofSeconds(120);
        try {
            for (int n = 0; n < nodes; n++) {
                for (int i = 0; i < perNode; i++) {
                    NodeProcess p = NodeProcess.startOnNode("soak-n" + n + "-p" + i, n, "events", fabric);
                    ps.add(p);
                    p.expect("READY node=" + n, start);
                }
            }
            System.out.println("soak: " + nodes + " nodes x " + perNode + " processes joined " + fabric + "; " + seconds + " s");
            long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            for (NodeProcess p : ps) {
                readers.add(Thread.ofPlatform().daemon().start(() -> {
                    try {
                        while (System.nanoTime() < end) {
                            String line;
                            try {
                                line = p.next(Duration.ofSeconds(1));
                            } catch (AssertionError quiet) {
                                continue; // no event this second
                            }
                            if (line.startsWith("EVENT LEAVE") && line.contains("failed=true")) {
                                falseDeaths.incrementAndGet();
                                System.out.println("FALSE DEATH seen by " + p.pid() + ": " + line);
                            } else if (line.startsWith("EVENT EVICTED")) {
                                evictions.incrementAndGet();
                                System.out.println("EVICTED " + p.pid() + ": " + line);
                            } else if (line.equals("<EOF>")) {
                                exits.incrementAndGet();
                                System.out.println("process " + p.pid() + " exited" + p.logTail());
                                return;
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
            }
            for (Thread t : readers) {
                t.join();
            }
        } finally {
            for (NodeProcess p : ps) {
                p.close();
            }
        }
        System.out.printf(Locale.ROOT, "soak result: %d s, %d nodes x %d processes: false deaths (LEAVE failed=true seen) %d,"
                + " EVICTED %d, processes exited %d%n", seconds, nodes, perNode, falseDeaths.get(), evictions.get(), exits.get());
        return falseDeaths.get() == 0 && evictions.get() == 0 && exits.get() == 0 ? 0 : 1;
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
