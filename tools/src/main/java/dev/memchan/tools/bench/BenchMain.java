package dev.memchan.tools.bench;

import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.LockKind;
import dev.memchan.admin.FabricAdmin;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The benchmark suite of docs/performance.md: every memchan number next to a reference measured in the same run.
 *
 * <pre>
 *   BenchMain run --reference PATH [--quick] [--rounds N] [--only SECTION,...] [--sizes BYTES,...] [--markdown FILE]
 * </pre>
 * SECTION: latency, throughput, store, lock, remote, notify (default all); N counted rounds per measurement (default 5, 2 with --quick);
 * BYTES: the throughput section's message sizes (default 32, 64, 256, 1024, 4096, 65536).
 * runs, interleaved so that machine noise hits both sides alike: Java ping-pong vs C ping-pong on the
 * same kind of shared memory (batch means and per-round percentiles); message throughput of the channel
 * beside Agrona's OneToOneRingBuffer and the channel protocol in C, 32 B to 64 KiB; the JMH store-overhead
 * benchmark; uncontended bid lock and CAS lock vs a CAS spinlock; remote read and atomic latency vs a one-way
 * remote write; notifications with data vs the payload-less notifier. Peers are separate JVMs ({@code BenchMain peer ...}).
 */
public final class BenchMain {
    private static final List<String> SECTIONS = List.of("latency", "throughput", "store", "lock", "remote", "notify");

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
        int rounds = 0;
        int[] sizes = ThroughputSection.SIZES;
        Set<String> only = new HashSet<>(SECTIONS);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "run" -> { }
                case "--reference" -> reference = args[++i];
                case "--markdown" -> markdown = Path.of(args[++i]);
                case "--quick" -> quick = true;
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--sizes" -> sizes = java.util.Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--only" -> only = new HashSet<>(List.of(args[++i].split(",")));
                default -> usage();
            }
        }
        if (!SECTIONS.containsAll(only) || only.isEmpty() || rounds < 0 || rounds == 1) {
            usage();
        }
        if (reference == null) {
            System.err.println("--reference PATH (the compiled tools/src/main/c/memchan_reference.c) is required");
            System.exit(2);
        }
        String report = run(new Reference(reference), quick, rounds > 0 ? rounds : quick ? 2 : 5, only, sizes);
        System.out.println(report);
        if (markdown != null) {
            Files.writeString(markdown, report);
        }
    }

    private static void usage() {
        System.err.println("usage: BenchMain run --reference PATH [--quick] [--rounds N (>= 2)] [--only " + String.join(",", SECTIONS)
                + "] [--sizes BYTES,...] [--markdown FILE]");
        System.exit(2);
    }

    private static String run(Reference reference, boolean quick, int reps, Set<String> only, int[] sizes) throws Exception {
        String name = "bench-" + ProcessHandle.current().pid();
        FabricAdmin.create("shm:" + name, FabricOptions.defaults().withGeometry(64L << 20, 4096, 4));
        String location = "shm:" + name;
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "Load average (1, 5, 15 min) at the start: %s.%n%n", loadAverage()));
        try (Fabric f = Fabric.open(location, FabricOptions.defaults().withCreate(false).withNodeId(0))) {
            Site site = new Site(f, location, reference);
            if (only.contains("latency")) {
                md.append(new LatencySection(site).run(reps, quick ? 20_000 : 100_000, 5));
            }
            if (only.contains("throughput")) {
                md.append(new ThroughputSection(site).run(reps, quick, sizes));
            }
            if (only.contains("store")) {
                md.append(StoreOverheadSection.run(reps, quick));
            }
            if (only.contains("lock")) {
                md.append(locks(f, reps, quick ? 200_000 : 1_000_000));
            }
            if (only.contains("remote")) {
                md.append(remote(f, location, reps, quick ? 100_000 : 500_000));
            }
            if (only.contains("notify")) {
                md.append(notifications(f, location, reps, quick ? 100_000 : 500_000));
            }
        } finally {
            FabricAdmin.remove("shm:" + name);
        }
        return md.append(String.format(Locale.ROOT, "%nLoad average at the end: %s.%n", loadAverage())).toString();
    }

    /** The machine's load average: other work on the same cores is the main source of noise here. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + ", " + f[1] + ", " + f[2];
        } catch (java.io.IOException | ArrayIndexOutOfBoundsException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static String locks(Fabric f, int reps, int iterations) {
        List<Double> bid = new ArrayList<>();
        List<Double> cas = new ArrayList<>();
        List<Double> spin = new ArrayList<>();
        List<Double> pair = new ArrayList<>();
        List<Double> counted = new ArrayList<>();
        List<Double> striped = new ArrayList<>();
        for (int rep = 0; rep < reps; rep++) { // interleaved: noise weighs on all of them alike
            bid.add(LockTiming.clusterLock(f, ThreadLocalRandom.current().nextLong(1, 1L << 40), iterations, LockKind.BID));
            cas.add(LockTiming.clusterLock(f, ThreadLocalRandom.current().nextLong(1, 1L << 40), iterations, LockKind.CAS));
            spin.add(LockTiming.casSpinlock(f, ThreadLocalRandom.current().nextLong(1, 1L << 40), iterations));
            pair.add(LockTiming.casPairFloor(f, ThreadLocalRandom.current().nextLong(1, 1L << 40), iterations, LockTiming.Counting.NONE));
            counted.add(LockTiming.casPairFloor(f, ThreadLocalRandom.current().nextLong(1, 1L << 40), iterations,
                    LockTiming.Counting.FETCH_AND_ADD));
            striped.add(LockTiming.casPairFloor(f, ThreadLocalRandom.current().nextLong(1, 1L << 40), iterations,
                    LockTiming.Counting.SINGLE_WRITER));
        }
        Stats bs = Stats.of(bid);
        Stats cs = Stats.of(cas);
        Stats ss = Stats.of(spin);
        Stats ps = Stats.of(pair);
        Stats qs = Stats.of(counted);
        Stats ws = Stats.of(striped);
        return "### Uncontended lock acquire + release\n\n| lock | median ns | min | max |\n|---|---|---|---|\n"
                + String.format(Locale.ROOT, "| memchan bid lock (MC algorithm) | %.1f | %.1f | %.1f |%n", bs.median(), bs.min(), bs.max())
                + String.format(Locale.ROOT, "| memchan CAS lock (remote compare-and-swap) | %.1f | %.1f | %.1f |%n", cs.median(), cs.min(), cs.max())
                + String.format(Locale.ROOT, "| CAS spinlock on the same memory (reference) | %.1f | %.1f | %.1f |%n", ss.median(), ss.min(), ss.max())
                + String.format(Locale.ROOT, "| floor: CAS acquire + CAS release, by hand | %.1f | %.1f | %.1f |%n", ps.median(), ps.min(), ps.max())
                + String.format(Locale.ROOT, "| floor: the same + a counter fetch-and-add per CAS | %.1f | %.1f | %.1f |%n", qs.median(), qs.min(), qs.max())
                + String.format(Locale.ROOT, "| floor: the same + a single-writer counter add per CAS (a counter stripe) | %.1f | %.1f | %.1f |%n",
                        ws.median(), ws.min(), ws.max())
                + String.format(Locale.ROOT, "%n**bid lock / CAS spinlock = %.2f, CAS lock / CAS spinlock = %.2f; floors / CAS spinlock: "
                        + "%.2f uncounted, %.2f counted, %.2f single-writer counted; CAS lock / counted floor = %.2f**%n%n",
                        bs.median() / ss.median(), cs.median() / ss.median(), ps.median() / ss.median(), qs.median() / ss.median(),
                        ws.median() / ss.median(), cs.median() / qs.median())
                + String.format(Locale.ROOT, "Median of the per-round ratios to the spinlock (each round times all six back to back, "
                        + "so a load burst weighs on a round's ratios less than on the medians above): bid lock %.2f, CAS lock %.2f, "
                        + "uncounted floor %.2f, counted floor %.2f, single-writer floor %.2f.%n%n",
                        perRound(bid, spin), perRound(cas, spin), perRound(pair, spin), perRound(counted, spin), perRound(striped, spin));
    }

    /** Median over the rounds of {@code of[i] / to[i]}. */
    private static double perRound(List<Double> of, List<Double> to) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < of.size(); i++) {
            ratios.add(of.get(i) / to.get(i));
        }
        return Stats.of(ratios).median();
    }

    /** Remote read and atomics from a second node of this process to node 0, beside the one-way remote write. */
    private static String remote(Fabric home, String location, int reps, int iterations) {
        String[] names = {"remote read (getLongAcquire)", "remote fetch-and-add", "remote compare-and-swap", "remote write, one-way (reference)"};
        List<List<Double>> ns = new ArrayList<>();
        List<List<Double>> ratio = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            ns.add(new ArrayList<>());
            ratio.add(new ArrayList<>());
        }
        try (Fabric requester = Fabric.open(location, FabricOptions.defaults().withCreate(false))) {
            for (int rep = 0; rep < reps; rep++) {
                double[] r = RemoteTiming.againstRemoteWrite(home, requester, ThreadLocalRandom.current().nextLong(1, 1L << 40), iterations);
                for (int i = 0; i < names.length; i++) {
                    ns.get(i).add(r[i]);
                    ratio.get(i).add(r[i] / r[3]);
                }
            }
        }
        StringBuilder md = new StringBuilder("### Remote read and atomics (mean ns per operation)\n\n"
                + "| operation | median ns | min | max | / remote write (median of per-run ratios) |\n|---|---|---|---|---|\n");
        for (int i = 0; i < names.length; i++) {
            Stats s = Stats.of(ns.get(i));
            md.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.2f |%n", names[i], s.median(), s.min(), s.max(),
                    Stats.of(ratio.get(i)).median()));
        }
        return md.append('\n').toString();
    }

    /** Notifications from a second node of this process to node 0: with data against the payload-less notifier. */
    private static String notifications(Fabric receiver, String location, int reps, int iterations) {
        List<Double> data = new ArrayList<>();
        List<Double> plain = new ArrayList<>();
        try (Fabric sender = Fabric.open(location, FabricOptions.defaults().withCreate(false))) {
            for (int rep = 0; rep < reps; rep++) {
                double[] r = NotifyTiming.againstPayloadless(receiver, sender, ThreadLocalRandom.current().nextLong(1, 1L << 40), iterations);
                data.add(r[0]);
                plain.add(r[1]);
            }
        }
        Stats ds = Stats.of(data);
        Stats ps = Stats.of(plain);
        return "### Notifications: with data against the payload-less notifier (ns per notification, signal to receiver)\n\n"
                + "| notification | median ns | min | max | million per second (median) |\n|---|---|---|---|---|\n"
                + String.format(Locale.ROOT, "| with data: 48-bit payload + sender, queued (DataNotifier) | %.1f | %.1f | %.1f | %.2f |%n",
                        ds.median(), ds.min(), ds.max(), 1e3 / ds.median())
                + String.format(Locale.ROOT, "| payload-less: a word + the interrupt (Notifier, reference) | %.1f | %.1f | %.1f | %.2f |%n",
                        ps.median(), ps.min(), ps.max(), 1e3 / ps.median())
                + String.format(Locale.ROOT, "%n**rate with data / payload-less rate = %.2f** (median of the per-round ratios)%n%n",
                        perRound(plain, data));
    }

    private static void peer(String[] a) {
        String role = a[1];
        try (Fabric f = Fabric.open(a[2], FabricOptions.defaults().withCreate(false))) {
            System.out.println("NODE " + f.nodeId());
            System.out.flush();
            switch (role) {
                case "pong" -> PingPong.pong(f, Long.parseLong(a[3]), Long.parseLong(a[4]), Integer.parseInt(a[5]));
                case "sink" -> ThroughputSection.sink(f, Long.parseLong(a[3]), Integer.parseInt(a[4]), Integer.parseInt(a[5]),
                        Long.parseLong(a[6]), Integer.parseInt(a[7]), a[8]);
                default -> throw new IllegalArgumentException("unknown peer role " + role);
            }
        }
        System.exit(0);
    }
}
