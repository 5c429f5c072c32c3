"""The RTL package memchan_regs_pkg.sv: constants, widths and counts, one packed struct per register
(reggen's *_reg_pkg.sv manner) and the register index of the register block."""
from .model import HEADER_NOTE, bits, sv_name



def clog2(n):
    return max(1, (n - 1).bit_length())


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
    out += types(rm, {name for _, items in c.sections for name, *_ in items})
    out += word_functions(rm)
    out += render_sv_index(rm)
    out += ["endpackage : memchan_regs_pkg", "", "`default_nettype wire"]
    return "\n".join(out) + "\n"


def types(rm, names):
    """Widths, counts and one packed struct per register (SV only), in reggen's manner: fields most
    significant first, reserved bits left out; a register without fields is a 32-bit word."""
    meta = rm["meta"]
    out = ["  // Widths and counts: a register word, the address bits of the register block and of BAR0, a node",
           "  // ID's bit in a node mask and a group's in the multicast group table, the words of a multi-word",
           "  // register, each field and each register's defined bits",
           "  localparam int MC_REG_W = 32;",
           f"  localparam int MC_REG_BLOCK_AW = {clog2(meta['reg_block_size'])};",
           f"  localparam int MC_BAR0_AW = {clog2(meta['bar0_size'])};"]
    new = ["REG_W", "REG_BLOCK_AW", "BAR0_AW"]
    # a node ID's bit in a node mask and a group's in the group table, a group mask and the table
    out += [f"  localparam int MC_NODE_IDX_W = {clog2(meta['max_nodes'])};",
            f"  localparam int MC_GROUP_IDX_W = {clog2(meta['multicast_groups'])};",
            f"  typedef logic [{meta['multicast_groups'] - 1}:0] mc_group_mask_t;    // bit g: multicast group g",
            f"  typedef logic [{meta['multicast_groups'] * meta['max_nodes'] - 1}:0] mc_group_table_t;   "
            f"// group g's node mask at bits {meta['max_nodes']}g+{meta['max_nodes'] - 1}:{meta['max_nodes']}g (MCAST_GROUP_BASE)"]
    groups = [r for r in rm["register"] if r["name"] == "MCAST_GROUP_BASE"]
    if not groups or groups[0]["count"] != meta["multicast_groups"] or groups[0]["stride"] * 8 != meta["max_nodes"]:
        raise SystemExit("MCAST_GROUP_BASE must hold one max_nodes-bit mask per multicast group")
    new += ["NODE_IDX_W", "GROUP_IDX_W"]
    for r in rm["register"]:
        if r.get("count", 1) > 1:
            out.append(f"  localparam int MC_{r['name']}_COUNT = {r['count']};")
            new.append(f"{r['name']}_COUNT")
    for r in rm["register"]:
        fields = r.get("field", [])
        for f in fields:
            out.append(f"  localparam int MC_{r['name']}_{f['name']}_W = {bits(f['bits'])[1]};")
            new.append(f"{r['name']}_{f['name']}_W")
        out.append(f"  localparam int MC_{r['name']}_W = {sum(bits(f['bits'])[1] for f in fields) or 32};")
        new.append(f"{r['name']}_W")
    for n in new:
        if n in names:
            raise SystemExit(f"generated name MC_{n} defined twice")
    out += ["", "  // Register structs (mc_<register>_t)"]
    for r in rm["register"]:
        t = f"mc_{r['name'].lower()}_t"
        fields = sorted(r.get("field", []), key=lambda f: -bits(f["bits"])[0])
        if not fields:
            out.append(f"  typedef logic [31:0] {t};")
            continue
        out.append("  typedef struct packed {")
        for f in fields:
            lsb, w = bits(f["bits"])
            vec = f"[{w - 1}:0] " if w > 1 else ""
            out.append(f"    logic {vec}{sv_name(f['name'])};   // bits {f['bits']}")
        out.append(f"  }} {t};")
    out.append("")
    return out


def word_functions(rm):
    """mc_<register>_word(): a register struct's bits as the 32-bit word software sees (fields in
    place). The argument is the struct as a vector: yosys 0.23 cannot take a struct-typed argument."""
    out = ["  // A register struct as its 32-bit word (fields at their bits, the rest 0)"]
    for r in rm["register"]:
        if not r.get("field"):
            continue
        fn = f"mc_{r['name'].lower()}_word"
        fields = sorted(r["field"], key=lambda f: bits(f["bits"])[0])  # least significant first
        width = sum(bits(f["bits"])[1] for f in fields)
        out += [f"  function automatic logic [31:0] {fn}(input logic [{width - 1}:0] v);", f"    {fn} = '0;"]
        at = 0
        for f in fields:
            lsb, w = bits(f["bits"])
            word = f"[{lsb + w - 1}:{lsb}]" if w > 1 else f"[{lsb}]"
            vec = f"[{at + w - 1}:{at}]" if w > 1 else f"[{at}]"
            out.append(f"    {fn}{word} = v{vec};   // {sv_name(f['name'])}")
            at += w
        out.append("  endfunction")
    out.append("")
    return out
