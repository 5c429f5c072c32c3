"""The RTL package memchan_regs_pkg.sv: constants and the register index of the register block."""
from .model import HEADER_NOTE


REG_INDEX_W = 7   # the register block's read multiplexer: index 0 = unmapped, then one per register


def render_sv_index(rm):
    """The RTL register block's register index: MC_RI_<NAME> and mc_reg_index(offset), the decode
    of a BAR0 register offset (below 0x1000) into it. Multi-word registers take the top indexes."""
    scalars = [r for r in rm["register"] if r.get("count", 1) == 1]
    arrays = [r for r in rm["register"] if r.get("count", 1) > 1]
    top = 1 << REG_INDEX_W
    if len(arrays) != 1 or arrays[0]["count"] & (arrays[0]["count"] - 1):
        raise SystemExit("the register index supports one multi-word register with a power-of-two count")
    arr = arrays[0]
    base = top - arr["count"]
    if len(scalars) >= base:
        raise SystemExit(f"{len(scalars)} registers do not fit below register index {base}")
    w = REG_INDEX_W
    out = ["  // Register index of the RTL register block (SV only): 0 unmapped, one per register,",
           f"  // {arr['name']} words at MC_RI_{arr['name']}..{top - 1}", f"  localparam int MC_RI_W = {w};",
           f"  localparam logic [{w - 1}:0] MC_RI_NONE = {w}'d0;",
           f"  localparam logic [{w - 1}:0] MC_RI_{arr['name']} = {w}'d{base};"]
    for i, r in enumerate(scalars, start=1):
        out.append(f"  localparam logic [{w - 1}:0] MC_RI_{r['name']} = {w}'d{i};")
    out += ["", "  // register index of a BAR0 offset below 0x1000 (MC_RI_NONE when unmapped)",
            f"  function automatic logic [{w - 1}:0] mc_reg_index(input logic [11:0] off);",
            "    mc_reg_index = MC_RI_NONE;", "    unique case (off)"]
    for r in scalars:
        out.append(f"      12'(MC_REG_{r['name']}): mc_reg_index = MC_RI_{r['name']};")
    out += ["      default:", f"        for (int i = 0; i < {arr['count']}; i++)",
            f"          if (off == 12'(MC_REG_{arr['name']} + {arr['stride']} * i))",
            f"            mc_reg_index = MC_RI_{arr['name']} + {w}'(i);", "    endcase", "  endfunction", ""]
    return out


def package(c, rm):
    out = [f"// {HEADER_NOTE}", "`default_nettype none", "", "package memchan_regs_pkg;", ""]

    def localparam(name, value, width, comment):
        w = 64 if width > 32 or value >= 1 << 32 else 32
        return f"  localparam logic [{w - 1}:0] MC_{name} = {w}'h{value:X};" + (f"  // {comment}" if comment else "")
    out += c.render(lambda title: f"  // {title}", localparam)
    out += render_sv_index(rm)
    out += ["endpackage : memchan_regs_pkg", "", "`default_nettype wire"]
    return "\n".join(out) + "\n"
