package dev.memchan.tools.bench;

import dev.memchan.tools.bench.jmh.StoreOverhead;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The JMH benchmark {@link StoreOverhead}, run {@code rounds} times with short iterations (one fork per
 * benchmark); JMH runs the benchmarks in name order, so each mapping/segment pair is measured back to
 * back. Per round and benchmark the median iteration counts; reports per pair the median ns of each side over the
 * rounds and the median of the per-round ratios.
 */
final class StoreOverheadSection {
    private static final List<String> PAIRS = List.of("putLong", "putLongRelease", "copy64");

    private StoreOverheadSection() {
    }

    static String run(int rounds, boolean quick) throws RunnerException {
        Options options = new OptionsBuilder()
                .include(StoreOverhead.class.getName() + "\\.")
                .forks(1)
                .warmupIterations(quick ? 2 : 3).warmupTime(TimeValue.milliseconds(200))
                .measurementIterations(quick ? 5 : 10).measurementTime(TimeValue.milliseconds(100))
                .jvmArgsAppend("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow")
                .verbosity(VerboseMode.SILENT)
                .build();
        Map<String, List<Double>> ns = new LinkedHashMap<>();
        for (int r = 0; r < rounds; r++) {
            for (RunResult result : new Runner(options).run()) {
                String name = result.getParams().getBenchmark();
                List<Double> iterations = new ArrayList<>();
                for (BenchmarkResult fork : result.getBenchmarkResults()) {
                    for (IterationResult it : fork.getIterationResults()) {
                        iterations.add(it.getPrimaryResult().getScore());
                    }
                }
                // The median iteration, not JMH's mean: an iteration in which other work took the core is an outlier here.
                ns.computeIfAbsent(name.substring(name.lastIndexOf('.') + 1), k -> new ArrayList<>())
                        .add(Stats.of(iterations).median());
            }
        }
        StringBuilder md = new StringBuilder("### Store overhead (JMH), transmit mapping vs a plain segment of the same memory\n\n")
                .append(String.format(Locale.ROOT, "`dev.memchan.tools.bench.jmh.StoreOverhead`, %d rounds (JMH: 1 fork, %d x 200 ms "
                        + "warm-up, %d x 100 ms measured, average time; per round the median iteration); the plain segment is a "
                        + "MAP_SHARED /dev/shm mapping in a shared arena, as the soft fabric's pages are.%n%n", rounds, quick ? 2 : 3,
                        quick ? 5 : 10))
                .append("| store | mapping ns | spread | plain segment ns | spread | mapping / plain | spread |\n")
                .append("|---|---|---|---|---|---|---|\n");
        for (String pair : PAIRS) {
            List<Double> m = ns.get(pair + "Mapping");
            List<Double> p = ns.get(pair + "Segment");
            if (m == null || p == null || m.size() != rounds || p.size() != rounds) {
                throw new IllegalStateException("JMH did not report " + pair + " in every round: " + ns.keySet());
            }
            List<Double> ratio = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                ratio.add(m.get(i) / p.get(i));
            }
            Stats ms = Stats.of(m);
            Stats ps = Stats.of(p);
            Stats rs = Stats.of(ratio);
            md.append(String.format(Locale.ROOT, "| %s | %.2f | %s | %.2f | %s | **%.2f** | %s |%n", label(pair), ms.median(),
                    ms.spread("%.2f"), ps.median(), ps.spread("%.2f"), rs.median(), rs.spread("%.2f")));
        }
        return md.append("\nGoal: mapping / plain <= 1.1.\n\n").toString();
    }

    private static String label(String pair) {
        return switch (pair) {
            case "putLong" -> "`putLong` (plain 8-byte store)";
            case "putLongRelease" -> "`putLongRelease` (fence + release store)";
            case "copy64" -> "64-byte `MemorySegment.copy`";
            default -> pair;
        };
    }
}
