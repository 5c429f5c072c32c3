package dev.memchan;

import dev.memchan.MemchanException.Kind;
import dev.memchan.spi.Location;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fabric location is parsed once ({@link Location}) and its scheme names the backend: what is
 * accepted, and that a bad location is refused with a message naming it before anything is created.
 */
class FabricLocationTest {
    @Test
    void aLocationIsSchemeColonPath() {
        assertEquals(new Location("shm", "demo"), Location.parse("shm:demo"));
        assertEquals(new Location("dev", "/dev/memchan*"), Location.parse("dev:/dev/memchan*"));
        assertEquals(new Location("ucx", "//host:7000/lab"), Location.parse("ucx://host:7000/lab"), "the first colon ends the scheme");
        assertEquals("dev:/dev/memchan0", Location.parse("dev:/dev/memchan0").toString());
    }

    @Test
    void aMalformedLocationIsRefusedNamingIt() {
        for (String bad : new String[]{"demo", "shm:", ":demo", "SHM:demo", "9p:x", ""}) {
            MemchanException e = assertThrows(MemchanException.class, () -> Location.parse(bad), bad);
            assertEquals(Kind.INVALID_ARGUMENT, e.kind(), e.getMessage());
            assertTrue(e.getMessage().contains("'" + bad + "'") && e.getMessage().contains("shm:NAME"), e.getMessage());
        }
        assertEquals(Kind.INVALID_ARGUMENT, assertThrows(MemchanException.class, () -> Location.parse(null)).kind());
    }

    /** The soft fabric files and node-local tables of this host whose names mention {@code name}. */
    private static List<String> filesNaming(String name) throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("memchan") && n.contains(name)).toList();
        }
    }

    @Test
    void aBadLocationCreatesNothing() throws IOException {
        String name = "t" + ProcessHandle.current().pid() + "-loc";
        FabricOptions create = FabricOptions.defaults().withCreate(true).withGeometry(4 << 20, 4096, 4);
        record Case(String location, String fragment) {
        }
        for (Case c : List.of(new Case(name, "'" + name + "': a location is SCHEME:PATH"),
                new Case("shm:", "'shm:': a location is SCHEME:PATH"),
                new Case("nope:" + name, "'nope:" + name + "': no backend for scheme 'nope' (this library has "),
                new Case("shm:" + name + "/x", "bad fabric name '" + name + "/x'"),
                new Case("shm:-" + name, "bad fabric name '-" + name + "'"))) {
            MemchanException e = assertThrows(MemchanException.class, () -> Fabric.open(c.location(), create).close(), c.location());
            assertEquals(Kind.INVALID_ARGUMENT, e.kind(), e.getMessage());
            assertTrue(e.getMessage().contains(c.fragment()), e.getMessage());
        }
        assertEquals(List.of(), filesNaming(name), "no fabric file or node table was created");
    }
}
