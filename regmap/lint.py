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
