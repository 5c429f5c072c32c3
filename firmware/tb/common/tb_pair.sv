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
  parameter int RST_STAGGER = 0        // cycles node 1 leaves reset after node 0 (clock bench)
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
  tb_adapter #(.SERIAL(22), .STALL(STALL), .VHUB(VHUB), .SERIALIZE(SERIALIZE),
               .CLOCK_SYNC(CLOCK_SYNC)) a1 (
    .clk, .rst_n(rst1_n),
    .m_link_tvalid(t1v), .m_link_tdata(t1d), .m_link_tlast(t1l), .m_link_tready(t1r),
    .s_link_tvalid(r1v), .s_link_tdata(r1d), .s_link_tlast(r1l), .s_link_tready(r1r), .irq(irq1));
  tb_link_chan #(.STALL(STALL)) c01 (
    .clk, .rst_n, .i_tvalid(t0v), .i_tdata(t0d), .i_tlast(t0l), .i_tready(t0r),
    .o_tvalid(r1v), .o_tdata(r1d), .o_tlast(r1l), .o_tready(r1r));
  tb_link_chan #(.STALL(STALL)) c10 (
    .clk, .rst_n, .i_tvalid(t1v), .i_tdata(t1d), .i_tlast(t1l), .i_tready(t1r),
    .o_tvalid(r0v), .o_tdata(r0d), .o_tlast(r0l), .o_tready(r0r));

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
