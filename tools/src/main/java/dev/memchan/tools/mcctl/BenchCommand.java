package dev.memchan.tools.mcctl;

import dev.memchan.Fabric;
import dev.memchan.LockKind;
import dev.memchan.MemchanException;
import dev.memchan.tools.bench.BenchService;
import dev.memchan.tools.bench.ChannelThroughput;
import dev.memchan.tools.bench.LockTiming;
import dev.memchan.tools.bench.PingPong;
import dev.memchan.tools.bench.RemoteTiming;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Benchmarks, measured by the benchmark engine (dev.memchan.tools.bench): ping-pong latency "
                + "percentiles, message-channel bandwidth per message size, bid and CAS cluster-lock throughput, remote read and "
                + "atomic latency.",
                "Between two nodes of this process (two threads) when the fabric has two free nodes: the soft fabric, or "
                        + "dev:/dev/memchan* on a host with two adapters. Between two hosts: mcctl bench serve on one, "
                        + "--peer NODE on the other.",
                "A progress bar runs on stderr when it is a terminal; --csv or --json for scripts."},
        subcommands = {BenchCommand.PingPongBench.class, BenchCommand.Bandwidth.class, BenchCommand.Lock.class,
                BenchCommand.Remote.class, BenchCommand.Serve.class},
        footerHeading = "%nExamples:%n",
        footer = {"  mcctl bench pingpong --fabric shm:lab", "  mcctl bench bandwidth --sizes 64,4096,65536 --csv",
                "  mcctl bench lock --iterations 100000 --json",
                "  mcctl bench remote",
                "  mcctl bench serve                   # on the host whose adapter is node 1",
                "  mcctl bench pingpong --peer 1       # on another host"})
final class BenchCommand extends Base {
    @Override
    public Integer call() {
        spec.commandLine().usage(err());
        return Exit.USAGE;
    }

    /** Output options shared by the benchmarks. */
    @Command
    abstract static class Run extends Base {
        @Option(names = "--csv", description = "Print CSV (header line, then rows).")
        boolean csv;

        @Option(names = "--peer-timeout", defaultValue = "10", paramLabel = "SECONDS",
                description = "With --peer: how long to wait for the server (default ${DEFAULT-VALUE} s).")
        int peerTimeout;

        /**
         * Two nodes of this process; the body gets them. On adapters the second needs a second free adapter
         * ({@code dev:/dev/memchan*}); otherwise the error says how to run the benchmark between two hosts.
         */
        <T> T withTwoNodes(java.util.function.BiFunction<Fabric, Fabric, T> body) {
            String location = location();
            try (Fabric a = Targets.join(location)) {
                Fabric b;
                try {
                    b = Targets.join(location);
                } catch (MemchanException | McctlException e) {
                    if (Targets.isSoft(location)) {
                        throw e;
                    }
                    throw McctlException.usage("this benchmark needs a second node: " + location + " has no second free "
                            + "adapter (" + e.getMessage() + "); run mcctl bench serve on another host and pass --peer NODE here, "
                            + "or give --fabric 'dev:/dev/memchan*' on a host with two adapters");
                }
                try (b) {
                    return body.apply(a, b);
                }
            }
        }

        /** One node of this process and a client of the benchmark server on node {@code peer}. */
        <T> T withPeer(int peer, java.util.function.BiFunction<Fabric, BenchService.Client, T> body) {
            try (Fabric f = Targets.join(location())) {
                if (peer < 0 || peer >= f.maxNodes()) {
                    throw McctlException.usage("--peer " + peer + " is not a node of " + location() + " (0.." + (f.maxNodes() - 1) + ")");
                }
                try (BenchService.Client c = new BenchService.Client(f, peer, Duration.ofSeconds(peerTimeout))) {
                    return body.apply(f, c);
                }
            }
        }

        void progress(String what, long done, long total) {
            if (!terminal() || json() || csv) {
                return;
            }
            int width = 30;
            int filled = (int) (width * done / Math.max(1, total));
            System.err.printf("\r%-12s [%s%s] %3d%%", what, "#".repeat(filled), " ".repeat(width - filled), 100 * done / Math.max(1, total));
            if (done >= total) {
                System.err.print("\r" + " ".repeat(width + 20) + "\r");
            }
            System.err.flush();
        }

        /** CSV rows of name, iterations, ns and the ratio to row {@code reference} (measured in the same run). */
        void csvAgainstReference(String header, String[] names, int iterations, double[] ns, int reference) {
            out().println(header);
            for (int i = 0; i < names.length; i++) {
                out().printf(Locale.ROOT, "%s,%d,%.1f,%.2f%n", names[i], iterations, ns[i], ns[i] / ns[reference]);
            }
        }

        void checkPositive(long v, String option) {
            if (v < 1) {
                throw McctlException.usage(option + " must be at least 1, not " + v);
            }
        }

        static long key() {
            return ThreadLocalRandom.current().nextLong(1, 1L << 40);
        }

        /** Runs {@code body} in a thread, keeping its failure for the caller. */
        static Thread peer(String name, Runnable body, AtomicReference<Throwable> failure) {
            return Thread.ofPlatform().name(name).daemon().start(() -> {
                try {
                    body.run();
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
        }

        static void join(Thread t, AtomicReference<Throwable> failure) {
            try {
                t.join(120_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (failure.get() instanceof RuntimeException e) {
                throw e;
            }
            if (failure.get() != null) {
                throw new IllegalStateException(failure.get());
            }
        }
    }

    @Command(name = "pingpong", mixinStandardHelpOptions = true,
            description = "8-byte ping-pong between two nodes: one-way latency p50, p99, p99.9 and max (HdrHistogram), and a text histogram.",
            footerHeading = "%nExamples:%n", footer = {"  mcctl bench pingpong", "  mcctl bench pingpong --rounds 100000 --batches 10 --json"})
    static final class PingPongBench extends Run {
        @Option(names = "--rounds", defaultValue = "20000", description = "Round trips per batch (default ${DEFAULT-VALUE}).")
        int rounds;

        @Option(names = "--batches", defaultValue = "5", description = "Measured batches after the warm-up batches (default ${DEFAULT-VALUE}).")
        int batches;

        @Option(names = "--peer", paramLabel = "NODE", description = "Ping the benchmark server (mcctl bench serve) on node NODE "
                + "instead of a second node of this process.")
        Integer peer;

        @Override
        public Integer call() {
            checkPositive(rounds, "--rounds");
            checkPositive(batches, "--batches");
            PingPong.Progress bar = (done, total) -> progress("pingpong", done, total);
            PingPong.Result result = peer != null ? withPeer(peer, (ping, server) -> {
                long pingKey = key();
                server.start(BenchService.KIND_PINGPONG, pingKey, 0, 0);
                PingPong.Result r = PingPong.ping(ping, pingKey, pingKey + 1, peer, rounds, batches, true, bar);
                server.awaitDone(Duration.ofSeconds(30));
                return r;
            }) : withTwoNodes((ping, pong) -> {
                long pingKey = key();
                long pongKey = pingKey + 1;
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread t = peer("bench-pong", () -> PingPong.pong(pong, pingKey, pongKey, ping.nodeId()), failure);
                PingPong.Result r = PingPong.ping(ping, pingKey, pongKey, pong.nodeId(), rounds, batches, true, bar);
                join(t, failure);
                return r;
            });
            Histogram h = result.oneWayNanos();
            Map<String, Object> doc = Json.obj("benchmark", "pingpong", "fabric", location(),
                    "peer", peer == null ? "this process" : peer, "rounds", (long) rounds * batches,
                    "unit", "ns one-way", "p50", h.getValueAtPercentile(50), "p99", h.getValueAtPercentile(99),
                    "p99_9", h.getValueAtPercentile(99.9), "max", h.getMaxValue(), "mean", h.getMean(),
                    "batch_means", result.batchOneWayNanos());
            if (json()) {
                printJson(doc);
            } else if (csv) {
                out().println("benchmark,rounds,p50_ns,p99_ns,p99_9_ns,max_ns,mean_ns");
                out().printf(Locale.ROOT, "pingpong,%d,%d,%d,%d,%d,%.1f%n", (long) rounds * batches, h.getValueAtPercentile(50),
                        h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue(), h.getMean());
            } else {
                out().printf(Locale.ROOT, "ping-pong on %s, %,d round trips, one-way latency:%n", location(), (long) rounds * batches);
                out().printf(Locale.ROOT, "  p50 %,d ns   p99 %,d ns   p99.9 %,d ns   max %,d ns   mean %.1f ns%n", h.getValueAtPercentile(50),
                        h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue(), h.getMean());
                textHistogram(out(), h);
            }
            out().flush();
            return Exit.OK;
        }
    }

    /** Latency distribution as bars, in logarithmic buckets (factor 2). */
    static void textHistogram(PrintWriter out, Histogram h) {
        List<long[]> buckets = new ArrayList<>();
        long first = Math.max(1, h.getMinNonZeroValue());
        for (HistogramIterationValue v : h.logarithmicBucketValues(first, 2.0)) {
            buckets.add(new long[]{v.getValueIteratedFrom(), v.getValueIteratedTo(), v.getCountAddedInThisIterationStep()});
        }
        long max = buckets.stream().mapToLong(b -> b[2]).max().orElse(1);
        out.println("  one-way ns            count");
        for (long[] b : buckets) {
            int bar = (int) Math.round(40.0 * b[2] / Math.max(1, max));
            out.printf(Locale.ROOT, "  %8d..%-8d %9d %s%n", b[0], b[1], b[2], "#".repeat(bar));
        }
    }

    @Command(name = "bandwidth", mixinStandardHelpOptions = true,
            description = "Message-channel bandwidth from one node to another, per message size.",
            footerHeading = "%nExamples:%n", footer = {"  mcctl bench bandwidth", "  mcctl bench bandwidth --sizes 64,1024,65536 --bytes 64M --csv"})
    static final class Bandwidth extends Run {
        @Option(names = "--sizes", split = ",", defaultValue = "64,4096,65536", description = "Message sizes in bytes (default ${DEFAULT-VALUE}).")
        List<Integer> sizes;

        @Option(names = "--bytes", defaultValue = "32M", description = "Payload per size (K/M/G suffix; default ${DEFAULT-VALUE}).")
        String bytes;

        @Option(names = "--capacity", defaultValue = "1M", description = "Channel ring capacity (default ${DEFAULT-VALUE}).")
        String capacity;

        @Option(names = "--peer", paramLabel = "NODE", description = "Send to the benchmark server (mcctl bench serve) on node NODE "
                + "instead of a second node of this process.")
        Integer peer;

        private void row(List<Object> rows, int size, long count, double bps) {
            rows.add(Json.obj("size", size, "messages", count, "bytes_per_second", bps, "mb_per_second", bps / 1e6));
            progress("bandwidth", rows.size(), sizes.size());
        }

        @Override
        public Integer call() {
            long total = NodeCommand.Create.parseSize(bytes);
            long cap = NodeCommand.Create.parseSize(capacity);
            checkPositive(total, "--bytes");
            if (cap < 4096 || cap > Integer.MAX_VALUE) {
                throw McctlException.usage("--capacity must be 4K..2G, not " + capacity);
            }
            for (int s : sizes) {
                if (s < 1 || s > cap / 2) {
                    throw McctlException.usage("message size " + s + " must be 1.." + cap / 2 + " (half the --capacity)");
                }
            }
            List<Object> rows = new ArrayList<>();
            if (peer != null) {
                withPeer(peer, (tx, server) -> {
                    for (int size : sizes) {
                        long count = Math.max(16, total / size);
                        long key = key();
                        server.start(BenchService.KIND_BANDWIDTH, key, cap, count);
                        double bps = ChannelThroughput.send(tx, key, peer, (int) cap, size, count);
                        server.awaitDone(Duration.ofSeconds(30));
                        row(rows, size, count, bps);
                    }
                    return null;
                });
            } else {
                withTwoNodes((tx, rx) -> {
                    for (int size : sizes) {
                        long count = Math.max(16, total / size);
                        long key = key();
                        AtomicReference<Throwable> failure = new AtomicReference<>();
                        Thread t = peer("bench-sink", () -> ChannelThroughput.receive(rx, key, tx.nodeId(), (int) cap, count), failure);
                        double bps = ChannelThroughput.send(tx, key, rx.nodeId(), (int) cap, size, count);
                        join(t, failure);
                        row(rows, size, count, bps);
                    }
                    return null;
                });
            }
            if (json()) {
                printJson(Json.obj("benchmark", "bandwidth", "fabric", location(), "peer", peer == null ? "this process" : peer,
                        "results", rows));
                return Exit.OK;
            }
            if (csv) {
                out().println("size_bytes,messages,mb_per_second");
            } else {
                out().printf("message-channel bandwidth on %s:%n  %10s %12s %12s%n", location(), "SIZE", "MESSAGES", "MB/s");
            }
            for (Object o : rows) {
                @SuppressWarnings("unchecked") Map<String, Object> r = (Map<String, Object>) o;
                out().printf(Locale.ROOT, csv ? "%d,%d,%.1f%n" : "  %10d %12d %12.1f%n", r.get("size"), r.get("messages"), (Double) r.get("mb_per_second"));
            }
            out().flush();
            return Exit.OK;
        }
    }

    @Command(name = "lock", mixinStandardHelpOptions = true,
            description = "Uncontended cluster-lock acquire + release: the bid lock (Memory Channel) and the CAS lock (remote "
                    + "compare-and-swap), next to a CAS spinlock on the same memory and the CAS lock's floor (its two CAS and "
                    + "two page-counter fetch-and-adds by hand, see docs/performance.md), measured in one run.",
            footerHeading = "%nExamples:%n", footer = {"  mcctl bench lock", "  mcctl bench lock --iterations 1000000 --csv"})
    static final class Lock extends Run {
        @Option(names = "--iterations", defaultValue = "100000", description = "Acquire + release pairs (default ${DEFAULT-VALUE}).")
        int iterations;

        @Override
        public Integer call() {
            checkPositive(iterations, "--iterations");
            double[] ns;
            try (Fabric a = Targets.join(location())) { // uncontended: one node is enough
                progress("lock", 0, 4);
                double bid = LockTiming.clusterLock(a, key(), iterations, LockKind.BID);
                progress("lock", 1, 4);
                double cas = LockTiming.clusterLock(a, key(), iterations, LockKind.CAS);
                progress("lock", 2, 4);
                double spin = LockTiming.casSpinlock(a, key(), iterations);
                progress("lock", 3, 4);
                double floor = LockTiming.casPairFloor(a, key(), iterations, LockTiming.Counting.FETCH_AND_ADD);
                progress("lock", 4, 4);
                ns = new double[]{bid, cas, spin, floor};
            }
            String[] names = {"bid", "cas", "spinlock", "cas_floor"};
            if (json()) {
                printJson(Json.obj("benchmark", "lock", "fabric", location(), "iterations", iterations,
                        "cluster_lock_ns", ns[0], "cluster_lock_per_second", 1e9 / ns[0], "cas_lock_ns", ns[1],
                        "cas_lock_per_second", 1e9 / ns[1], "cas_spinlock_ns", ns[2], "cas_spinlock_per_second", 1e9 / ns[2],
                        "cas_floor_ns", ns[3], "bid_over_spinlock", ns[0] / ns[2], "cas_over_spinlock", ns[1] / ns[2],
                        "cas_floor_over_spinlock", ns[3] / ns[2]));
            } else if (csv) {
                csvAgainstReference("lock,iterations,ns_per_acquire_release,over_spinlock", names, iterations, ns, 2);
            } else {
                out().printf(Locale.ROOT, "lock throughput on %s, %,d uncontended acquire + release:%n", location(), iterations);
                out().printf(Locale.ROOT, "  bid lock (MC algorithm)       %10.1f ns  %,12.0f /s  %6.2fx spinlock%n", ns[0], 1e9 / ns[0], ns[0] / ns[2]);
                out().printf(Locale.ROOT, "  CAS lock (remote CAS)         %10.1f ns  %,12.0f /s  %6.2fx spinlock%n", ns[1], 1e9 / ns[1], ns[1] / ns[2]);
                out().printf(Locale.ROOT, "  CAS spinlock (reference)      %10.1f ns  %,12.0f /s%n", ns[2], 1e9 / ns[2]);
                out().printf(Locale.ROOT, "  CAS lock's floor (by hand)    %10.1f ns  %,12.0f /s  %6.2fx spinlock%n", ns[3], 1e9 / ns[3], ns[3] / ns[2]);
            }
            out().flush();
            return Exit.OK;
        }
    }

    @Command(name = "remote", mixinStandardHelpOptions = true,
            description = {"Remote read and remote atomic latency between two nodes of this process, next to the one-way "
                    + "remote write (the 8-byte ping-pong's half round trip) measured in the same run.",
                    "Needs a backend with remote read and atomics (CAPS REMOTE_READ, ATOMICS); others exit 3."},
            footerHeading = "%nExamples:%n", footer = {"  mcctl bench remote", "  mcctl bench remote --iterations 1000000 --json"})
    static final class Remote extends Run {
        @Option(names = "--iterations", defaultValue = "200000", description = "Operations of each kind (default ${DEFAULT-VALUE}).")
        int iterations;

        @Override
        public Integer call() {
            checkPositive(iterations, "--iterations");
            double[] ns = withTwoNodes((home, requester) -> {
                progress("remote", 0, 1);
                double[] r = RemoteTiming.againstRemoteWrite(home, requester, key(), iterations);
                progress("remote", 1, 1);
                return r;
            });
            String[] names = {"remote_read", "fetch_and_add", "compare_and_swap", "remote_write_one_way"};
            if (json()) {
                printJson(Json.obj("benchmark", "remote", "fabric", location(), "iterations", iterations, "unit", "ns mean",
                        "remote_read_ns", ns[0], "fetch_and_add_ns", ns[1], "compare_and_swap_ns", ns[2],
                        "remote_write_one_way_ns", ns[3], "read_over_write", ns[0] / ns[3], "fetch_and_add_over_write", ns[1] / ns[3],
                        "compare_and_swap_over_write", ns[2] / ns[3]));
            } else if (csv) {
                csvAgainstReference("operation,iterations,mean_ns,over_remote_write", names, iterations, ns, 3);
            } else {
                out().printf(Locale.ROOT, "remote read and atomics on %s, %,d each, mean latency:%n", location(), iterations);
                for (int i = 0; i < 4; i++) {
                    out().printf(Locale.ROOT, "  %-22s %10.1f ns  %6.2fx remote write%n", names[i].replace('_', ' '), ns[i], ns[i] / ns[3]);
                }
            }
            out().flush();
            return Exit.OK;
        }
    }

    @Command(name = "serve", mixinStandardHelpOptions = true,
            description = {"The far end of pingpong and bandwidth between two hosts: joins the fabric as this host's node "
                    + "and runs the echoing or receiving side of each benchmark a client starts with --peer THIS_NODE.",
                    "Runs until --count benchmarks were served, --idle-timeout passed without a request, or until interrupted. "
                            + "One client at a time."},
            footerHeading = "%nExamples:%n",
            footer = {"  mcctl bench serve                        # host A, adapter node 1",
                    "  mcctl bench pingpong --peer 1            # host B",
                    "  mcctl bench serve --count 2 --json       # serve two runs, one JSON line each",
                    "  mcctl bench serve --count 1 --idle-timeout 300   # a script's server: ends if its client never comes"})
    static final class Serve extends Base {
        @Option(names = "--count", defaultValue = "0", description = "Stop after this many benchmarks (0: until interrupted; default ${DEFAULT-VALUE}).")
        int count;

        @Option(names = "--idle-timeout", defaultValue = "0", paramLabel = "SECONDS",
                description = "Stop (exit 4) when no benchmark is requested within SECONDS of the start or of the last one, "
                        + "and fail a ping-pong or bandwidth run whose client is silent that long (0: no bound; default ${DEFAULT-VALUE}).")
        int idleTimeout;

        @Override
        public Integer call() {
            if (count < 0) {
                throw McctlException.usage("--count must be 0 (no limit) or more, not " + count);
            }
            if (idleTimeout < 0) {
                throw McctlException.usage("--idle-timeout must be 0 (no bound) or more, not " + idleTimeout);
            }
            try (Fabric f = Targets.join(location())) {
                if (json()) {
                    printJson(Json.obj("serving", true, "fabric", location(), "node", f.nodeId()));
                } else {
                    out().printf("serving benchmarks on node %d of %s (clients: mcctl bench pingpong --peer %d)%n",
                            f.nodeId(), location(), f.nodeId());
                    out().flush();
                }
                int[] failed = {0};
                BenchService.serve(f, count, Duration.ofSeconds(idleTimeout), (r, failure) -> {
                    String kind = r.kind() == BenchService.KIND_PINGPONG ? "pingpong" : r.kind() == BenchService.KIND_BANDWIDTH
                            ? "bandwidth" : "unknown";
                    if (failure != null) {
                        failed[0]++;
                        err().println("mcctl: benchmark " + r.seq() + " (" + kind + " from node " + r.client() + ") failed: "
                                + failure.getMessage());
                        err().flush();
                    }
                    if (json()) {
                        printJson(Json.obj("served", r.seq(), "kind", kind, "client", r.client(), "ok", failure == null));
                    } else {
                        out().printf("served %s for node %d%s%n", kind, r.client(), failure == null ? "" : " (failed)");
                        out().flush();
                    }
                });
                return failed[0] == 0 ? Exit.OK : Exit.CHECK_FAILED;
            }
        }
    }
}
