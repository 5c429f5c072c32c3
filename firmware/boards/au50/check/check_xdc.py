#!/usr/bin/env python3
"""Every top-level port of the board top against its XDC files: each bit pinned (PACKAGE_PIN),
an I/O standard on every port that is not a transceiver pin, a clock created on every clock
input (a port named *clk_p), no package pin twice, no constraint on a port the top does not have.

Directives in the XDC (comments) name what the XDC alone cannot show:
    # check: gt PORT...         transceiver pins: no I/O standard
    # check: ip-placed PORT...  placed by the IP's own constraints (the PCIe lanes)
A differential pair's N port needs no pin of its own when its P port has one.

    check_xdc.py TOP.sv XDC...             exit 1 listing every problem
    check_xdc.py --controls TOP.sv XDC...  the negative controls: each planted fault is reported
"""
import re
import sys
from pathlib import Path

PORT = re.compile(r"^\s*(input|output|inout)\s+(?:wire\s+)?(?:logic\s+)?(?:\[(\d+):(\d+)\]\s*)?(\w+)\s*,?", re.M)
GET_PORTS = re.compile(r"\[get_ports\s+(\{[^}]*\}|\S+?)\]")


def top_ports(sv_text):
    """{bit name: port name} of the module's ANSI port list (the first module of the file)"""
    header = sv_text[sv_text.index("module"):sv_text.index(");")]
    bits = {}
    for _, msb, lsb, name in PORT.findall(header):
        if msb:
            for i in range(min(int(msb), int(lsb)), max(int(msb), int(lsb)) + 1):
                bits[f"{name}[{i}]"] = name
        else:
            bits[name] = name
    return bits


def expand(pattern, bits):
    """the bits a get_ports argument names (a name, a bit, NAME[*], several in braces)"""
    out = []
    for word in pattern.strip("{}").split():
        rx = re.compile("^" + re.escape(word).replace(r"\*", r"[^\]]*") + "$")
        hits = [b for b in bits if rx.match(b) or rx.match(bits[b])]
        out.append((word, hits))
    return out


def check(sv_text, xdc_texts):
    bits = top_ports(sv_text)
    problems = []
    pins, iostd, clocks, gt, ip_placed = {}, set(), set(), set(), set()
    used = {}
    for xdc in xdc_texts:
        for line in xdc.splitlines():
            m = re.match(r"#\s*check:\s*(gt|ip-placed)\s+(.*)", line)
            if m:
                (gt if m.group(1) == "gt" else ip_placed).update(m.group(2).split())
                continue
            line = line.split("#")[0].strip()
            if not line:
                continue
            for arg in GET_PORTS.findall(line):
                for word, hits in expand(arg, bits):
                    if not hits:
                        problems.append(f"not a port of the top: {word} ({line})")
            pm = re.match(r"set_property\s+(PACKAGE_PIN|LOC)\s+(\S+)\s+\[get_ports\s+(\{[^}]*\}|\S+?)\]", line)
            if pm:
                pin, names = pm.group(2), expand(pm.group(3), bits)
                for _, hits in names:
                    for b in hits:
                        if b in pins and pins[b] != pin:
                            problems.append(f"{b} pinned twice: {pins[b]} and {pin}")
                        pins[b] = pin
                        if pin in used and used[pin] != b:
                            problems.append(f"pin {pin} twice: {used[pin]} and {b}")
                        used[pin] = b
            im = re.match(r"set_property\s+IOSTANDARD\s+\S+\s+\[get_ports\s+(\{[^}]*\}|\S+?)\]", line)
            if im:
                for _, hits in expand(im.group(1), bits):
                    iostd.update(hits)
            cm = re.match(r"create_clock\b.*\[get_ports\s+(\{[^}]*\}|\S+?)\]", line)
            if cm:
                for _, hits in expand(cm.group(1), bits):
                    clocks.update(hits)
    for b, port in bits.items():
        partner = b.replace("_n", "_p", 1) if re.search(r"_n(\[|$)", b) else None
        pinned = b in pins or port in ip_placed or (partner in pins)
        if not pinned:
            problems.append(f"not pinned: {b}")
        if port not in gt and b not in iostd:
            problems.append(f"no IOSTANDARD: {b}")
        if port.endswith("clk_p") and b not in clocks:
            problems.append(f"no clock created on clock input: {b}")
    for name in gt | ip_placed:
        if name not in bits.values():
            problems.append(f"directive names a port the top does not have: {name}")
    return problems


# the negative controls: (what is planted, the text change, the problem it must produce)
CONTROLS = [
    ("a pin removed", lambda x: x.replace("set_property PACKAGE_PIN E16 [get_ports {led[1]}]\n", ""),
     "not pinned: led[1]"),
    ("a pin used twice", lambda x: x.replace("PACKAGE_PIN E16 ", "PACKAGE_PIN E18 "), "pin E18 twice"),
    ("an I/O standard removed", lambda x: x.replace("set_property IOSTANDARD LVCMOS18 [get_ports hbm_cattrip]\n", ""),
     "no IOSTANDARD: hbm_cattrip"),
    ("a clock removed", lambda x: re.sub(r"create_clock [^\n]*qsfp_refclk_p\]\n", "", x),
     "no clock created on clock input: qsfp_refclk_p"),
    ("a constraint on a port the top lacks", lambda x: x + "set_property PACKAGE_PIN A1 [get_ports qsfp_modsel]\n",
     "not a port of the top: qsfp_modsel"),
]


def main(argv):
    controls = argv[1:2] == ["--controls"]
    args = argv[2:] if controls else argv[1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    sv = Path(args[0]).read_text()
    xdcs = [Path(a).read_text() for a in args[1:]]
    if not controls:
        problems = check(sv, xdcs)
        for p in problems:
            print(f"xdc: {p}")
        if problems:
            return 1
        print(f"xdc: {len(top_ports(sv))} port bits of {Path(args[0]).name} pinned, I/O standards and clocks set, "
              f"no pin twice ({', '.join(Path(a).name for a in args[1:])})")
        return 0
    failed = 0
    whole = "\n".join(xdcs)
    for what, change, expected in CONTROLS:
        planted = [change(whole)]
        if planted == [whole]:
            print(f"xdc control: {what}: the change did not apply (the XDC moved): fix the control")
            failed += 1
            continue
        problems = check(sv, planted)
        if any(p.startswith(expected) for p in problems):
            print(f"xdc control: {what}: reported ({expected})")
        else:
            print(f"xdc control: {what}: NOT reported (expected \"{expected}\", got {problems})")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
