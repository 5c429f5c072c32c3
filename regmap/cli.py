"""The one entry point (regmap/gen.py, python3 -m regmap): every generated file from memchan.toml,
the staleness check, the hand-layout scan, and the uapi bindings (subcommand uapi)."""
import sys

from . import lint, render_board, render_c, render_docs, render_java, render_sv, render_sv_regs, render_vectors, uapi
from .formulas import Geometry, SystemPages, TxPctRule
from .model import ROOT, build, load

USAGE = """usage: regmap/gen.py [--check]      write the generated files, or (--check) exit 1 listing the stale
                                    ones or the lines that compute a shared layout by hand
       regmap/gen.py uapi [...]     the Java bindings of the driver's uapi (regmap/gen.py uapi --help)"""

JAVA_LAYOUT = ROOT / "java-api" / "src" / "main" / "java" / "dev" / "memchan" / "layout"


def outputs(rm):
    """{path: text} of every file generated from the register map."""
    c = build(rm)
    constants = {name: value for _, items in c.sections for name, value, *_ in items}
    txr = TxPctRule(rm, c, constants)  # adds its section of constants
    constants = {name: value for _, items in c.sections for name, value, *_ in items}
    geom = Geometry(rm, constants)
    sysp = SystemPages(rm, constants)
    caps_requests = constants["CAPS_ATOMICS_MASK"] | constants["CAPS_REMOTE_READ_MASK"]
    header = render_c.header(c, geom, sysp, txr)
    return {
        # one copy per layer that includes it: the driver's (DKMS ships native/) and the firmware's
        ROOT / "native" / "include" / "memchan_regs.h": header,
        ROOT / "firmware" / "include" / "memchan_regs.h": header,
        JAVA_LAYOUT / "TxPctRule.java": render_java.tx_pct_rule(txr),
        ROOT / "regmap" / "vectors" / "tx-pct-rule.csv": render_vectors.tx_pct_rule(txr, rm["meta"], caps_requests),
        ROOT / "firmware" / "rtl" / "memchan_regs_pkg.sv": render_sv.package(c, rm),
        ROOT / "firmware" / "rtl" / "memchan_reg_top.sv": render_sv_regs.module(rm),
        JAVA_LAYOUT / "Regs.java": render_java.regs(c),
        JAVA_LAYOUT / "SoftFabricGeometry.java": render_java.geometry(geom),
        JAVA_LAYOUT / "SystemPagesDescriptor.java": render_java.system_pages(sysp),
        ROOT / "regmap" / "vectors" / "system-pages.csv": render_vectors.system_pages(sysp, rm["meta"]),
        ROOT / "docs" / "register-map.md": render_docs.register_map(rm, geom, sysp, txr),
        ROOT / "regmap" / "vectors" / "soft-fabric-geometry.csv": render_vectors.geometry(geom),
        ROOT / "firmware" / "boards" / "au50" / "tcl" / "memchan_ids.tcl": render_board.ids_tcl(rm),
    }


def main(argv):
    args = argv[1:]
    if args[:1] == ["uapi"]:
        return uapi.main(args[1:])
    if any(a != "--check" for a in args):
        print(USAGE, file=sys.stderr)
        return 2
    check = "--check" in args
    rm = load()
    stale = []
    for path, text in outputs(rm).items():
        current = path.read_text() if path.exists() else None
        if current != text:
            stale.append(path)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    if check and stale:
        for p in stale:
            print(f"stale generated file: {p.relative_to(ROOT)} (run: python3 regmap/gen.py)", file=sys.stderr)
        return 1
    if check:
        hits = lint.hand_layout_hits() + lint.hand_geometry_hits(rm)
        for h in hits:
            print(f"hand-computed shared layout (use the generated constants and functions): {h}", file=sys.stderr)
        widths = lint.hand_width_hits()
        for h in widths:
            print(f"register field width or count typed by hand (use memchan_regs_pkg's MC_*_W, counts and types): {h}",
                  file=sys.stderr)
        if hits or widths:
            return 1
        print("regmap: generated files up to date; no hand-computed shared layout in the code that uses it, "
              "no register field width typed by hand between the RTL's modules")
    else:
        for p in stale:
            print(f"wrote {p.relative_to(ROOT)}")
    return 0
