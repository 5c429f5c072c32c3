package dev.memchan.internal.nativeio;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks the generated {@link UcpDefs} two ways: each struct's FFM layout against the offsets clang gave
 * the generator (the layout's own offsets, at every depth, are the {@code OFFSET_} constants), and the
 * sizes and field offsets against gcc compiling the same headers, a second compiler.
 */
class UcpDefsLayoutTest {

    /** The generated struct classes: those with a LAYOUT. */
    private static List<Class<?>> structs() {
        List<Class<?>> out = new ArrayList<>();
        for (Class<?> c : UcpDefs.class.getDeclaredClasses()) {
            if (Arrays.stream(c.getDeclaredFields()).anyMatch(f -> f.getName().equals("LAYOUT"))) {
                out.add(c);
            }
        }
        return out;
    }

    private static long constant(Class<?> c, String name) throws ReflectiveOperationException {
        return c.getDeclaredField(name).getLong(null);
    }

    /** OFFSET_ constants of a struct class, by the flattened field path. */
    private static Map<String, Long> offsets(Class<?> c) throws IllegalAccessException {
        Map<String, Long> out = new TreeMap<>();
        for (Field f : c.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getName().startsWith("OFFSET_")) {
                out.put(f.getName().substring(7), f.getLong(null));
            }
        }
        return out;
    }

    /** The offset of every named member of a layout, at every depth, by the generator's flattened path. */
    private static void walk(GroupLayout layout, String prefix, long base, Map<String, Long> out) {
        long at = 0;
        for (MemoryLayout m : layout.memberLayouts()) {
            long offset = layout instanceof StructLayout ? at : 0;
            if (!(m instanceof PaddingLayout)) {
                String path = prefix.isEmpty() ? m.name().orElseThrow() : prefix + "_" + m.name().orElseThrow();
                out.put(path, base + offset);
                if (m instanceof GroupLayout g) {
                    walk(g, path, base + offset, out);
                }
            }
            at += m.byteSize();
        }
    }

    @Test
    void everyLayoutHasClangsSizeAlignmentAndOffsets() throws Exception {
        List<Class<?>> structs = structs();
        assertFalse(structs.isEmpty());
        for (Class<?> c : structs) {
            StructLayout layout = (StructLayout) c.getDeclaredField("LAYOUT").get(null);
            assertEquals(constant(c, "SIZE"), layout.byteSize(), c.getSimpleName() + " size");
            assertEquals(constant(c, "ALIGN"), layout.byteAlignment(), c.getSimpleName() + " alignment");
            Map<String, Long> fromLayout = new TreeMap<>();
            walk(layout, "", 0, fromLayout);
            assertEquals(offsets(c), fromLayout, c.getSimpleName() + ": the layout's member offsets and the OFFSET_ constants");
        }
    }

    @Test
    void gccAgreesOnSizesAndOffsets(@TempDir Path dir) throws Exception {
        StringBuilder c = new StringBuilder("#include <ucp/api/ucp.h>\n#include <netinet/in.h>\n#include <stddef.h>\n#include <stdio.h>\n"
                + "int main(void) {\n");
        Map<String, Long> expected = new TreeMap<>();
        for (Class<?> s : structs()) {
            String name = s.getSimpleName();
            String type = name.endsWith("_t") ? name : "struct " + name; // typedefs end in _t; the others are tags
            c.append(String.format("    printf(\"%s size %%zu\\n\", sizeof(%s));%n", name, type));
            c.append(String.format("    printf(\"%s align %%zu\\n\", _Alignof(%s));%n", name, type));
            expected.put(name + " size", constant(s, "SIZE"));
            expected.put(name + " align", constant(s, "ALIGN"));
            StructLayout layout = (StructLayout) s.getDeclaredField("LAYOUT").get(null);
            for (MemoryLayout m : layout.memberLayouts()) {
                if (m.name().isPresent()) {
                    String field = m.name().get();
                    c.append(String.format("    printf(\"%s.%s %%zu\\n\", offsetof(%s, %s));%n", name, field, type, field));
                    expected.put(name + "." + field, constant(s, "OFFSET_" + field));
                }
            }
        }
        c.append("    return 0;\n}\n");
        Path source = dir.resolve("ucp_layout.c");
        Path program = dir.resolve("ucp_layout");
        Files.writeString(source, c);
        run(List.of("gcc", "-std=gnu11", "-Wall", "-Werror", "-o", program.toString(), source.toString()));
        Map<String, Long> gcc = new TreeMap<>();
        for (String line : run(List.of(program.toString())).split("\n")) {
            int space = line.lastIndexOf(' ');
            gcc.put(line.substring(0, space), Long.parseLong(line.substring(space + 1)));
        }
        assertEquals(expected, gcc);
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", command) + " failed (gcc and "
                + "libucx-dev are needed):\n" + out);
        return out;
    }
}
