"""The hand-layout scan: code that uses a shared layout takes it from the generated files."""
import re

from .model import ROOT


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


def hand_layout_hits():
    pattern = re.compile(HAND_LAYOUT)
    hits = []
    for name in LAYOUT_USERS:
        path = ROOT / name
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for f in files:
            if f.suffix in (".java", ".c", ".h") and f.is_file():
                for n, line in enumerate(f.read_text().splitlines(), 1):
                    if pattern.search(line):
                        hits.append(f"{f.relative_to(ROOT)}:{n}: {line.strip()}")
    return hits
