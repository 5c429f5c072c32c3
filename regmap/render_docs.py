"""docs/register-map.md."""
import ast

from .formulas import TX_RULE_VERDICTS
from .lint import FIRMWARE_USERS, HAND_LAYOUT, LAYOUT_USERS, REG_BLOCK, REG_TOP, hand_geometry_pattern
from .model import HEADER_NOTE


def values_md(f):
    return (" (values: " + ", ".join(f"{v} {n}" for n, v in f["values"].items()) + ")") if "values" in f else ""


def md_table(rows, header):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(str(x).replace("|", "\\|") for x in r) + " |")
    return out


def geometry(geom):
    out = ["", "## Soft fabric geometry", "",
           "Every implementation computes these from the same formulas (generated into `memchan_regs.h` as "
           "`mc_sf_*` and into `SoftFabricGeometry.java`; `regmap/vectors/soft-fabric-geometry.csv` holds "
           "vectors both reproduce). `align(v, a)` rounds up to a multiple of `a`.", ""]
    out += md_table([(d[0], f"`{ast.unparse(d[1])}`", d[3]) for d in geom.derived], ("value", "formula", "meaning"))
    out += ["", f"PAGE_COUNT is the largest count in 0..MAX_PAGES for which `{ast.unparse(geom.fits)}`.", "",
            "A creation request is refused by the first rule that holds (a validator names the field):", ""]
    out += md_table([(f, f"`{ast.unparse(t)}`", s) for f, t, s in geom.rules], ("field", "refused when", "message"))
    return out


def tx_pct_rule(txr):
    caps_names = {v: n for n, v in txr.constants.items() if n.startswith("CAPS_") and n.endswith("_MASK")}
    rows = []
    for value, (name, kinds, cas, emulated, need) in sorted(txr.ops.items()):
        rows.append((f"{value} {name}", ", ".join(n for n, v in txr.kind_values.items() if kinds >> v & 1),
                     "yes" if cas else "no", "yes" if emulated else "no",
                     ", ".join(caps_names.get(1 << b, str(b))[5:-5] for b in range(32) if need >> b & 1) or "-"))
    bounds = ", ".join(f"{n} below `{raw}`" for n, raw in txr.bounds("", "max_nodes"))
    return ["", "## Transmit PCT rule", "",
            "What a transmit PCT entry's OP needs ([tx_pct_rule]). The check is generated into `mc_tx_pct_rule` "
            "(C; the driver's grant and PCT ioctls) and `TxPctRule.check` (Java); `regmap/vectors/tx-pct-rule.csv` "
            "holds vectors both reproduce. Verdicts in order: " + ", ".join(TX_RULE_VERDICTS[1:]) +
            f"; the first three are invalid entries (EINVAL), the last two unsupported ones (EOPNOTSUPP). DEST: {bounds}.", ""] + \
        md_table(rows, ("OP", "DEST_KIND", "CAS bit", "emulated adapter", "CAPS needed"))


def register_map(rm, geom, sysp, txr):
    meta = rm["meta"]
    out = ["# memchan register map", "", f"<!-- {HEADER_NOTE} -->", "",
           f"Identity `0x{meta['id']:08X}` (\"MEMC\") at BAR0 offset 0, version {meta['version_major']}."
           f"{meta['version_minor']}. PCI ID `{meta['pci_vendor']:04x}:{meta['pci_device']:04x}` (board), "
           f"`{meta['ivshmem_vendor']:04x}:{meta['ivshmem_device']:04x}` (QEMU ivshmem, software backend). "
           f"At most {meta['max_nodes']} nodes, {meta['multicast_groups']} multicast groups, "
           f"{meta['max_pages']} network pages.", "",
           "The same file generates the RTL package `firmware/rtl/memchan_regs_pkg.sv` (constants, field widths, "
           "one packed struct per register), the RTL register block `firmware/rtl/memchan_reg_top.sv` (storage, "
           "reset values, write and read decode), the C header (`native/include/memchan_regs.h` for the driver and "
           "tools, `firmware/include/memchan_regs.h` for the co-simulation), `java-api/.../layout/Regs.java` and "
           "the classes beside it; `python3 regmap/gen.py --check` (run by the test command) fails "
           "when any of them is stale.", "",
           f"## BAR0 (size 0x{meta['bar0_size']:X})", "",
           f"Transmit PCT at 0x{meta['tx_pct_base']:X} (u32 per page), receive PCT at 0x{meta['rx_pct_base']:X} "
           "(u64 per page). Registers:", ""]
    rows = []
    for r in rm["register"]:
        n = r.get("count", 1)
        name = r["name"] + (f"[{n}]" if n > 1 else "")
        rows.append((f"0x{r['offset']:03X}", name, r["access"], f"0x{r['reset']:X}", r["desc"]))
    out += md_table(rows, ("offset", "name", "access", "reset", "description"))
    for r in rm["register"]:
        if r.get("field"):
            out += ["", f"### {r['name']} fields", ""]
            out += md_table([(f["bits"], f["name"], f["desc"] + values_md(f)) for f in r["field"]], ("bits", "field", "meaning"))
    for table in ("tx_pct", "rx_pct"):
        out += ["", f"## {table.upper().replace('_', ' ')} entry", "", rm[table]["desc"], ""]
        out += md_table([(f["bits"], f["name"], f["desc"] + values_md(f)) for f in rm[table]["field"]], ("bits", "field", "meaning"))
    sf = rm["soft_fabric"]
    out += ["", "## Soft fabric file", "", sf["desc"], "",
            f"Magic `0x{sf['magic']:016X}`, version {sf['version']}. See docs/soft-fabric.md for the protocol.", ""]
    out += md_table([(f"0x{f['offset']:02X}", f["size"], f["name"], f["desc"]) for f in sf["header"]],
                    ("offset", "size", "header field", "meaning"))
    out += [""]
    out += md_table([(f"0x{f['offset']:03X}", f["size"], f["name"], f["desc"]) for f in sf["node"]],
                    ("offset", "size", "node block word", "meaning"))
    out += [""]
    out += md_table([(f["bits"], f["name"], f["desc"]) for f in sf["owner"]], ("bits", "OWNER field", "meaning"))
    out += [""]
    out += md_table([(f["bits"], f["name"], f["desc"]) for f in sf["stripe_owner"]], ("bits", "STRIPE_OWNERS field", "meaning"))
    out += [""]
    out += md_table([(f["bits"], f["name"], f["desc"]) for f in sf["clock_request"]], ("bits", "CLOCK_REQUEST field", "meaning"))
    out += ["", f"Page counters: {sf['page_counter_size']} bytes per page at `page_counters_offset + "
            "PAGE_COUNTER_SIZE * page` of the page's home node block.", ""]
    out += md_table([(f"+{f['offset']}", f["size"], f["name"], f["desc"]) for f in sf["page_counter"]],
                    ("offset", "size", "counter", "meaning"))
    out += geometry(geom)
    out += tx_pct_rule(txr)
    sysm = rm["system"]
    out += ["", "## System pages", "",
            f"Network pages 0..{sysm['pages'] - 1}: page {sysm['lock_page']} cluster-lock bids (u64 per node), "
            f"page {sysm['membership_page']} membership ({sysm['membership_slot_size']}-byte slot per node), "
            f"page {sysm['directory_page']} directory header, pages {sysm['region_pages_first']}.."
            f"{sysm['pages'] - 1} region entries ({sysm['region_entry_size']} bytes each).", ""]
    for group in ("membership", "directory", "region"):
        out += md_table([(f"0x{f['offset']:02X}", f["size"], f["name"], f["desc"]) for f in sysm[group]],
                        ("offset", "size", f"{group} field", "meaning"))
        out.append("")
    out += ["Region entry STATE: " + ", ".join(f"{v} {n}" for n, v in sysm["region_state"].items()) + ".", ""]
    out += ["Offsets within the system pages (from network page 0), generated as `mc_sys_*` (C) and "
            "`SystemPagesDescriptor` (Java); `regmap/vectors/system-pages.csv` holds vectors both reproduce:", ""]
    out += md_table([(d[0], f"`{ast.unparse(d[1])}`", d[3]) for d in sysp.derived], ("offset", "formula", "meaning"))
    out.append("")
    for word in ("region_flags", "region_route"):
        out += md_table([(f["bits"], f["name"], f["desc"]) for f in sysm[word]], ("bits", f"{word} field", "meaning"))
        out.append("")
    nq = rm["notify_queue"]
    out += ["## Notification queue", "", nq["desc"], ""]
    for group in ("header", "slot"):
        out += md_table([(f"0x{f['offset']:02X}", f["size"], f["name"], f["desc"]) for f in nq[group]],
                        ("offset", "size", f"{group} field", "meaning"))
        out.append("")
    out += md_table([(f["bits"], f["name"], f["desc"]) for f in nq["entry"]], ("bits", "ENTRY field", "meaning"))
    out.append("")
    out += ["## No hand-computed layout", "",
            "`python3 regmap/gen.py --check` also fails when the code that uses these layouts computes one by "
            "hand instead of using the generated constants and functions. It searches "
            + ", ".join(f"`{u}`" for u in LAYOUT_USERS) + " for the regular expression", "",
            "```", HAND_LAYOUT, "```", "",
            "(a shift by a literal field position, a literal 16/32-bit mask, `& 1)`, a STATE compared with or set to "
            "a number, a system-page offset composed from `SYS_*_PAGE` or `SYS_*_SIZE`, a PCT entry offset with a "
            "literal entry size).", "",
            "In " + ", ".join(f"`{u}`" for u in FIRMWARE_USERS) + " (RTL, benches, the co-simulation, shell "
            "scripts; the generated files left out) it fails on a register offset or the board's geometry written "
            "by hand: a register offset as a 3-digit hex literal, a literal sized or ranged as a BAR0 or "
            "register-block address, a page count or page size set as a number. The regular expression, from "
            "this map:", "",
            "```", hand_geometry_pattern(rm), "```", "",
            "The register block's fields travel from `memchan_axil_regs` (instance `" + REG_BLOCK + "` of `"
            + REG_TOP + "`) through `memchan_top` into the modules that use them with the widths, counts and types "
            "of `memchan_regs_pkg` (`MC_<REGISTER>_<FIELD>_W`, `MC_MULTICAST_GROUPS`, `MC_NODE_IDX_W`, "
            "`mc_<register>_t`, `mc_group_table_t`). The check fails on a literal packed range `[N:M]` declaring "
            "such a signal in `memchan_top` or a port it arrives at (of the register block or of another module "
            "`memchan_top` connects it to), on a literal part-select of one, on a sized literal of more than one bit "
            "compared with or assigned to one, and on a `for` loop over a literal count beside one. Such a signal: "
            "one `memchan_top` connects to the register block (the AXI4-Lite "
            "bus `s_*` and the data path's events `ev_*`, whose widths are the frame format's, aside), or assigns "
            "from a part of one.", "",
            "`python3 -m unittest regmap.tests.test_lint` (the harness's regmap step) plants such a line in a copy "
            "of the files and expects each scan to fail.", ""]
    return "\n".join(out)
