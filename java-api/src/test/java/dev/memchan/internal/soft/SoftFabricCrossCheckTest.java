package dev.memchan.internal.soft;

import dev.memchan.internal.nativeio.Posix;
import dev.memchan.layout.SoftFabricGeometry;
import dev.memchan.layout.SoftFabricLayout;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The soft-fabric layout, host only: a file the Java library creates is accepted by the C
 * creator's validator ({@code mcfab-create --check}, the rules the ivshmem driver applies) with the
 * same geometry, a file {@code mcfab-create} creates is opened by the Java library with the same
 * geometry, and the two files' headers and node identity registers are byte-identical but for the
 * random fabric ID and the creation time. Both page sizes, odd and even node counts, several sizes.
 * And both languages reproduce every row of the geometry vectors regmap/gen.py evaluates from the
 * formulas of regmap/memchan.toml.
 */
class SoftFabricCrossCheckTest {
    static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    static final Path TOOLS = ROOT.resolve("native/tools");
    static final Path VECTORS = ROOT.resolve("regmap/vectors/soft-fabric-geometry.csv");

    @BeforeAll
    static void buildTools() throws Exception {
        run(List.of("make", "-s", "-C", TOOLS.toString()), 0);
    }

    @Test
    void javaReproducesTheGeneratedVectors() throws IOException {
        int rows = 0;
        for (String line : Files.readAllLines(VECTORS)) {
            if (line.startsWith("#") || line.startsWith("file_size,")) {
                continue;
            }
            String[] f = line.split(",", -1);
            long size = Long.parseLong(f[0]);
            int pageSize = Integer.parseInt(f[1]);
            int nodes = Integer.parseInt(f[2]);
            String refused = SoftFabricGeometry.problemField(size, pageSize, nodes);
            String got;
            if (refused != null) {
                got = refused + ",,,,,,,,";
                assertThrows(IllegalArgumentException.class, () -> SoftFabricLayout.forCreation(size, pageSize, nodes), line);
            } else {
                assertNull(SoftFabricLayout.problem(size, pageSize, nodes), line);
                SoftFabricLayout l = SoftFabricLayout.forCreation(size, pageSize, nodes);
                assertTrue(l.fits(), line);
                got = "," + l.pageCount() + "," + l.rxPctOffset() + "," + l.pageCountersOffset() + "," + l.nodeBlockSize() + "," + l.stripesOffset() + "," + l.stripeSize() + "," + l.dataOffset() + ","
                        + l.dataPage(l.pageCount());
            }
            assertEquals(line, f[0] + "," + f[1] + "," + f[2] + "," + got);
            rows++;
        }
        assertTrue(rows > 100, "only " + rows + " vectors in " + VECTORS);
    }

    @Test
    void cReproducesTheGeneratedVectors() throws Exception {
        for (Path vectors : List.of(VECTORS, ROOT.resolve("regmap/vectors/system-pages.csv"), ROOT.resolve("regmap/vectors/tx-pct-rule.csv"))) {
            String out = run(List.of(TOOLS.resolve("mcfab-vectors").toString(), vectors.toString()), 0);
            assertTrue(out.matches("(?s).*\\b(\\d+) of \\1 layout vectors reproduced\\s*"), out);
        }
    }

    static Stream<Arguments> geometries() {
        List<Arguments> out = new ArrayList<>();
        for (int pageSize : new int[] {4096, 8192}) {
            for (int nodes : new int[] {2, 5, 16, 17, 32}) {
                for (long size : new long[] {1L << 20, 4L << 20, 16L << 20, 64L << 20}) {
                    if (SoftFabricLayout.problem(size, pageSize, nodes) == null) {
                        out.add(Arguments.of(size, pageSize, nodes));
                    }
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} bytes, {1}-byte pages, {2} nodes")
    @MethodSource("geometries")
    void javaAndCCreateTheSameFileAndAcceptEachOthers(long size, int pageSize, int nodes) throws Exception {
        String tag = "memchan-xchk-" + ProcessHandle.current().pid() + "-" + size + "-" + pageSize + "-" + nodes;
        Path javaMade = Path.of("/dev/shm", tag + "-java");
        Path cMade = Path.of("/dev/shm", tag + "-c");
        try {
            SoftFabricLayout j = SoftFabricFile.create(javaMade, size, pageSize, nodes, -1);
            String checked = run(List.of(TOOLS.resolve("mcfab-create").toString(), "--check", javaMade.toString()), 0);
            assertEquals(geometryLine(j), checked.strip(), "mcfab-create --check of the Java-made file");

            run(List.of(TOOLS.resolve("mcfab-create").toString(), cMade.toString(),
                    "-s", Long.toString(size), "-p", Integer.toString(pageSize), "-n", Integer.toString(nodes)), 0);
            SoftFabricFile.Opened opened = SoftFabricFile.open(cMade);
            try {
                assertEquals(j.toString(), opened.layout().toString(), "Java's view of the C-made file");
            } finally {
                Posix.close(opened.fd());
            }

            byte[] a = Files.readAllBytes(javaMade);
            byte[] b = Files.readAllBytes(cMade);
            assertEquals(a.length, b.length);
            blankVarying(a);
            blankVarying(b);
            assertArrayEquals(slice(b, 0, (int) j.dataOffset()), slice(a, 0, (int) j.dataOffset()),
                    "header and node blocks differ");
        } finally {
            Files.deleteIfExists(javaMade);
            Files.deleteIfExists(cMade);
        }
    }

    /** The line {@code mcfab-create --check} prints for a valid file. */
    static String geometryLine(SoftFabricLayout l) {
        return "file_size=" + l.fileSize() + " page_size=" + l.pageSize() + " page_count=" + l.pageCount()
                + " max_nodes=" + l.maxNodes() + " node_block_size=" + l.nodeBlockSize() + " data_offset=" + l.dataOffset();
    }

    /** FABRIC_ID (random) and CREATED_NS (clock); everything else of the control area must match. */
    private static void blankVarying(byte[] file) {
        java.util.Arrays.fill(file, dev.memchan.layout.Regs.SF_HDR_FABRIC_ID, dev.memchan.layout.Regs.SF_HDR_FABRIC_ID + 8, (byte) 0);
        java.util.Arrays.fill(file, dev.memchan.layout.Regs.SF_HDR_CREATED_NS, dev.memchan.layout.Regs.SF_HDR_CREATED_NS + 8, (byte) 0);
    }

    private static byte[] slice(byte[] b, int from, int to) {
        return java.util.Arrays.copyOfRange(b, from, to);
    }

    static String run(List<String> command, int expectExit) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        assertEquals(expectExit, rc, String.join(" ", command) + " exited " + rc + ":\n" + out);
        return out;
    }
}
