package dev.memchan.internal.dev;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compiles native/include/uapi/linux/memchan.h with gcc and checks every struct size, every field
 * offset and every ioctl number and constant against the hand-written bindings in {@link Uapi}.
 */
class UapiLayoutTest {
    private static final Path HEADER = Path.of("..", "native", "include", "uapi", "linux", "memchan.h")
            .toAbsolutePath().normalize();

    private static Map<String, Long> fromGcc(List<String> exprs) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("memchan-uapi");
        StringBuilder c = new StringBuilder("#include <stdio.h>\n#include <stddef.h>\n#include \"")
                .append(HEADER).append("\"\nint main(void)\n{\n");
        for (String e : exprs) {
            c.append("\tprintf(\"%s=%llu\\n\", \"").append(e.replace("\"", "\\\"")).append("\", (unsigned long long)(")
                    .append(e).append("));\n");
        }
        c.append("\treturn 0;\n}\n");
        Path src = dir.resolve("layout.c");
        Path exe = dir.resolve("layout");
        Files.writeString(src, c);
        Process gcc = new ProcessBuilder("gcc", "-Wall", "-Werror", "-o", exe.toString(), src.toString())
                .redirectErrorStream(true).start();
        String gccOut = new String(gcc.getInputStream().readAllBytes());
        assertTrue(gcc.waitFor(60, TimeUnit.SECONDS) && gcc.exitValue() == 0, "gcc failed:\n" + gccOut);
        Process run = new ProcessBuilder(exe.toString()).redirectErrorStream(true).start();
        String out = new String(run.getInputStream().readAllBytes());
        assertTrue(run.waitFor(60, TimeUnit.SECONDS) && run.exitValue() == 0, out);
        Map<String, Long> values = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            int eq = line.lastIndexOf('=');
            values.put(line.substring(0, eq), Long.parseUnsignedLong(line.substring(eq + 1)));
        }
        return values;
    }

    @Test
    void everyStructSizeAndFieldOffsetMatchesTheHeader() throws Exception {
        assertTrue(Files.isRegularFile(HEADER), "missing " + HEADER);
        List<String> exprs = new ArrayList<>();
        Map<String, Long> expected = new LinkedHashMap<>();
        for (StructLayout s : Uapi.ALL) {
            String name = s.name().orElseThrow();
            exprs.add("sizeof(struct " + name + ")");
            expected.put("sizeof(struct " + name + ")", s.byteSize());
            for (MemoryLayout f : s.memberLayouts()) {
                String field = f.name().orElseThrow();
                String e = "offsetof(struct " + name + ", " + field + ")";
                exprs.add(e);
                expected.put(e, Uapi.offset(s, field));
                String size = "sizeof(((struct " + name + " *)0)->" + field + ")";
                exprs.add(size);
                expected.put(size, f.byteSize());
            }
        }
        Map<String, Long> actual = fromGcc(exprs);
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            assertEquals(e.getValue(), actual.get(e.getKey()), e.getKey());
        }
        assertEquals(12, Uapi.ALL.size());
    }

    @Test
    void ioctlNumbersAndConstantsMatchTheHeader() throws Exception {
        Map<String, Long> expected = new LinkedHashMap<>();
        expected.put("MEMCHAN_API_VERSION", (long) Uapi.API_VERSION);
        expected.put("MEMCHAN_MMAP_TX_BASE", Uapi.MMAP_TX_BASE);
        expected.put("MEMCHAN_MMAP_RX_BASE", Uapi.MMAP_RX_BASE);
        expected.put("MEMCHAN_BACKEND_HW", (long) Uapi.BACKEND_HW);
        expected.put("MEMCHAN_BACKEND_IVSHMEM", (long) Uapi.BACKEND_IVSHMEM);
        expected.put("MEMCHAN_NODE_NONE", Integer.toUnsignedLong(Uapi.NODE_NONE));
        expected.put("MEMCHAN_INFO_NODE_VALID", (long) Uapi.INFO_NODE_VALID);
        expected.put("MEMCHAN_NODE_TAKEOVER", (long) Uapi.NODE_TAKEOVER);
        expected.put("MEMCHAN_PCT_WRITE_TX", (long) Uapi.PCT_WRITE_TX);
        expected.put("MEMCHAN_PCT_WRITE_RX", (long) Uapi.PCT_WRITE_RX);
        expected.put("MEMCHAN_GRANT_TX", (long) Uapi.GRANT_TX);
        expected.put("MEMCHAN_GRANT_RX", (long) Uapi.GRANT_RX);
        expected.put("MEMCHAN_RX_IRQ", (long) Uapi.RX_IRQ);
        expected.put("MEMCHAN_ERRCNT_CHECK", (long) Uapi.ERRCNT_CHECK);
        expected.put("MEMCHAN_GET_API_VERSION", Uapi.GET_API_VERSION);
        expected.put("MEMCHAN_INFO", Uapi.INFO);
        expected.put("MEMCHAN_SET_NODE", Uapi.SET_NODE);
        expected.put("MEMCHAN_PCT", Uapi.PCT);
        expected.put("MEMCHAN_GRANT", Uapi.GRANT);
        expected.put("MEMCHAN_REVOKE", Uapi.REVOKE);
        expected.put("MEMCHAN_BARRIER", Uapi.BARRIER);
        expected.put("MEMCHAN_WAIT", Uapi.WAIT);
        expected.put("MEMCHAN_SET_EVENTFD", Uapi.SET_EVENTFD);
        expected.put("MEMCHAN_NOTIFY", Uapi.NOTIFY);
        expected.put("MEMCHAN_LOOPBACK", Uapi.LOOPBACK);
        expected.put("MEMCHAN_ERRCNT", Uapi.ERRCNT);
        expected.put("MEMCHAN_REG_READ", Uapi.REG_READ);
        expected.put("MEMCHAN_RELEASE_NODE", Uapi.RELEASE_NODE);
        Map<String, Long> actual = fromGcc(new ArrayList<>(expected.keySet()));
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            assertEquals(e.getValue(), actual.get(e.getKey()), e.getKey());
        }
    }
}
