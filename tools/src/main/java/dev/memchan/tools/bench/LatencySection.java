package dev.memchan.tools.bench;

import dev.memchan.Fabric;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One-way latency of the 8-byte ping-pong between two processes, Java on the soft fabric beside the C
 * reference on the same kind of shared memory, runs interleaved (C, Java, C, Java, ...): per-batch means,
 * then per-round percentiles (each round timed with the clock around it, on both sides).
 */
final class LatencySection {
    private final Fabric fabric;
    private final String location;
    private final Reference reference;

    LatencySection(Site site) {
        this.fabric = site.fabric();
        this.location = site.location();
        this.reference = site.reference();
    }

    String run(int reps, int rounds, int batches) throws Exception {
        List<Double> java = new ArrayList<>();
        List<Double> c = new ArrayList<>();
        Map<String, List<Double>> javaP = Map.of("p50", new ArrayList<>(), "p99", new ArrayList<>(), "p999", new ArrayList<>());
        Map<String, List<Double>> cP = Map.of("p50", new ArrayList<>(), "p99", new ArrayList<>(), "p999", new ArrayList<>());
        for (int rep = 0; rep < reps; rep++) {
            c.addAll(reference.pingPongBatches(rounds, batches));
            reference.latencyPercentiles(rounds).forEach((k, v) -> cP.get(k).add(v));
            for (double v : javaPing(rounds, batches, false).batchOneWayNanos()) {
                java.add(v);
            }
            Histogram h = javaPing(rounds, 1, true).oneWayNanos();
            javaP.get("p50").add((double) h.getValueAtPercentile(50));
            javaP.get("p99").add((double) h.getValueAtPercentile(99));
            javaP.get("p999").add((double) h.getValueAtPercentile(99.9));
        }
        Stats js = Stats.of(java);
        Stats cs = Stats.of(c);
        StringBuilder md = new StringBuilder("### One-way latency, 8-byte ping-pong between two processes\n\n")
                .append(String.format(Locale.ROOT, "%d runs x %d batches x %,d round trips each side, interleaved (C, Java, C, Java, ...).%n%n",
                        reps, batches, rounds))
                .append("| side | median ns | min | max | IQR |\n|---|---|---|---|---|\n")
                .append(row("Java, memchan soft fabric", js)).append(row("C, same shared memory (reference)", cs))
                .append(String.format(Locale.ROOT, "%n**Java / C = %.2f** (goal <= 1.2)%n%n", js.median() / cs.median()))
                .append(String.format(Locale.ROOT, "Per round trip (one-way = round trip / 2, the clock read around each round trip on "
                        + "both sides), %d runs x %,d round trips each side, interleaved; each percentile is the median over the runs, "
                        + "with its spread:%n%n", reps, rounds))
                .append("| percentile | Java ns | spread | C ns | spread | Java / C |\n|---|---|---|---|---|---|\n");
        for (String p : List.of("p50", "p99", "p999")) {
            Stats jp = Stats.of(javaP.get(p));
            Stats cp = Stats.of(cP.get(p));
            md.append(String.format(Locale.ROOT, "| %s | %.0f | %s | %.0f | %s | %.2f |%n", p.equals("p999") ? "p99.9" : p,
                    jp.median(), jp.spread("%.0f"), cp.median(), cp.spread("%.0f"), jp.median() / cp.median()));
        }
        return md.append("\nGoal: p50 Java / C <= 1.2.\n\n").toString();
    }

    private PingPong.Result javaPing(int rounds, int batches, boolean perRound) throws Exception {
        long pingKey = ThreadLocalRandom.current().nextLong(1, 1L << 40);
        long pongKey = pingKey + 1;
        try (Peer p = Peer.start("pong", location, "" + pingKey, "" + pongKey, "" + fabric.nodeId())) {
            PingPong.Result r = PingPong.ping(fabric, pingKey, pongKey, p.node, rounds, batches, perRound, null);
            p.awaitExit();
            return r;
        }
    }

    private static String row(String name, Stats s) {
        return String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f..%.1f |%n", name, s.median(), s.min(), s.max(), s.q1(), s.q3());
    }
}
