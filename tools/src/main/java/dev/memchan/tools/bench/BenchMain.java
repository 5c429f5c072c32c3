package dev.memchan.tools.bench;

import dev.memchan.Fabric;
import dev.memchan.FabricOptions;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The issue-2 benchmark suite: every memchan number next to a reference measured in the same run.
 *
 * <pre>
 *   BenchMain run --reference PATH [--quick] [--markdown FILE]
 * </pre>
 * runs, interleaved so that machine noise hits both sides alike: Java ping-pong vs C ping-pong on the
 * same kind of shared memory; message-channel throughput vs memcpy for 64 B, 4 KB, 64 KB; uncontended
 * cluster lock vs a CAS spinlock. Peers are separate JVMs ({@code BenchMain peer ...}).
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("peer")) {
            peer(args);
            return;
        }
        String reference = null;
        Path markdown = null;
        boolean quick = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "run" -> { }
                case "--reference" -> reference = args[++i];
                case "--markdown" -> markdown = Path.of(args[++i]);
                case "--quick" -> quick = true;
                default -> {
                    System.err.println("usage: BenchMain run --reference PATH [--quick] [--markdown FILE]");
                    System.exit(2);
                }
            }
        }
        if (reference == null) {
            System.err.println("--reference PATH (the compiled tools/src/main/c/memchan_reference.c) is required");
            System.exit(2);
        }
        String report = run(reference, quick);
        System.out.println(report);
        if (markdown != null) {
            Files.writeString(markdown, report);
        }
    }

    private static String run(String reference, boolean quick) throws Exception {
        String name = "bench-" + ProcessHandle.current().pid();
        Fabric.createSoftFabric(name, FabricOptions.defaults().withGeometry(64L << 20, 4096, 4));
        String location = "shm:" + name;
        StringBuilder md = new StringBuilder();
        try (Fabric f = Fabric.open(location, FabricOptions.defaults().withCreate(false).withNodeId(0))) {
            int reps = quick ? 2 : 5;
            int rounds = quick ? 20_000 : 100_000;
            int batches = 5;
            // ---- ping-pong ----
            List<Double> java = new ArrayList<>();
            List<Double> c = new ArrayList<>();
            for (int rep = 0; rep < reps; rep++) {
                c.addAll(cPingPong(reference, rounds, batches));
                long pingKey = ThreadLocalRandom.current().nextLong(1, 1L << 40);
                long pongKey = pingKey + 1;
                try (Peer p = Peer.start("pong", location, "" + pingKey, "" + pongKey, "0")) {
                    for (double v : PingPong.ping(f, pingKey, pongKey, p.node, rounds, batches, false, null).batchOneWayNanos()) {
                        java.add(v);
                    }
                    p.awaitExit();
                }
            }
            Stats js = Stats.of(java);
            Stats cs = Stats.of(c);
            md.append("### One-way latency, 8-byte ping-pong between two processes\n\n")
                    .append(String.format(Locale.ROOT, "%d runs x %d batches x %,d round trips each side, interleaved (C, Java, C, Java, ...).%n%n",
                            reps, batches, rounds))
                    .append("| side | median ns | min | max | IQR |\n|---|---|---|---|---|\n")
                    .append(js.row("Java, memchan soft fabric")).append(cs.row("C, same shared memory (reference)"))
                    .append(String.format(Locale.ROOT, "%n**Java / C = %.2f** (goal <= 1.2)%n%n", js.median / cs.median));
            // ---- channel throughput ----
            md.append("### Message channel throughput vs memcpy\n\n")
                    .append("The same protocol in C between two processes (no full fences) is shown as well: it is the cost of\n")
                    .append("moving the bytes between cores, which memcpy on one core does not pay.\n\n")
                    .append("| message | channel MB/s (median) | spread | memcpy MB/s (median) | spread | channel / memcpy | C ring MB/s | channel / C ring |\n")
                    .append("|---|---|---|---|---|---|---|---|\n");
            int capacity = 2 << 20;
            for (int size : new int[]{64, 4096, 65536}) {
                long count = Math.max(2_000, (quick ? 64L : 256L) * 1024 * 1024 / size);
                List<Double> ch = new ArrayList<>();
                List<Double> mc = new ArrayList<>();
                List<Double> ring = new ArrayList<>();
                long key = ThreadLocalRandom.current().nextLong(1, 1L << 40);
                // One receiving JVM for all runs of a size; run 0 warms up both JITs and is not counted.
                try (Peer p = Peer.start("sink", location, "" + key, "0", "" + capacity, "" + count, "" + (reps + 1))) {
                    for (int run = 0; run <= reps; run++) {
                        double bps = ChannelThroughput.send(f, key + run, p.node, capacity, size, count);
                        if (run > 0) {
                            ch.add(bps);
                            mc.add(cMemcpy(reference, size, capacity, quick ? 200 : 400));
                            ring.add(cRing(reference, size, capacity, count));
                        }
                    }
                    p.awaitExit();
                }
                Stats s1 = Stats.of(ch);
                Stats s2 = Stats.of(mc);
                Stats s3 = Stats.of(ring);
                md.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f..%,.0f | %,.0f | %,.0f..%,.0f | %.2f | %,.0f | %.2f |%n",
                        sizeName(size), s1.median / 1e6, s1.min / 1e6, s1.max / 1e6, s2.median / 1e6, s2.min / 1e6, s2.max / 1e6,
                        s1.median / s2.median, s3.median / 1e6, s1.median / s3.median));
            }
            md.append("\nGoal: channel / memcpy >= 0.7.\n\n");
            // ---- locks ----
            List<Double> cl = new ArrayList<>();
            List<Double> cas = new ArrayList<>();
            int iterations = quick ? 200_000 : 1_000_000;
            for (int rep = 0; rep < reps; rep++) {
                cl.add(LockTiming.clusterLock(f, ThreadLocalRandom.current().nextLong(1, 1L << 40), iterations));
                cas.add(LockTiming.casSpinlock(f, ThreadLocalRandom.current().nextLong(1, 1L << 40), iterations));
            }
            Stats ls = Stats.of(cl);
            Stats rs = Stats.of(cas);
            md.append("### Uncontended lock acquire + release\n\n| lock | median ns | min | max |\n|---|---|---|---|\n")
                    .append(String.format(Locale.ROOT, "| memchan cluster lock (MC bid algorithm) | %.1f | %.1f | %.1f |%n", ls.median, ls.min, ls.max))
                    .append(String.format(Locale.ROOT, "| CAS spinlock on the same memory (reference) | %.1f | %.1f | %.1f |%n", rs.median, rs.min, rs.max))
                    .append(String.format(Locale.ROOT, "%n**cluster lock / CAS = %.2f**%n", ls.median / rs.median));
        } finally {
            Fabric.removeSoftFabric(name);
        }
        return md.toString();
    }

    private static String sizeName(int size) {
        return size >= 1024 ? size / 1024 + " KB" : size + " B";
    }

    private static List<Double> cPingPong(String reference, int rounds, int batches) throws IOException, InterruptedException {
        Path file = Path.of("/dev/shm", "memchan-ref-" + ProcessHandle.current().pid());
        List<Double> out = new ArrayList<>();
        for (String line : exec(reference, "pingpong", file.toString(), "" + rounds, "" + batches)) {
            if (line.startsWith("batch ")) {
                out.add(Double.parseDouble(line.substring(6)));
            }
        }
        return out;
    }

    private static double cMemcpy(String reference, int size, int ring, int millis) throws IOException, InterruptedException {
        for (String line : exec(reference, "memcpy", "" + size, "" + ring, "" + millis)) {
            if (line.startsWith("bytes_per_second ")) {
                return Double.parseDouble(line.substring(17));
            }
        }
        throw new IOException("no result from " + reference);
    }

    private static double cRing(String reference, int size, int ring, long count) throws IOException, InterruptedException {
        Path file = Path.of("/dev/shm", "memchan-ref-ring-" + ProcessHandle.current().pid());
        for (String line : exec(reference, "ring", "" + size, "" + ring, "" + count, file.toString())) {
            if (line.startsWith("bytes_per_second ")) {
                return Double.parseDouble(line.substring(17));
            }
        }
        throw new IOException("no result from " + reference);
    }

    private static List<String> exec(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> lines = new BufferedReader(new InputStreamReader(p.getInputStream())).lines().toList();
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + lines);
        }
        return lines;
    }

    /** Median, extremes and interquartile range of a sample. */
    record Stats(double median, double min, double max, double q1, double q3) {
        static Stats of(List<Double> values) {
            double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            return new Stats(q(v, 0.5), v[0], v[v.length - 1], q(v, 0.25), q(v, 0.75));
        }

        static double q(double[] sorted, double p) {
            double idx = p * (sorted.length - 1);
            int lo = (int) Math.floor(idx);
            int hi = (int) Math.ceil(idx);
            return sorted[lo] + (sorted[hi] - sorted[lo]) * (idx - lo);
        }

        String row(String name) {
            return String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f..%.1f |%n", name, median, min, max, q1, q3);
        }
    }

    /** A peer JVM running {@code BenchMain peer ROLE ...}; it prints its node ID first. */
    static final class Peer implements AutoCloseable {
        final Process process;
        final int node;

        private Peer(Process process, int node) {
            this.process = process;
            this.node = node;
        }

        static Peer start(String role, String... args) throws IOException {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                    BenchMain.class.getName(), "peer", role));
            cmd.addAll(Arrays.asList(args));
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String first = new BufferedReader(new InputStreamReader(p.getInputStream())).readLine();
            if (first == null || !first.startsWith("NODE ")) {
                p.destroyForcibly();
                throw new IOException("bench peer " + role + " did not start: " + first);
            }
            return new Peer(p, Integer.parseInt(first.substring(5).trim()));
        }

        void awaitExit() throws InterruptedException {
            if (!process.waitFor(120, java.util.concurrent.TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("bench peer failed or hung");
            }
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }
    }

    private static void peer(String[] a) {
        String role = a[1];
        try (Fabric f = Fabric.open(a[2], FabricOptions.defaults().withCreate(false))) {
            System.out.println("NODE " + f.nodeId());
            System.out.flush();
            switch (role) {
                case "pong" -> PingPong.pong(f, Long.parseLong(a[3]), Long.parseLong(a[4]), Integer.parseInt(a[5]));
                case "sink" -> {
                    for (int run = 0; run < Integer.parseInt(a[7]); run++) {
                        ChannelThroughput.receive(f, Long.parseLong(a[3]) + run, Integer.parseInt(a[4]), Integer.parseInt(a[5]),
                                Long.parseLong(a[6]));
                    }
                }
                default -> throw new IllegalArgumentException("unknown peer role " + role);
            }
        }
        System.exit(0);
    }
}
