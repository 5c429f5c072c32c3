"""The hand-layout scans: code that uses a shared layout, a register offset or the board's geometry
takes it from the generated files."""
import os
import re
from pathlib import Path

from .model import HEADER_NOTE, ROOT


# The code that reads or writes shared layouts (system pages, soft-fabric file, PCT entries, registers)
# takes every offset, field and value from the generated files. --check fails on a hand-computed one:
# a shift by a literal field position, a literal 16/32-bit mask, `& 1)`, a STATE compared with or
# set to a number, a system-page offset composed from SYS_*_PAGE / SYS_*_SIZE, a PCT entry offset
# with a literal entry size. (Same pattern as the grep in docs/register-map.md.)
LAYOUT_USERS = ("java-api/src/main/java/dev/memchan/Fabric.java", "java-api/src/main/java/dev/memchan/internal/cluster",
                "java-api/src/main/java/dev/memchan/internal/soft", "java-api/src/main/java/dev/memchan/layout/SoftFabricLayout.java",
                "tools/src/main/java/dev/memchan/tools/mcctl", "native/memchan_ivshmem.c", "native/memchan_main.c",
                "native/tools", "native/tests")
HAND_LAYOUT = (r"(>>>?|<<) ?(4|8|16|32)\b|& ?0x[0-9A-Fa-f_]*[Ff]{4}|& ?1\)|\b(state|STATE)\b *=+ *[0-9]\b"
               r"|SYS_[A-Z_]+_PAGE *\*|\* *SYS_[A-Z_]+_SIZE|NODE_TX_PCT *\+ *[0-9]+ *\* *[0-9]|[0-9]+ *\* *(4|8)\)")


def layout_files(root=ROOT):
    for name in LAYOUT_USERS:
        path = root / name
        for f in (sorted(path.rglob("*")) if path.is_dir() else [path]):
            if f.suffix in (".java", ".c", ".h") and f.is_file():
                yield f


def hand_layout_hits(root=ROOT):
    pattern = re.compile(HAND_LAYOUT)
    hits = []
    for f in layout_files(root):
        for n, line in enumerate(f.read_text().splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{f.relative_to(root)}:{n}: {line.strip()}")
    return hits


# Firmware (RTL, benches, the co-simulation) and the shell scripts take register offsets, the
# address widths of BAR0 and its register block, and the board's page geometry from the generated
# files as well. --check fails on one written by hand outside them: a register offset written as
# a 3-digit hex literal, a literal sized or ranged as a BAR0 or register-block address, a page count
# or page size assigned, passed or overridden as a number.
FIRMWARE_USERS = ("firmware", "scripts", "native/test.sh", "native/tests")
FIRMWARE_SUFFIXES = (".sv", ".svh", ".v", ".vlt", ".cpp", ".hpp", ".h", ".sh", ".f")


def hand_geometry_pattern(rm):
    meta = rm["meta"]
    bar_aw = (meta["bar0_size"] - 1).bit_length()
    block_aw = (meta["reg_block_size"] - 1).bit_length()
    offsets = sorted({r["offset"] + 4 * i for r in rm["register"] for i in range(r.get("count", 1))} - {0})
    bar0_mask = f"{meta['bar0_size'] - 1:x}"  # (the register block's, 0xfff, is every 4 KiB page's too)
    geometry = r"|\b(pages|page_size|page_count|PAGES|PAGE_SIZE|PAGE_COUNT|kPages|kPageSize)"
    return (r"(\b0x|\b\d*'[hH]|(?<![\w'])'[hH])0*(?i:" + "|".join(f"{o:03x}" for o in offsets) + r")\b"
            r"|(\b0x|'[hH])(?i:" + bar0_mask + r")\b"
            rf"|\b({bar_aw}|{block_aw})'[hdbHDB]|\[({bar_aw - 1}|{block_aw - 1}):0\]"
            + geometry + r"\b\s*(=|:=)\s*[0-9]" + r"|\.(PAGES|PAGE_SIZE)\(\s*[0-9]|-G(PAGES|PAGE_SIZE)=[0-9]")


def firmware_files(root):
    """(path, text) of every hand-written file the geometry scan reads: by suffix, or a script by its
    #! line; build directories (git-ignored) and the generated files left out."""
    for name in FIRMWARE_USERS:
        top = root / name
        found = []
        if top.is_file():
            found = [top]
        for d, dirs, files in os.walk(top):
            dirs[:] = sorted(x for x in dirs if x not in ("build", "__pycache__"))
            found += [Path(d) / f for f in sorted(files)]
        for f in found:
            if f.suffix and f.suffix not in FIRMWARE_SUFFIXES:
                continue
            text = f.read_text(errors="replace")
            if not f.suffix and not (text.startswith("#!") and "sh" in text.split("\n", 1)[0]):
                continue
            if HEADER_NOTE not in "\n".join(text.splitlines()[:2]):
                yield f, text


def hand_geometry_hits(rm, root=ROOT):
    pattern = re.compile(hand_geometry_pattern(rm))
    hits = []
    for f, text in firmware_files(root):
        for n, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{f.relative_to(root)}:{n}: {line.strip()}")
    return hits


# The register block's fields travel from memchan_axil_regs (instance REG_BLOCK of memchan_top) through
# memchan_top into the modules that use them, and take their widths and counts from memchan_regs_pkg
# (MC_*_W, MC_MULTICAST_GROUPS, mc_*_t). --check fails on one typed by hand: a literal packed range
# [N:M] declaring such a signal in memchan_top, or a port of the register block or of a module
# memchan_top connects it to; a literal part-select of one; a sized literal of more than one bit
# compared with or assigned to one; a for loop over a literal count beside one. Such a signal: one
# memchan_top connects to the register block (the AXI4-Lite bus s_* and the data path's events ev_*,
# whose widths are the frame format's, memchan_pkt_pkg, aside), and one memchan_top assigns from a
# part of those.
REG_TOP = "firmware/rtl/memchan_top.sv"
REG_BLOCK = "u_regs"
LITERAL_RANGE = r"\[\s*\d+\s*:\s*\d+\s*\]"


def _code(text):
    """text without // comments, line numbers kept"""
    return [line.split("//", 1)[0] for line in text.splitlines()]


def _instances(code):
    """(module, instance, {port: expression}) of every instance in code (a list of lines)"""
    text = "\n".join(code)
    found = []
    for m in re.finditer(r"^\s*(memchan_\w+)\s*(?:#\s*\(.*?\)\s*)?(u_\w+)\s*\(", text, re.M | re.S):
        body, depth, i = [], 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            body.append(text[i])
            i += 1
        ports, body = {}, "".join(body[:-1])
        for p in re.finditer(r"\.(\w+)\s*\(", body):
            depth, j = 1, p.end()
            while depth:
                depth += {"(": 1, ")": -1}.get(body[j], 0)
                j += 1
            ports[p.group(1)] = body[p.end():j - 1]
        found.append((m.group(1), m.group(2), ports))
    return found


def _declared(line):
    """the names a declaration line (logic/wire/input/output with a packed range) declares"""
    m = re.match(r"\s*(?:input|output|inout)?\s*(?:wire\s+)?(?:logic|wire|reg)\s*(?:\[[^\]]*\]\s*)+(.*)", line)
    return set(re.findall(r"\b([A-Za-z_]\w*)\b", m.group(1).split("=")[0])) if m else set()


def _sized_literal_beside(name, code):
    """a literal sized wider than one bit compared with or assigned to name in code"""
    n = re.escape(name)
    sizes = re.findall(rf"\b{n}\s*(?:[!=<>]=|[<>=])\s*(\d+)'[sdhbSDHB]|\b(\d+)'[sdhbSDHB]\w*\s*[!=]=\s*{n}\b", code)
    return any(int(w) > 1 for pair in sizes for w in pair if w)


def register_carriers(root=ROOT):
    """{file: names}: memchan_top's register signals, and each port they arrive at (the register
    block's and the other instances')"""
    code = _code((root / REG_TOP).read_text())
    instances = _instances(code)
    regs = [i for i in instances if i[1] == REG_BLOCK]
    if not regs:
        raise SystemExit(f"regmap lint: no register block instance {REG_BLOCK} in {REG_TOP}")
    module, _, ports = regs[0]
    carried = {p: e for p, e in ports.items() if not p.startswith(("s_", "ev_")) and p not in ("clk_i", "rst_ni")}
    signals = {w for e in carried.values() for w in re.findall(r"\b[a-z_]\w*\b", e)}
    for line in code:  # signals memchan_top assigns from a part of one (a field, a group's mask)
        m = re.match(r"\s*(?:assign\s+)?(?:for\s*\(.*?\)\s*)?(\w+)\s*(?:\[[^\]]*\])?\s*<?=(?!=)(.*)", line)
        if m and set(re.findall(r"\b(\w+)\s*\[", m.group(2))) & signals:
            signals.add(m.group(1))
    files = {REG_TOP: signals, f"firmware/rtl/{module}.sv": set(carried)}
    for mod, inst, conns in instances:
        if inst == REG_BLOCK:
            continue
        for port, expr in conns.items():
            if set(re.findall(r"\b\w+\b", expr)) & signals:
                files.setdefault(f"firmware/rtl/{mod}.sv", set()).add(port)
    return files


def hand_width_hits(root=ROOT):
    hits = []
    for rel, names in register_carriers(root).items():
        path = root / rel
        if not path.is_file():
            continue
        for n, (line, code) in enumerate(zip(path.read_text().splitlines(), _code(path.read_text())), 1):
            used = set(re.findall(r"\b\w+\b", code)) & names
            if not used:
                continue
            if (re.search(LITERAL_RANGE, code) and _declared(code) & names
                    or any(re.search(rf"\b{re.escape(u)}\s*{LITERAL_RANGE}", code) for u in used)
                    or any(_sized_literal_beside(u, code) for u in used)
                    or re.search(r"\bfor\s*\(.*<\s*\d+\s*;", code)):
                hits.append(f"{rel}:{n}: {line.strip()}")
    return hits
