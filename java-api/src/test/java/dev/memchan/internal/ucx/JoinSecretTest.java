package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The secret file's rules: who may read it, its size, creation without overwrite, and no secret in any message. */
class JoinSecretTest {
    private Path dir;

    @BeforeEach
    void directory() throws IOException {
        dir = Files.createTempDirectory("memchan-secret-");
    }

    @AfterEach
    void remove() throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static MemchanException refusedLoad(Path file, Kind kind) {
        MemchanException e = assertThrows(MemchanException.class, () -> JoinSecret.load(file));
        assertEquals(kind, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains(file.toString()), "the message names the file: " + e.getMessage());
        return e;
    }

    @Test
    void createWritesThirtyTwoRandomBytesOwnerOnlyAndLoadReadsThem() throws IOException {
        Path file = dir.resolve("secret");
        JoinSecret created = JoinSecret.create(file);
        byte[] key = Files.readAllBytes(file);
        assertEquals(JoinSecret.MIN_BYTES, key.length);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(1, left.count(), "no temporary file left beside it");
        }
        JoinSecret loaded = JoinSecret.load(file);
        ByteBuffer data = ByteBuffer.wrap("data".getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals(created.mac(data), loaded.mac(data), "the loaded key is the created one");
        assertFalse(created.toString().contains(HexFormat.of().formatHex(key)), created.toString());

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
        assertArrayEquals(created.mac(data), JoinSecret.load(file).mac(data), "mode 0400 is taken too");
    }

    @Test
    void createNeverReplacesAFile() throws IOException {
        Path file = dir.resolve("secret");
        Files.writeString(file, "an existing file");
        MemchanException e = assertThrows(MemchanException.class, () -> JoinSecret.create(file));
        assertEquals(Kind.IN_USE, e.kind());
        assertEquals("an existing file", Files.readString(file));
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(1, left.count(), "no temporary file left beside it");
        }
    }

    @Test
    void aFileOthersCanReadOrWriteIsRefused() throws IOException {
        Path file = dir.resolve("secret");
        JoinSecret.create(file);
        byte[] key = Files.readAllBytes(file);
        for (String mode : new String[]{"rw-r--r--", "rw----r--", "rw--w----", "rwx------", "-w-------"}) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
            MemchanException e = refusedLoad(file, Kind.PERMISSION);
            assertTrue(e.getMessage().contains(mode), e.getMessage());
            assertFalse(e.getMessage().contains(HexFormat.of().formatHex(key)), "no secret in the message");
        }
    }

    @Test
    void aSymbolicLinkADirectoryAMissingFileAndWrongSizesAreRefused() throws IOException {
        Path file = dir.resolve("secret");
        JoinSecret.create(file);
        Path link = Files.createSymbolicLink(dir.resolve("link"), file);
        assertTrue(refusedLoad(link, Kind.PERMISSION).getMessage().contains("symbolic link"));
        Path sub = Files.createDirectory(dir.resolve("sub"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        refusedLoad(sub, Kind.PERMISSION);
        refusedLoad(dir.resolve("missing"), Kind.NOT_FOUND);

        Path shortFile = dir.resolve("short");
        Files.write(shortFile, new byte[JoinSecret.MIN_BYTES - 1]);
        Files.setPosixFilePermissions(shortFile, PosixFilePermissions.fromString("rw-------"));
        assertTrue(refusedLoad(shortFile, Kind.INVALID_ARGUMENT).getMessage().contains((JoinSecret.MIN_BYTES - 1) + " bytes"));
        Path longFile = dir.resolve("long");
        Files.write(longFile, new byte[JoinSecret.MAX_BYTES + 1]);
        Files.setPosixFilePermissions(longFile, PosixFilePermissions.fromString("rw-------"));
        refusedLoad(longFile, Kind.INVALID_ARGUMENT);
        Files.write(longFile, new byte[JoinSecret.MAX_BYTES]);
        JoinSecret.load(longFile);
    }
}
