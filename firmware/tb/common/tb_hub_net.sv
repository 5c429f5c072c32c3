// NN adapters (the first nn in use) on a memchan_hub with PORTS ports (adapter n on port n, a
// cable per direction with random stalls and optional bit flips), plus the scoreboard: a
// model of every PCT that computes, for every store, which 32-bit words must land at which
// host address of which node; the host logs are compared per (sender, receiver) pair, word by word, in order
// (single-sender rule). Every stored 32-bit value is {sender (4 bits), serial (28 bits)}.
// Register access and stores go through each adapter's server process (tb_adapter, "srv_"),
// so that the benches can address adapters by a run-time number.
// Multicast membership: a multicast DATA frame on the hub's link to a node that is not a
// member of its group (and not its sender) is a failure (the hub replicates to members only).
// Port cuts (cut[n], the port-cut bench): a cut node's ports are left out of quiesce, of
// check and of barrier checks (excl) until forgive(n) accepts what it got and lost.
// cut_down[n] cuts only the hub's cable to node n (the discarding-port bench, tb_hub_disc);
// forgive_gaps(n) then accepts what node n got as an in-order subsequence of each stream.
`default_nettype none

module tb_hub_net #(
  parameter int NN         = 4,
  parameter int PORTS      = 8,
  parameter int STALL      = 30,
  parameter bit BCAST_SYNC = 1'b1,
  parameter int HB_PERIOD  = 300,
  // global clock (the clock bench): sync interval, sync frames on, adapter n leaves reset
  // n * RST_STAGGER cycles after the hub
  parameter int SYNC_INTERVAL = 65536,
  parameter bit CLOCK_SYNC    = 1'b1,
  parameter int RST_STAGGER   = 0,
  parameter bit SUPERVISION   = 1'b1,
  parameter bit MCAST_FILTER  = 1'b1,
  parameter bit ACK_MERGE     = 1'b1,
  // the hub's link retry (its defaults) and its discarding-port announcement (tb_hub_disc)
  parameter int HUB_ACK_TIMEOUT = 2048,
  parameter int HUB_RETRY_LIMIT = 8,
  parameter bit DISC_ANNOUNCE   = 1'b1
) (
  input wire logic clk,
  input wire logic rst_n
);
  import memchan_regs_pkg::*;

  localparam int NP = 64;              // pages the benches use
  localparam int PS = 4096;

  // hub side of the cables
  logic [PORTS-1:0]    h_tv, h_tl, h_tr, h_rv, h_rl, h_rr, port_up, port_disc;
  logic [PORTS*64-1:0] h_td, h_rd;     // port p: [64*p +: 64]

  memchan_hub #(.PORTS(PORTS), .HB_PERIOD(HB_PERIOD), .BCAST_SYNC(BCAST_SYNC),
                .SYNC_INTERVAL(SYNC_INTERVAL), .CLOCK_SYNC(CLOCK_SYNC),
                .SUPERVISION(SUPERVISION), .MCAST_FILTER(MCAST_FILTER),
                .ACK_MERGE(ACK_MERGE), .ACK_TIMEOUT(HUB_ACK_TIMEOUT),
                .RETRY_LIMIT(HUB_RETRY_LIMIT), .DISC_ANNOUNCE(DISC_ANNOUNCE)) hub (
    .clk_i(clk), .rst_ni(rst_n), .serial_i(32'h4855_4231),
    .m_link_tvalid(h_tv), .m_link_tdata(h_td), .m_link_tlast(h_tl), .m_link_tready(h_tr),
    .s_link_tvalid(h_rv), .s_link_tdata(h_rd), .s_link_tlast(h_rl), .s_link_tready(h_rr),
    .port_up_o(port_up), .port_discarding_o(port_disc));

  // server requests (one operation per adapter at a time)
  typedef enum int {OP_WR = 0, OP_RD = 1, OP_STORE = 2, OP_DRAIN = 3} op_e;   // tb_adapter
  int          op_req [NN], op_done [NN];   // requests made, requests served
  op_e         op_kind [NN];
  int          op_addr [NN];
  logic [31:0] op_data [NN];
  longint      op_net [NN];
  logic [31:0] op_dw [NN][$];
  // host logs of every node, copied from the adapters' memory models
  longint      log_a [NN][$];
  logic [31:0] log_v [NN][$];
  longint      log_t [NN][$];
  int          stall_set [NN];       // -1: leave, else set the adapter's stall percentage
  int          flip_set [NN];        // -1: leave, else bit flips per million words, both cables
  longint      flips [NN];           // bit flips injected so far on both cables of a port
  // per port: a link transmitter (adapter's or hub's) still holds unacknowledged frames or
  // the hub's input queue still holds a frame (see quiesce)
  logic [PORTS-1:0] ad_unacked, hub_unacked, hub_queued, ad_disc;
  bit               cut [NN];        // both cables of node n cut
  bit               cut_down [NN];   // only the hub's cable to node n cut
  logic [PORTS-1:0] excl = '0;       // cut nodes, left out of the checks until forgive
  logic [31:0]      nodes_up [NN];   // each adapter's NODES_UP
  longint           mc_member_frames = 0;   // multicast frames on members' links

  // adapters in use: 0 .. nn-1 (set before reset ends); the others stay in reset, so their
  // hub ports never come up
  int nn = NN;
  int rst_cyc;
  always @(posedge clk) rst_cyc <= rst_n ? rst_cyc + 1 : 0;

  for (genvar p = 0; p < NN; p++) begin : g_ad
    logic        tv, tl, tr, rv, rl, rr, rst_p_n, clk_p;
    logic [63:0] td, rd;
    logic [3:0]  irq;
    assign rst_p_n = rst_n && (rst_cyc >= p * RST_STAGGER) && (p < nn);
    // an adapter not in use and its cables get no clock (they would only cost simulation time)
    assign clk_p = clk && (p < nn);
    tb_adapter #(.SERIAL(100 + p), .STALL(STALL), .CLOCK_SYNC(CLOCK_SYNC)) nd (
      .clk(clk_p), .rst_n(rst_p_n),
      .m_link_tvalid(tv), .m_link_tdata(td), .m_link_tlast(tl), .m_link_tready(tr),
      .s_link_tvalid(rv), .s_link_tdata(rd), .s_link_tlast(rl), .s_link_tready(rr), .irq);
    tb_link_chan #(.STALL(STALL)) up (
      .clk(clk_p), .rst_n, .i_tvalid(tv), .i_tdata(td), .i_tlast(tl), .i_tready(tr),
      .o_tvalid(h_rv[p]), .o_tdata(h_rd[64*p +: 64]), .o_tlast(h_rl[p]), .o_tready(h_rr[p]));
    tb_link_chan #(.STALL(STALL)) down (
      .clk(clk_p), .rst_n, .i_tvalid(h_tv[p]), .i_tdata(h_td[64*p +: 64]), .i_tlast(h_tl[p]),
      .i_tready(h_tr[p]), .o_tvalid(rv), .o_tdata(rd), .o_tlast(rl), .o_tready(rr));

    assign ad_unacked[p] = (nd.dut.u_ltx.unack_q != '0);
    assign ad_disc[p]    = nd.dut.u_ltx.disc_q;
    assign nodes_up[p]   = nd.dut.nodes_up;
    always @(posedge clk) begin
      up.cut   = cut[p];
      down.cut = cut[p] || cut_down[p];
    end

    int seen;
    initial seen = 0;
    always @(posedge clk) begin
      while (seen < nd.host.log_addr.size()) begin
        log_a[p].push_back(nd.host.log_addr[seen]);
        log_v[p].push_back(nd.host.log_val[seen]);
        log_t[p].push_back(nd.host.log_time[seen]);
        if (nd.host.log_val[seen][31:28] < NN) got_n[nd.host.log_val[seen][31:28]][p]++;
        seen++;
      end
    end

    // hand this adapter's requests to its server; a request counts as served when op_done
    // reaches its number (a level flag could be seen by a caller one request late)
    bit busy;
    initial busy = 0;
    always @(posedge clk) begin
      if (!busy && op_done[p] != op_req[p]) begin
        nd.srv_kind = int'(op_kind[p]); nd.srv_addr = op_addr[p]; nd.srv_data = op_data[p];
        nd.srv_net = op_net[p]; nd.srv_dw = op_dw[p];
        nd.srv_go = 1;
        busy = 1;
      end else if (busy && nd.srv_done) begin
        op_data[p] <= nd.srv_data;
        nd.srv_done = 0;
        busy = 0;
        op_done[p] <= op_done[p] + 1;
      end
    end

    // stalls of this adapter (host and BAR masters) and of both of its cables
    always @(posedge clk) begin
      if (stall_set[p] >= 0) begin
        nd.stall_pct = stall_set[p];
        nd.host.stall_pct = stall_set[p];
        up.stall_pct = stall_set[p];
        down.stall_pct = stall_set[p];
        stall_set[p] = -1;
      end
    end

    // bit flips on both cables of this port (parts per million per word)
    always @(posedge clk) begin
      if (flip_set[p] >= 0) begin
        up.flip_ppm = flip_set[p];
        down.flip_ppm = flip_set[p];
        flip_set[p] = -1;
      end
      flips[p] = up.flips + down.flips;
    end
  end
  for (genvar p = 0; p < PORTS; p++) begin : g_hub_state
    // multicast frames leaving the hub by port p: only to members of the group (or back to
    // the sender, its local copy); counted at the header word, retransmissions included
    bit first = 1;
    always @(posedge clk) begin
      if (h_tv[p] && h_tr[p]) begin
        logic [63:0] w;
        w = h_td[64*p +: 64];
        if (first && w[3:0] == memchan_pkt_pkg::TP_DATA &&
            w[memchan_pkt_pkg::C_DKIND +: 2] == 2'd2) begin
          if (!mcast[w[memchan_pkt_pkg::H_DNID_LSB +: 4]][p] &&
              32'(w[memchan_pkt_pkg::H_SID_LSB +: 8]) != p)
            $fatal(1, "tb_hub_net: multicast frame of group %0d from node %0d on the link of node %0d, not a member (%h)",
                   w[memchan_pkt_pkg::H_DNID_LSB +: 4], w[memchan_pkt_pkg::H_SID_LSB +: 8], p,
                   mcast[w[memchan_pkt_pkg::H_DNID_LSB +: 4]]);
          mc_member_frames++;
        end
        first = h_tl[p];
      end
    end
    assign hub_unacked[p] = (hub.g_port[p].u_ltx.unack_q != '0);
    assign hub_queued[p]  = (hub.g_port[p].u_inq.hs_q != '0) ||
                            (hub.g_port[p].u_inq.fh_q != hub.g_port[p].u_inq.ft_q);
  end
  for (genvar p = NN; p < PORTS; p++) begin : g_idle
    assign ad_unacked[p] = 1'b0;
    assign ad_disc[p]    = 1'b0;
    // no adapter on this port: no cable
    assign h_rv[p] = 1'b0;
    assign h_rd[64*p +: 64] = '0;
    assign h_rl[p] = 1'b0;
    assign h_tr[p] = 1'b1;
  end

  initial for (int n = 0; n < NN; n++) begin
    op_req[n] = 0; op_done[n] = 0; stall_set[n] = -1; flip_set[n] = -1; cut[n] = 0;
    cut_down[n] = 0;
  end

  task automatic server(input int n);
    int mine;
    op_req[n] = op_req[n] + 1;
    mine = op_req[n];
    wait (op_done[n] == mine);
  endtask
  task automatic wr(input int n, input int addr, input logic [31:0] v);
    op_kind[n] = OP_WR; op_addr[n] = addr; op_data[n] = v;
    server(n);
  endtask
  task automatic rd(input int n, input int addr, output logic [31:0] v);
    op_kind[n] = OP_RD; op_addr[n] = addr;
    server(n);
    v = op_data[n];
  endtask
  task automatic drain(input int n);
    op_kind[n] = OP_DRAIN;
    server(n);
  endtask

  task automatic wait_reg(input int n, input int addr, input logic [31:0] mask,
                          input logic [31:0] val, input string what);
    logic [31:0] r;
    int t;
    t = 0;
    do begin
      rd(n, addr, r);
      t++;
      if (t > 5000) $fatal(1, "node %0d: timeout waiting for %s (reads %h)", n, what, r);
    end while ((r & mask) != val);
  endtask

  // ---------------- PCT model ----------------
  logic [31:0] txe [NN][NP];
  logic [63:0] rxe [NN][NP];
  logic [31:0] mcast [16];
  longint      rx_base [NN];

  // both PCT entries of one page of node n: transmit entry tx, receive entry rx
  task automatic set_page(input int n, input int page, input logic [31:0] tx,
                          input logic [63:0] rx);
    txe[n][page] = tx;
    rxe[n][page] = rx;
    wr(n, MC_TX_PCT_BASE + 4 * page, tx);
    for (int h = 0; h < 2; h++) wr(n, MC_RX_PCT_BASE + 8 * page + 4 * h, rx[32 * h +: 32]);
  endtask
  // every node's MCAST_GROUP g; returns once the hub has heard every member's heartbeat
  // with the new groups (they announce a change at once)
  task automatic set_mcast(input int g, input logic [31:0] m);
    int t;
    mcast[g] = m;
    for (int n = 0; n < nn; n++) wr(n, MC_REG_MCAST_GROUP_BASE + 4 * g, m);
    t = 0;
    for (int n = 0; n < nn; n++)
      while (hub.groups[16 * n + g] != m[n]) begin
        @(posedge clk);
        t++;
        if (t > 20 * HB_PERIOD) $fatal(1, "tb_hub_net: the hub never learned group %0d of node %0d", g, n);
      end
  endtask

  // bring-up in hub mode: every node autoconfigures (NODE_ID.AUTO) except the manual ones
  // (bit n of manual: NODE_ID written by hand, = port number); each must read its port
  // number as node ID and a link that is up; then receive areas, enable, retry
  task automatic init(input logic [31:0] manual);
    for (int n = 0; n < nn; n++) begin
      wr(n, MC_REG_HEARTBEAT_PERIOD, HB_PERIOD);
      wr(n, MC_REG_NODE_ID, manual[n] ? (MC_NODE_ID_VALID_MASK | 32'(n)) : MC_NODE_ID_AUTO_MASK);
    end
    for (int n = 0; n < nn; n++) begin
      wait_reg(n, MC_REG_NODE_ID, MC_NODE_ID_VALID_MASK | MC_NODE_ID_ID_MASK,
               MC_NODE_ID_VALID_MASK | 32'(n), "node ID from the hub");
      wait_reg(n, MC_REG_LINK_STATUS, MC_LINK_STATUS_UP_MASK, MC_LINK_STATUS_UP_MASK, "link up");
    end
    for (int n = 0; n < nn; n++) begin
      rx_base[n] = 64'h10_0000_0000 * (n + 1);
      wr(n, MC_REG_RX_BASE_LO, rx_base[n][31:0]);
      wr(n, MC_REG_RX_BASE_HI, rx_base[n][63:32]);
      wr(n, MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK);
      for (int p = 0; p < NP; p++) begin txe[n][p] = 0; rxe[n][p] = 0; end
    end
    for (int g = 0; g < 16; g++) mcast[g] = 0;
    // wait until the hub sees every port up (its heartbeats answered)
    while ((port_up & PORTS'((1 << nn) - 1)) != PORTS'((1 << nn) - 1)) @(posedge clk);
  endtask

  // does a packet from s for page reach r? (hub mode: a local copy comes back from the hub)
  function automatic bit routed(input int s, input int r, input int page);
    return tb_score_pkg::routed(txe[s][page], rxe[r][page], s, r, s, r, mcast);
  endfunction

  function automatic longint host_addr(input int r, input longint net);
    return tb_score_pkg::host_addr(rxe[r][int'(net / PS)], rx_base[r], net);
  endfunction

  // ---------------- traffic and expectations ----------------
  longint      exp_addr [NN][NN][$];    // [sender][receiver]
  logic [31:0] exp_val  [NN][NN][$];
  int          serial [NN];
  int          done_idx [NN];           // log entries of each receiver already checked
  int          exp_n [NN][NN];          // [sender][receiver]: words expected so far
  int          got_n [NN][NN];          // [sender][receiver]: words in the host log so far
  int          barriers = 0;            // barrier sweeps checked

  initial for (int n = 0; n < NN; n++) begin
    serial[n] = 1; done_idx[n] = 0;
    for (int r = 0; r < NN; r++) begin exp_n[n][r] = 0; got_n[n][r] = 0; end
  end

  // store n32 fresh words from sender s at network address net (4-byte aligned)
  task automatic store(input int s, input longint net, input int n32);
    store_post(s, net, n32);
    wait (op_done[s] == op_req[s]);
  endtask

  // the same, without waiting for the adapter's server: stores of different senders then run
  // at the same time (call it again for s only once op_done[s] == op_req[s])
  int stores = 0;                       // stores posted so far
  task automatic store_post(input int s, input longint net, input int n32);
    stores++;
    op_dw[s].delete();
    for (int i = 0; i < n32; i++) begin
      logic [31:0] v;
      longint a;
      int page;
      a = net + 4 * i;
      page = int'(a / PS);
      if (page >= NP) $fatal(1, "tb_hub_net: store beyond the modelled pages");
      v = {4'(s), 28'(serial[s])};
      serial[s] = serial[s] + 1;
      op_dw[s].push_back(v);
      for (int r = 0; r < nn; r++) begin
        if (routed(s, r, page)) begin
          exp_addr[s][r].push_back(host_addr(r, a));
          exp_val[s][r].push_back(v);
          exp_n[s][r]++;
        end
      end
    end
    op_kind[s] = OP_STORE; op_net[s] = net;
    op_req[s] = op_req[s] + 1;
  endtask

  // barrier sweep from node s (seed 000: acknowledge requests to every other node through the
  // hub): DONE only when every receiver has every word s stored before it in its memory,
  // ACK_OUTSTANDING then 0
  task automatic barrier(input int s);
    logic [31:0] v;
    drain(s);        // the stores' BAR writes answered (PCIe orders them before START)
    wr(s, MC_REG_BARRIER, MC_BARRIER_START_MASK);
    wait_reg(s, MC_REG_BARRIER, MC_BARRIER_DONE_MASK | MC_BARRIER_BUSY_MASK,
             MC_BARRIER_DONE_MASK, "barrier DONE");
    for (int r = 0; r < nn; r++)
      if (!excl[r] && got_n[s][r] < exp_n[s][r])
        $fatal(1, "node %0d: barrier DONE while node %0d has %0d of its %0d words", s, r,
               got_n[s][r], exp_n[s][r]);
    rd(s, MC_REG_ACK_OUTSTANDING, v);
    if (v != 0) $fatal(1, "node %0d: barrier DONE with ACK_OUTSTANDING %0d", s, v);
    barriers++;
  endtask

  // wait until every transmit window is drained, every link transmitter (adapters' and hub's,
  // toward live ports) has had all of its frames acknowledged, the hub's input queues are
  // empty, and no host write happened for idle_cycles. A frame lost on a hop several times in
  // a row is resent after an acknowledgement timeout each time, so a fixed idle time is not
  // enough under bit flips; a link that never drains is a failure after 400000 cycles.
  task automatic quiesce(input int idle_cycles);
    int still, total, last, busy;
    for (int n = 0; n < nn; n++) drain(n);
    still = 0;
    last = -1;
    busy = 0;
    while (still < idle_cycles) begin
      @(posedge clk);
      total = 0;
      for (int n = 0; n < nn; n++) total += log_a[n].size();
      if (total == last &&
          (((ad_unacked | ((hub_unacked | hub_queued) & port_up)) & ~excl) == '0)) begin
        still++;
        busy = 0;
      end else begin
        still = 0;
        busy++;
        if (busy > 400000)
          $fatal(1, "tb_hub_net: links not drained after 400000 cycles: adapters %b, hub %b/%b",
                 ad_unacked, hub_unacked, hub_queued);
      end
      last = total;
    end
  endtask

  // ---------------- randomized traffic (tb_hub, tb_hub_cut) ----------------
  // 4 random multicast groups, and the PCT entries of npg pages of every node drawn at random:
  // point-to-point (to another node or to itself), broadcast, multicast, with or without
  // local copy, acknowledged pages of every kind (a broadcast or multicast one is answered by
  // every other receiver, merged by the hub into one acknowledgement), disabled transmit
  // pages; receive pages randomly disabled or remapped. mcast = 0: no multicast pages
  task automatic random_setup(input int npg, input bit mcast = 1'b1);
    for (int g = 0; g < 4; g++) set_mcast(g, 32'($urandom_range(1, (1 << nn) - 1)));
    for (int n = 0; n < nn; n++) begin
      for (int p = 0; p < npg; p++) begin
        logic [31:0] e;
        logic [63:0] x;
        int kind, dest;
        kind = $urandom_range(0, mcast ? 2 : 1);
        dest = (kind == 0) ? $urandom_range(0, nn - 1) : (kind == 2) ? $urandom_range(0, 3) : 0;
        e = ($urandom_range(0, 9) != 0) ? MC_TX_PCT_TX_EN_MASK : 32'h0;
        if ($urandom_range(0, 1)) e |= MC_TX_PCT_LOCAL_COPY_MASK;
        if ($urandom_range(0, 2) == 0) e |= MC_TX_PCT_ACK_REQ_MASK;
        e |= 32'(kind) << MC_TX_PCT_DEST_KIND_SHIFT;
        e |= 32'(dest) << MC_TX_PCT_DEST_SHIFT;
        x = ($urandom_range(0, 6) != 0) ? MC_RX_PCT_RX_EN_MASK : 64'h0;
        if ($urandom_range(0, 5) == 0)
          x |= MC_RX_PCT_REMAP_EN_MASK | ((64'h90_0000_0000 + 64'(p) * 64'h10000) &
                                          MC_RX_PCT_REMAP_ADDR_MASK);
        set_page(n, p, e, x);
      end
    end
  endtask

  // one round: every node stores 1-3 bursts to random pages of the first npg, the nodes'
  // stores interleaved at random (one process: Verilator 5.006 mixes up concurrent calls of a
  // task that waits), a barrier after a quarter of them; a cut node neither stores nor starts
  // barriers (counted: what live senders did while a node was cut)
  int stores_cut = 0, barriers_cut = 0;
  task automatic random_round(input int npg);
    int left [NN];
    int total;
    total = 0;
    for (int n = 0; n < nn; n++) begin
      left[n] = $urandom_range(1, 3);
      total += left[n];
    end
    while (total > 0) begin
      int s;
      s = $urandom_range(0, nn - 1);
      if (left[s] > 0) begin
        left[s]--;
        total--;
        if (!cut[s]) begin
          repeat ($urandom_range(0, 8)) @(posedge clk);
          store(s, longint'($urandom_range(0, npg - 1) * PS + 4 * $urandom_range(0, 1000)),
                $urandom_range(1, 90));
          if (excl != '0) stores_cut++;
          if ($urandom_range(0, 3) == 0 && !cut[s]) begin
            barrier(s);
            if (excl != '0) barriers_cut++;
          end
        end
      end
    end
  endtask

  // compare the host logs with the expectations: every word, per sender in order, at the
  // right address, nothing else (nothing to a disabled page)
  task automatic check();
    for (int r = 0; r < nn; r++) begin
      int n;
      if (excl[r]) continue;
      n = log_a[r].size();
      for (int k = done_idx[r]; k < n; k++) begin
        int s;
        longint la; logic [31:0] lv;
        la = log_a[r][k];
        lv = log_v[r][k];
        s = int'(lv[31:28]);
        if (s >= NN) $fatal(1, "node %0d: host write %h = %h from no sender", r, la, lv);
        tb_score_pkg::match_word(exp_addr[s][r].size(), exp_addr[s][r][0], exp_val[s][r][0], r,
                                 s, la, lv);
        void'(exp_addr[s][r].pop_front());
        void'(exp_val[s][r].pop_front());
      end
      done_idx[r] = n;
      for (int s = 0; s < nn; s++)
        if (!excl[s]) tb_score_pkg::none_missing(exp_addr[s][r].size(), exp_addr[s][r][0], exp_val[s][r][0],
                                   r, s);
    end
  endtask
  // node v's host log since the last check against the expectations: each word the next one
  // expected from its sender (gaps = 0), or a later one of that sender's stream (gaps = 1:
  // the words skipped were lost, counted in gaps_lost); per sender in order, at the right
  // addresses
  int gaps_lost = 0;
  task automatic take_log(input int v, input bit gaps);
    int n;
    n = log_a[v].size();
    for (int k = done_idx[v]; k < n; k++) begin
      int s;
      s = int'(log_v[v][k][31:28]);
      if (s >= NN) $fatal(1, "node %0d: host write %h = %h from no sender", v, log_a[v][k], log_v[v][k]);
      while (gaps && exp_addr[s][v].size() != 0 &&
             (exp_addr[s][v][0] != log_a[v][k] || exp_val[s][v][0] != log_v[v][k])) begin
        void'(exp_addr[s][v].pop_front());
        void'(exp_val[s][v].pop_front());
        gaps_lost++;
      end
      tb_score_pkg::match_word(exp_addr[s][v].size(), exp_addr[s][v][0], exp_val[s][v][0], v, s,
                               log_a[v][k], log_v[v][k]);
      void'(exp_addr[s][v].pop_front());
      void'(exp_val[s][v].pop_front());
    end
    done_idx[v] = n;
  endtask
  // a cut node v after quiescence: what it received is checked (in order, per sender, at the
  // right addresses: a prefix of what was sent to it), the rest of its streams, to it and
  // from it, was lost with the cable and is forgotten; v is checked again from here on
  task automatic forgive(input int v);
    take_log(v, 1'b0);
    for (int o = 0; o < nn; o++) begin
      exp_addr[o][v].delete(); exp_val[o][v].delete(); exp_n[o][v] = got_n[o][v];
      exp_addr[v][o].delete(); exp_val[v][o].delete(); exp_n[v][o] = got_n[v][o];
    end
    excl[v] = 1'b0;
  endtask
  // node v after quiescence, when the frames to it were dropped for a while (its hub port's
  // link discarded) but its own frames to the others were not: what v received from each
  // sender is that sender's stream in order with gaps; the rest of the streams to v is
  // forgotten, the streams from v stay checked
  task automatic forgive_gaps(input int v);
    take_log(v, 1'b1);
    for (int o = 0; o < nn; o++) begin
      gaps_lost += exp_addr[o][v].size();
      exp_addr[o][v].delete(); exp_val[o][v].delete(); exp_n[o][v] = got_n[o][v];
    end
    excl[v] = 1'b0;
  endtask
endmodule : tb_hub_net

`default_nettype wire
