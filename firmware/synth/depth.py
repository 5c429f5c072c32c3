#!/usr/bin/env python3
"""Logic-depth estimate from the synthesized netlist (yosys write_json after synth_xilinx).

No timing analysis: counts the LUT levels of the longest combinational path between two
sequential elements (flip-flop, block RAM, LUTRAM, SRL) or ports, traversing MUXF7/8/9 and
CARRY cells (counted separately: they add delay but are not LUT levels). Reported for the
whole design and per instance of the top module (memchan_top or memchan_hub; the instance
owning the path's end point, a per-port one of the hub named with its generate block).
Usage: depth.py netlist.json  ->  "depth: <instance> <LUT levels> LUT (+<muxf> MUXF, +<carry>
CARRY), <start> -> <end>" lines, deepest first.
"""
import json, re, sys
from functools import lru_cache

sys.setrecursionlimit(100000)
modules = json.load(open(sys.argv[1]))["modules"]
top_name = next(n for n, m in modules.items() if m.get("attributes", {}).get("top"))
top = modules[top_name]
cells = top["cells"]
comb = lambda t: bool(re.match(r"(LUT[1-6]|MUXF[789]|CARRY[48]|INV)$", t))
driver = {}                                  # net bit -> combinational cell name
for name, c in cells.items():
    if not comb(c["type"]):
        continue
    for port, bits in c["connections"].items():
        if c["port_directions"].get(port) == "output":
            for b in bits:
                driver[b] = name
netname = {}                                 # net bit -> shortest public net name
flatname = {}                                # net bit -> a yosys-made name inside an instance
for n, info in top["netnames"].items():
    for b in info["bits"]:
        if not isinstance(b, int):
            continue
        if "$" not in n:
            if b not in netname or len(n) < len(netname[b]):
                netname[b] = n
        elif re.search(r"\$flatten\\(g_\w+\[\d+\]\.)?u_", n):
            flatname.setdefault(b, n)


def inputs(c):
    """the net bits at the input ports of cell c"""
    return [b for port, bits in c["connections"].items()
            if c["port_directions"].get(port) == "input" for b in bits]


@lru_cache(maxsize=None)
def depth(name):
    """(lut, muxf, carry, start net) of the deepest path ending at the output of cell name"""
    c = cells[name]
    best = (-1, 0, 0, None)
    for b in inputs(c):
        d = depth(driver[b]) if b in driver else (0, 0, 0, netname.get(b, str(b)))
        if (d[0], d[1] + d[2]) > (best[0], best[1] + best[2]):
            best = d
    t = c["type"]
    best = (max(best[0], 0),) + best[1:]
    return (best[0] + t.startswith("LUT"), best[1] + t.startswith("MUXF"),
            best[2] + t.startswith("CARRY"), best[3])


def owner(n):
    """the instance of the top module a net belongs to, also for yosys-made names of a
    flattened instance's registers ("$abc$..$flatten\\u_ltx.$0\\rcnt_q[7:0]"); the hub's
    per-port instances keep their generate block ("g_port[3].u_ltx")"""
    inst = r"((?:g_\w+\[\d+\]\.)?u_[a-z_0-9]+)\."
    m = re.match(inst, n or "") or re.search(r"\$flatten\\" + inst, n or "")
    return m.group(1) if m else top_name

per = {}
for name, c in cells.items():
    if comb(c["type"]):
        continue
    # end points: inputs of sequential cells
    for b in inputs(c):
        if b in driver:
            d = depth(driver[b])
            end = netname.get(b) or flatname.get(b, name)
            inst = owner(end)
            if inst not in per or (d[0], d[1] + d[2]) > (per[inst][0][0], per[inst][0][1] + per[inst][0][2]):
                per[inst] = (d, end)
for name, p in top["ports"].items():
    if p["direction"] == "output":
        for b in p["bits"]:
            if b in driver:
                d = depth(driver[b])
                if top_name not in per or d[0] > per[top_name][0][0]:
                    per[top_name] = (d, name)
for inst, (d, end) in sorted(per.items(), key=lambda kv: -kv[1][0][0]):
    print(f"depth: {inst} {d[0]} LUT (+{d[1]} MUXF, +{d[2]} CARRY), {d[3]} -> {end}")
