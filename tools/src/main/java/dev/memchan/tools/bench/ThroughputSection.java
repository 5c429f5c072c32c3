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
 * ring of the same size, every message's content checked by the receiver. Two ways to send, each against
 * Agrona's same way: a claim written in place and committed (M memchan, A Agrona), and a copy of a
 * message from the sender's own buffer (O memchan {@code offer}, W Agrona {@code write}). Per size one
 * receiving JVM serves all runs of both Java rings. Round 0 (M A O W) warms up both JITs and is not
 * counted; each counted round runs each pair twice in mirrored order (M A A M O W W O or A M M A W O O W,
 * alternating), so that a load that drifts during the round weighs on both alike, then the C ring once.
 */
final class ThroughputSection {
    static final int CAPACITY = 2 << 20;
    static final int[] SIZES = {32, 64, 256, 1024, 4096, 65536};

    private final Fabric fabric;
    private final String location;
    private final Reference reference;

    ThroughputSection(Site site) {
        this.fabric = site.fabric();
        this.location = site.location();
        this.reference = site.reference();
    }

    /** The order of the runs of round {@code round}: M memchan claim, A Agrona claim, O memchan offer, W Agrona write. */
    static String order(int round) {
        return round == 0 ? "MAOW" : (round & 1) == 1 ? "MAAMOWWO" : "AMMAWOOW";
    }

    /** Whether runs of {@code kind} (a letter of {@link #order}) use memchan's ring. */
    static boolean memchan(char kind) {
        return kind == 'M' || kind == 'O';
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
        List<String[]> rows = new ArrayList<>();
        for (int size : sizes) {
            rows.add(size(size, reps, quick));
        }
        StringBuilder md = new StringBuilder("### Message throughput between two processes: memchan channel, Agrona, C ring\n\n")
                .append(String.format(Locale.ROOT, "Ring %d MiB, /dev/shm memory for all three; the receiver takes batches of up to "
                        + "%d and checks every byte. %d counted rounds per size, each running memchan and Agrona twice per way of "
                        + "sending in mirrored order (M A A M O W W O, A M M A W O O W, ...) and the C ring once; %,d MiB per run; "
                        + "medians over all counted runs with min..max; a ratio is the median of the per-round ratios.%n%n",
                        CAPACITY >> 20, ChannelThroughput.BATCH, reps, quick ? 16 : 64))
                .append("Claim, write the message's pattern in place, commit (memchan `tryClaim`/`commit`, Agrona "
                        + "`tryClaim`/`commit`):\n\n")
                .append("| message | memchan msg/s | memchan MB/s | spread MB/s | Agrona msg/s | Agrona MB/s | spread MB/s "
                        + "| C ring MB/s | spread MB/s | memchan / Agrona | spread | memchan / C |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (String[] row : rows) {
            md.append(row[0]);
        }
        md.append("\nCopy: the pattern written into the sender's own buffer, then sent with memchan `offer` / Agrona `write`:\n\n")
                .append("| message | memchan offer msg/s | MB/s | spread MB/s | Agrona write msg/s | MB/s | spread MB/s "
                        + "| offer / write | spread |\n")
                .append("|---|---|---|---|---|---|---|---|---|\n");
        for (String[] row : rows) {
            md.append(row[1]);
        }
        return md.append("\nGoal: memchan / Agrona >= 1.0 at every size, both ways.\n\n")
                .toString();
    }

    /** The two table rows of one size: claim/commit, and copy. */
    private String[] size(int size, int reps, boolean quick) throws Exception {
        long count = count(size, quick);
        List<Double> mc = new ArrayList<>();
        List<Double> ag = new ArrayList<>();
        List<Double> mo = new ArrayList<>();
        List<Double> aw = new ArrayList<>();
        List<Double> c = new ArrayList<>();
        List<Double> ratio = new ArrayList<>();
        List<Double> copyRatio = new ArrayList<>();
        List<List<Double>> byKind = List.of(mc, ag, mo, aw); // in the order of "MAOW"
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
                    double[] sum = new double[4];
                    for (char kind : order(round).toCharArray()) {
                        double bps = switch (kind) {
                            case 'M' -> ChannelThroughput.send(fabric, key + run, p.node, CAPACITY, size, count);
                            case 'O' -> ChannelThroughput.sendCopies(fabric, key + run, p.node, CAPACITY, size, count);
                            case 'A' -> AgronaThroughput.send(agronaFile(prefix, run), size, count);
                            default -> AgronaThroughput.sendCopies(agronaFile(prefix, run), size, count);
                        };
                        int k = "MAOW".indexOf(kind);
                        sum[k] += bps;
                        if (round > 0) {
                            byKind.get(k).add(bps);
                        }
                        run++;
                    }
                    if (round > 0) {
                        ratio.add(sum[0] / sum[1]);
                        copyRatio.add(sum[2] / sum[3]);
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
        Stats o = Stats.of(mo);
        Stats w = Stats.of(aw);
        Stats cs = Stats.of(c);
        Stats r = Stats.of(ratio);
        Stats cr = Stats.of(copyRatio);
        return new String[] {
            String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %s | %,.0f | %,.0f | %s | %,.0f | %s | **%.2f** | %s | %.2f |%n",
                    sizeName(size), m.median() / size, m.median() / 1e6, mb(m), a.median() / size, a.median() / 1e6, mb(a),
                    cs.median() / 1e6, mb(cs), r.median(), r.spread("%.2f"), m.median() / cs.median()),
            String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %s | %,.0f | %,.0f | %s | **%.2f** | %s |%n",
                    sizeName(size), o.median() / size, o.median() / 1e6, mb(o), w.median() / size, w.median() / 1e6, mb(w),
                    cr.median(), cr.spread("%.2f")),
        };
    }

    /** The receiving side of {@link #run} for one size, in the peer JVM: the same runs in the same order. */
    static void sink(Fabric f, long key, int senderNode, int capacity, long count, int reps, String prefix) {
        int run = 0;
        for (int round = 0; round <= reps; round++) {
            for (char kind : order(round).toCharArray()) {
                if (memchan(kind)) {
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

    static String sizeName(int size) {
        return size >= 1024 ? size / 1024 + " KiB" : size + " B";
    }
}
