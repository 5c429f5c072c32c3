package dev.memchan.internal.ucx;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link UcxPeerMain} (or another test main) in its own JVM, with UCX over TCP on loopback ({@link #ENVIRONMENT}); stderr goes
 * to a log file quoted when an answer does not come or is an error.
 */
final class UcxPeer implements AutoCloseable {
    /** How UCX is told to use TCP on the loopback device only, in the peer's environment. */
    static final List<String[]> ENVIRONMENT = List.of(new String[]{"UCX_TLS", "tcp"}, new String[]{"UCX_NET_DEVICES", "lo"});
    /** Generous: a JVM's start and a command on a loaded 2-core machine. No assertion is about speed. */
    static final Duration ANSWER = Duration.ofSeconds(300);

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final Path log;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private boolean killed;

    private UcxPeer(String name, Class<?> main, List<String> jvmOptions, List<String> args) throws IOException {
        this.name = name;
        this.log = Files.createTempFile("memchan-ucx-" + name + "-", ".log");
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx128m"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath(), main.getName()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(log.toFile());
        for (String[] kv : ENVIRONMENT) {
            pb.environment().put(kv[0], kv[1]);
        }
        process = pb.start();
        stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process is gone: <EOF> says so
            }
            lines.add("<EOF>");
        }, "ucx-peer-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a peer and waits until its UCX node is up. */
    static UcxPeer start(String name) throws IOException, InterruptedException {
        return start(name, UcxPeerMain.class, List.of());
    }

    /** Starts {@code main} with {@code jvmOptions} (system properties) and waits until it says it is ready. */
    static UcxPeer start(String name, Class<?> main, List<String> jvmOptions) throws IOException, InterruptedException {
        UcxPeer peer = new UcxPeer(name, main, jvmOptions, List.of());
        peer.answer("ready");
        return peer;
    }

    /** Starts {@code main} with {@code jvmOptions} and program arguments {@code args}; its first line is the caller's to read. */
    static UcxPeer launch(String name, Class<?> main, List<String> jvmOptions, List<String> args) throws IOException {
        return new UcxPeer(name, main, jvmOptions, args);
    }

    private static String classPath() {
        try {
            return Path.of(UcxPeerMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + java.io.File.pathSeparator
                    + Path.of(UcxContext.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    long pid() {
        return process.pid();
    }

    /** Sends a command without waiting for its answer. */
    void send(String command) throws IOException {
        stdin.write(command + "\n");
        stdin.flush();
    }

    /** The next answer, which must start with {@code prefix}; the rest of it (after one space) is returned. */
    String answer(String prefix) throws InterruptedException {
        String line = lines.poll(ANSWER.toSeconds(), TimeUnit.SECONDS);
        if (line == null || !line.startsWith(prefix)) {
            throw new AssertionError(name + ": expected '" + prefix + "', got " + (line == null ? "nothing within " + ANSWER : "'" + line + "'")
                    + logTail());
        }
        return line.length() > prefix.length() ? line.substring(prefix.length() + 1) : "";
    }

    /** The next answer, whatever it is (of a command sent before). */
    String line() throws InterruptedException {
        String line = lines.poll(ANSWER.toSeconds(), TimeUnit.SECONDS);
        if (line == null) {
            throw new AssertionError(name + ": no answer within " + ANSWER + logTail());
        }
        return line;
    }

    /** Sends a command and returns its whole answer, whatever it is. */
    String ask(String command) throws IOException, InterruptedException {
        send(command);
        String line = lines.poll(ANSWER.toSeconds(), TimeUnit.SECONDS);
        if (line == null) {
            throw new AssertionError(name + ": no answer to '" + command + "' within " + ANSWER + logTail());
        }
        return line;
    }

    /** Sends a command and returns its answer's text after {@code prefix}. */
    String request(String command, String prefix) throws IOException, InterruptedException {
        send(command);
        return answer(prefix);
    }

    /** SIGKILL, and waits for the process to be gone. */
    void kill() throws InterruptedException {
        killed = true;
        process.destroyForcibly();
        process.waitFor();
    }

    /** The last lines of the peer's stderr (where a node says what it counted as errors), for an assertion's message. */
    String logTail() {
        try {
            List<String> all = Files.readAllLines(log);
            return "\n  " + name + " stderr (" + log + "):\n    " + String.join("\n    ", all.subList(Math.max(0, all.size() - 30), all.size()));
        } catch (IOException e) {
            return "\n  (no log: " + e + ")";
        }
    }

    @Override
    public void close() throws IOException {
        if (process.isAlive()) {
            try {
                send("exit");
            } catch (IOException ignored) {
                // already closing
            }
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor();
                }
            } catch (InterruptedException e) { // kill it now, and keep the interrupt for the caller
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                return;
            }
        }
        if (process.exitValue() == 0 || killed) {
            Files.deleteIfExists(log); // kept after a crash, for the record
        }
    }
}
