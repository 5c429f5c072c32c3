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
 * serves all runs of both Java rings; run 0 warms up both JITs and is not counted; the counted runs are
 * interleaved (memchan and Agrona alternate which goes first, C after them).
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

    /** Whether run {@code run} sends through memchan before Agrona (they alternate). */
    static boolean memchanFirst(int run) {
        return (run & 1) == 0;
    }

    static long count(int size, boolean quick) {
        return Math.max(10_000, (quick ? 32L : 128L) * 1024 * 1024 / size);
    }

    static Path agronaFile(String prefix, int run) {
        return Path.of(prefix + "-" + run);
    }

    String run(int reps, boolean quick, int[] sizes) throws Exception {
        StringBuilder md = new StringBuilder("### Message throughput between two processes: memchan channel, Agrona, C ring\n\n")
                .append(String.format(Locale.ROOT, "Ring %d MiB, /dev/shm memory for all three; the sender claims room, writes the "
                        + "message's pattern in place and commits; the receiver takes batches of up to %d and checks every byte. "
                        + "%d counted runs per size, interleaved; medians with min..max.%n%n", CAPACITY >> 20, ChannelThroughput.BATCH, reps))
                .append("| message | memchan msg/s | memchan MB/s | spread MB/s | Agrona msg/s | Agrona MB/s | spread MB/s "
                        + "| C ring MB/s | spread MB/s | memchan / Agrona | spread | memchan / C |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (int size : sizes) {
            md.append(size(size, reps, quick));
        }
        return md.append("\nGoal: memchan / Agrona >= 1.0 at every size (the ratio column is the median of the per-run ratios).\n\n")
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
        try {
            for (int run = 0; run <= reps; run++) {
                AgronaThroughput.create(agronaFile(prefix, run), CAPACITY);
            }
            try (Peer p = Peer.start("sink", location, "" + key, "" + fabric.nodeId(), "" + CAPACITY, "" + count, "" + (reps + 1), prefix)) {
                for (int run = 0; run <= reps; run++) {
                    double m;
                    double a;
                    if (memchanFirst(run)) {
                        m = ChannelThroughput.send(fabric, key + run, p.node, CAPACITY, size, count);
                        a = AgronaThroughput.send(agronaFile(prefix, run), size, count);
                    } else {
                        a = AgronaThroughput.send(agronaFile(prefix, run), size, count);
                        m = ChannelThroughput.send(fabric, key + run, p.node, CAPACITY, size, count);
                    }
                    if (run > 0) {
                        mc.add(m);
                        ag.add(a);
                        ratio.add(m / a);
                        c.add(reference.ring(size, CAPACITY, count));
                    }
                }
                p.awaitExit();
            }
        } finally {
            for (int run = 0; run <= reps; run++) {
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

    /** The receiving side of {@link #run} for one size, in the peer JVM. */
    static void sink(Fabric f, long key, int senderNode, int capacity, long count, int runs, String prefix) {
        for (int run = 0; run < runs; run++) {
            if (memchanFirst(run)) {
                ChannelThroughput.receive(f, key + run, senderNode, capacity, count);
                AgronaThroughput.receive(agronaFile(prefix, run), count);
            } else {
                AgronaThroughput.receive(agronaFile(prefix, run), count);
                ChannelThroughput.receive(f, key + run, senderNode, capacity, count);
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
