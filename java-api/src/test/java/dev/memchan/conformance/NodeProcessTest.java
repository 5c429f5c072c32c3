package dev.memchan.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness's one allowance for the JVM under it (a node whose JVM crashes before it starts is restarted once), and
 * the launchers that put nodes on other network stacks ({@link NodeProcess#NODE_LAUNCHERS}).
 */
class NodeProcessTest {
    private static final Duration START = TestBackend.allowance(Duration.ofSeconds(30));

    @Test
    void aJvmCrashBeforeTheNodeStartsIsRestartedOnce(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve("crashed");
        try (NodeProcess node = NodeProcess.start("crash-once", "jvm-crash", marker.toString())) {
            assertEquals("READY restarted", node.expect("READY", START));
        }
        assertTrue(Files.exists(marker), "the first JVM ran and crashed");
    }

    @Test
    void aSecondCrashIsAFailureNamingTheCrash() throws Exception {
        try (NodeProcess node = NodeProcess.start("crash-twice", "jvm-crash", "always")) {
            AssertionError e = assertThrows(AssertionError.class, () -> node.expect("READY", START));
            assertTrue(e.getMessage().contains("<EOF>") && e.getMessage().contains(NodeProcess.JVM_FATAL_ERROR), e.getMessage());
        }
    }

    @Test
    void launcherSlotsAreChosenByNodeNumber() {
        assertEquals(List.of(), NodeProcess.launcher(" ", 3));
        String two = "ip netns exec a;ip  netns exec b ";
        assertEquals(List.of("ip", "netns", "exec", "a"), NodeProcess.launcher(two, 0));
        assertEquals(List.of("ip", "netns", "exec", "b"), NodeProcess.launcher(two, 1));
        assertEquals(List.of("ip", "netns", "exec", "b"), NodeProcess.launcher(two, 3));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NodeProcess.launcher("ip netns exec a;", 0));
        assertTrue(e.getMessage().contains(NodeProcess.NODE_LAUNCHERS), e.getMessage());
    }

    /**
     * Each node runs in the network namespace its launcher slot gives (without launchers: this JVM's), as the launcher
     * itself reports it; one line per node ("# node N: ...") for harness/netns.py, which checks the namespaces are its own.
     */
    @Test
    void eachNodeRunsInTheNetworkNamespaceOfItsLauncher() throws Exception {
        String launchers = System.getProperty(NodeProcess.NODE_LAUNCHERS, "");
        int slots = launchers.isBlank() ? 2 : launchers.split(";").length;
        List<NodeProcess> nodes = new ArrayList<>();
        try {
            for (int n = 0; n < slots; n++) {
                nodes.add(NodeProcess.startOnNode("netns-" + n, n, "net-namespace"));
            }
            for (int n = 0; n < slots; n++) {
                String seen = nodes.get(n).expect("NETNS", START).substring("NETNS ".length());
                List<String> launcher = NodeProcess.launcher(launchers, n);
                assertEquals(netNamespace(launcher), seen, "node " + n + " behind " + launcher);
                System.out.println("# node " + n + ": " + seen + " behind '" + String.join(" ", launcher) + "'");
            }
        } finally {
            nodes.forEach(NodeProcess::close);
        }
    }

    /** The network namespace a process started behind {@code launcher} is in, as readlink says. */
    private static String netNamespace(List<String> launcher) throws IOException, InterruptedException {
        if (launcher.isEmpty()) {
            return Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        }
        List<String> cmd = new ArrayList<>(launcher);
        cmd.addAll(List.of("readlink", "/proc/self/ns/net"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(p.waitFor(START.toSeconds(), TimeUnit.SECONDS) && p.exitValue() == 0, cmd + ": " + out);
        return out;
    }
}
