package dev.memchan.internal.dev;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks the generated {@link Uapi} against native/include/uapi/linux/memchan.h as it is now, with two
 * compilers: libclang (the generator's {@code --manifest}: every struct, field, constant and ioctl the
 * header defines) says what must be bound, gcc compiles the header and says what each size, offset and
 * value is. A struct, field, constant or ioctl of the header that {@link Uapi} lacks (the header changed
 * and the generator was not run) fails here, as does one that {@link Uapi} has and the header no longer.
 */
class UapiLayoutTest {
    private static final Path HEADER = Path.of("..", "native", "include", "uapi", "linux", "memchan.h")
            .toAbsolutePath().normalize();
    private static final Path GENERATOR = Path.of("..", "regmap", "gen.py")
            .toAbsolutePath().normalize();

    record CField(String name, long offset, long size) {
    }

    record CStruct(String name, long size, long align, List<CField> fields) {
    }

    record CConstant(String name, long value, long size, boolean ioctl) {
    }

    /** What libclang finds in a header, from {@code regmap/gen.py uapi --manifest}. */
    record Manifest(Map<String, CStruct> structs, Map<String, CConstant> constants) {
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", command) + " failed:\n" + out);
        return out;
    }

    static Manifest fromClang(Path header) throws IOException, InterruptedException {
        String out = run(List.of("python3", GENERATOR.toString(), "uapi", "--manifest", "--header", header.toString()));
        Map<String, CStruct> structs = new LinkedHashMap<>();
        Map<String, CConstant> constants = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            String[] f = line.split("\t");
            switch (f[0]) {
                case "struct" -> structs.put(f[1], new CStruct(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]),
                        new ArrayList<>()));
                case "field" -> structs.get(f[1]).fields().add(new CField(f[2], Long.parseLong(f[3]),
                        Long.parseLong(f[4])));
                case "const", "ioctl" -> constants.put(f[1], new CConstant(f[1], Long.parseUnsignedLong(f[2]),
                        Long.parseLong(f[3]), f[0].equals("ioctl")));
                default -> throw new AssertionError("unexpected manifest line: " + line);
            }
        }
        assertTrue(!structs.isEmpty() && !constants.isEmpty(), "the manifest lists nothing:\n" + out);
        return new Manifest(structs, constants);
    }

    /** Each expression of {@code exprs} as gcc computes it after including {@code header}. */
    static Map<String, Long> fromGcc(Path header, List<String> exprs) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("memchan-uapi");
        StringBuilder c = new StringBuilder("#include <stdio.h>\n#include <stddef.h>\n#include \"")
                .append(header).append("\"\nint main(void)\n{\n");
        for (String e : exprs) {
            c.append("\tprintf(\"%s=%llu\\n\", \"").append(e.replace("\"", "\\\"")).append("\", (unsigned long long)(")
                    .append(e).append("));\n");
        }
        c.append("\treturn 0;\n}\n");
        Path src = dir.resolve("layout.c");
        Path exe = dir.resolve("layout");
        Files.writeString(src, c);
        run(List.of("gcc", "-Wall", "-Werror", "-o", exe.toString(), src.toString()));
        Map<String, Long> values = new LinkedHashMap<>();
        for (String line : run(List.of(exe.toString())).split("\n")) {
            int eq = line.lastIndexOf('=');
            values.put(line.substring(0, eq), Long.parseUnsignedLong(line.substring(eq + 1)));
        }
        return values;
    }

    /** The struct classes of {@link Uapi}: C name to layout. */
    static Map<String, StructLayout> javaStructs() throws ReflectiveOperationException {
        Map<String, StructLayout> out = new TreeMap<>();
        for (Class<?> c : Uapi.class.getDeclaredClasses()) {
            out.put(c.getSimpleName(), (StructLayout) c.getField("LAYOUT").get(null));
        }
        return out;
    }

    /** The constants of {@link Uapi}: Java name to field. */
    static Map<String, Field> javaConstants() {
        Map<String, Field> out = new TreeMap<>();
        for (Field f : Uapi.class.getDeclaredFields()) {
            int m = f.getModifiers();
            if (Modifier.isPublic(m) && Modifier.isStatic(m) && Modifier.isFinal(m)) {
                out.put(f.getName(), f);
            }
        }
        return out;
    }

    static String javaName(String cName) {
        return cName.startsWith("MEMCHAN_") ? cName.substring("MEMCHAN_".length()) : cName;
    }

    /** Named members of a layout, padding left out. */
    static List<MemoryLayout> named(GroupLayout layout) {
        return layout.memberLayouts().stream().filter(m -> !(m instanceof PaddingLayout)).toList();
    }

    /** Every difference between what the header defines (clang) and what {@link Uapi} binds; empty when none. */
    static List<String> problems(Manifest header) throws ReflectiveOperationException {
        List<String> problems = new ArrayList<>();
        Map<String, StructLayout> java = javaStructs();
        for (CStruct s : header.structs().values()) {
            StructLayout l = java.get(s.name());
            if (l == null) {
                problems.add("struct " + s.name() + " of the header has no class in Uapi");
                continue;
            }
            if (l.byteSize() != s.size() || l.byteAlignment() != s.align()) {
                problems.add("struct " + s.name() + ": header " + s.size() + " bytes aligned to " + s.align()
                        + ", Uapi " + l.byteSize() + " aligned to " + l.byteAlignment());
            }
            List<String> cNames = s.fields().stream().map(CField::name).toList();
            List<String> jNames = named(l).stream().map(m -> m.name().orElseThrow()).toList();
            if (!cNames.equals(jNames)) {
                problems.add("struct " + s.name() + ": header fields " + cNames + ", Uapi " + jNames);
                continue;
            }
            for (CField f : s.fields()) {
                long offset = l.byteOffset(MemoryLayout.PathElement.groupElement(f.name()));
                long size = l.select(MemoryLayout.PathElement.groupElement(f.name())).byteSize();
                if (offset != f.offset() || size != f.size()) {
                    problems.add(s.name() + "." + f.name() + ": header offset " + f.offset() + " size " + f.size()
                            + ", Uapi " + offset + " size " + size);
                }
            }
        }
        for (String name : java.keySet()) {
            if (!header.structs().containsKey(name)) {
                problems.add("Uapi." + name + " is not a struct of the header");
            }
        }
        Map<String, Field> constants = javaConstants();
        for (CConstant c : header.constants().values()) {
            Field f = constants.get(javaName(c.name()));
            if (f == null) {
                problems.add((c.ioctl() ? "ioctl " : "constant ") + c.name() + " of the header has no Uapi."
                        + javaName(c.name()));
                continue;
            }
            Class<?> type = c.ioctl() || c.size() == 8 ? long.class : int.class;
            long value = f.getType() == int.class ? Integer.toUnsignedLong(f.getInt(null)) : f.getLong(null);
            if (f.getType() != type || value != c.value()) {
                problems.add(c.name() + ": header " + type + " " + Long.toUnsignedString(c.value()) + ", Uapi "
                        + f.getType() + " " + Long.toUnsignedString(value));
            }
        }
        for (String name : constants.keySet()) {
            if (header.constants().keySet().stream().noneMatch(c -> javaName(c).equals(name))) {
                problems.add("Uapi." + name + " is not a constant of the header");
            }
        }
        return problems;
    }

    @Test
    void uapiBindsEveryStructFieldConstantAndIoctlOfTheHeader() throws Exception {
        Manifest header = fromClang(HEADER);
        assertEquals(List.of(), problems(header));
    }

    @Test
    void clangAndGccAgreeOnEverySizeOffsetAndValue() throws Exception {
        Manifest header = fromClang(HEADER);
        Map<String, Long> expected = new LinkedHashMap<>();
        for (CStruct s : header.structs().values()) {
            expected.put("sizeof(struct " + s.name() + ")", s.size());
            expected.put("_Alignof(struct " + s.name() + ")", s.align());
            for (CField f : s.fields()) {
                expected.put("offsetof(struct " + s.name() + ", " + f.name() + ")", f.offset());
                expected.put("sizeof(((struct " + s.name() + " *)0)->" + f.name() + ")", f.size());
            }
        }
        List<String> exprs = new ArrayList<>(expected.keySet());
        for (CConstant c : header.constants().values()) {
            exprs.add(c.name());
            exprs.add("sizeof(" + c.name() + ")");
        }
        Map<String, Long> gcc = fromGcc(HEADER, exprs);
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            assertEquals(e.getValue(), gcc.get(e.getKey()), e.getKey());
        }
        for (CConstant c : header.constants().values()) {
            long size = gcc.get("sizeof(" + c.name() + ")");
            assertEquals(c.size(), size, "sizeof(" + c.name() + ")");
            long mask = size == 8 ? -1L : (1L << (8 * size)) - 1;
            assertEquals(c.value(), gcc.get(c.name()) & mask, c.name());
        }
    }

    /** Every generated accessor writes its field where gcc puts it and nowhere else, and reads it back. */
    @Test
    void fieldAccessorsUseTheHeadersOffsets() throws Exception {
        Manifest header = fromClang(HEADER);
        List<String> exprs = new ArrayList<>();
        for (CStruct s : header.structs().values()) {
            for (CField f : s.fields()) {
                exprs.add("offsetof(struct " + s.name() + ", " + f.name() + ")");
            }
        }
        Map<String, Long> gcc = fromGcc(HEADER, exprs);
        int checked = 0;
        for (Class<?> c : Uapi.class.getDeclaredClasses()) {
            StructLayout layout = (StructLayout) c.getField("LAYOUT").get(null);
            for (MemoryLayout m : named(layout)) {
                String field = c.getSimpleName() + "." + m.name().orElseThrow();
                ValueLayout v = (ValueLayout) m;
                Object value = switch (v) {
                    case ValueLayout.OfByte _ -> (byte) 0x5A;
                    case ValueLayout.OfShort _ -> (short) 0x1234;
                    case ValueLayout.OfInt _ -> 0x0A0B0C0D;
                    case ValueLayout.OfLong _ -> 0x0102030405060708L;
                    default -> throw new AssertionError(field + ": unexpected layout " + v);
                };
                long offset = gcc.get("offsetof(struct " + field.replace(".", ", ") + ")");
                Method get = c.getMethod(m.name().orElseThrow(), MemorySegment.class);
                Method set = c.getMethod(m.name().orElseThrow(), MemorySegment.class, v.carrier());
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment s = arena.allocate(layout);
                    set.invoke(null, s, value);
                    assertEquals(value, get.invoke(null, s), field);
                    assertEquals(value, v.withoutName().varHandle().get(s, offset), field + " at gcc's offset " + offset);
                    s.asSlice(offset, v.byteSize()).fill((byte) 0);
                    assertEquals(-1L, s.mismatch(arena.allocate(layout)), field + " also wrote elsewhere: "
                            + HexFormat.of().formatHex(s.toArray(JAVA_BYTE)));
                }
                checked++;
            }
        }
        assertEquals(header.structs().values().stream().mapToInt(s -> s.fields().size()).sum(), checked,
                "fields of the header checked through an accessor");
    }

    /**
     * The check above is not blind: a struct and an ioctl added to a copy of the header, and a constant
     * taken out of it, are each reported as missing from (or extra in) Uapi.
     */
    @Test
    void aStructOrIoctlAddedToTheHeaderIsReportedMissing(@TempDir Path dir) throws Exception {
        String text = Files.readString(HEADER);
        int end = text.lastIndexOf("#endif");
        String changed = text.substring(0, end)
                .replace("#define MEMCHAN_ERRCNT_CHECK", "#define MEMCHAN_ERRCNT_CHECK_RENAMED")
                + "struct memchan_added {\n\t__u32 argsz;\n\t__u32 flags;\n\t__u64 cookie;\n};\n"
                + "#define MEMCHAN_ADDED\t_IO(MEMCHAN_IOC_MAGIC, 0x7f)\n\n" + text.substring(end);
        Path copy = dir.resolve("memchan.h");
        Files.writeString(copy, changed);
        List<String> problems = problems(fromClang(copy));
        assertEquals(List.of(
                "struct memchan_added of the header has no class in Uapi",
                "constant MEMCHAN_ERRCNT_CHECK_RENAMED of the header has no Uapi.ERRCNT_CHECK_RENAMED",
                "ioctl MEMCHAN_ADDED of the header has no Uapi.ADDED",
                "Uapi.ERRCNT_CHECK is not a constant of the header"), problems);
    }
}
