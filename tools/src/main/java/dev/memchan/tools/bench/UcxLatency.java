package dev.memchan.tools.bench;

import dev.memchan.internal.ucx.UcxContext;
import dev.memchan.internal.ucx.UcxEndpoint;
import dev.memchan.internal.ucx.UcxListener;
import dev.memchan.internal.ucx.UcxMemory;
import dev.memchan.internal.ucx.UcxRemoteMemory;
import dev.memchan.internal.ucx.UcxWorker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * The UCX transport's latency between two processes over TCP on loopback, beside ucx_perftest's (C, from
 * Debian's ucx-utils) in the same run: 8-byte put ping-pong against {@code ucp_put_lat}, active-message
 * ping-pong against {@code ucp_am_lat} (one-way: half the round trip), remote fetch-add against
 * {@code ucp_fadd} and compare-and-swap against {@code ucp_cswap} (per operation). Percentiles p50, p99,
 * p99.9 of every timed round; ucx_perftest reports its typical (median) latency, so the ratios are of
 * medians. scripts/bench-ucx runs it.
 *
 * <pre>
 *   UcxLatency [--rounds N] [--warmup N] [--perftest PATH]
 * </pre>
 *
 * The second process is this class with {@code peer}: it listens, answers pings from its handler (on its
 * progress thread) and puts back what the initiator puts, polling its word while progressing the worker.
 */
public final class UcxLatency {
    private static final String HOST = "127.0.0.1";
    private static final int PING = 1;
    private static final int PONG = 2;
    private static final int IDLE_SECONDS = 10;
    /** Reads a word a peer writes into this process's memory. */
    private static final VarHandle WORD = JAVA_LONG.varHandle();

    /** The round of the last pong, set by the handler on the progress thread. */
    private static volatile long lastPong;

    private UcxLatency() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("peer")) {
            peer();
            return;
        }
        int rounds = 20_000;
        int warmup = 5_000;
        String perftest = "ucx_perftest";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--perftest" -> perftest = args[++i];
                default -> {
                    System.err.println("usage: UcxLatency [--rounds N] [--warmup N] [--perftest PATH]");
                    System.exit(2);
                }
            }
        }
        System.out.println(run(rounds, warmup, perftest));
    }

    /** One-way (or per-operation) nanoseconds, sorted. */
    private record Result(String name, long[] sorted) {
        double percentile(double p) {
            return sorted[(int) Math.min(sorted.length - 1, Math.round(p * (sorted.length - 1)))] / 1000.0;
        }
    }

    private static String run(int rounds, int warmup, String perftest) throws Exception {
        List<String[]> rows = new ArrayList<>();
        String idle;
        Process peer = startPeer();
        BufferedReader peerOut = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        Writer peerIn = new OutputStreamWriter(peer.getOutputStream(), StandardCharsets.UTF_8);
        try (UcxContext context = UcxContext.open(); Arena arena = Arena.ofShared()) {
            UcxWorker worker = context.newWorker("bench", e -> System.err.println("event " + e));
            MemorySegment memory = arena.allocate(64, 64);
            UcxMemory registered = context.register(memory);
            worker.setHandler(PONG, (from, header, payload) -> lastPong = header.get(JAVA_LONG_UNALIGNED, 0));
            String[] listening = expect(peerOut, "listening").split(" ");
            UcxEndpoint ep = worker.connect(new InetSocketAddress(HOST, Integer.parseInt(listening[0])));
            UcxRemoteMemory remote = ep.remote(HexFormat.of().parseHex(listening[1]));
            UcxListener listener = worker.listen(new InetSocketAddress(HOST, 0));
            command(peerIn, "connect " + listener.address().getPort() + " " + HexFormat.of().formatHex(registered.descriptor()));
            expect(peerOut, "connected");

            command(peerIn, "putpong " + (warmup + rounds));
            Result put = putPingPong(worker, ep, remote, memory, warmup, rounds);
            expect(peerOut, "putpong-done");
            rows.add(row("put ping-pong, 8 B, one-way", put, perftest(perftest, "ucp_put_lat", rounds, warmup)));

            Result am = amPingPong(ep, arena, warmup, rounds);
            rows.add(row("active-message ping-pong, 8 B, one-way", am, perftest(perftest, "ucp_am_lat", rounds, warmup)));

            Result fadd = atomics(ep, remote, warmup, rounds, false);
            rows.add(row("fetch-add, per operation", fadd, perftest(perftest, "ucp_fadd", rounds, warmup)));
            Result cswap = atomics(ep, remote, warmup, rounds, true);
            rows.add(row("compare-and-swap, per operation", cswap, perftest(perftest, "ucp_cswap", rounds, warmup)));
            idle = idleCpu(peer.pid());
            command(peerIn, "exit");
            peer.waitFor(60, TimeUnit.SECONDS);
        } finally {
            peer.destroyForcibly();
        }
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "UCX over TCP on loopback, two processes, %d timed rounds after %d warm-up%n", rounds, warmup));
        out.append("| operation | memchan UCX p50 us | p99 us | p99.9 us | ucx_perftest typical us | ratio (p50 / typical) |\n");
        out.append("|---|---|---|---|---|---|\n");
        for (String[] r : rows) {
            out.append("| ").append(String.join(" | ", r)).append(" |\n");
        }
        out.append(idle).append('\n');
        return out.toString();
    }

    /**
     * CPU time of both processes over {@link #IDLE_SECONDS} with the endpoints open and nothing sent: the
     * whole JVM (its own service threads included), so an upper bound of what the sleeping progress
     * thread costs. From /proc/PID/stat (utime + stime, in clock ticks of 1/100 s).
     */
    private static String idleCpu(long peerPid) throws IOException, InterruptedException {
        long self = ProcessHandle.current().pid();
        long selfBefore = cpuTicks(self);
        long peerBefore = cpuTicks(peerPid);
        Thread.sleep(IDLE_SECONDS * 1000L);
        double selfShare = (cpuTicks(self) - selfBefore) / (IDLE_SECONDS * 100.0) * 100;
        double peerShare = (cpuTicks(peerPid) - peerBefore) / (IDLE_SECONDS * 100.0) * 100;
        return String.format(Locale.ROOT, "idle, %d s with the connections open: this process %.1f %% of a core, the peer %.1f %% "
                + "(whole JVMs)", IDLE_SECONDS, selfShare, peerShare);
    }

    static long cpuTicks(long pid) throws IOException {
        String stat = java.nio.file.Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // f[0] is the state, field 3
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime: fields 14 and 15
    }

    private static String[] row(String name, Result r, double reference) {
        return new String[]{name, f(r.percentile(0.5)), f(r.percentile(0.99)), f(r.percentile(0.999)), f(reference),
                String.format(Locale.ROOT, "%.2f", r.percentile(0.5) / reference)};
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** The initiator puts i into the peer's word and progresses until the peer has put i into its own. */
    private static Result putPingPong(UcxWorker worker, UcxEndpoint ep, UcxRemoteMemory remote, MemorySegment memory,
                                      int warmup, int rounds) {
        long[] samples = new long[rounds];
        for (int i = 1; i <= warmup + rounds; i++) {
            long t0 = System.nanoTime();
            ep.putLong(remote, 0, i);
            while ((long) WORD.getVolatile(memory, 0L) != i) {
                worker.progress();
            }
            long t1 = System.nanoTime();
            if (i > warmup) {
                samples[i - warmup - 1] = (t1 - t0) / 2;
            }
        }
        return sorted("put", samples);
    }

    /** Ping carries the round in its header; the peer's handler answers with a pong carrying it back. */
    private static Result amPingPong(UcxEndpoint ep, Arena arena, int warmup, int rounds) {
        long[] samples = new long[rounds];
        MemorySegment header = arena.allocate(JAVA_LONG);
        MemorySegment payload = arena.allocate(8);
        for (int i = 1; i <= warmup + rounds; i++) {
            long t0 = System.nanoTime();
            header.set(JAVA_LONG, 0, i);
            ep.send(PING, header, payload);
            while (lastPong != i) {
                Thread.onSpinWait();
            }
            long t1 = System.nanoTime();
            if (i > warmup) {
                samples[i - warmup - 1] = (t1 - t0) / 2;
            }
        }
        return sorted("am", samples);
    }

    private static Result atomics(UcxEndpoint ep, UcxRemoteMemory remote, int warmup, int rounds, boolean cas) {
        long[] samples = new long[rounds];
        long offset = cas ? 16 : 8;
        for (int i = 0; i < warmup + rounds; i++) {
            long t0 = System.nanoTime();
            long old = cas ? ep.compareAndSwap(remote, offset, i, i + 1) : ep.fetchAdd(remote, offset, 1);
            long t1 = System.nanoTime();
            if (old != i) {
                throw new IllegalStateException((cas ? "compare-and-swap" : "fetch-add") + " " + i + " saw " + old);
            }
            if (i >= warmup) {
                samples[i - warmup] = t1 - t0;
            }
        }
        return sorted(cas ? "cswap" : "fadd", samples);
    }

    private static Result sorted(String name, long[] samples) {
        Arrays.sort(samples);
        return new Result(name, samples);
    }

    // ---- ucx_perftest ------------------------------------------------------------------------------

    /**
     * ucx_perftest's typical latency (us) of {@code test} between a server and a client process on
     * loopback: the median of its final report.
     */
    static double perftest(String program, String test, int rounds, int warmup) throws IOException, InterruptedException {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process server = new ProcessBuilder(program, "-p", "" + port).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            List<String> lines = List.of();
            for (int attempt = 0; attempt < 100; attempt++) { // until the server listens
                Process client = new ProcessBuilder(program, HOST, "-p", "" + port, "-t", test, "-s", "8", "-n", "" + rounds,
                        "-w", "" + warmup).redirectErrorStream(true).start();
                lines = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8)).lines().toList();
                if (client.waitFor() == 0) {
                    break;
                }
                Thread.sleep(100);
            }
            for (String line : lines) {
                if (line.startsWith("Final:")) {
                    // Final: iterations, typical, average, overall latency (usec), ...
                    String[] f = line.substring(6).trim().split("\\s+");
                    return Double.parseDouble(f[1]);
                }
            }
            throw new IOException(program + " -t " + test + " gave no final report:\n  " + String.join("\n  ", lines));
        } finally {
            server.destroyForcibly();
            server.waitFor();
        }
    }

    // ---- the peer process --------------------------------------------------------------------------

    private static Process startPeer() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), UcxLatency.class.getName(), "peer");
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return pb.start();
    }

    private static void command(Writer in, String line) throws IOException {
        in.write(line + "\n");
        in.flush();
    }

    private static String expect(BufferedReader out, String prefix) throws IOException {
        String line = out.readLine();
        if (line == null || !line.startsWith(prefix)) {
            throw new IOException("the peer process said " + line + ", not " + prefix);
        }
        return line.substring(prefix.length()).trim();
    }

    private static void peer() throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (UcxContext context = UcxContext.open(); Arena arena = Arena.ofShared()) {
            UcxWorker worker = context.newWorker("bench-peer", e -> System.err.println("event " + e));
            MemorySegment memory = arena.allocate(64, 64);
            UcxMemory registered = context.register(memory);
            // the pong goes out from a task right after the handler: a handler must not block
            MemorySegment pongHeader = arena.allocate(JAVA_LONG);
            MemorySegment pongPayload = arena.allocate(8);
            UcxEndpoint[] replyTo = new UcxEndpoint[1];
            Runnable pong = () -> replyTo[0].send(PONG, pongHeader, pongPayload);
            worker.setHandler(PING, (from, header, payload) -> {
                pongHeader.set(JAVA_LONG, 0, header.get(JAVA_LONG_UNALIGNED, 0));
                replyTo[0] = from;
                worker.execute(pong);
            });
            UcxListener listener = worker.listen(new InetSocketAddress(HOST, 0));
            out.println("listening " + listener.address().getPort() + " " + HexFormat.of().formatHex(registered.descriptor()));
            UcxEndpoint ep = null;
            UcxRemoteMemory remote = null;
            String line;
            while ((line = in.readLine()) != null && !line.equals("exit")) {
                String[] a = line.split(" ");
                if (a[0].equals("connect")) {
                    ep = worker.connect(new InetSocketAddress(HOST, Integer.parseInt(a[1])));
                    remote = ep.remote(HexFormat.of().parseHex(a[2]));
                    out.println("connected");
                } else if (a[0].equals("putpong")) {
                    for (long i = 1; i <= Long.parseLong(a[1]); i++) {
                        while ((long) WORD.getVolatile(memory, 0L) != i) {
                            worker.progress();
                        }
                        ep.putLong(remote, 0, i);
                    }
                    out.println("putpong-done");
                }
            }
        }
    }
}
