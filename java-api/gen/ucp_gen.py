#!/usr/bin/env python3
"""Generate the Java FFM definitions of UCX's UCP API from the installed headers (libucx-dev).

    python3 java-api/gen/ucp_gen.py           write java-api/.../internal/nativeio/UcpDefs.java
    python3 java-api/gen/ucp_gen.py --check   regenerate into a temporary directory and diff with the
                                              checked-in file: exit 1 (with the diff) when it is stale
    --include DIR  read the headers under DIR instead of /usr/include (a scratch copy, to try a change)

The front end is libclang (Debian: python3-clang), over one translation unit that includes
<ucp/api/ucp.h>, <ucs/debug/debug.h> and <netinet/in.h>. Nothing here reads C with regular
expressions or writes an offset by hand:
  - every struct of STRUCTS with its nested structs, unions and arrays is clang's own record layout
    (offsets, sizes, alignment), emitted as an FFM StructLayout plus an offset constant for every
    field and get/set accessors for every scalar or pointer leaf;
  - every enum of ENUMS is emitted with clang's values; every macro or expression of EXPRESSIONS is
    evaluated by clang in a generated translation unit
        static const __typeof__((E)) ucp_gen_NAME = (E);
  - every function of FUNCTIONS and callback type of CALLBACKS becomes a FunctionDescriptor built
    from clang's canonical parameter and result types, so the hand-written downcalls in Ucp.java
    cannot disagree with the prototypes.
Output is deterministic: list order, no dates. Standard library + python3-clang only.
"""
import argparse
import difflib
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from regmap.libclang import load_clang  # noqa: E402  (after the path)

ROOT = Path(__file__).resolve().parents[2]
OUT_JAVA = ROOT / "java-api" / "src" / "main" / "java" / "dev" / "memchan" / "internal" / "nativeio" / "UcpDefs.java"
JAVA_PACKAGE = "dev.memchan.internal.nativeio"
INCLUDES = ["ucp/api/ucp.h", "ucs/debug/debug.h", "netinet/in.h"]
CLANG_ARGS = ["-x", "c", "-std=gnu11"]

# What the transport uses. Structs by typedef name or "struct TAG".
STRUCTS = ["ucp_params_t", "ucp_worker_params_t", "ucp_worker_attr_t", "ucp_listener_params_t",
           "ucp_listener_attr_t", "ucp_ep_params_t", "ucp_mem_map_params_t", "ucp_request_param_t",
           "ucp_am_handler_param_t", "struct ucp_am_recv_param", "struct sockaddr_in",
           "struct sockaddr_in6", "struct sockaddr_storage"]
# Enums by typedef name or "enum TAG".
ENUMS = ["ucs_status_t", "ucs_thread_mode_t", "enum ucp_params_field", "enum ucp_feature",
         "enum ucp_worker_params_field", "enum ucp_worker_attr_field", "enum ucp_listener_params_field",
         "enum ucp_listener_attr_field", "enum ucp_ep_params_field", "enum ucp_ep_params_flags_field",
         "ucp_err_handling_mode_t", "ucp_ep_close_flags_t", "enum ucp_mem_map_params_field",
         "ucp_op_attr_t", "ucp_atomic_op_t", "enum ucp_am_handler_param_field", "enum ucp_am_cb_flags",
         "enum ucp_send_am_flags", "ucp_am_recv_attr_t", "ucp_wakeup_event_t"]
# Constants that are macros or need the preprocessor: Java name -> C expression.
EXPRESSIONS = [("UCP_API_MAJOR", "UCP_API_MAJOR"), ("UCP_API_MINOR", "UCP_API_MINOR"),
               ("AF_INET", "AF_INET"), ("AF_INET6", "AF_INET6"),
               ("UCP_DATATYPE_CONTIG_8", "ucp_dt_make_contig(8)")]
# The downcalls (ucp_init is a static inline wrapper of ucp_init_version).
FUNCTIONS = ["ucs_debug_disable_signal", "ucs_status_string", "ucp_config_read", "ucp_config_modify",
             "ucp_config_release", "ucp_init_version", "ucp_cleanup", "ucp_worker_create",
             "ucp_worker_destroy", "ucp_worker_query", "ucp_worker_get_address", "ucp_worker_release_address",
             "ucp_worker_get_efd", "ucp_worker_arm",
             "ucp_worker_signal", "ucp_worker_progress", "ucp_worker_fence", "ucp_worker_flush_nbx",
             "ucp_listener_create", "ucp_listener_destroy", "ucp_listener_query", "ucp_ep_create",
             "ucp_ep_close_nbx", "ucp_ep_flush_nbx", "ucp_mem_map", "ucp_mem_unmap", "ucp_rkey_pack",
             "ucp_rkey_buffer_release", "ucp_ep_rkey_unpack", "ucp_rkey_destroy", "ucp_put_nbx",
             "ucp_get_nbx", "ucp_atomic_op_nbx", "ucp_am_send_nbx", "ucp_worker_set_am_recv_handler",
             "ucp_request_check_status", "ucp_request_free"]
# The upcalls, by their typedef.
CALLBACKS = ["ucp_err_handler_cb_t", "ucp_listener_conn_callback_t", "ucp_am_recv_callback_t"]

JAVA_KEYWORDS = set("""abstract assert boolean break byte case catch char class const continue default do double
else enum extends final finally float for goto if implements import instanceof int interface long native new
package private protected public return short static strictfp super switch synchronized this throw throws
transient try void volatile while true false null var record yield""".split())
SCALAR = {1: ("byte", "JAVA_BYTE"), 2: ("short", "JAVA_SHORT"), 4: ("int", "JAVA_INT"), 8: ("long", "JAVA_LONG")}


def fail(errors):
    raise SystemExit("ucp_gen.py: " + "\n  ".join(["cannot generate the UCP definitions:"] + errors))


def parse(cindex, include_dir, source):
    """The translation unit of source (unsaved, named ucp_gen.c); clang's errors are fatal."""
    args = CLANG_ARGS + ([f"-I{include_dir}"] if include_dir else [])
    tu = cindex.Index.create().parse("ucp_gen.c", args=args, unsaved_files=[("ucp_gen.c", source)])
    problems = [f"{d.location.file}:{d.location.line}: {d.spelling}" for d in tu.diagnostics
                if d.severity >= cindex.Diagnostic.Error]
    if problems:
        if any("file not found" in p for p in problems):
            problems.append("the UCX headers come from Debian's libucx-dev: apt-get install libucx-dev")
        fail(problems)
    return tu


# ---- reading the headers ---------------------------------------------------------------------------

class Member:
    """A field of a record: name, offset in the record, and its type (a Layout)."""

    def __init__(self, name, offset, layout, comment):
        self.name, self.offset, self.layout, self.comment = name, offset, layout, comment


class Layout:
    """kind: scalar (java type, value layout), address, struct, union or array."""

    def __init__(self, kind, size, align, ctype, scalar=None, members=None, element=None, count=0, signed=False):
        self.kind, self.size, self.align, self.ctype = kind, size, align, ctype
        self.scalar, self.members, self.element, self.count, self.signed = scalar, members, element, count, signed


def comment_brief(raw):
    """The first sentence of a C comment, without its markers and Doxygen commands."""
    if not raw:
        return ""
    words = []
    for line in raw.strip().removeprefix("/**").removeprefix("/*").removesuffix("*/").removeprefix("//").splitlines():
        words += [w for w in line.strip().removeprefix("*").removeprefix("<").split()]
    words = [w for w in words if not w.startswith("@") and w != "*"]
    text = " ".join(words)
    end = text.find(". ")
    return text[:end + 1] if end >= 0 else text


def is_signed(cindex, t):
    k = cindex.TypeKind
    return t.kind in (k.CHAR_S, k.SCHAR, k.SHORT, k.INT, k.LONG, k.LONGLONG)


def layout_of(cindex, t, where, errors):
    t = t.get_canonical()
    k = cindex.TypeKind
    size, align = t.get_size(), t.get_align()
    if t.kind == k.POINTER:
        return Layout("address", size, align, t.spelling)
    if t.kind == k.ENUM:
        base = t.get_declaration().enum_type.get_canonical()
        return Layout("scalar", size, align, t.spelling, scalar=SCALAR[size], signed=is_signed(cindex, base))
    if t.kind in (k.CHAR_S, k.CHAR_U, k.SCHAR, k.UCHAR, k.SHORT, k.USHORT, k.INT, k.UINT, k.LONG, k.ULONG,
                  k.LONGLONG, k.ULONGLONG, k.BOOL) and size in SCALAR:
        return Layout("scalar", size, align, t.spelling, scalar=SCALAR[size], signed=is_signed(cindex, t))
    if t.kind == k.CONSTANTARRAY:
        element = layout_of(cindex, t.element_type, where + "[]", errors)
        return Layout("array", size, align, t.spelling, element=element, count=t.element_count)
    if t.kind == k.RECORD:
        decl = t.get_declaration()
        kind = "union" if decl.kind == cindex.CursorKind.UNION_DECL else "struct"
        members = []
        for f in decl.get_children():
            if f.kind != cindex.CursorKind.FIELD_DECL:
                continue
            if f.is_bitfield():
                errors.append(f"{where}.{f.spelling}: bit-fields are not supported")
                continue
            offset_bits = f.get_field_offsetof()
            if offset_bits < 0 or offset_bits % 8:
                errors.append(f"{where}.{f.spelling}: no byte offset")
                continue
            name = f.spelling
            if not name:
                errors.append(f"{where}: anonymous members are not supported")
                continue
            members.append(Member(name, offset_bits // 8, layout_of(cindex, f.type, f"{where}.{name}", errors),
                                  comment_brief(f.raw_comment)))
        return Layout(kind, size, align, t.spelling, members=members)
    errors.append(f"{where}: type {t.spelling} is not supported")
    return Layout("scalar", size, align, t.spelling, scalar=SCALAR.get(size, ("long", "JAVA_LONG")))


def function_type_layouts(cindex, proto, where, errors):
    """(result layout or None for void, [argument layouts]) of a FUNCTIONPROTO type."""
    result = proto.get_result().get_canonical()
    res = None if result.kind == cindex.TypeKind.VOID else layout_of(cindex, result, where + " result", errors)
    args = [layout_of(cindex, a, f"{where} argument {i}", errors) for i, a in enumerate(proto.argument_types())]
    for layout in ([res] if res else []) + args:
        if layout.kind not in ("scalar", "address"):
            errors.append(f"{where}: records passed by value are not supported")
    return res, args


def read_headers(include_dir):
    cindex = load_clang("ucp_gen.py")
    source = "".join(f"#include <{h}>\n" for h in INCLUDES)
    tu = parse(cindex, include_dir, source)
    errors = []
    typedefs, tags, functions = {}, {}, {}
    for c in tu.cursor.get_children():
        if c.kind == cindex.CursorKind.TYPEDEF_DECL:
            typedefs.setdefault(c.spelling, c)
        elif c.kind in (cindex.CursorKind.STRUCT_DECL, cindex.CursorKind.UNION_DECL,
                        cindex.CursorKind.ENUM_DECL) and c.is_definition() and c.spelling:
            prefix = {cindex.CursorKind.STRUCT_DECL: "struct ", cindex.CursorKind.UNION_DECL: "union ",
                      cindex.CursorKind.ENUM_DECL: "enum "}[c.kind]
            tags.setdefault(prefix + c.spelling, c)
        elif c.kind == cindex.CursorKind.FUNCTION_DECL:
            functions.setdefault(c.spelling, c)

    def declaration(name):
        if name in tags:
            return tags[name]
        if name in typedefs:
            return typedefs[name].underlying_typedef_type.get_canonical().get_declaration()
        errors.append(f"{name}: not declared by {', '.join(INCLUDES)}")
        return None

    structs = []
    for name in STRUCTS:
        decl = declaration(name)
        if decl is not None:
            structs.append((name, layout_of(cindex, decl.type, name, errors), comment_brief(decl.raw_comment)))
    enums = []
    for name in ENUMS:
        decl = declaration(name)
        if decl is None:
            continue
        base = decl.enum_type.get_canonical()
        values = [(e.spelling, e.enum_value, comment_brief(e.raw_comment)) for e in decl.get_children()
                  if e.kind == cindex.CursorKind.ENUM_CONSTANT_DECL]
        enums.append((name, base.get_size(), is_signed(cindex, base), values))
    downcalls = []
    for name in FUNCTIONS:
        if name not in functions:
            errors.append(f"function {name}: not declared")
            continue
        downcalls.append((name, *function_type_layouts(cindex, functions[name].type, name, errors)))
    upcalls = []
    for name in CALLBACKS:
        if name not in typedefs:
            errors.append(f"callback type {name}: not declared")
            continue
        pointer = typedefs[name].underlying_typedef_type.get_canonical()
        if pointer.kind != cindex.TypeKind.POINTER or pointer.get_pointee().kind != cindex.TypeKind.FUNCTIONPROTO:
            errors.append(f"callback type {name}: not a function pointer")
            continue
        upcalls.append((name, *function_type_layouts(cindex, pointer.get_pointee(), name, errors)))

    # clang evaluates the macros and expressions, keeping the C type of each.
    probe = source + "".join(f"static const __typeof__(({expr})) ucp_gen_{name} __attribute__((unused)) = ({expr});\n"
                             for name, expr in EXPRESSIONS)
    tu2 = parse(cindex, include_dir, probe)
    values = {}
    lib = cindex.conf.lib
    for c in tu2.cursor.get_children():
        if c.kind == cindex.CursorKind.VAR_DECL and c.spelling.startswith("ucp_gen_"):
            ty = c.type.get_canonical()
            result = lib.clang_Cursor_Evaluate(c)
            value = None
            if result:
                try:
                    if lib.clang_EvalResult_getKind(result) == 1:  # CXEval_Int
                        value = (lib.clang_EvalResult_getAsUnsigned(result) if lib.clang_EvalResult_isUnsignedInt(result)
                                 else lib.clang_EvalResult_getAsLongLong(result))
                finally:
                    lib.clang_EvalResult_dispose(result)
            values[c.spelling[len("ucp_gen_"):]] = (value, ty.get_size(), is_signed(cindex, ty))
    constants = []
    for name, expr in EXPRESSIONS:
        value, size, signed = values.get(name, (None, 0, False))
        if value is None or size not in (1, 2, 4, 8):
            errors.append(f"{name} = {expr}: not an integer constant expression")
            continue
        constants.append((name, expr, value, size, signed))
    if errors:
        fail(errors)
    return structs, enums, constants, downcalls, upcalls


# ---- Java ------------------------------------------------------------------------------------------

def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("@", "&#64;").replace("*/", "*&#47;")


def java_literal(value, size, signed):
    """The C value as a Java int (C types up to 4 bytes) or long, with the same bits."""
    jtype, suffix, width = ("int", "", 32) if size <= 4 else ("long", "L", 64)
    bits = value & ((1 << width) - 1)
    if signed and bits >> (8 * size - 1):
        return jtype, f"{bits - (1 << width)}{suffix}"
    return jtype, (f"{bits}{suffix}" if bits < 1 << 16 else f"0x{bits:X}{suffix}")


def natural_align(layout):
    if layout.kind == "scalar":
        return layout.size
    if layout.kind == "address":
        return 8
    if layout.kind == "array":
        return natural_align(layout.element)
    return max([natural_align(m.layout) for m in layout.members], default=1)


def layout_expr(layout, indent):
    """The FFM MemoryLayout expression of a layout, aligned as clang aligns it."""
    pad = " " * indent
    if layout.kind == "scalar":
        expr = layout.scalar[1]
    elif layout.kind == "address":
        expr = "ADDRESS"
    elif layout.kind == "array":
        expr = f"MemoryLayout.sequenceLayout({layout.count}, {layout_expr(layout.element, indent)})"
    else:
        parts, at = [], 0
        for m in layout.members:
            if layout.kind == "struct" and m.offset > at:
                parts.append(f"MemoryLayout.paddingLayout({m.offset - at})")
            parts.append(f'{layout_expr(m.layout, indent + 8)}.withName("{m.name}")')
            at = max(at, m.offset + m.layout.size)
        if layout.kind == "struct" and layout.size > at:
            parts.append(f"MemoryLayout.paddingLayout({layout.size - at})")
        if layout.kind == "union" and layout.size > max([m.layout.size for m in layout.members], default=0):
            parts.append(f"MemoryLayout.paddingLayout({layout.size})")  # the union's tail padding
        function = "structLayout" if layout.kind == "struct" else "unionLayout"
        inner = f",\n{pad}        ".join(parts)
        expr = f"MemoryLayout.{function}(\n{pad}        {inner})"
    if layout.align != natural_align(layout):
        expr += f".withByteAlignment({layout.align})"
    return expr


def leaves(layout, prefix, base):
    """(path, offset, layout, comment) of every field, depth first; arrays are leaves."""
    for m in layout.members:
        path = f"{prefix}_{m.name}" if prefix else m.name
        yield path, base + m.offset, m.layout, m.comment
        if m.layout.kind in ("struct", "union"):
            yield from leaves(m.layout, path, base + m.offset)


def struct_java(name, layout, comment, errors):
    cls = name.removeprefix("struct ")
    out = []
    w = out.append
    w("")
    w("    /**")
    lines = [f"{{@code {name}}}: {layout.size} bytes, aligned to {layout.align}."]
    if comment:
        lines += textwrap.wrap(escape(comment), 100)
    for line in lines:
        w(f"     * {line}")
    w("     */")
    w(f"    public static final class {cls} {{")
    w(f"        private {cls}() {{")
    w("        }")
    w("")
    w(f"        public static final long SIZE = {layout.size};")
    w(f"        public static final long ALIGN = {layout.align};")
    w(f"        public static final StructLayout LAYOUT = {layout_expr(layout, 8)};")
    seen = set()
    for path, offset, field, note in leaves(layout, "", 0):
        if path in JAVA_KEYWORDS or path in ("SIZE", "ALIGN", "LAYOUT") or path in seen:
            errors.append(f"{name}.{path}: Java name clash")
        seen.add(path)
        text = f": {escape(note)}" if note else ""
        w("")
        w(f"        /** Offset of {{@code {path}}} ({{@code {escape(field.ctype)}}}){text}. */")
        w(f"        public static final long OFFSET_{path} = {offset};")
        if field.kind == "scalar":
            jtype, value_layout = field.scalar
            vl = value_layout if field.align == field.size else f"{value_layout}.withByteAlignment({field.align})"
        elif field.kind == "address":
            jtype, vl = "MemorySegment", "ADDRESS"
        else:
            continue
        w("")
        w(f"        public static {jtype} {path}(MemorySegment s) {{")
        w(f"            return s.get({vl}, {offset});")
        w("        }")
        w("")
        w(f"        public static void {path}(MemorySegment s, {jtype} v) {{")
        w(f"            s.set({vl}, {offset}, v);")
        w("        }")
    w("    }")
    return out


def descriptor(result, args):
    arg_text = ", ".join("ADDRESS" if a.kind == "address" else a.scalar[1] for a in args)
    if result is None:
        return f"FunctionDescriptor.ofVoid({arg_text})"
    res = "ADDRESS" if result.kind == "address" else result.scalar[1]
    return f"FunctionDescriptor.of({res}{', ' if arg_text else ''}{arg_text})"


def render(structs, enums, constants, downcalls, upcalls, version):
    errors = []
    out = []
    w = out.append
    w("// Generated by java-api/gen/ucp_gen.py from <" + ">, <".join(INCLUDES) + f"> (UCP API {version}, libclang).")
    w("// Do not edit: run the generator; scripts/test-all (ucx-bindings) fails while this file is stale.")
    w(f"package {JAVA_PACKAGE};")
    w("")
    w("import java.lang.foreign.FunctionDescriptor;")
    w("import java.lang.foreign.MemoryLayout;")
    w("import java.lang.foreign.MemorySegment;")
    w("import java.lang.foreign.StructLayout;")
    w("")
    for vl in ("ADDRESS", "JAVA_BYTE", "JAVA_INT", "JAVA_LONG", "JAVA_SHORT"):
        w(f"import static java.lang.foreign.ValueLayout.{vl};")
    w("")
    w("/**")
    w(" * UCX's UCP API as FFM definitions, as clang reads the installed headers: the enum constants and macros")
    w(" * the transport uses, for each struct a class of the C name with its {@link StructLayout}, the offset")
    w(" * of every field and accessors for its scalar and pointer fields, and the {@link FunctionDescriptor}")
    w(" * of every function ({@link Downcalls}) and callback type ({@link Upcalls}) that {@link Ucp} binds.")
    w(" */")
    w("@SuppressWarnings(\"unused\")")
    w("public final class UcpDefs {")
    w("    private UcpDefs() {")
    w("    }")
    names = set()
    for name, expr, value, size, signed in constants:
        jtype, literal = java_literal(value, size, signed)
        names.add(name)
        w("")
        w(f"    /** {{@code {escape(expr)}}}. */")
        w(f"    public static final {jtype} {name} = {literal};")
    for enum_name, size, signed, values in enums:
        w("")
        w(f"    // {enum_name}")
        for cname, value, note in values:
            if cname in names:
                errors.append(f"{cname}: defined twice")
            names.add(cname)
            jtype, literal = java_literal(value, size, signed)
            text = f": {escape(note)}" if note else ""
            w(f"    /** {{@code {cname}}}{text} */")
            w(f"    public static final {jtype} {cname} = {literal};")
    for name, layout, comment in structs:
        out.extend(struct_java(name, layout, comment, errors))
    w("")
    w("    /** The prototype of every function {@link Ucp} calls. */")
    w("    public static final class Downcalls {")
    w("        private Downcalls() {")
    w("        }")
    for name, result, args in downcalls:
        w("")
        w(f"        public static final FunctionDescriptor {name} = {descriptor(result, args)};")
    w("    }")
    w("")
    w("    /** The prototype of every callback type UCX calls back into Java with. */")
    w("    public static final class Upcalls {")
    w("        private Upcalls() {")
    w("        }")
    for name, result, args in upcalls:
        w("")
        w(f"        public static final FunctionDescriptor {name} = {descriptor(result, args)};")
    w("    }")
    w("}")
    if errors:
        fail(errors)
    return "\n".join(out) + "\n"


def generate(include_dir):
    structs, enums, constants, downcalls, upcalls = read_headers(include_dir)
    values = {c[0]: c[2] for c in constants}
    return render(structs, enums, constants, downcalls, upcalls, f"{values['UCP_API_MAJOR']}.{values['UCP_API_MINOR']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the checked-in UcpDefs.java is stale")
    ap.add_argument("--include", type=Path, help="the include directory to read (default: the system's)")
    ap.add_argument("--output", type=Path, default=OUT_JAVA, help="the Java file to write or check")
    a = ap.parse_args()
    out = a.output.resolve()
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    text = generate(a.include)
    if not a.check:
        out.write_text(text)
        print(f"wrote {shown}")
        return 0
    with tempfile.TemporaryDirectory(prefix="ucp-gen-") as tmp:
        fresh = Path(tmp) / out.name
        fresh.write_text(text)
        current = out.read_text() if out.exists() else ""
        regenerated = fresh.read_text()
    if current != regenerated:
        sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), regenerated.splitlines(True),
                                                   str(shown), "regenerated", n=1))
        print(f"stale: {shown} (run python3 java-api/gen/ucp_gen.py)", file=sys.stderr)
        return 1
    print(f"up to date: {shown} ({len(STRUCTS)} structs, {len(ENUMS)} enums, {len(FUNCTIONS)} functions, "
          f"{len(CALLBACKS)} callbacks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
