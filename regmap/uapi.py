"""Generate the Java FFM bindings of the driver's uapi from native/include/uapi/linux/memchan.h.

    python3 regmap/gen.py uapi             write java-api/.../internal/dev/Uapi.java
    python3 regmap/gen.py uapi --check     exit 1 (with a diff) when Uapi.java is stale
    python3 regmap/gen.py uapi --manifest  print every struct, field, constant and ioctl
                                           that the header defines, as clang sees them
    --header FILE  read another copy of the header (a scratch copy, to try a change)
    --output FILE  write (or --check) that file instead of Uapi.java

The front end is libclang (Debian: python3-clang), what jextract is built on; jextract itself is
not in the registries this project installs from. Nothing here reads C with regular expressions:
  - structs, their fields, offsets, sizes and alignment are clang's own record layout;
  - the macros are those clang's preprocessor records in the header; each object-like macro is
    evaluated by clang in a generated translation unit
        static const __typeof__((M)) memchan_gen_M = (M);
    so a value (an ioctl number from _IO/_IOR/_IOW/_IOWR included) and its C type are the compiler's;
    a macro whose first token is _IO, _IOR, _IOW or _IOWR is an ioctl request;
  - enum constants are clang's.
Output is deterministic: header order, no dates, no versions. Standard library + python3-clang only.
"""
import argparse
import difflib
import sys
import textwrap
from pathlib import Path

from .libclang import load_clang
from .model import ROOT

HEADER = ROOT / "native" / "include" / "uapi" / "linux" / "memchan.h"
OUT_JAVA = ROOT / "java-api" / "src" / "main" / "java" / "dev" / "memchan" / "internal" / "dev" / "Uapi.java"
JAVA_PACKAGE = "dev.memchan.internal.dev"
PREFIX = "MEMCHAN_"
IOCTL_MACROS = ("_IO", "_IOR", "_IOW", "_IOWR")
CLANG_ARGS = ["-x", "c", "-std=gnu11", "-fparse-all-comments", "-Wall", "-Wextra"]


class Field:
    def __init__(self, name, ctype, kind, offset, size, align, comment):
        self.name, self.ctype, self.kind = name, ctype, kind  # kind: byte/short/int/long
        self.offset, self.size, self.align = offset, size, align
        self.comment = comment


class Struct:
    def __init__(self, name, size, align, fields, comment):
        self.name, self.size, self.align, self.fields = name, size, align, fields
        self.comment = comment


class Constant:
    def __init__(self, name, value, size, signed, text, ioctl):
        self.name, self.value, self.size, self.signed = name, value, size, signed
        self.text = text  # the definition as written, tokens joined
        self.ioctl = ioctl


def fail(errors):
    raise SystemExit("regmap uapi: " + "\n  ".join(["cannot generate the bindings:"] + errors))


def parse(cindex, path, source=None):
    """A translation unit of path (or of unsaved source named path); every clang warning is an error."""
    opts = cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    unsaved = [(str(path), source)] if source is not None else None
    tu = cindex.Index.create().parse(str(path), args=CLANG_ARGS, unsaved_files=unsaved, options=opts)
    problems = [f"{d.location.file}:{d.location.line}: {d.spelling}" for d in tu.diagnostics
                if d.severity >= cindex.Diagnostic.Warning]
    if problems:
        fail(problems)
    return tu


def in_header(cursor, header):
    f = cursor.location.file
    return f is not None and Path(f.name).resolve() == header


def scalar_kind(cindex, ctype, size):
    k = cindex.TypeKind
    integers = {k.CHAR_S, k.CHAR_U, k.SCHAR, k.UCHAR, k.SHORT, k.USHORT, k.INT, k.UINT,
                k.LONG, k.ULONG, k.LONGLONG, k.ULONGLONG}
    if ctype.kind in integers and size in (1, 2, 4, 8):
        return {1: "byte", 2: "short", 4: "int", 8: "long"}[size]
    return None


def comment_text(raw):
    """The words of a C comment, its markers and the leading '*' of its lines dropped."""
    if not raw:
        return ""
    words = []
    for line in raw.strip().removeprefix("/*").removesuffix("*/").removeprefix("//").splitlines():
        words += line.strip().removeprefix("*").split()
    return " ".join(words)


def read_struct(cindex, cursor, errors):
    name = cursor.spelling
    ty = cursor.type
    fields = []
    for f in cursor.get_children():
        if f.kind != cindex.CursorKind.FIELD_DECL:
            errors.append(f"struct {name}: {f.kind.name} {f.spelling} is not supported (only plain fields)")
            continue
        if f.is_bitfield():
            errors.append(f"struct {name}.{f.spelling}: bit-fields are not supported")
            continue
        ftype = f.type.get_canonical()
        size, align = ftype.get_size(), ftype.get_align()
        offset_bits = f.get_field_offsetof()
        kind = scalar_kind(cindex, ftype, size)
        if kind is None or offset_bits < 0 or offset_bits % 8:
            errors.append(f"struct {name}.{f.spelling}: type {f.type.spelling} is not supported (integer fields "
                          "only, as the header's rules say)")
            continue
        fields.append(Field(f.spelling, f.type.spelling, kind, offset_bits // 8, size, align,
                            comment_text(f.raw_comment)))
    return Struct(name, ty.get_size(), ty.get_align(), fields, comment_text(cursor.raw_comment))


def macro_tokens(cursor):
    return list(cursor.get_tokens())


def join_tokens(cindex, tokens):
    """The definition as written: tokens with one space between, none inside parentheses, none
    before a comma and none between a macro's name and the parenthesis of its call."""
    text = ""
    for prev, tok in zip([None] + tokens, tokens):
        glued = prev is not None and (prev.spelling == "(" or tok.spelling in (")", ",")
                                      or (tok.spelling == "(" and prev.kind == cindex.TokenKind.IDENTIFIER))
        text += ("" if prev is None or glued else " ") + tok.spelling
    return text


def evaluate(cindex, cursor):
    lib = cindex.conf.lib
    result = lib.clang_Cursor_Evaluate(cursor)
    if not result:
        return None
    try:
        if lib.clang_EvalResult_getKind(result) != 1:  # CXEval_Int
            return None
        if lib.clang_EvalResult_isUnsignedInt(result):
            return lib.clang_EvalResult_getAsUnsigned(result)
        return lib.clang_EvalResult_getAsLongLong(result)
    finally:
        lib.clang_EvalResult_dispose(result)


def read_header(header):
    """(structs, constants) of the header, in the order it defines them."""
    cindex = load_clang("regmap uapi")
    header = Path(header).resolve()
    tu = parse(cindex, header)
    errors = []
    structs, macros = [], []
    for c in tu.cursor.get_children():
        if not in_header(c, header):
            continue
        if c.kind == cindex.CursorKind.MACRO_DEFINITION:
            tokens = macro_tokens(c)
            if len(tokens) < 2:
                continue  # the include guard and other empty macros
            if cindex.conf.lib.clang_Cursor_isMacroFunctionLike(c):
                errors.append(f"macro {c.spelling}: function-like macros are not supported")
                continue
            macros.append((c.location.offset, c.spelling, tokens[1:]))
        elif c.kind == cindex.CursorKind.STRUCT_DECL and c.is_definition():
            if not c.spelling or c.is_anonymous():
                errors.append(f"line {c.location.line}: anonymous structs are not supported")
                continue
            structs.append(read_struct(cindex, c, errors))
        elif c.kind == cindex.CursorKind.ENUM_DECL and c.is_definition():
            for e in c.get_children():
                macros.append((e.location.offset, e.spelling, None))
        elif c.kind in (cindex.CursorKind.UNION_DECL, cindex.CursorKind.TYPEDEF_DECL, cindex.CursorKind.VAR_DECL,
                        cindex.CursorKind.FUNCTION_DECL):
            errors.append(f"line {c.location.line}: {c.kind.name} {c.spelling} is not supported")
    if errors:
        fail(errors)
    macros = [(name, tokens) for _, name, tokens in sorted(macros, key=lambda m: m[0])]  # header order

    # Let clang evaluate every constant, keeping the C type of the expression.
    unit = [f'#include "{header}"']
    for name, _ in macros:
        unit.append(f"static const __typeof__(({name})) memchan_gen_{name} __attribute__((unused)) = ({name});")
    probe = header.parent / "memchan_gen_constants.c"
    tu2 = parse(cindex, probe, "\n".join(unit) + "\n")
    values = {}
    for c in tu2.cursor.get_children():
        if c.kind == cindex.CursorKind.VAR_DECL and c.spelling.startswith("memchan_gen_"):
            ty = c.type.get_canonical()
            name = c.spelling[len("memchan_gen_"):]
            value = evaluate(cindex, c)
            if value is None or scalar_kind(cindex, ty, ty.get_size()) is None:
                errors.append(f"{name}: not an integer constant expression")
                continue
            signed = ty.kind in (cindex.TypeKind.CHAR_S, cindex.TypeKind.SCHAR, cindex.TypeKind.SHORT,
                                 cindex.TypeKind.INT, cindex.TypeKind.LONG, cindex.TypeKind.LONGLONG)
            values[name] = (value, ty.get_size(), signed)
    constants = []
    for name, tokens in macros:
        if name not in values:
            errors.append(f"{name}: clang did not evaluate it")
            continue
        value, size, signed = values[name]
        text = join_tokens(cindex, tokens) if tokens is not None else "enum constant"
        ioctl = tokens is not None and tokens[0].spelling in IOCTL_MACROS
        constants.append(Constant(name, value, size, signed, text, ioctl))
    if errors:
        fail(errors)
    return structs, constants


# ---- Java ----------------------------------------------------------------------------------------

JAVA_KEYWORDS = set("""abstract assert boolean break byte case catch char class const continue default do double
else enum extends final finally float for goto if implements import instanceof int interface long native new
package private protected public return short static strictfp super switch synchronized this throw throws
transient try void volatile while true false null var record yield""".split())
VALUE_LAYOUT = {"byte": "JAVA_BYTE", "short": "JAVA_SHORT", "int": "JAVA_INT", "long": "JAVA_LONG"}
NATURAL = {"byte": 1, "short": 2, "int": 4, "long": 8}


def java_constant_name(c_name):
    return c_name[len(PREFIX):] if c_name.startswith(PREFIX) else c_name


def java_literal(c):
    """The C value as a Java int (C types up to 4 bytes) or long, with the same bits: small and negative
    signed values in decimal, the others in hex (an unsigned 0xffffffffU stays 0xFFFFFFFF)."""
    jtype, suffix, width = ("int", "", 32) if c.size <= 4 else ("long", "L", 64)
    bits = c.value & ((1 << width) - 1)
    if c.signed and bits >> (8 * c.size - 1):
        return jtype, f"{bits - (1 << width)}{suffix}"
    return jtype, (f"{bits}{suffix}" if bits < 1 << 16 else f"0x{bits:X}{suffix}")


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("@", "&#64;")


def value_layout(f):
    """The field's ValueLayout, aligned as clang aligns the field."""
    layout = VALUE_LAYOUT[f.kind]
    return layout if f.align == NATURAL[f.kind] else f"{layout}.withByteAlignment({f.align})"


def struct_java(s, errors):
    out = []
    w = out.append
    members, at = [], 0
    for f in s.fields:
        if f.name in JAVA_KEYWORDS:
            errors.append(f"struct {s.name}.{f.name}: a Java keyword")
        if f.offset > at:
            members.append(f"MemoryLayout.paddingLayout({f.offset - at})")
        members.append(f'{value_layout(f)}.withName("{f.name}")')
        at = f.offset + f.size
    if s.size > at:
        members.append(f"MemoryLayout.paddingLayout({s.size - at})")
    w("")
    w("    /**")
    lines = [f"{{@code struct {s.name}}}: {s.size} bytes, aligned to {s.align}."]
    if s.comment:
        lines += textwrap.wrap(escape(s.comment), 100)
    for line in lines:
        w(f"     * {line}")
    w("     */")
    w(f"    public static final class {s.name} {{")
    w(f"        private {s.name}() {{")
    w("        }")
    w("")
    w(f"        public static final StructLayout LAYOUT = MemoryLayout.structLayout(")
    for i, m in enumerate(members):
        w(f"                {m}{',' if i < len(members) - 1 else ''}")
    natural = max([f.align for f in s.fields], default=1)
    aligned = f".withByteAlignment({s.align})" if s.align != natural else ""
    w(f'        ){aligned}.withName("{s.name}");')
    for f in s.fields:
        note = f": {escape(f.comment)}" if f.comment else ""
        jtype = f.kind
        w("")
        w(f"        /** {{@code {f.ctype} {f.name}}} at offset {f.offset}{note}. */")
        w(f"        public static {jtype} {f.name}(MemorySegment s) {{")
        w(f"            return s.get({value_layout(f)}, {f.offset});")
        w("        }")
        w("")
        w(f"        /** Sets {{@code {f.name}}}. */")
        w(f"        public static void {f.name}(MemorySegment s, {jtype} v) {{")
        w(f"            s.set({value_layout(f)}, {f.offset}, v);")
        w("        }")
    w("    }")
    return out


def render(structs, constants, header):
    errors = []
    names = {}
    for c in constants:
        j = java_constant_name(c.name)
        if j in names or j in JAVA_KEYWORDS:
            errors.append(f"{c.name}: Java name {j} is taken")
        names[j] = c.name
    for s in structs:
        if s.name in names:
            errors.append(f"struct {s.name}: Java name is taken")
        names[s.name] = s.name
    source = header.relative_to(ROOT) if header.is_relative_to(ROOT) else header.name
    out = []
    w = out.append
    w(f"// Generated by regmap/gen.py uapi from {source} (libclang). Do not edit:")
    w("// change the header and run the generator; scripts/test-all fails while this file is stale.")
    w(f"package {JAVA_PACKAGE};")
    w("")
    w("import java.lang.foreign.MemoryLayout;")
    w("import java.lang.foreign.MemorySegment;")
    w("import java.lang.foreign.StructLayout;")
    w("")
    kinds = sorted({f.kind for s in structs for f in s.fields}, key=lambda k: NATURAL[k])
    for k in kinds:
        w(f"import static java.lang.foreign.ValueLayout.{VALUE_LAYOUT[k]};")
    w("")
    w("/**")
    w(f" * The driver's user ABI, {source}, as Java FFM bindings: every {{@code #define}}d constant")
    w(" * ({@code MEMCHAN_} dropped from the name), every ioctl request number, and for every struct a class")
    w(" * of the C name with its {@link StructLayout} and an accessor per field at the offset clang laid it")
    w(" * out. UapiLayoutTest checks this class against the header, compiled with gcc, and against the")
    w(" * list of structs, constants and ioctls clang finds in it.")
    w(" */")
    w("public final class Uapi {")
    w("    private Uapi() {")
    w("    }")
    for c in constants:
        jtype, literal = java_literal(c)
        if c.ioctl:
            jtype = "long"  # ioctl(2)'s request is an unsigned long
            literal = f"0x{c.value & 0xFFFF_FFFF_FFFF_FFFF:X}L"
        what = "ioctl request " if c.ioctl else ""
        w("")
        w(f"    /** {what}{{@code {c.name}}}: {{@code {c.text}}}. */")
        w(f"    public static final {jtype} {java_constant_name(c.name)} = {literal};")
    for s in structs:
        out.extend(struct_java(s, errors))
    w("}")
    if errors:
        fail(errors)
    return "\n".join(out) + "\n"


def manifest(structs, constants):
    """One line per struct, field, constant and ioctl, tab-separated; values unsigned, of the C type's width."""
    lines = []
    for s in structs:
        lines.append(f"struct\t{s.name}\t{s.size}\t{s.align}")
        for f in s.fields:
            lines.append(f"field\t{s.name}\t{f.name}\t{f.offset}\t{f.size}")
    for c in constants:
        bits = c.value & ((1 << (8 * c.size)) - 1)
        lines.append(f"{'ioctl' if c.ioctl else 'const'}\t{c.name}\t{bits}\t{c.size}")
    return "\n".join(lines) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(prog="regmap/gen.py uapi", description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 when the checked-in Uapi.java is stale")
    mode.add_argument("--manifest", action="store_true", help="print what clang found in the header")
    ap.add_argument("--header", type=Path, default=HEADER, help="the header to read")
    ap.add_argument("--output", type=Path, default=OUT_JAVA, help="the Java file to write or check")
    a = ap.parse_args(argv)
    out = a.output.resolve()
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    header = a.header.resolve()
    structs, constants = read_header(header)
    if a.manifest:
        sys.stdout.write(manifest(structs, constants))
        return 0
    text = render(structs, constants, header)
    if a.check:
        current = out.read_text() if out.exists() else ""
        if current != text:
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                       str(shown), "generated", n=1))
            print(f"stale: {shown} (run python3 regmap/gen.py uapi)",
                  file=sys.stderr)
            return 1
        print(f"up to date: {shown} ({len(structs)} structs, "
              f"{sum(c.ioctl for c in constants)} ioctls, {sum(not c.ioctl for c in constants)} constants)")
        return 0
    out.write_text(text)
    print(f"wrote {shown}")
    return 0

