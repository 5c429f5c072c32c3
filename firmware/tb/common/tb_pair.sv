// Two adapters back to back (virtual hub: a cable per direction, random stalls, optional bit
// flips / cut), plus the scoreboard: a model of both PCTs that computes, for every store,
// which 32-bit words must land at which host address of which node; the host logs are then
// compared per (sender, receiver) pair, word by word, in order (single-sender rule).
// Every stored 32-bit value is {sender (4 bits), serial number (28 bits)}, so each logged
// word tells who sent it.
`default_nettype none

module tb_pair #(
  parameter int STALL = 30,
  parameter bit VHUB  = 1'b1,
  parameter bit SERIALIZE = 1'b1,
  parameter bit CLOCK_SYNC = 1'b1,
  parameter int RST_STAGGER = 0,       // cycles node 1 leaves reset after node 0 (clock bench)
  // the U50 shell's link between the adapters (tb_shell_link), node 1 and both links on clocks
  // of their own (needs --timescale 1ns/1ps): node 0's core at the bench's clk, node 1's core
  // 137 ppm slower under a spread-spectrum sweep (0 to -5000 ppm), the link clocks at 156.25 MHz
  // 100 ppm apart, with jitter
  parameter bit SHELL = 1'b0,
  parameter bit SHELL_GRAY = 1'b1,     // 0: the shell's FIFOs cross binary pointers
  parameter int SHELL_HEADROOM_ADJ = 0 // below 0: the receive FIFOs' NFC headroom short (negative control)
) (
  input wire logic clk,
  input wire logic rst_n
);
  import memchan_regs_pkg::*;

  localparam int NP = 64;              // pages the benches use
  localparam int PS = 4096;

  logic        t0v, t0l, t0r, r0v, r0l, r0r, t1v, t1l, t1r, r1v, r1l, r1r;
  logic [63:0] t0d, r0d, t1d, r1d;
  logic [4:0]  irq0, irq1;

  // node 1 leaves reset RST_STAGGER cycles after node 0 (its clock starts later)
  int   rst_cyc;
  logic rst1_n;
  always @(posedge clk) rst_cyc <= rst_n ? rst_cyc + 1 : 0;
  assign rst1_n = rst_n && (rst_cyc >= RST_STAGGER);

  tb_adapter #(.SERIAL(11), .STALL(STALL), .VHUB(VHUB), .SERIALIZE(SERIALIZE),
               .CLOCK_SYNC(CLOCK_SYNC)) a0 (
    .clk, .rst_n,
    .m_link_tvalid(t0v), .m_link_tdata(t0d), .m_link_tlast(t0l), .m_link_tready(t0r),
    .s_link_tvalid(r0v), .s_link_tdata(r0d), .s_link_tlast(r0l), .s_link_tready(r0r), .irq(irq0));
  // node 1's core clock and the link clocks (the bench's clk everywhere without the shell)
  logic clk1, lclk0, lclk1;
  if (SHELL) begin : g_clocks
    logic c1 = 1'b0, l0 = 1'b0, l1 = 1'b0;
    realtime sweep;     // spread spectrum: a triangle of 0 .. -0.5 % over 20,000 cycles
    int unsigned n1 = 0;
    always begin
      n1++;
      sweep = 0.005 * ((n1 % 20000 < 10000) ? (n1 % 20000) : (20000 - n1 % 20000)) / 10000.0;
      #(2.0 * 1.000137 * (1.0 + sweep)) c1 = ~c1;
    end
    // the link clocks jitter by up to 40 ps an edge, so that their edges meet the cores' edges
    // at every distance (the synchronizers' metastability model needs edges that come close)
    always #(3.2 + 0.001 * ($urandom_range(80) - 40.0)) l0 = ~l0;
    always #(3.2 * 1.0001 + 0.001 * ($urandom_range(80) - 40.0)) l1 = ~l1;
    assign clk1 = c1;
    assign lclk0 = l0;
    assign lclk1 = l1;
  end else begin : g_one_clock
    assign clk1 = clk;
    assign lclk0 = clk;
    assign lclk1 = clk;
  end

  tb_adapter #(.SERIAL(22), .STALL(STALL), .VHUB(VHUB), .SERIALIZE(SERIALIZE),
               .CLOCK_SYNC(CLOCK_SYNC)) a1 (
    .clk(clk1), .rst_n(rst1_n),
    .m_link_tvalid(t1v), .m_link_tdata(t1d), .m_link_tlast(t1l), .m_link_tready(t1r),
    .s_link_tvalid(r1v), .s_link_tdata(r1d), .s_link_tlast(r1l), .s_link_tready(r1r), .irq(irq1));
  // the cables: a tb_link_chan per direction (stalls, bit flips, cut) in the sender's clock,
  // then, with the shell, its link from the sender's clock to the receiver's
  logic        s01v, s01l, s01r, s10v, s10l, s10r;
  logic [63:0] s01d, s10d;
  tb_link_chan #(.STALL(STALL)) c01 (
    .clk, .rst_n, .i_tvalid(t0v), .i_tdata(t0d), .i_tlast(t0l), .i_tready(t0r),
    .o_tvalid(s01v), .o_tdata(s01d), .o_tlast(s01l), .o_tready(s01r));
  tb_link_chan #(.STALL(STALL)) c10 (
    .clk(clk1), .rst_n(SHELL ? rst1_n : rst_n), .i_tvalid(t1v), .i_tdata(t1d), .i_tlast(t1l), .i_tready(t1r),
    .o_tvalid(s10v), .o_tdata(s10d), .o_tlast(s10l), .o_tready(s10r));
  // the shell links' flow control per direction (0: node 0 to 1): XOFFs taken, receive FIFO peak
  int shell_xoffs [2] = '{0, 0};
  int shell_fill_max [2] = '{0, 0};
  if (SHELL) begin : g_shell
    tb_shell_link #(.GRAY(SHELL_GRAY), .HEADROOM_ADJ(SHELL_HEADROOM_ADJ)) l01 (
      .src_clk(clk), .src_rst_n(rst_n), .src_lclk(lclk0), .dst_lclk(lclk1), .dst_clk(clk1),
      .dst_rst_n(rst1_n), .i_tvalid(s01v), .i_tdata(s01d), .i_tlast(s01l), .i_tready(s01r),
      .o_tvalid(r1v), .o_tdata(r1d), .o_tlast(r1l), .o_tready(r1r));
    tb_shell_link #(.GRAY(SHELL_GRAY), .HEADROOM_ADJ(SHELL_HEADROOM_ADJ)) l10 (
      .src_clk(clk1), .src_rst_n(rst1_n), .src_lclk(lclk1), .dst_lclk(lclk0), .dst_clk(clk),
      .dst_rst_n(rst_n), .i_tvalid(s10v), .i_tdata(s10d), .i_tlast(s10l), .i_tready(s10r),
      .o_tvalid(r0v), .o_tdata(r0d), .o_tlast(r0l), .o_tready(r0r));
    always @(posedge clk) begin
      shell_xoffs[0] = l01.xoffs; shell_xoffs[1] = l10.xoffs;
      shell_fill_max[0] = l01.fill_max; shell_fill_max[1] = l10.fill_max;
    end
  end else begin : g_cable
    assign {r1v, r1d, r1l, s01r} = {s01v, s01d, s01l, r1r};
    assign {r0v, r0d, r0l, s10r} = {s10v, s10d, s10l, r0r};
  end

  // ---------------- register access by node ----------------
  task automatic wr(input int n, input int addr, input logic [31:0] v);
    if (n == 0) a0.reg_write(addr, v); else a1.reg_write(addr, v);
  endtask
  task automatic rd(input int n, input int addr, output logic [31:0] v);
    if (n == 0) a0.reg_read(addr, v); else a1.reg_read(addr, v);
  endtask

  // ---------------- PCT model ----------------
  logic [31:0] txe [2][NP];
  logic [63:0] rxe [2][NP];
  logic [31:0] mcast [16];
  int          node_id [2];
  longint      rx_base [2];

  task automatic set_tx(input int n, input int page, input logic [31:0] e);
    txe[n][page] = e;
    wr(n, MC_TX_PCT_BASE + 4 * page, e);
  endtask
  task automatic set_rx(input int n, input int page, input logic [63:0] e);
    rxe[n][page] = e;
    wr(n, MC_RX_PCT_BASE + 8 * page, e[31:0]);
    wr(n, MC_RX_PCT_BASE + 8 * page + 4, e[63:32]);
  endtask
  task automatic set_mcast(input int g, input logic [31:0] m);
    mcast[g] = m;
    wr(0, MC_REG_MCAST_GROUP_BASE + 4 * g, m);
    wr(1, MC_REG_MCAST_GROUP_BASE + 4 * g, m);
  endtask

  // basic bring-up: manual node IDs 0/1, identity receive areas, enabled
  task automatic init(input bit retry);
    for (int n = 0; n < 2; n++) wr(n, MC_REG_NODE_ID, MC_NODE_ID_VALID_MASK | 32'(n));
    enable(retry);
  endtask

  // nodes 0 and 1 with their IDs set: identity receive areas, enabled; the model's PCTs empty
  task automatic enable(input bit retry);
    for (int n = 0; n < 2; n++) begin
      node_id[n] = n;
      rx_base[n] = 64'h10_0000_0000 * (n + 1);
      wr(n, MC_REG_RX_BASE_LO, rx_base[n][31:0]);
      wr(n, MC_REG_RX_BASE_HI, rx_base[n][63:32]);
      wr(n, MC_REG_CTRL, MC_CTRL_ENABLE_MASK | (retry ? MC_CTRL_RETRY_EN_MASK : 32'h0));
      for (int p = 0; p < NP; p++) begin txe[n][p] = 0; rxe[n][p] = 0; end
    end
    for (int g = 0; g < 16; g++) mcast[g] = 0;
  endtask

  // bring-up with node IDs from the link (with VHUB the virtual hub: node 0 orders and echoes,
  // node 1 is its spoke), then enable
  task automatic init_auto(input bit retry);
    logic [31:0] v;
    int t;
    for (int n = 0; n < 2; n++) begin
      wr(n, MC_REG_HEARTBEAT_PERIOD, 300);
      wr(n, MC_REG_NODE_ID, MC_NODE_ID_AUTO_MASK);
    end
    for (int n = 0; n < 2; n++) begin
      t = 0;
      do begin
        rd(n, MC_REG_NODE_ID, v);
        t++;
        if (t > 5000) $fatal(1, "tb_pair: node %0d got no node ID from the link (%h)", n, v);
      end while ((v & (MC_NODE_ID_VALID_MASK | MC_NODE_ID_ID_MASK)) != (MC_NODE_ID_VALID_MASK | 32'(n)));
      t = 0;
      do begin
        rd(n, MC_REG_LINK_STATUS, v);
        t++;
        if (t > 5000) $fatal(1, "tb_pair: node %0d link not up (%h)", n, v);
      end while ((v & MC_LINK_STATUS_UP_MASK) == 0);
    end
    enable(retry);
  endtask

  // does a packet from s for page reach r? (no hub: a packet for this node itself is
  // always delivered locally)
  function automatic bit routed(input int s, input int r, input int page);
    return tb_score_pkg::routed(txe[s][page], rxe[r][page], s, r, node_id[s], node_id[r], mcast);
  endfunction

  function automatic longint host_addr(input int r, input longint net);
    return tb_score_pkg::host_addr(rxe[r][int'(net / PS)], rx_base[r], net);
  endfunction

  // ---------------- traffic and expectations ----------------
  longint      exp_addr [2][2][$];    // [sender][receiver]
  logic [31:0] exp_val  [2][2][$];
  int          serial [2];
  int          tx_drop_exp [2];
  int          done_idx [2];          // log entries of each receiver already checked

  initial begin serial[0] = 1; serial[1] = 1; tx_drop_exp[0] = 0; tx_drop_exp[1] = 0;
                done_idx[0] = 0; done_idx[1] = 0; end

  // store n32 fresh words from sender s at network address net (4-byte aligned)
  task automatic store(input int s, input longint net, input int n32);
    logic [31:0] dw [$];
    longint last_word;
    dw.delete();
    last_word = -1;
    for (int i = 0; i < n32; i++) begin
      logic [31:0] v;
      longint a;
      int page;
      a = net + 4 * i;
      page = int'(a / PS);
      if (page >= NP) $fatal(1, "tb_pair: store beyond the modelled pages");
      // bit 24 set in every other value: a frame header's Q_FROM_LINK flag, which the frame
      // builder once cleared in every local-copy word, payload included (a 64-bit key lost it)
      v = {4'(s), 28'(serial[s])} | (serial[s][0] ? 32'h0100_0000 : 32'h0);
      serial[s] = serial[s] + 1;
      dw.push_back(v);
      for (int r = 0; r < 2; r++) begin
        if (routed(s, r, page)) begin
          exp_addr[s][r].push_back(host_addr(r, a));
          exp_val[s][r].push_back(v);
        end
      end
      if ((txe[s][page] & MC_TX_PCT_TX_EN_MASK) == 0 && (a / 8) != last_word) tx_drop_exp[s]++;
      last_word = a / 8;
    end
    if (s == 0) a0.win_store(net, dw); else a1.win_store(net, dw);
  endtask

  // wait until both transmit windows are drained, no host write happened for a while and
  // every frame sent has its link acknowledgement
  task automatic quiesce(input int idle_cycles);
    int q0, q1, still;
    a0.win_drain();
    a1.win_drain();
    still = 0;
    q0 = -1; q1 = -1;
    while (still < idle_cycles) begin
      @(posedge clk);
      // a go-back-N recovery may keep the link busy longer than idle_cycles without a host
      // write (link_errors seed 6: 31 frames resent several times): frames still awaiting
      // their link acknowledgement (or being discarded) are not quiet
      if (a0.host.log_addr.size() == q0 && a1.host.log_addr.size() == q1 &&
          a0.dut.u_ltx.unack_q == 0 && a1.dut.u_ltx.unack_q == 0) still++;
      else still = 0;
      q0 = a0.host.log_addr.size();
      q1 = a1.host.log_addr.size();
    end
  endtask

  // compare the host logs with the expectations. prefix_ok: a receiver may have stopped
  // early for a sender (discard after error); then the rest of that stream is dropped from
  // the expectations and the number of words lost is returned in lost[s][r].
  int lost [2][2];
  task automatic check(input bit prefix_ok);
    for (int r = 0; r < 2; r++) begin
      int k, n;
      longint la; logic [31:0] lv;
      n = (r == 0) ? a0.host.log_addr.size() : a1.host.log_addr.size();
      for (k = done_idx[r]; k < n; k++) begin
        int s;
        la = (r == 0) ? a0.host.log_addr[k] : a1.host.log_addr[k];
        lv = (r == 0) ? a0.host.log_val[k] : a1.host.log_val[k];
        s = int'(lv[31:28]);
        if (s > 1) $fatal(1, "node %0d: host write %h = %h from no sender", r, la, lv);
        tb_score_pkg::match_word(exp_addr[s][r].size(), exp_addr[s][r][0], exp_val[s][r][0], r,
                                 s, la, lv);
        void'(exp_addr[s][r].pop_front());
        void'(exp_val[s][r].pop_front());
      end
      done_idx[r] = n;
      for (int s = 0; s < 2; s++) begin
        lost[s][r] = exp_addr[s][r].size();
        if (!prefix_ok)
          tb_score_pkg::none_missing(exp_addr[s][r].size(), exp_addr[s][r][0], exp_val[s][r][0],
                                     r, s);
        exp_addr[s][r].delete();
        exp_val[s][r].delete();
      end
    end
  endtask

  task automatic expect_reg(input int n, input int addr, input logic [31:0] v, input string what);
    logic [31:0] r;
    rd(n, addr, r);
    tb_score_pkg::expect_value(n, what, r, v);
  endtask
endmodule : tb_pair

`default_nettype wire
