package dev.memchan.tools.bench;

import dev.memchan.Fabric;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Message throughput between two processes, per message size: memchan's {@code MessageChannel}, Agrona's
 * {@code OneToOneRingBuffer} and the channel protocol in C, all on MAP_SHARED /dev/shm memory with a
 * ring of the same size, every message's content checked by the receiver. Per size one receiving JVM
 * serves all runs of both Java rings. Round 0 (memchan, Agrona) warms up both JITs and is not counted;
 * each counted round runs the two Java rings twice in mirrored order (M A A M or A M M A, alternating),
 * so that a load that drifts during the round weighs on both alike, then the C ring once.
 */
final class ThroughputSection {
    static final int CAPACITY = 2 << 20;
    static final int[] SIZES = {32, 64, 256, 4096, 65536};

    private final Fabric fabric;
    private final String location;
    private final Reference reference;

    ThroughputSection(Site site) {
        this.fabric = site.fabric();
        this.location = site.location();
        this.reference = site.reference();
    }

    /** The order of the runs of round {@code round}: M memchan, A Agrona. */
    static String order(int round) {
        return round == 0 ? "MA" : (round & 1) == 1 ? "MAAM" : "AMMA";
    }

    /** Messages per run: 64 MiB of payload (16 MiB with --quick), at least 5,000 messages. */
    static long count(int size, boolean quick) {
        return Math.max(5_000, (quick ? 16L : 64L) * 1024 * 1024 / size);
    }

    /** The Agrona ring file of run {@code run} (runs are numbered across rounds, both kinds together). */
    static Path agronaFile(String prefix, int run) {
        return Path.of(prefix + "-" + run);
    }

    /** Runs of rounds 0..reps, both kinds. */
    static int runs(int reps) {
        int n = 0;
        for (int round = 0; round <= reps; round++) {
            n += order(round).length();
        }
        return n;
    }

    String run(int reps, boolean quick, int[] sizes) throws Exception {
        StringBuilder md = new StringBuilder("### Message throughput between two processes: memchan channel, Agrona, C ring\n\n")
                .append(String.format(Locale.ROOT, "Ring %d MiB, /dev/shm memory for all three; the sender claims room, writes the "
                        + "message's pattern in place and commits; the receiver takes batches of up to %d and checks every byte. "
                        + "%d counted rounds per size, each memchan and Agrona twice in mirrored order (M A A M, A M M A, ...) and "
                        + "the C ring once; %,d MiB per run; medians over all counted runs with min..max; the ratio is the median of the "
                        + "per-round ratios.%n%n", CAPACITY >> 20, ChannelThroughput.BATCH, reps, quick ? 16 : 64))
                .append("| message | memchan msg/s | memchan MB/s | spread MB/s | Agrona msg/s | Agrona MB/s | spread MB/s "
                        + "| C ring MB/s | spread MB/s | memchan / Agrona | spread | memchan / C |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (int size : sizes) {
            md.append(size(size, reps, quick));
        }
        return md.append("\nGoal: memchan / Agrona >= 1.0 at every size.\n\n")
                .toString();
    }

    private String size(int size, int reps, boolean quick) throws Exception {
        long count = count(size, quick);
        List<Double> mc = new ArrayList<>();
        List<Double> ag = new ArrayList<>();
        List<Double> c = new ArrayList<>();
        List<Double> ratio = new ArrayList<>();
        long key = ThreadLocalRandom.current().nextLong(1, 1L << 40);
        String prefix = "/dev/shm/memchan-agrona-" + ProcessHandle.current().pid() + "-" + size;
        int runs = runs(reps);
        try {
            for (int run = 0; run < runs; run++) {
                AgronaThroughput.create(agronaFile(prefix, run), CAPACITY);
            }
            try (Peer p = Peer.start("sink", location, "" + key, "" + fabric.nodeId(), "" + CAPACITY, "" + count, "" + reps, prefix)) {
                int run = 0;
                for (int round = 0; round <= reps; round++) {
                    double m = 0;
                    double a = 0;
                    for (char kind : order(round).toCharArray()) {
                        if (kind == 'M') {
                            double bps = ChannelThroughput.send(fabric, key + run, p.node, CAPACITY, size, count);
                            m += bps;
                            if (round > 0) {
                                mc.add(bps);
                            }
                        } else {
                            double bps = AgronaThroughput.send(agronaFile(prefix, run), size, count);
                            a += bps;
                            if (round > 0) {
                                ag.add(bps);
                            }
                        }
                        run++;
                    }
                    if (round > 0) {
                        ratio.add(m / a);
                        c.add(reference.ring(size, CAPACITY, count));
                    }
                }
                p.awaitExit();
            }
        } finally {
            for (int run = 0; run < runs; run++) {
                Files.deleteIfExists(agronaFile(prefix, run));
            }
        }
        Stats m = Stats.of(mc);
        Stats a = Stats.of(ag);
        Stats cs = Stats.of(c);
        Stats r = Stats.of(ratio);
        return String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %s | %,.0f | %,.0f | %s | %,.0f | %s | **%.2f** | %s | %.2f |%n",
                sizeName(size), m.median() / size, m.median() / 1e6, mb(m), a.median() / size, a.median() / 1e6, mb(a),
                cs.median() / 1e6, mb(cs), r.median(), r.spread("%.2f"), m.median() / cs.median());
    }

    /** The receiving side of {@link #run} for one size, in the peer JVM: the same runs in the same order. */
    static void sink(Fabric f, long key, int senderNode, int capacity, long count, int reps, String prefix) {
        int run = 0;
        for (int round = 0; round <= reps; round++) {
            for (char kind : order(round).toCharArray()) {
                if (kind == 'M') {
                    ChannelThroughput.receive(f, key + run, senderNode, capacity, count);
                } else {
                    AgronaThroughput.receive(agronaFile(prefix, run), count);
                }
                run++;
            }
        }
    }

    private static String mb(Stats s) {
        return String.format(Locale.ROOT, "%,.0f..%,.0f", s.min() / 1e6, s.max() / 1e6);
    }

    private static String sizeName(int size) {
        return size >= 1024 ? size / 1024 + " KiB" : size + " B";
    }
}
