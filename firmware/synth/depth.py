#!/usr/bin/env python3
"""Logic-depth estimate from the synthesized netlist (yosys write_json after synth_xilinx).

No timing analysis: counts the LUT levels of the longest combinational path between two
sequential elements (flip-flop, block RAM, LUTRAM, SRL) or ports, traversing MUXF7/8/9 and
CARRY cells (counted separately: they add delay but are not LUT levels). Reported for the
whole design and per instance of the top module (memchan_top or memchan_hub; the instance
owning the path's end point, named by the net into it, else by the register it feeds; a
per-port one of the hub named with its generate block).
Usage: depth.py [--clock au50_top.sv | --limit N] [--allow REGEX=LEVELS] netlist.json  ->  "depth: <instance> <LUT
levels> LUT (+<muxf> MUXF, +<carry> CARRY), <start> -> <end>" lines, deepest first.

The limit (exit 1 when a path has more LUT levels, each such instance on a "depth over the limit:"
line): --limit N, or --clock FILE: the limit the core's clock allows, the clock read from the
board top's MMCM (its u_core_mmcm parameters), so that the clock is stated once. Budget of a
clock period: 0.5 ns for the launching flop's clock-to-out, the capturing flop's setup and the
clock's uncertainty, and 0.5 ns per LUT level (the LUT and the net into the next one on an
UltraScale+ -2 part, where routing is about half of a path's delay: UG949, "Datapath Delay and
Logic Levels"); MUXF7/8/9 and CARRY8 stay inside a slice (about 0.1 ns, no net) and are not
counted. At 250 MHz (4.0 ns): 7 levels.
"""
import argparse, json, math, re, sys
from functools import lru_cache

PATH_OVERHEAD_NS = 0.5     # clock-to-out + setup + clock uncertainty
LEVEL_NS = 0.5             # one LUT and its net


def clock_period_ns(top_sv):
    """the period of CLKOUT0 of the MMCME4_BASE u_core_mmcm in top_sv (core_clk)"""
    text = open(top_sv).read()
    m = re.search(r"MMCME4_BASE\s*#\((.*?)\)\s*u_core_mmcm", text, re.S)
    if not m:
        sys.exit(f"depth.py: no MMCME4_BASE u_core_mmcm in {top_sv}")
    params = dict((k, float(v)) for k, v in re.findall(r"\.(\w+)\(([0-9.]+)\)", m.group(1)))
    need = ("CLKIN1_PERIOD", "DIVCLK_DIVIDE", "CLKFBOUT_MULT_F", "CLKOUT0_DIVIDE_F")
    missing = [k for k in need if k not in params]
    if missing:
        sys.exit(f"depth.py: u_core_mmcm in {top_sv} lacks {', '.join(missing)}")
    return (params["CLKIN1_PERIOD"] * params["DIVCLK_DIVIDE"] * params["CLKOUT0_DIVIDE_F"]
            / params["CLKFBOUT_MULT_F"])


ap = argparse.ArgumentParser(description="LUT levels per instance of a yosys synth_xilinx netlist")
ap.add_argument("netlist")
lim = ap.add_mutually_exclusive_group()
lim.add_argument("--limit", type=int, help="most LUT levels allowed")
lim.add_argument("--clock", help="the board top whose u_core_mmcm sets the clock, and so the limit")
ap.add_argument("--allow", action="append", default=[], metavar="REGEX=LEVELS",
                help="instances (a regular expression matching the whole name) known to be over the "
                     "limit, allowed up to LEVELS until they are cut; reported, not failed")
args = ap.parse_args()
allow = []
for a in args.allow:
    m = re.fullmatch(r"(.+)=(\d+)", a)
    if not m:
        sys.exit(f"depth.py: --allow {a!r}: not REGEX=LEVELS")
    allow.append((re.compile(m.group(1)), int(m.group(2))))
limit, basis = args.limit, "given"
if args.clock:
    period = clock_period_ns(args.clock)
    limit = math.floor((period - PATH_OVERHEAD_NS) / LEVEL_NS + 1e-9)
    basis = (f"core_clk {1000 / period:g} MHz ({period:g} ns, {args.clock}): ({period:g} - "
             f"{PATH_OVERHEAD_NS}) ns / {LEVEL_NS} ns per level")
if limit is not None and limit < 1:
    sys.exit(f"depth.py: a limit of {limit} LUT levels allows no logic")

sys.setrecursionlimit(100000)
modules = json.load(open(args.netlist))["modules"]
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

def out_name(c):
    """the public name of a sequential cell's output (its register), if any"""
    for port, bits in c["connections"].items():
        if c["port_directions"].get(port) == "output":
            for b in bits:
                if b in netname:
                    return netname[b]
    return None


per = {}
for name, c in cells.items():
    if comb(c["type"]):
        continue
    # end points: inputs of sequential cells
    for b in inputs(c):
        if b in driver:
            d = depth(driver[b])
            end = netname.get(b) or flatname.get(b) or out_name(c) or name
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
ranked = sorted(per.items(), key=lambda kv: -kv[1][0][0])
for inst, (d, end) in ranked:
    print(f"depth: {inst} {d[0]} LUT (+{d[1]} MUXF, +{d[2]} CARRY), {d[3]} -> {end}")
if not ranked:
    sys.exit("depth.py: no combinational path between sequential elements in the netlist")
if limit is not None:
    print(f"depth limit: {limit} LUT levels ({basis})")
    failed = False
    for inst, (d, _) in ranked:
        if d[0] <= limit:
            continue
        known = next((lv for rx, lv in allow if rx.fullmatch(inst)), None)
        if known is not None and d[0] <= known:
            print(f"depth over the limit, allowed up to {known}: {inst} {d[0]} LUT levels > {limit}")
        else:
            print(f"depth over the limit: {inst} {d[0]} LUT levels > {limit}")
            failed = True
    if failed:
        sys.exit(1)
    rest = [(inst, d[0]) for inst, (d, _) in ranked if d[0] <= limit]
    print(f"depth within the limit: deepest {rest[0][1]} LUT levels ({rest[0][0]}) <= {limit}"
          + (", the allowed instances aside" if len(rest) < len(ranked) else ""))
