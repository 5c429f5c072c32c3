package dev.memchan.tools.mcctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * mcctl on {@code ucx://}: {@code secret create}, {@code hub} as a process, a node agent joined through it, then
 * {@code status}, {@code pct show}, {@code selftest} and a refused join with another secret; the hub's counts at
 * SIGTERM say what it admitted and refused.
 */
class McctlUcxIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String LAUNCHER = System.getProperty("mcctl.launcher", "../scripts/mcctl");
    private static final String NAME = "mcctl-ucx-" + ProcessHandle.current().pid();

    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
        JsonNode json() throws IOException {
            return JSON.readTree(out);
        }
    }

    private static ProcessBuilder command(Path secret, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(LAUNCHER);
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        if (secret != null) {
            pb.environment().put("MEMCHAN_UCX_SECRET", secret.toString());
        }
        return pb;
    }

    private static Run run(Path secret, String... args) throws Exception {
        Process p = command(secret, args).start();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "mcctl " + List.of(args) + " hung");
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    private record Started(Process process, BufferedReader out) {
        /** SIGTERM, through the process handle: Process.destroy would close the output still to be read. */
        void terminate() {
            process.toHandle().destroy();
        }
    }

    /** A process started from {@code pb}, after its first line of output, which must start with {@code expected}. */
    private static Started started(ProcessBuilder pb, String expected) throws IOException {
        Process p = pb.redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertNotNull(line, pb.command() + " exited without its first line");
        assertTrue(line.startsWith(expected), line);
        return new Started(p, out);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void hubNodeStatusSelftestAndRefusal() throws Exception {
        Path secret = dir.resolve("fabric.secret");
        Run created = run(null, "secret", "create", secret.toString());
        assertEquals(0, created.code(), created.err());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)));
        Run again = run(null, "secret", "create", secret.toString());
        assertEquals(Exit.USAGE, again.code(), "an existing secret file is refused: " + again.err());
        Path other = dir.resolve("other.secret");
        assertEquals(0, run(null, "secret", "create", other.toString()).code());

        String fabric = "ucx://127.0.0.1:" + freePort() + "/" + NAME;
        Started hub = started(command(null, "hub", fabric, "--secret", secret.toString()), "hub of " + fabric + " listening");
        Started agent = null;
        try {
            agent = started(command(secret, "node", "join", "--fabric", fabric), "joined " + fabric + " as node 0");

            Run status = run(secret, "status", "--fabric", fabric, "--json");
            assertEquals(0, status.code(), status.err());
            JsonNode doc = status.json();
            assertEquals("ucx", doc.get("kind").asText());
            assertEquals(fabric.substring("ucx://".length(), fabric.lastIndexOf('/')), doc.get("hub").asText());
            boolean agentListed = false;
            for (JsonNode n : doc.get("nodes")) {
                agentListed |= n.get("node").asInt() == 0 && n.get("pid").asLong() == agent.process().pid();
            }
            assertTrue(agentListed, "the agent's node 0 in " + doc);

            Run pct = run(secret, "pct", "show", "--fabric", fabric, "--node", "0");
            assertEquals(0, pct.code(), pct.err());

            Run selftest = run(secret, "selftest", "--fabric", fabric, "--json");
            assertEquals(0, selftest.code(), selftest.out() + selftest.err());
            for (JsonNode s : selftest.json().get("stages")) {
                assertTrue(s.get("passed").asBoolean(), s.toString());
            }

            Run stranger = run(other, "selftest", "--fabric", fabric);
            assertEquals(Exit.NO_DEVICE, stranger.code(), "a node with another secret is refused PERMISSION: " + stranger.err());
        } finally {
            if (agent != null) {
                agent.terminate();
                assertTrue(agent.process().waitFor(60, TimeUnit.SECONDS), "the agent did not leave");
            }
            hub.terminate();
        }
        String report = String.join("\n", hub.out().lines().toList());
        assertTrue(hub.process().waitFor(60, TimeUnit.SECONDS), "the hub did not stop");
        // admitted: the agent and the selftest's member (status and pct show join no node); refused: the stranger
        assertTrue(report.contains("hub stopped: 2 joins admitted, 1 refused"), report);
        removeHostCopies();
    }

    /** This host's copies of the test's fabric and their companions ({@code /dev/shm/memchan-*ucx-NAME-...}). */
    private static void removeHostCopies() throws IOException {
        try (DirectoryStream<Path> copies = Files.newDirectoryStream(Path.of("/dev/shm"), "memchan-*ucx-" + NAME + "-*")) {
            for (Path p : copies) {
                Files.deleteIfExists(p);
            }
        }
    }
}
