package dev.memchan.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness's one allowance for the JVM under it: a node whose JVM crashes before it starts is restarted once. */
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
}
