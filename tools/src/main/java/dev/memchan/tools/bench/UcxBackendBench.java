package dev.memchan.tools.bench;

import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.Region;
import dev.memchan.RemoteAccess;
import dev.memchan.RemoteMapping;
import dev.memchan.internal.ucx.JoinSecret;
import dev.memchan.internal.ucx.UcxBackend;
import dev.memchan.internal.ucx.UcxHub;
import dev.memchan.internal.ucx.UcxHubMain;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The {@code ucx://} backend between two node processes over TCP on loopback, beside the references a user would
 * pick instead, measured in the same run on the same transport: 8-byte ping-pong against {@code ucx_perftest}'s
 * {@code ucp_am_lat} and {@code ucp_put_lat} (the hub inside the ping process, and the hub as a process of its
 * own); message-channel throughput against Aeron UDP unicast ({@code AeronThroughput}, every message checked on
 * both); remote fetch-add and compare-and-swap ({@link RemoteMapping}) against {@code ucp_fadd} and
 * {@code ucp_cswap}; the CPU time of idle nodes beside a busy-spinning thread. The two nodes are two hosts at the
 * hub ({@link UcxBackend#HOST_PROPERTY} h1 and h2): each has its own pages, and every store crosses the hub, as
 * between two machines. The fabric's secret is made for the run ({@link JoinSecret#create}, in a temporary directory
 * of mode 0700) and removed after it. scripts/bench-ucx-backend runs it.
 *
 * <pre>
 *   UcxBackendBench --aeron-class-path CP [--rounds N] [--only latency,throughput,atomics,idle] [--sizes BYTES,...]
 *                   [--idle-seconds S] [--perftest PATH]
 * </pre>
 * Every measurement runs N times (default 3) interleaved with its reference; the tables give medians and the
 * spread (min..max) over the runs. The peer node is this class with {@code peer LOCATION}, driven by stdin lines.
 */
public final class UcxBackendBench {
    private static final List<String> SECTIONS = List.of("latency", "throughput", "atomics", "idle");
    private static final String HOST = "127.0.0.1";
    /** The hub's geometry: room for the 2 MiB rings of the throughput runs. */
    private static final long FABRIC_SIZE = 64L << 20;
    private static final int PAGE_SIZE = 4096;
    private static final int MAX_NODES = 4;
    private static final int CAPACITY = 2 << 20;
    private static final int LATENCY_ROUNDS = 2_000;
    private static final int LATENCY_BATCHES = 4;
    private static final int PERFTEST_ITERATIONS = 20_000;
    private static final int PERFTEST_WARMUP = 2_000;
    private static final int ATOMIC_OPS = 3_000;

    /** The sending thread's heap allocation (HotSpot's per-thread count): what a message costs the garbage collector. */
    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
            .getThreadMXBean();

    private final int reps;
    private final String perftest;
    private final String aeronClassPath;
    private final int idleSeconds;
    private final long start = System.nanoTime();

    private UcxBackendBench(int reps, String perftest, String aeronClassPath, int idleSeconds) {
        this.reps = reps;
        this.perftest = perftest;
        this.aeronClassPath = aeronClassPath;
        this.idleSeconds = idleSeconds;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("peer")) {
            peer(args[1]);
            return;
        }
        int reps = 3;
        int idleSeconds = 30;
        String perftest = "ucx_perftest";
        String aeron = null;
        int[] sizes = ThroughputSection.SIZES;
        List<String> only = SECTIONS;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--rounds" -> reps = Integer.parseInt(args[++i]);
                    case "--idle-seconds" -> idleSeconds = Integer.parseInt(args[++i]);
                    case "--perftest" -> perftest = args[++i];
                    case "--aeron-class-path" -> aeron = args[++i];
                    case "--sizes" -> sizes = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                    case "--only" -> only = List.of(args[++i].split(","));
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (reps < 1 || idleSeconds < 1 || !SECTIONS.containsAll(only) || Arrays.stream(sizes).anyMatch(s -> s < 1 || s > CAPACITY / 4)) {
                throw new IllegalArgumentException("rounds and idle seconds >= 1, sections of " + SECTIONS + ", sizes 1.." + CAPACITY / 4);
            }
            if (only.contains("throughput") && aeron == null) {
                throw new IllegalArgumentException("the throughput section needs --aeron-class-path");
            }
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            System.err.println("usage: UcxBackendBench --aeron-class-path CP [--rounds N] [--only " + String.join(",", SECTIONS)
                    + "] [--sizes BYTES,...] [--idle-seconds S] [--perftest PATH]: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.out.println(new UcxBackendBench(reps, perftest, aeron, idleSeconds).run(only, sizes));
        System.exit(0);
    }

    // ---- the run ----------------------------------------------------------------------------------

    private String run(List<String> only, int[] sizes) throws Exception {
        String name = "ub" + ProcessHandle.current().pid();
        Path secretDir = Files.createTempDirectory("memchan-bench-secret"); // mode 0700
        Path secretFile = secretDir.resolve("secret");
        JoinSecret secret = JoinSecret.create(secretFile);
        System.setProperty(UcxBackend.SECRET_PROPERTY, secretFile.toString());
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "Load average (1, 5, 15 min) at the start: %s.%n%n", BenchMain.loadAverage()));
        System.setProperty(UcxBackend.HOST_PROPERTY, "h1");
        Map<String, double[]> perftestRuns = new LinkedHashMap<>();
        try {
            List<Series> latency = new ArrayList<>();
            try (UcxHub hub = new UcxHub(new InetSocketAddress(HOST, 0), name, secret, FABRIC_SIZE, PAGE_SIZE, MAX_NODES,
                    UcxBackend.transportSettings(new InetSocketAddress(HOST, 0)));
                 Node node = new Node("ucx://" + HOST + ":" + hub.address().getPort() + "/" + name)) {
                if (only.contains("latency")) {
                    latency.add(latency(node, "memchan ucx://, hub in the ping process", perftestRuns));
                }
                if (only.contains("throughput")) {
                    md.append(throughput(node, sizes));
                }
                if (only.contains("atomics")) {
                    md.append(atomics(node));
                }
                if (only.contains("idle")) {
                    md.append(idle(node, null));
                }
            }
            if (only.contains("latency") || only.contains("idle")) {
                try (HubProcess hub = new HubProcess(name, secretFile); Node node = new Node("ucx://" + HOST + ":" + hub.port + "/" + name)) {
                    if (only.contains("latency")) {
                        latency.add(latency(node, "memchan ucx://, hub a separate process", perftestRuns));
                    }
                    if (only.contains("idle")) {
                        md.append(idle(node, hub.process));
                    }
                }
            }
            if (!latency.isEmpty()) {
                md.insert(0, latencyTable(latency, perftestRuns));
            }
        } finally {
            removeHostFiles(name);
            Files.deleteIfExists(secretFile);
            Files.deleteIfExists(secretDir);
        }
        return md.append(String.format(Locale.ROOT, "Load average at the end: %s.%n", BenchMain.loadAverage())).toString();
    }

    /** This process's node (host h1) and the peer node's process (host h2) on one fabric. */
    private static final class Node implements AutoCloseable {
        final Fabric fabric;
        final Process peer;
        final BufferedReader peerOut;
        final Writer peerIn;
        final int peerNode;

        Node(String location) throws IOException {
            this.fabric = Fabric.open(location, FabricOptions.defaults());
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-D" + UcxBackend.HOST_PROPERTY + "=h2",
                    "-D" + UcxBackend.SECRET_PROPERTY + "=" + System.getProperty(UcxBackend.SECRET_PROPERTY), "-cp", System.getProperty("java.class.path"),
                    UcxBackendBench.class.getName(), "peer", location);
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
            Process p = pb.start();
            this.peer = p;
            this.peerOut = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            this.peerIn = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
            try {
                this.peerNode = Integer.parseInt(expect("node"));
            } catch (IOException | RuntimeException e) {
                close();
                throw e;
            }
        }

        void command(String line) throws IOException {
            peerIn.write(line + "\n");
            peerIn.flush();
        }

        /** The peer's next line, which must start with {@code prefix}; the rest of it. */
        String expect(String prefix) throws IOException {
            String line = peerOut.readLine();
            if (line == null || !line.startsWith(prefix)) {
                throw new IOException("the peer node said " + line + ", not " + prefix + " (its errors are above)");
            }
            return line.substring(prefix.length()).trim();
        }

        @Override
        public void close() {
            try {
                command("exit");
                awaitExit(peer);
            } catch (IOException e) {
                // it is gone already
            } finally {
                peer.destroyForcibly();
                fabric.close();
            }
        }
    }

    /** {@link UcxHubMain} of fabric {@code name} as a process of its own, at a free port. */
    private static final class HubProcess implements AutoCloseable {
        final Process process;
        final int port;

        HubProcess(String name, Path secretFile) throws IOException {
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), UcxHubMain.class.getName(),
                    HOST + ":0", name, "--secret", secretFile.toString(), "--fabric-size", "" + FABRIC_SIZE, "--page-size", "" + PAGE_SIZE, "--max-nodes", "" + MAX_NODES);
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
            this.process = pb.start();
            String line = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).readLine();
            if (line == null || !line.startsWith("hub listening at ")) {
                process.destroyForcibly();
                throw new IOException("the hub process said " + line + ", not that it listens");
            }
            this.port = Integer.parseInt(line.substring(line.lastIndexOf(':') + 1).trim());
        }

        @Override
        public void close() {
            process.destroy(); // SIGTERM: its shutdown hook closes the hub
            awaitExit(process);
        }
    }

    // ---- 1. ping-pong -----------------------------------------------------------------------------

    /** One latency series: per run p50, p99, p99.9 in us. */
    private record Series(String name, List<double[]> runs) {
        Stats at(int i) {
            return Stats.of(runs.stream().map(r -> r[i]).toList());
        }
    }

    /**
     * {@link PingPong} between this node and the peer, {@link #reps} runs, each followed by ucx_perftest's am_lat and
     * put_lat (their typical latency, us, kept in {@code perftestRuns}).
     */
    private Series latency(Node node, String name, Map<String, double[]> perftestRuns) throws Exception {
        List<double[]> runs = new ArrayList<>();
        for (int rep = 0; rep < reps; rep++) {
            progress("ping-pong, " + name + ", run " + (rep + 1) + " of " + reps);
            long key = ThreadLocalRandom.current().nextLong(1, 1L << 40);
            node.command("pong " + key + " " + (key + 1) + " " + node.fabric.nodeId());
            PingPong.Result r = PingPong.ping(node.fabric, key, key + 1, node.peerNode, LATENCY_ROUNDS, LATENCY_BATCHES, true, null);
            node.expect("pong-done");
            Histogram h = r.oneWayNanos();
            runs.add(new double[]{h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0});
            for (String test : List.of("ucp_am_lat", "ucp_put_lat")) {
                progress("ucx_perftest " + test);
                double[] seen = perftestRuns.getOrDefault(test, new double[0]);
                double[] more = Arrays.copyOf(seen, seen.length + 1);
                more[seen.length] = UcxLatency.perftest(perftest, test, PERFTEST_ITERATIONS, PERFTEST_WARMUP);
                perftestRuns.put(test, more);
            }
        }
        return new Series(name, runs);
    }

    private String latencyTable(List<Series> series, Map<String, double[]> perftestRuns) {
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "### 8-byte ping-pong, one-way (us)%n%n"
                + "%d runs of each, interleaved; memchan: %d round trips per run after %d uncounted, each timed (half the round trip); "
                + "ucx_perftest: %d iterations after %d, its typical (median) latency. Medians over the runs, spread min..max.%n%n",
                reps, LATENCY_ROUNDS * LATENCY_BATCHES, LATENCY_ROUNDS * PingPong.WARMUP_BATCHES, PERFTEST_ITERATIONS, PERFTEST_WARMUP));
        md.append("| side | p50 | spread | p99 | p99.9 |\n|---|---|---|---|---|\n");
        for (Series s : series) {
            md.append(String.format(Locale.ROOT, "| %s | %.1f | %s | %.1f | %.1f |%n", s.name(), s.at(0).median(), s.at(0).spread("%.1f"),
                    s.at(1).median(), s.at(2).median()));
        }
        double faster = Double.MAX_VALUE;
        for (Map.Entry<String, double[]> e : perftestRuns.entrySet()) {
            Stats s = Stats.of(Arrays.stream(e.getValue()).boxed().toList());
            faster = Math.min(faster, s.median());
            md.append(String.format(Locale.ROOT, "| ucx_perftest %s (C) | %.1f | %s | | |%n", e.getKey(), s.median(), s.spread("%.1f")));
        }
        md.append('\n');
        for (Series s : series) {
            md.append(String.format(Locale.ROOT, "**%s: p50 / the faster ucx_perftest = %.2f** (goal <= 1.3)%n", s.name(), s.at(0).median() / faster));
        }
        return md.append('\n').toString();
    }

    // ---- 2. message channel against Aeron -----------------------------------------------------------

    /** Messages per run: 8 MiB of payload, 500 to 100,000 messages. */
    static long messages(int size) {
        return Math.max(500, Math.min(100_000, (8L << 20) / size));
    }

    private String throughput(Node node, int[] sizes) throws Exception {
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "### Message throughput between two processes: "
                + "ucx:// message channel, Aeron UDP unicast%n%n"
                + "memchan: MessageChannel, %d MiB ring, the hub in the sending process; Aeron: an exclusive publication, "
                + "each process with its embedded media driver (threading SHARED below 4 KiB, DEDICATED from 4 KiB: the faster "
                + "of the two in trials), socket buffers and receiver window of the ring's size. The sender writes "
                + "each message's pattern in place, the receiver checks every byte; heap B/msg: what the sending thread allocated in "
                + "a run (the channel's setup included) per message. Per size one uncounted run of each, then "
                + "%d rounds of one run each in alternating order; medians over the runs with min..max, the ratio the median "
                + "of the per-round ratios.%n%n", CAPACITY >> 20, reps));
        md.append("| message | messages per run | memchan msg/s | memchan MB/s | spread MB/s | memchan heap B/msg | Aeron msg/s | Aeron MB/s "
                + "| spread MB/s | memchan / Aeron | spread |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (int size : sizes) {
            md.append(throughputAt(node, size));
        }
        return md.append("\nGoal: memchan / Aeron >= 1.0 at every size.\n\n").toString();
    }

    private String throughputAt(Node node, int size) throws Exception {
        long count = messages(size);
        List<Double> mc = new ArrayList<>();
        List<Double> heap = new ArrayList<>();
        List<Double> ae = new ArrayList<>();
        List<Double> ratio = new ArrayList<>();
        try (AeronPair aeron = new AeronPair(aeronClassPath, size, count, reps + 1)) {
            for (int round = 0; round <= reps; round++) {
                progress("throughput, " + ThroughputSection.sizeName(size) + ", round " + round + " of " + reps + (round == 0 ? " (uncounted)" : ""));
                boolean memchanFirst = (round & 1) == 0;
                double m = 0;
                double a = 0;
                double allocated = 0;
                for (int side = 0; side < 2; side++) {
                    if ((side == 0) == memchanFirst) {
                        long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
                        m = channelRun(node, size, count);
                        allocated = (double) (THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore) / count;
                    } else {
                        a = aeron.run();
                    }
                }
                if (round > 0) {
                    mc.add(m);
                    heap.add(allocated);
                    ae.add(a);
                    ratio.add(m / a);
                }
            }
        }
        Stats m = Stats.of(mc);
        Stats a = Stats.of(ae);
        Stats r = Stats.of(ratio);
        return String.format(Locale.ROOT, "| %s | %,d | %,.0f | %.1f | %s | %.1f | %,.0f | %.1f | %s | **%.2f** | %s |%n", ThroughputSection.sizeName(size),
                count, m.median() / size, m.median() / 1e6, mb(m), Stats.of(heap).median(), a.median() / size, a.median() / 1e6, mb(a), r.median(),
                r.spread("%.2f"));
    }

    /**
     * Aeron's media-driver threading mode for messages of {@code size} bytes: the faster of SHARED and DEDICATED in
     * trial runs on this 2-core machine (SHARED 2-3x DEDICATED at 32 B, DEDICATED about 1.5x SHARED at 64 KiB).
     */
    static String aeronThreading(int size) {
        return size < 4096 ? "SHARED" : "DEDICATED";
    }

    /** One channel run to the peer node: bytes of payload per second, every message checked there. */
    private static double channelRun(Node node, int size, long count) throws IOException {
        long key = ThreadLocalRandom.current().nextLong(1, 1L << 40);
        node.command("sink " + key + " " + node.fabric.nodeId() + " " + CAPACITY + " " + count);
        double bps = ChannelThroughput.send(node.fabric, key, node.peerNode, CAPACITY, size, count);
        long bytes = Long.parseLong(node.expect("sink-done"));
        if (bytes != size * count) {
            throw new IllegalStateException("the channel's receiver took " + bytes + " bytes, not " + size * count);
        }
        return bps;
    }

    /** Aeron's receiving and sending processes for one message size; {@link #run} is one timed run. */
    private static final class AeronPair implements AutoCloseable {
        private final Process receiver;
        private final Process sender;
        private final BufferedReader senderOut;
        private final Writer senderIn;

        AeronPair(String classPath, int size, long count, int runs) throws IOException {
            int port = freePort();
            int backPort = freePort();
            String mode = aeronThreading(size);
            this.receiver = start(classPath, "receive", mode, "" + port, "" + backPort, "" + size, "" + count, "" + runs);
            Process s = null;
            try {
                awaitReady(receiver);
                s = start(classPath, "send", mode, "" + port, "" + backPort, "" + size, "" + count);
                this.senderOut = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                String ready = senderOut.readLine();
                if (!"ready".equals(ready)) {
                    throw new IOException("the Aeron sender said " + ready + ", not ready");
                }
            } catch (IOException | RuntimeException e) {
                receiver.destroyForcibly();
                if (s != null) {
                    s.destroyForcibly();
                }
                throw e;
            }
            this.sender = s;
            this.senderIn = new OutputStreamWriter(s.getOutputStream(), StandardCharsets.UTF_8);
        }

        private static Process start(String classPath, String... args) throws IOException {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                    "-cp", classPath, "dev.memchan.tools.bench.AeronThroughput"));
            cmd.addAll(List.of(args));
            return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        }

        private static void awaitReady(Process p) throws IOException {
            String ready = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
            if (!"ready".equals(ready)) {
                throw new IOException("the Aeron receiver said " + ready + ", not ready");
            }
        }

        double run() throws IOException {
            senderIn.write("run\n");
            senderIn.flush();
            String line = senderOut.readLine();
            if (line == null || !line.startsWith("bps ")) {
                throw new IOException("the Aeron sender said " + line + ", not its rate (its errors are above)");
            }
            return Double.parseDouble(line.substring(4));
        }

        @Override
        public void close() throws IOException {
            try {
                senderIn.write("exit\n");
                senderIn.flush();
                awaitExit(sender);
                Writer r = new OutputStreamWriter(receiver.getOutputStream(), StandardCharsets.UTF_8);
                r.write("exit\n");
                r.flush();
                awaitExit(receiver);
            } finally {
                sender.destroyForcibly();
                receiver.destroyForcibly();
            }
        }
    }

    /** Waits up to 30 s for {@code p} to end, then kills it. */
    private static void awaitExit(Process p) {
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        }
    }

    // ---- 3. remote atomics ------------------------------------------------------------------------

    private String atomics(Node node) throws Exception {
        List<List<Double>> fadd = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        List<List<Double>> cas = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        List<Double> perfFadd = new ArrayList<>();
        List<Double> perfCas = new ArrayList<>();
        for (int rep = 0; rep < reps; rep++) {
            progress("remote atomics, run " + (rep + 1) + " of " + reps);
            long key = ThreadLocalRandom.current().nextLong(1, 1L << 40);
            node.command("home " + key);
            node.expect("home-ready");
            try (Region region = node.fabric.allocate(key, node.fabric.pageSize(), 0660);
                 RemoteMapping m = region.attachRemote(node.peerNode)) {
                add(fadd, timeAtomics(m, false));
                add(cas, timeAtomics(m, true));
            }
            node.command("release");
            node.expect("released");
            perfFadd.add(UcxLatency.perftest(perftest, "ucp_fadd", PERFTEST_ITERATIONS, PERFTEST_WARMUP));
            perfCas.add(UcxLatency.perftest(perftest, "ucp_cswap", PERFTEST_ITERATIONS, PERFTEST_WARMUP));
        }
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "### Remote atomics, per operation (us)%n%n"
                + "RemoteMapping.getAndAddLong and compareAndExchangeLong on a word of a region homed at the peer node, %d timed "
                + "operations per run after as many uncounted, each value checked; ucx_perftest ucp_fadd and ucp_cswap, %d "
                + "iterations, typical latency. %d runs; medians with min..max.%n%n", ATOMIC_OPS, PERFTEST_ITERATIONS, reps));
        md.append("| operation | memchan p50 | spread | p99 | p99.9 | ucx_perftest typical | spread | ratio (p50 / typical) |\n"
                + "|---|---|---|---|---|---|---|---|\n");
        md.append(atomicRow("fetch-add", fadd, perfFadd));
        md.append(atomicRow("compare-and-swap", cas, perfCas));
        return md.append('\n').toString();
    }

    private static void add(List<List<Double>> into, double[] percentiles) {
        for (int i = 0; i < 3; i++) {
            into.get(i).add(percentiles[i]);
        }
    }

    private static String atomicRow(String name, List<List<Double>> ours, List<Double> reference) {
        Stats p50 = Stats.of(ours.get(0));
        Stats ref = Stats.of(reference);
        return String.format(Locale.ROOT, "| %s | %.1f | %s | %.1f | %.1f | %.1f | %s | **%.2f** |%n", name, p50.median(), p50.spread("%.1f"),
                Stats.of(ours.get(1)).median(), Stats.of(ours.get(2)).median(), ref.median(), ref.spread("%.1f"), p50.median() / ref.median());
    }

    /** p50, p99, p99.9 (us) of {@link #ATOMIC_OPS} timed operations; each old value must be the one expected. */
    private static double[] timeAtomics(RemoteMapping m, boolean cas) {
        long offset = cas ? 8 : 0;
        long v = m.getLongAcquire(offset);
        long[] ns = new long[ATOMIC_OPS];
        for (int i = -ATOMIC_OPS; i < ATOMIC_OPS; i++) {
            long t0 = System.nanoTime();
            long old = cas ? m.compareAndExchangeLong(offset, v, v + 1) : m.getAndAddLong(offset, 1);
            long t1 = System.nanoTime();
            if (old != v) {
                throw new IllegalStateException((cas ? "compare-and-swap" : "fetch-add") + " saw " + old + ", not " + v);
            }
            v++;
            if (i >= 0) {
                ns[i] = t1 - t0;
            }
        }
        Arrays.sort(ns);
        return new double[]{ns[ns.length / 2] / 1000.0, ns[(int) (ns.length * 0.99)] / 1000.0, ns[(int) (ns.length * 0.999)] / 1000.0};
    }

    // ---- 4. idle nodes ----------------------------------------------------------------------------

    /**
     * CPU seconds over {@link #idleSeconds} of each process with nothing sent: the peer node, this process (a node,
     * with the hub when {@code hubProcess} is null) and the hub's process; then of the peer while one thread of it
     * busy-spins for as long, the reference.
     */
    private String idle(Node node, Process hubProcess) throws Exception {
        long self = ProcessHandle.current().pid();
        Map<String, Long> pids = new LinkedHashMap<>();
        pids.put("the peer node (idle)", node.peer.pid());
        pids.put(hubProcess == null ? "this process: a node and the hub (idle)" : "this process: a node (idle)", self);
        if (hubProcess != null) {
            pids.put("the hub process (idle)", hubProcess.pid());
        }
        progress("idle, " + idleSeconds + " s, then the busy-spinning reference as long");
        Map<String, Long> before = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : pids.entrySet()) {
            before.put(e.getKey(), UcxLatency.cpuTicks(e.getValue()));
        }
        Thread.sleep(idleSeconds * 1000L);
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "### Idle CPU, %s (CPU seconds over %d s, /proc/PID/stat)%n%n"
                + "| process | CPU s | share of a core |%n|---|---|---|%n", hubProcess == null ? "hub in this process" : "hub a separate process",
                idleSeconds));
        for (Map.Entry<String, Long> e : pids.entrySet()) {
            md.append(cpuRow(e.getKey(), UcxLatency.cpuTicks(e.getValue()) - before.get(e.getKey())));
        }
        long spinBefore = UcxLatency.cpuTicks(node.peer.pid());
        node.command("spin " + idleSeconds);
        node.expect("spun");
        md.append(cpuRow("reference: the peer node with one thread busy-spinning", UcxLatency.cpuTicks(node.peer.pid()) - spinBefore));
        return md.append('\n').toString();
    }

    private String cpuRow(String name, long ticks) {
        return String.format(Locale.ROOT, "| %s | %.2f | %.1f %% |%n", name, ticks / 100.0, ticks / (idleSeconds * 100.0) * 100);
    }

    // ---- the peer node ----------------------------------------------------------------------------

    /**
     * The peer node: joins {@code location}, prints {@code node N}, then serves one command per stdin line:
     * {@code pong PINGKEY PONGKEY PINGNODE}, {@code sink KEY SENDERNODE CAPACITY COUNT},
     * {@code home KEY} (then {@code release}), {@code spin SECONDS}, {@code exit}.
     */
    private static void peer(String location) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (Fabric f = Fabric.open(location, FabricOptions.defaults())) {
            out.println("node " + f.nodeId());
            String line;
            while ((line = in.readLine()) != null && !line.equals("exit")) {
                String[] a = line.split(" ");
                switch (a[0]) {
                    case "pong" -> {
                        PingPong.pong(f, Long.parseLong(a[1]), Long.parseLong(a[2]), Integer.parseInt(a[3]));
                        out.println("pong-done");
                    }
                    case "sink" -> out.println("sink-done " + ChannelThroughput.receive(f, Long.parseLong(a[1]), Integer.parseInt(a[2]),
                            Integer.parseInt(a[3]), Long.parseLong(a[4])));
                    case "home" -> {
                        try (Region home = f.allocate(Long.parseLong(a[1]), f.pageSize(), 0660)) {
                            home.attachReceive(false, RemoteAccess.READ, RemoteAccess.ATOMIC);
                            out.println("home-ready");
                            String release = in.readLine();
                            if (!"release".equals(release)) {
                                throw new IllegalStateException("expected release, got " + release);
                            }
                        }
                        out.println("released");
                    }
                    case "spin" -> {
                        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(a[1]));
                        while (System.nanoTime() - end < 0) {
                            Thread.onSpinWait();
                        }
                        out.println("spun");
                    }
                    default -> throw new IllegalArgumentException("unknown command " + line);
                }
            }
        }
        System.exit(0);
    }

    // ---- helpers ----------------------------------------------------------------------------------

    /** A progress line on stderr: a run on a loaded machine takes minutes. */
    private void progress(String what) {
        System.err.printf(Locale.ROOT, "[%4d s] %s%n", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start), what);
    }

    /** The hosts' files of fabric {@code name} in /dev/shm (soft fabrics, node-local tables, host states; both hubs'). */
    private static void removeHostFiles(String name) throws IOException {
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            for (Path p : files.filter(p -> p.getFileName().toString().startsWith("memchan-")
                    && p.getFileName().toString().contains("ucx-" + name + "-")).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static String mb(Stats s) {
        return String.format(Locale.ROOT, "%.1f..%.1f", s.min() / 1e6, s.max() / 1e6);
    }
}
