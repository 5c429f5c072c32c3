package dev.memchan.tools.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A peer JVM running {@code BenchMain peer ROLE ...}; it prints its node ID first. */
final class Peer implements AutoCloseable {
    final Process process;
    final int node;

    private Peer(Process process, int node) {
        this.process = process;
        this.node = node;
    }

    static Peer start(String role, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), BenchMain.class.getName(), "peer", role));
        cmd.addAll(Arrays.asList(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String first = new BufferedReader(new InputStreamReader(p.getInputStream())).readLine();
        if (first == null || !first.startsWith("NODE ")) {
            p.destroyForcibly();
            throw new IOException("bench peer " + role + " did not start: " + first);
        }
        return new Peer(p, Integer.parseInt(first.substring(5).trim()));
    }

    void awaitExit() throws InterruptedException {
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("bench peer failed or hung (see its output above)");
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
