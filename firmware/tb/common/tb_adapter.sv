// One adapter under test with its host: memchan_top, the host memory model, an AXI4-Lite
// master for BAR0 and an AXI4 burst master for BAR2 (both with random stalls), plus tasks
// the benches call: reg_write, reg_read, win_store (32-bit words at a network address),
// win_drain (wait for every BAR2 write response).
`default_nettype none

module tb_adapter #(
  parameter int SERIAL = 1,
  parameter int STALL  = 30,
  parameter int PAGES  = memchan_regs_pkg::MC_BOARD_PAGES,
  parameter bit VHUB   = 1'b1,
  parameter bit SERIALIZE = 1'b1,
  parameter bit CLOCK_SYNC = 1'b1,
  parameter int unsigned BUILD_GIT = 0,    // the build stamp the adapter reports (0: none)
  parameter int unsigned BUILD_TIME = 0
) (
  input  wire logic        clk,
  input  wire logic        rst_n,
  output logic             m_link_tvalid,
  output logic [63:0]      m_link_tdata,
  output logic             m_link_tlast,
  input  wire logic        m_link_tready,
  input  wire logic        s_link_tvalid,
  input  wire logic [63:0] s_link_tdata,
  input  wire logic        s_link_tlast,
  output logic             s_link_tready,
  output logic [4:0]       irq
);
  localparam int WIN_AW = $clog2(PAGES) + $clog2(memchan_regs_pkg::MC_BOARD_PAGE_SIZE);

  // BAR0
  logic [memchan_regs_pkg::MC_BAR0_AW-1:0] l_awaddr, l_araddr;
  logic        l_awvalid, l_awready, l_wvalid, l_wready, l_bvalid, l_bready;
  logic        l_arvalid, l_arready, l_rvalid, l_rready;
  logic [31:0] l_wdata, l_rdata;
  logic [1:0]  l_bresp, l_rresp;
  // BAR2
  logic [3:0]  w_awid, w_bid;
  logic [WIN_AW-1:0] w_awaddr;
  logic [7:0]  w_awlen, w_wstrb;
  logic        w_awvalid, w_awready, w_wvalid, w_wready, w_wlast, w_bvalid, w_bready;
  logic [63:0] w_wdata;
  logic [1:0]  w_bresp;
  // host memory
  logic [63:0] h_awaddr, h_wdata;
  logic [7:0]  h_awlen, h_wstrb;
  logic [2:0]  h_awsize;
  logic [1:0]  h_awburst, h_bresp;
  logic        h_awvalid, h_awready, h_wvalid, h_wready, h_wlast, h_bvalid, h_bready;
  logic [63:0] h_araddr, h_rdata;
  logic [7:0]  h_arlen;
  logic [2:0]  h_arsize;
  logic [1:0]  h_arburst, h_rresp;
  logic        h_arvalid, h_arready, h_rlast, h_rvalid, h_rready;

  memchan_top #(.PAGES(PAGES), .VHUB(VHUB), .SERIALIZE(SERIALIZE), .CLOCK_SYNC(CLOCK_SYNC), .BUILD_GIT(BUILD_GIT),
                .BUILD_TIME(BUILD_TIME)) dut (
    .clk_i(clk), .rst_ni(rst_n), .serial_i(32'(SERIAL)),
    .s_axil_awaddr(l_awaddr), .s_axil_awvalid(l_awvalid), .s_axil_awready(l_awready),
    .s_axil_wdata(l_wdata), .s_axil_wstrb(4'hF), .s_axil_wvalid(l_wvalid),
    .s_axil_wready(l_wready), .s_axil_bresp(l_bresp), .s_axil_bvalid(l_bvalid),
    .s_axil_bready(l_bready), .s_axil_araddr(l_araddr), .s_axil_arvalid(l_arvalid),
    .s_axil_arready(l_arready), .s_axil_rdata(l_rdata), .s_axil_rresp(l_rresp),
    .s_axil_rvalid(l_rvalid), .s_axil_rready(l_rready),
    .s_axi_awid(w_awid), .s_axi_awaddr(w_awaddr), .s_axi_awlen(w_awlen),
    .s_axi_awvalid(w_awvalid), .s_axi_awready(w_awready), .s_axi_wdata(w_wdata),
    .s_axi_wstrb(w_wstrb), .s_axi_wlast(w_wlast), .s_axi_wvalid(w_wvalid),
    .s_axi_wready(w_wready), .s_axi_bid(w_bid), .s_axi_bresp(w_bresp),
    .s_axi_bvalid(w_bvalid), .s_axi_bready(w_bready),
    .m_axi_awaddr(h_awaddr), .m_axi_awlen(h_awlen), .m_axi_awsize(h_awsize),
    .m_axi_awburst(h_awburst), .m_axi_awvalid(h_awvalid), .m_axi_awready(h_awready),
    .m_axi_wdata(h_wdata), .m_axi_wstrb(h_wstrb), .m_axi_wlast(h_wlast),
    .m_axi_wvalid(h_wvalid), .m_axi_wready(h_wready), .m_axi_bresp(h_bresp),
    .m_axi_bvalid(h_bvalid), .m_axi_bready(h_bready),
    .m_axi_araddr(h_araddr), .m_axi_arlen(h_arlen), .m_axi_arsize(h_arsize),
    .m_axi_arburst(h_arburst), .m_axi_arvalid(h_arvalid), .m_axi_arready(h_arready),
    .m_axi_rdata(h_rdata), .m_axi_rresp(h_rresp), .m_axi_rlast(h_rlast),
    .m_axi_rvalid(h_rvalid), .m_axi_rready(h_rready),
    .irq_o(irq),
    .m_link_tvalid, .m_link_tdata, .m_link_tlast, .m_link_tready,
    .s_link_tvalid, .s_link_tdata, .s_link_tlast, .s_link_tready);

  tb_host_mem #(.STALL(STALL)) host (
    .clk, .rst_n,
    .awaddr(h_awaddr), .awlen(h_awlen), .awsize(h_awsize), .awburst(h_awburst),
    .awvalid(h_awvalid), .awready(h_awready), .wdata(h_wdata), .wstrb(h_wstrb),
    .wlast(h_wlast), .wvalid(h_wvalid), .wready(h_wready), .bresp(h_bresp),
    .bvalid(h_bvalid), .bready(h_bready),
    .araddr(h_araddr), .arlen(h_arlen), .arsize(h_arsize), .arburst(h_arburst),
    .arvalid(h_arvalid), .arready(h_arready), .rdata(h_rdata), .rresp(h_rresp),
    .rlast(h_rlast), .rvalid(h_rvalid), .rready(h_rready));

  int stall_pct;
  initial stall_pct = STALL;

  // ---------------- AXI4-Lite master (one operation at a time) ----------------
  bit          op_go, op_wr, op_done;
  logic [memchan_regs_pkg::MC_BAR0_AW-1:0] op_addr;
  logic [31:0] op_data, op_rdata;
  bit          aw_ok, w_ok;
  bit          issued;

  always @(posedge clk) begin
    if (!rst_n) begin
      l_awvalid <= 0; l_wvalid <= 0; l_arvalid <= 0; l_bready <= 0; l_rready <= 0;
      op_done <= 0; aw_ok = 0; w_ok = 0; issued = 0;
    end else begin
      if (l_awvalid && l_awready) begin l_awvalid <= 0; aw_ok = 1; end
      if (l_wvalid && l_wready) begin l_wvalid <= 0; w_ok = 1; end
      if (l_arvalid && l_arready) l_arvalid <= 0;
      if (l_bvalid && l_bready) begin
        if (l_bresp != 2'b00) $fatal(1, "BAR0 write error response");
        op_done <= 1; aw_ok = 0; w_ok = 0;
      end
      if (l_rvalid && l_rready) begin
        op_rdata <= l_rdata;
        op_done <= 1;
      end
      if (!op_go) issued = 0;
      if (op_go && !op_done && !issued) begin
        issued = 1;
        if (op_wr) begin
          l_awaddr <= op_addr; l_wdata <= op_data; l_awvalid <= 1; l_wvalid <= 1;
        end else begin
          l_araddr <= op_addr; l_arvalid <= 1;
        end
      end
      l_bready <= op_go && op_wr && ($urandom_range(0, 99) >= stall_pct);
      l_rready <= op_go && !op_wr && ($urandom_range(0, 99) >= stall_pct);
      if (op_done) begin l_bready <= 0; l_rready <= 0; end
    end
  end

  task automatic reg_write(input int addr, input logic [31:0] data);
    op_addr = 18'(addr); op_data = data; op_wr = 1; op_done = 0; op_go = 1;
    wait (op_done == 1);
    @(posedge clk);
    op_go = 0; op_done = 0;
    @(posedge clk);
  endtask

  task automatic reg_read(input int addr, output logic [31:0] data);
    op_addr = 18'(addr); op_wr = 0; op_done = 0; op_go = 1;
    wait (op_done == 1);
    @(posedge clk);
    data = op_rdata;
    op_go = 0; op_done = 0;
    @(posedge clk);
  endtask

  // ---------------- AXI4 burst master for BAR2 ----------------
  logic [WIN_AW-1:0] awq_addr [$];
  int                awq_len [$];
  logic [72:0]       wq [$];       // {last, strb, data}
  int                b_expect, b_seen;
  int                max_burst;    // beats per burst (1..256)
  longint            cycle;
  longint            first_w_cycle [$];   // cycle of each burst's first W handshake

  initial begin b_expect = 0; b_seen = 0; max_burst = 32; cycle = 0; end

  always @(posedge clk) begin
    if (!rst_n) begin
      w_awvalid <= 0; w_wvalid <= 0; w_bready <= 0; w_awid <= 0;
    end else begin
      cycle++;
      if (!w_awvalid || w_awready) begin
        if (awq_addr.size() > 0 && $urandom_range(0, 99) >= stall_pct) begin
          logic [WIN_AW-1:0] na; int nl;
          na = awq_addr.pop_front(); nl = awq_len.pop_front();
          w_awvalid <= 1; w_awaddr <= na; w_awlen <= 8'(nl - 1);
          w_awid <= w_awid + 1'b1;
        end else w_awvalid <= 0;
      end
      if (!w_wvalid || w_wready) begin
        if (wq.size() > 0 && $urandom_range(0, 99) >= stall_pct) begin
          logic [72:0] nw;
          nw = wq.pop_front();
          w_wvalid <= 1; {w_wlast, w_wstrb, w_wdata} <= nw;
        end else w_wvalid <= 0;
      end
      if (w_bvalid && w_bready) begin
        if (w_bresp != 2'b00) $fatal(1, "BAR2 write error response");
        b_seen++;
      end
      w_bready <= $urandom_range(0, 99) >= stall_pct;
    end
  end

  bit w_first;
  initial w_first = 1;
  always @(posedge clk) begin
    if (rst_n && w_wvalid && w_wready) begin
      if (w_first) first_w_cycle.push_back(cycle);
      w_first = w_wlast;
    end
  end

  // Store 32-bit words dw[0..] at network byte address addr (4-byte aligned), as the CPU's
  // write-combining would: bursts of up to max_burst beats, never across a 4 KiB boundary.
  task automatic win_store(input longint addr, input logic [31:0] dw [$]);
    int i;
    i = 0;
    while (i < dw.size()) begin
      longint a; int beats; logic [63:0] d; logic [7:0] s;
      a = addr + 4 * i;
      beats = 0;
      awq_len.push_back(0);                   // placeholder, fixed below
      awq_addr.push_back(WIN_AW'(a & ~longint'(7)));
      while (i < dw.size() && beats < max_burst) begin
        a = addr + 4 * i;
        d = '0; s = '0;
        if (a[2] == 1'b0) begin
          d[31:0] = dw[i]; s[3:0] = 4'hF; i++;
          if (i < dw.size()) begin d[63:32] = dw[i]; s[7:4] = 4'hF; i++; end
        end else begin
          d[63:32] = dw[i]; s[7:4] = 4'hF; i++;
        end
        beats++;
        wq.push_back({1'b0, s, d});
        if (((addr + 4 * i) & 'hFFF) == 0) break;
      end
      wq[wq.size() - 1][72] = 1'b1;
      awq_len[awq_len.size() - 1] = beats;
      b_expect++;
    end
  endtask

  // one raw beat with any strobe pattern (for partial-lane tests)
  task automatic win_beat(input longint addr, input logic [63:0] d, input logic [7:0] s);
    awq_len.push_back(1);
    awq_addr.push_back(WIN_AW'(addr & ~longint'(7)));
    wq.push_back({1'b1, s, d});
    b_expect++;
  endtask

  task automatic win_drain();
    while (!(b_seen == b_expect && wq.size() == 0 && awq_addr.size() == 0)) @(posedge clk);
    @(posedge clk);
  endtask

  // ---------------- server: one operation handed over by variables ----------------
  // (tb_hub_net addresses its adapters by a run-time number; Verilator cannot call a task of
  // an instance inside a generate loop from there, so the adapter runs it itself)
  bit          srv_go, srv_done;
  int          srv_kind, srv_addr;     // 0 reg_write, 1 reg_read, 2 win_store, 3 win_drain
  logic [31:0] srv_data;
  longint      srv_net;
  logic [31:0] srv_dw [$];

  initial begin
    srv_go = 0; srv_done = 0;
    forever begin
      wait (srv_go);
      unique case (srv_kind)
        0: reg_write(srv_addr, srv_data);
        1: reg_read(srv_addr, srv_data);
        2: win_store(srv_net, srv_dw);
        3: win_drain();
        default: ;
      endcase
      srv_go = 0;
      srv_done = 1;
    end
  end
endmodule : tb_adapter

`default_nettype wire
