"""The RTL register block memchan_reg_top.sv (one module): the storage of every software-writable
register with its reset value, the address decode of writes and of reads, and the read multiplexer.
Registers hardware keeps (counters, status) come in as typed inputs; what hardware does with a
register (pulses, W1C events, counters) stays in the hand-written memchan_axil_regs.sv."""
from .model import HEADER_NOTE, bits, rtl_kind, sv_name
from .render_sv import clog2

PKG = "memchan_regs_pkg"


class Reg:
    """One register as the block sees it: its kind, fields (lsb, width, name, field) and ports."""

    def __init__(self, r):
        self.r = r
        self.name = r["name"]
        self.n = r["name"].lower()
        self.kind = rtl_kind(r)
        self.count = r.get("count", 1)
        self.t = f"{PKG}::mc_{self.n}_t"
        self.fields = [(*bits(f["bits"]), sv_name(f["name"]), f) for f in r.get("field", [])]
        self.stored = [x for x in self.fields if not x[3].get("pulse") and not x[3].get("hw")]
        if not self.fields:
            self.stored = [(0, 32, None, {})]

    def q(self, fname):
        return f"{self.n}_{fname.rstrip('_')}_q" if fname else f"{self.n}_q"

    def reset_of(self, lsb, w):
        return f"{w}'h{(self.r['reset'] >> lsb) & ((1 << w) - 1):X}"


def ports(regs):
    """(declaration, comment) of the ports of every register."""
    out = []
    for g in regs:
        if g.count > 1:  # word i at [32 * i +: 32] (Icarus 11 has no packed arrays of a typedef in ports)
            out.append((f"output logic [{PKG}::MC_{g.name}_COUNT*{PKG}::MC_REG_W-1:0] {g.n}_o", ""))
        elif g.kind in ("storage", "w1c"):
            out.append((f"output {g.t} {g.n}_o", ""))
        if g.kind == "w1c":
            out.append((f"input  wire {g.t} {g.n}_set_i", "bits hardware sets"))
        if g.kind == "ext":
            out.append((f"output logic {g.n}_we_o", "a write: the data is wdata_i"))
        if g.kind in ("hw", "ext") or any(f.get("hw") for *_, f in g.fields):
            out.append((f"input  wire {g.t} {g.n}_i", ""))
        if g.r.get("rtl_hw_write"):
            out += [(f"input  wire logic {g.n}_de_i", f"hardware loads {g.name} from {g.n}_d_i"),
                    (f"input  wire {g.t} {g.n}_d_i", "")]
        if g.r.get("rtl_read_strobe"):
            out.append((f"output logic {g.n}_re_o", f"{g.name} is read (the cycle rdata_o holds it)"))
    return out


def word_bits(lsb, w):
    return f"[{lsb + w - 1}:{lsb}]" if w > 1 else f"[{lsb}]"


def storage(g, block_aw):
    """Flops of the stored fields, their reset values, their write and (W1C, hardware) updates."""
    out = [f"  // {g.name} ({g.r['access']}{', hardware loads it too' if g.r.get('rtl_hw_write') else ''})"]
    if g.count > 1:
        base, stride = g.r["offset"], g.r["stride"]
        iw = clog2(g.count)
        out += [f"  logic [31:0] {g.q(None)} [{g.count}];",
                f"  logic {g.n}_we;",
                f"  logic [{iw - 1}:0] {g.n}_widx;",
                f"  assign {g.n}_we = wr_reg && woff >= {block_aw}'h{base:X} && "
                f"woff < {block_aw}'h{base + stride * g.count:X} && woff[{clog2(stride) - 1}:0] == '0;",
                f"  assign {g.n}_widx = {iw}'((woff - {block_aw}'h{base:X}) >> {clog2(stride)});",
                "  always_ff @(posedge clk_i or negedge rst_ni) begin",
                "    if (!rst_ni) begin",
                f"      for (int i = 0; i < {g.count}; i++) {g.q(None)}[i] <= 32'h{g.r['reset']:X};",
                f"    end else if ({g.n}_we) begin",
                f"      {g.q(None)}[{g.n}_widx] <= wdata_i;",
                "    end", "  end",
                f"  for (genvar i = 0; i < {g.count}; i++) begin : g_{g.n}",
                f"    assign {g.n}_o[32 * i +: 32] = {g.q(None)}[i];", "  end", ""]
        return out
    for lsb, w, fname, _ in g.stored:
        out.append(f"  logic {'[%d:0] ' % (w - 1) if w > 1 else ''}{g.q(fname)};")
    if not g.stored:
        out += outputs(g)
        return out
    out += ["  always_ff @(posedge clk_i or negedge rst_ni) begin", "    if (!rst_ni) begin"]
    out += [f"      {g.q(fname)} <= {g.reset_of(lsb, w)};" for lsb, w, fname, _ in g.stored]
    if g.kind == "w1c":
        out.append("    end else begin")
        for lsb, w, fname, _ in g.stored:
            src = f"{g.n}_set_i.{fname}" if fname else f"{g.n}_set_i"
            out.append(f"      {g.q(fname)} <= ({g.q(fname)} & ~(we_{g.n} ? wdata_i{word_bits(lsb, w)} : '0)) | {src};")
        out += ["    end", "  end"]
    else:
        out.append(f"    end else if (we_{g.n}) begin")
        alone = [(lsb, fname) for lsb, w, fname, f in g.fields if f.get("write_alone")]

        def plain(indent):
            res = []
            for lsb, w, fname, f in g.stored:
                v = f"wdata_i{word_bits(lsb, w)}"
                if f.get("rtl_limit"):
                    v = f"{v} & {w}'({f['rtl_limit']} - 1)"
                res.append(f"{indent}{g.q(fname)} <= {v};")
            return res
        if alone:
            (alsb, aname), = alone
            out.append(f"      if (wdata_i[{alsb}]) begin")
            out += [f"        {g.q(fname)} <= {'1' if fname == aname else w}'{'b1' if fname == aname else 'h0'};"
                    for lsb, w, fname, _ in g.stored]
            out.append("      end else begin")
            out += plain("        ")
            out.append("      end")
        else:
            out += plain("      ")
        if g.r.get("rtl_hw_write"):
            out.append(f"    end else if ({g.n}_de_i) begin")
            out += [f"      {g.q(fname)} <= {g.n}_d_i.{fname};" for lsb, w, fname, _ in g.stored]
        out += ["    end", "  end"]
    return out + outputs(g)


def outputs(g):
    """The register's output: stored fields, write pulses, zero for the hardware's fields."""
    out = []
    for lsb, w, fname, f in g.fields or [(0, 32, None, {})]:
        dst = f"{g.n}_o.{fname}" if fname else f"{g.n}_o"
        if f.get("pulse"):
            out.append(f"  assign {dst} = we_{g.n} && wdata_i[{lsb}];   // pulse")
        elif f.get("hw"):
            out.append(f"  assign {dst} = '0;   // hardware's: {g.n}_i")
        else:
            out.append(f"  assign {dst} = {g.q(fname)};")
    out.append("")
    return out


def read_value(g):
    """The statements that put register g on rdata_o."""
    if g.kind == "const":
        return [f"rdata_o = MC_{g.r['rtl_value']};" if "rtl_value" in g.r else f"rdata_o = MC_REG_{g.name}_RESET;"]
    if g.kind == "param":
        return [f"rdata_o = 32'({g.r['rtl_param']});"]
    if not g.fields:
        return [f"rdata_o = {g.n}_i;" if g.kind in ("hw", "ext") else f"rdata_o = {g.q(None)};"]
    out = []
    for lsb, w, fname, f in g.fields:
        if f.get("pulse"):
            continue
        src = f"{g.n}_i.{fname}" if g.kind in ("hw", "ext") or f.get("hw") else g.q(fname)
        out.append(f"rdata_o{word_bits(lsb, w)} = {src};")
    return out


def module(rm):
    meta = rm["meta"]
    block_aw = clog2(meta["reg_block_size"])
    bar_aw = clog2(meta["bar0_size"])
    regs = [Reg(r) for r in rm["register"]]
    arrays = [g for g in regs if g.count > 1]
    out = [f"// {HEADER_NOTE}",
           "// The register block of BAR0 (offsets below MC_REG_BLOCK_SIZE): every software-writable register's",
           "// storage and reset value, the address decode of writes, and of reads (the register index, registered",
           "// at rd_i, and the multiplexer after it: rdata_o holds the register the cycle after rd_i). Registers",
           "// hardware keeps come in as typed inputs; memchan_axil_regs.sv adds the side effects.",
           "`default_nettype none", "",
           "module memchan_reg_top #(",
           f"  parameter int unsigned PAGES     = {PKG}::MC_BOARD_PAGES,",
           f"  parameter int unsigned PAGE_SIZE = {PKG}::MC_BOARD_PAGE_SIZE,",
           "  // the build's stamp (BUILD_GIT, BUILD_TIME): 0 unless a bitstream build sets it",
           "  parameter int unsigned BUILD_GIT  = 0,",
           "  parameter int unsigned BUILD_TIME = 0",
           ") (",
           "  input  wire logic clk_i,",
           "  input  wire logic rst_ni,",
           "  // a BAR0 write (AW and W accepted) and a BAR0 read (AR accepted) this cycle",
           "  input  wire logic wr_i,",
           f"  input  wire logic [{PKG}::MC_BAR0_AW-1:0] waddr_i,",
           f"  input  wire logic [{PKG}::MC_REG_W-1:0] wdata_i,",
           "  input  wire logic rd_i,",
           f"  input  wire logic [{PKG}::MC_BAR0_AW-1:0] raddr_i,",
           f"  output logic [{PKG}::MC_REG_W-1:0] rdata_o,"]
    decls = ports(regs)
    for i, (d, comment) in enumerate(decls):
        out.append(f"  {d}{',' if i < len(decls) - 1 else ''}" + (f"   // {comment}" if comment else ""))
    out += [");", f"  import {PKG}::*;", "",
            "  // ---------------- write decode ----------------",
            "  logic wr_reg;",
            f"  logic [{block_aw - 1}:0] woff;",
            f"  assign wr_reg = wr_i && waddr_i[{bar_aw - 1}:{block_aw}] == '0;",
            f"  assign woff = waddr_i[{block_aw - 1}:0];"]
    for g in regs:
        if g.count == 1 and g.kind in ("storage", "w1c", "ext"):
            out += [f"  logic we_{g.n};", f"  assign we_{g.n} = wr_reg && woff == {block_aw}'h{g.r['offset']:X};"]
    out += ["", "  // ---------------- storage ----------------"]
    for g in regs:
        if g.kind in ("storage", "w1c"):
            out += storage(g, block_aw)
        elif g.kind == "ext":
            out += [f"  assign {g.n}_we_o = we_{g.n};"]
    out += ["", "  // ---------------- read decode ----------------",
            "  logic [MC_RI_W-1:0] ridx_q;",
            "  logic rd_q;",
            "  always_ff @(posedge clk_i or negedge rst_ni) begin",
            "    if (!rst_ni) begin", "      ridx_q <= MC_RI_NONE;", "      rd_q <= 1'b0;", "    end else begin",
            "      rd_q <= rd_i;",
            f"      if (rd_i) ridx_q <= raddr_i[{bar_aw - 1}:{block_aw}] == '0 ? mc_reg_index(raddr_i[{block_aw - 1}:0]) : MC_RI_NONE;",
            "    end", "  end"]
    for g in regs:
        if g.r.get("rtl_read_strobe"):
            out.append(f"  assign {g.n}_re_o = rd_q && ridx_q == MC_RI_{g.name};")
    out += ["", "  always_comb begin", "    rdata_o = '0;"]
    (arr,) = arrays
    iw = clog2(arr.count)
    out += [f"    if (ridx_q >= MC_RI_{arr.name}) begin",
            f"      rdata_o = {arr.q(None)}[{iw}'(ridx_q - MC_RI_{arr.name})];",
            "    end else begin", "      unique case (ridx_q)"]
    for g in regs:
        if g.count > 1:
            continue
        stmts = read_value(g)
        if len(stmts) == 1:
            out.append(f"        MC_RI_{g.name}: {stmts[0]}")
        else:
            out.append(f"        MC_RI_{g.name}: begin")
            out += [f"          {s}" for s in stmts]
            out.append("        end")
    out += ["        default: rdata_o = '0;", "      endcase", "    end", "  end"]
    unused = [f"{g.n}_i.{fname}" for g in regs for lsb, w, fname, f in g.fields
              if g.kind not in ("hw", "ext") and not f.get("hw") and
              (any(x[3].get("hw") for x in g.fields))]
    if unused:
        out += ["", "  // fields of the hardware's input that the block keeps itself", "  logic unused;",
                f"  assign unused = ^{{{', '.join(unused)}}};"]
    out += ["endmodule : memchan_reg_top", "", "`default_nettype wire"]
    return "\n".join(out) + "\n"
