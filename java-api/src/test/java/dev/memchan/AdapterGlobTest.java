package dev.memchan;

import dev.memchan.MemchanException.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code dev:/dev/memchan*} without a driver: which names are candidates, and what is said when none
 * can be joined (the guest's conformance boot in native/test.sh joins real adapters through it).
 */
class AdapterGlobTest {
    private static MemchanException refused(String location) {
        return assertThrows(MemchanException.class, () -> Fabric.open(location, FabricOptions.defaults().withCreate(false)));
    }

    @Test
    void onlyATrailingStarIsSupported() {
        MemchanException e = refused("dev:/dev/mem*chan*");
        assertEquals(Kind.INVALID_ARGUMENT, e.kind());
        assertTrue(e.getMessage().contains("trailing *"), e.getMessage());
    }

    @Test
    void noMatchingAdapterIsNotFound(@TempDir Path dir) throws IOException {
        Files.createFile(dir.resolve("memchan0-ctl")); // the control nodes are no adapters
        Files.createFile(dir.resolve("memchanx"));
        MemchanException e = refused("dev:" + dir + "/memchan*");
        assertEquals(Kind.NOT_FOUND, e.kind());
        assertTrue(e.getMessage().contains("no adapter matches"), e.getMessage());
        assertEquals(Kind.NOT_FOUND, refused("dev:" + dir + "/missing/memchan*").kind());
    }

    @Test
    void aCandidateThatIsNoAdapterIsSkippedAndNamed(@TempDir Path dir) throws IOException {
        Files.createFile(dir.resolve("memchan10"));
        Files.createFile(dir.resolve("memchan2"));
        MemchanException e = refused("dev:" + dir + "/memchan*");
        assertEquals(Kind.NOT_FOUND, e.kind());
        String m = e.getMessage();
        // both tried, in numeric order, each with the reason it was skipped
        assertTrue(m.indexOf("memchan2 (") >= 0 && m.indexOf("memchan2 (") < m.indexOf("memchan10 ("), m);
        assertFalse(m.contains("memchan0-ctl"), m);
    }
}
