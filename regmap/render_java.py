"""The Java classes of dev.memchan.layout: Regs (constants), SoftFabricGeometry, SystemPagesDescriptor,
TxPctRule."""
import ast

from .formulas import TX_RULE_VERDICTS, camel
from .model import HEADER_NOTE, bits, fmt_hex


def derived(f):
    p = lambda uses: ", ".join(f"long {camel(u)}" for u in uses)
    out = []
    for name, tree, uses, desc in f.derived:
        out += [f"    /** {desc.replace('&', '&amp;').replace('<', '&lt;')}: {{@code {ast.unparse(tree)}}} */",
                f"    public static long {camel(name)}({p(uses)}) {{",
                f"        return {f.render(tree, 'java')};", "    }", ""]
    return out


def geometry(geom):
    p = lambda uses: ", ".join(f"long {camel(u)}" for u in uses)
    out = ["// " + HEADER_NOTE, "package dev.memchan.layout;", "",
           "/**",
           " * The soft fabric's derived geometry: the formulas of {@code regmap/memchan.toml} ({@code [soft_fabric]}",
           " * derived, page_count, rule), rendered by regmap/gen.py into this class and into the C header",
           " * ({@code mc_sf_*} in memchan_regs.h, used by mcfab-create and the ivshmem driver), and evaluated",
           " * by gen.py into {@code regmap/vectors/soft-fabric-geometry.csv}, which both must reproduce.",
           " *",
           " * <pre>",
           " *  0             SF_HEADER_SIZE                             dataOffset                  fileSize",
           " * +-------------+------------+------------+-----+------------+-----------+-----+-----------+",
           " * | header      | node blk 0 | node blk 1 | ... | node blk N | page 0    | ... | page P-1  |",
           " * +-------------+------------+------------+-----+------------+-----------+-----+-----------+",
           " *  node block:  +0 registers | +SF_NODE_TX_PCT TX PCT u32[P] | +rxPctOffset RX PCT u64[P]",
           " * </pre>",
           " */",
           "public final class SoftFabricGeometry {", "    private SoftFabricGeometry() {", "    }", "",
           "    /** {@code v} rounded up to a multiple of the power of two {@code a}. */",
           "    public static long align(long v, long a) {", "        return (v + a - 1) & -a;", "    }", "",
           "    public static boolean isPow2(long v) {", "        return v > 0 && (v & (v - 1)) == 0;", "    }", "",
           "    /** Whether {@code v} is one of the network page sizes of the register map. */",
           "    public static boolean pageSizeAllowed(long v) {",
           "        return " + " || ".join(f"v == Regs.PAGE_SIZE_{ps // 1024}K" for ps in geom.page_sizes) + ";",
           "    }", ""]
    out += derived(geom)
    fit_uses = geom.params_of(geom.fits)
    call = ", ".join(camel(u) if u != "page_count" else "mid" for u in fit_uses)
    out += [f"    /** {{@code {ast.unparse(geom.fits).replace('<', '&lt;')}}} */",
            f"    public static boolean fits({p(fit_uses)}) {{",
            f"        return {geom.render(geom.fits, 'java')};", "    }", "",
            "    /** PAGE_COUNT: the largest count in 0..MAX_PAGES whose data pages fit. */",
            "    public static int pageCount(long fileSize, long pageSize, long maxNodes) {",
            "        int lo = 0;", "        int hi = Regs.MAX_PAGES;", "        while (lo < hi) {",
            "            int mid = (lo + hi + 1) >>> 1;", f"            if (fits({call})) {{",
            "                lo = mid;", "            } else {", "                hi = mid - 1;", "            }",
            "        }", "        return lo;", "    }", "",
            "    /** The header field a creation request is refused on, or null when it is valid. */",
            "    public static String problemField(long fileSize, long pageSize, long maxNodes) {",
            "        long pageCount = pageCount(fileSize, pageSize, maxNodes);"]
    for field, tree, _ in geom.rules:
        out += [f"        if {geom.render(tree, 'java')} {{", f'            return "{field}";', "        }"]
    out += ["        return null;", "    }", "",
            "    /** Why a creation request is refused (a sentence naming the value), or null when it is valid. */",
            "    public static String problem(long fileSize, long pageSize, long maxNodes) {",
            "        String field = problemField(fileSize, pageSize, maxNodes);",
            "        if (field == null) {", "            return null;", "        }",
            "        return switch (field) {"]
    values = {"PAGE_SIZE": "pageSize", "MAX_NODES": "maxNodes", "FILE_SIZE": "fileSize"}
    for field, _, says in geom.rules:
        tail = f', not " + {values[field]}' if field in values else ' (" + fileSize + " bytes, " + maxNodes + " nodes)"'
        out.append(f'            case "{field}" -> "{says}{tail};')
    out += ['            default -> field;', "        };", "    }", "",
            "    /** The OWNER word of a node block claimed by {@code pid} at {@code incarnation} (SF_OWNER_* fields). */",
            "    public static long ownerWord(long incarnation, int pid) {",
            "        return ((incarnation << Regs.SF_OWNER_INCARNATION_SHIFT) & Regs.SF_OWNER_INCARNATION_MASK)",
            "                | (((long) pid << Regs.SF_OWNER_PID_SHIFT) & Regs.SF_OWNER_PID_MASK);", "    }", "",
            "    /** The owning process of an OWNER word. */", "    public static int ownerPid(long owner) {",
            "        return (int) ((owner & Regs.SF_OWNER_PID_MASK) >>> Regs.SF_OWNER_PID_SHIFT);", "    }", "",
            "    /** The incarnation of an OWNER word. */", "    public static long ownerIncarnation(long owner) {",
            "        return (owner & Regs.SF_OWNER_INCARNATION_MASK) >>> Regs.SF_OWNER_INCARNATION_SHIFT;", "    }", "",
            "    /** The INCARNATION a claim stores after {@code current}: the next value OWNER holds, never 0. */",
            "    public static long nextIncarnation(long current) {",
            "        long next = ownerIncarnation(ownerWord(current + 1, 0));", "        return next == 0 ? 1 : next;",
            "    }", "}"]
    return "\n".join(out) + "\n"


def diagram(sysp, table, size):
    """A byte diagram of a table, 8 bytes a row, as in Agrona's descriptors."""
    rows = []
    fields = sorted(sysp.sysm[table], key=lambda f: f["offset"])
    for row in range(0, size, 8):
        cells = [f for f in fields if row <= f["offset"] < row + 8]
        if not cells:
            continue
        text = " | ".join(f"{f['name']} ({f['size']})" for f in cells)
        rows.append(f" * +0x{row:02X}  | {text}")
    return rows


def system_pages(sysp):
    sysm = sysp.sysm
    out = ["// " + HEADER_NOTE, "package dev.memchan.layout;", "",
           "/**",
           " * Descriptor of the system pages: the cluster service's shared state in network pages",
           f" * 0..{sysm['pages'] - 1}, which every node maps broadcast + local copy (transmit) and receive, on every",
           " * backend. Offsets are from network page 0 of that mapping; field offsets within a slot or entry are",
           " * the {@code Regs.SYS_MEMBER_*}, {@code Regs.SYS_DIR_*} and {@code Regs.SYS_REGION_*} constants.",
           " * Generated by regmap/gen.py from regmap/memchan.toml, like the C functions {@code mc_sys_*} of",
           " * memchan_regs.h that the driver and the native tests use.",
           " *",
           " * <pre>",
           f" *   page {sysm['lock_page']}  lock bids:        u64 per node at lockBid(pageSize, node)",
           f" *   page {sysm['membership_page']}  membership:       {sysm['membership_slot_size']}-byte slot per node at memberSlot(pageSize, node)",
           f" *   page {sysm['directory_page']}  directory header: GENERATION, multicast group masks at mcastGroup(pageSize, group)",
           f" *   pages {sysm['region_pages_first']}..{sysm['pages'] - 1} region entries: {sysm['region_entry_size']} bytes each at regionEntry(pageSize, index),",
           " *                    regionCapacity(pageSize) of them",
           " *",
           " * membership slot:",
           *diagram(sysp, "membership", sysm["membership_slot_size"]),
           " *",
           " * region entry:",
           *diagram(sysp, "region", sysm["region_entry_size"]),
           " *",
           " * FLAGS word: " + ", ".join(f"{f['name']} {f['bits']}" for f in sysm["region_flags"]),
           " * ROUTE word: " + ", ".join(f"{f['name']} {f['bits']}" for f in sysm["region_route"])
           + " (the tx_pct bits)",
           " * </pre>",
           " */",
           "public final class SystemPagesDescriptor {", "    private SystemPagesDescriptor() {", "    }", ""]
    out += derived(sysp)
    for word in sysp.WORDS:
        fields = sysm[word]
        args = []
        parts = []
        for f in fields:
            lsb, w = bits(f["bits"])
            const = f"Regs.SYS_{word.upper()}_{f['name']}"
            mask = f"{const}_MASK" if ((1 << w) - 1) << lsb < 1 << 31 else f"(int) {const}_MASK"
            getter = camel(f"{word}_{f['name']}".lower())
            if w == 1:
                out += [f"    /** {f['desc']} */", f"    public static boolean {getter}(int {camel(word)}) {{",
                        f"        return ({camel(word)} & {mask}) != 0;", "    }", ""]
                arg = camel(f["name"].lower()) + "Bit"
                args.append(f"boolean {arg}")
                parts.append(f"({arg} ? {mask} : 0)")
            else:
                out += [f"    /** {f['desc']} */", f"    public static int {getter}(int {camel(word)}) {{",
                        f"        return ({camel(word)} & {mask}) >>> {const}_SHIFT;", "    }", ""]
                arg = camel(f["name"].lower())
                args.append(f"int {arg}")
                parts.append(f"(({arg} << {const}_SHIFT) & {mask})")
        out += [f"    /** The {word.upper()} word of a region entry from its fields. */",
                f"    public static int {camel(word)}({', '.join(args)}) {{",
                f"        return {' | '.join(parts)};", "    }", ""]
    out[-1:] = ["}"]
    return "\n".join(out) + "\n"


def tx_pct_rule(txr):
    ops = sorted(txr.ops.items())
    out = ["// " + HEADER_NOTE, "package dev.memchan.layout;", "",
           "import static dev.memchan.layout.Regs.*;", "",
           "/**",
           " * The transmit PCT rule of regmap/memchan.toml [tx_pct_rule]: what a page's OP needs. Generated, like the",
           " * C function {@code mc_tx_pct_rule} of memchan_regs.h that the driver calls; both reproduce",
           " * {@code regmap/vectors/tx-pct-rule.csv}. {@link TxPct#problem(int, int, int, boolean)} words the verdict.",
           " */",
           "public final class TxPctRule {", "    private TxPctRule() {", "    }", "",
           "    /**",
           "     * The {@code TX_RULE_*} verdict for entry {@code e} on an adapter of {@code maxNodes} nodes with CAPS",
           "     * {@code caps}; {@code emulated}: a soft fabric or ivshmem adapter.",
           "     */",
           "    public static int check(int e, int maxNodes, int caps, boolean emulated) {",
           "        if ((e & ~TX_PCT_VALID_MASK) != 0) {", "            return TX_RULE_RESERVED;", "        }",
           "        int op = (e & TX_PCT_OP_MASK) >>> TX_PCT_OP_SHIFT;",
           "        int kind = (e & TX_PCT_DEST_KIND_MASK) >>> TX_PCT_DEST_KIND_SHIFT;",
           "        int dest = (e & TX_PCT_DEST_MASK) >>> TX_PCT_DEST_SHIFT;",
           "        if ((e & TX_PCT_CAS_MASK) != 0 && (TX_RULE_CAS_OPS >>> op & 1) == 0) {",
           "            return TX_RULE_CAS;", "        }",
           "        int kinds = switch (op) {"]
    for value, (name, *_) in ops:
        out.append(f"            case OP_{name} -> TX_RULE_DEST_KINDS_{name};")
    out += ["            default -> 0;", "        };", "        int need = capsNeeded(op);",
            "        if ((kinds >>> kind & 1) == 0) {", "            return TX_RULE_DEST_KIND;", "        }",
            "        int below = switch (kind) {"]
    for name, bound in txr.bounds("", "maxNodes"):
        out.append(f"            case DEST_KIND_{name} -> {bound};")
    out += ["            default -> 0;", "        };",
            "        if (dest >= below) {", "            return TX_RULE_DEST_RANGE;", "        }",
            "        if (emulated && (TX_RULE_EMULATED_OPS >>> op & 1) == 0) {", "            return TX_RULE_EMULATED;", "        }",
            "        if ((caps & need) != need) {", "            return TX_RULE_CAPS;", "        }",
            "        return TX_RULE_OK;", "    }", "",
            "    /** The CAPS bits OP {@code op} needs. */",
            "    public static int capsNeeded(int op) {",
            "        return switch (op) {"]
    for value, (name, *_) in ops:
        out.append(f"            case OP_{name} -> TX_RULE_CAPS_{name};")
    out += ["            default -> 0;", "        };", "    }", "",
            "    /** The verdict's name, as in the vectors. */",
            "    public static String name(int verdict) {",
            "        return switch (verdict) {"]
    for i, v in enumerate(TX_RULE_VERDICTS):
        out.append(f"            case TX_RULE_{v} -> \"{v}\";")
    out += ["            default -> \"verdict \" + verdict;", "        };", "    }", "}"]
    return "\n".join(out) + "\n"


def regs(c):
    out = ["// " + HEADER_NOTE, "package dev.memchan.layout;", "",
           "/**",
           " * memchan register map, PCT encodings, soft-fabric layout and system-page layout.",
           " *",
           " * <p>Generated from {@code regmap/memchan.toml}, the single source shared with the RTL package",
           " * ({@code memchan_regs_pkg.sv}), the C header ({@code memchan_regs.h}) and docs/register-map.md.",
           " * Field constants come in pairs: {@code X_SHIFT} and {@code X_MASK} (mask already shifted).",
           " */",
           "public final class Regs {", "    private Regs() {", "    }", ""]

    def field(name, value, width, comment):
        doc = ""
        if comment:
            doc = f"    /** {comment.replace('*/', '* /').replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')} */\n"
        if width > 32 or value >= 1 << 31:
            return f"{doc}    public static final long {name} = {fmt_hex(value)}L;"
        return f"{doc}    public static final int {name} = {fmt_hex(value)};"
    out += c.render(lambda title: f"    // {title}", field)
    out.append("}")
    return "\n".join(out) + "\n"
