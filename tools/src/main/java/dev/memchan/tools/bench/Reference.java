package dev.memchan.tools.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The C reference, tools/src/main/c/memchan_reference.c, run as a separate program (it forks its own two processes). */
final class Reference {
    private final String program;

    Reference(String program) {
        this.program = program;
    }

    /** Mean one-way ns of each counted batch of the C ping-pong. */
    List<Double> pingPongBatches(int rounds, int batches) throws IOException, InterruptedException {
        return run("pingpong", shmFile("pp").toString(), "" + rounds, "" + batches).stream()
                .filter(l -> l.startsWith("batch ")).map(l -> Double.parseDouble(l.substring(6))).toList();
    }

    /** One-way percentiles (keys p50, p99, p999) of {@code rounds} timed round trips. */
    Map<String, Double> latencyPercentiles(int rounds) throws IOException, InterruptedException {
        Map<String, Double> out = new HashMap<>();
        for (String line : run("latency", shmFile("lat").toString(), "" + rounds)) {
            String[] kv = line.split(" ");
            out.put(kv[0], Double.parseDouble(kv[1]));
        }
        if (!out.keySet().containsAll(List.of("p50", "p99", "p999"))) {
            throw new IOException("no percentiles from " + program + ": " + out);
        }
        return out;
    }

    /** Payload bytes per second of the channel protocol in C, every message checked by the consumer. */
    double ring(int size, int capacity, long count) throws IOException, InterruptedException {
        for (String line : run("ring", "" + size, "" + capacity, "" + count, shmFile("ring").toString())) {
            if (line.startsWith("bytes_per_second ")) {
                return Double.parseDouble(line.substring(17));
            }
        }
        throw new IOException("no result from " + program);
    }

    private static Path shmFile(String what) {
        return Path.of("/dev/shm", "memchan-ref-" + what + "-" + ProcessHandle.current().pid());
    }

    private List<String> run(String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 1];
        cmd[0] = program;
        System.arraycopy(args, 0, cmd, 1, args.length);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> lines = new BufferedReader(new InputStreamReader(p.getInputStream())).lines().toList();
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + lines);
        }
        return lines;
    }
}
