// Hub bench, a hub port whose link discards while the port stays up (docs/firmware.md "The
// hub", discarding ports): 4 adapters on an 8-port hub (tb_hub_net, its scoreboard), the hub's
// link retry short (acknowledgement timeout 150 cycles, 3 rewinds) and heartbeats 2000 cycles
// apart, so that the retry runs out long before the port could go down.
//  1) Random traffic among all. Then the hub's cable to a random node v is cut while another
//     node stores to v: the hub's transmitter to v gives up (DISCARDING), the port stays up
//     (v's heartbeats still reach the hub, and the cut is shorter than 4 periods).
//  2) Meanwhile the other nodes store and complete barriers (+bar=0: not): the hub does not
//     wait for v's acknowledgements of frames it dropped.
//  3) The cable comes back just after a periodic heartbeat of the hub was lost in the cut, and
//     v stores FRAMES local-copy frames (broadcast with LOCAL_COPY: each asks the hub for its
//     echo), more than its 15 echo credits, before it can hear the hub's announcement. Every
//     frame must leave v and reach the others; each of v's local copies either comes back or
//     is counted once in v's ERROR_COUNT. Without the announcement (DISC_ANNOUNCE = 0) v's
//     stores stalled after its echo credits (the hub port dropped the echoes and never told).
//  4) The hub ends the state itself (its port's transmitter starts a new epoch); what v got
//     from each sender is that sender's stream in order with gaps; every other stream is
//     complete and in order (the scoreboard).
//  5) v's local copies come back by echo again, FRAMES of them, nothing counted; then random
//     traffic among all, ACK_OUTSTANDING 0 everywhere, no error counted but v's lost copies.
// Plusargs: +seed, +rounds (random rounds before and after, default 4), +bar=0.
`default_nettype none

module tb_hub_disc #(
  parameter bit DISC_ANNOUNCE = 1'b1
);
  import memchan_regs_pkg::*;

  localparam int PS     = 4096;
  localparam int NPG    = 16;      // pages of the random traffic
  localparam int LCP    = 40;      // broadcast with local copy from every node
  localparam int HB     = 2000;    // heartbeat period, cycles
  localparam int FRAMES = 40;      // more than the echo credits (15)
  localparam longint LO = longint'(LCP) * PS + 1024, MID = LO + 8 * FRAMES, HI = MID + 8 * FRAMES;

  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;

  tb_hub_net #(.NN(4), .PORTS(8), .HB_PERIOD(HB), .HUB_ACK_TIMEOUT(150), .HUB_RETRY_LIMIT(3),
               .DISC_ANNOUNCE(DISC_ANNOUNCE)) net (.clk, .rst_n);

  longint cyc = 0;
  always @(posedge clk) cyc <= cyc + 1;

  // per port: the hub's heartbeat timer at 0 (a periodic heartbeat now), the adapter hears
  // the hub announce that the port discards
  logic [3:0] hb_now, ad_heard;
  for (genvar p = 0; p < 4; p++) begin : g_mon
    assign hb_now[p]   = (net.hub.g_port[p].u_lctrl.hb_q == 32'd0);
    assign ad_heard[p] = net.g_ad[p].nd.dut.peer_disc;
  end

  // no hub port may go down: the case is a port whose link discards while it stays up
  bit up_watch = 0;
  always @(posedge clk)
    if (up_watch && net.port_up[3:0] != 4'hF)
      $fatal(1, "hub_disc: a hub port went down (%b): the case needs it up", net.port_up[3:0]);

  int  v = 0;
  bit  heard = 0;                  // v's adapter heard the announcement
  longint ann_cycles = 0;          // cycles the hub announced it on v's port
  always @(posedge clk) begin
    if (ad_heard[v]) heard = 1;
    if (net.hub.dann[v]) ann_cycles++;
  end

  // words from sender s in node r's log, from index first on, at network addresses [lo, hi)
  function automatic int words(input int r, input int s, input int first, input longint lo,
                               input longint hi);
    int c;
    c = 0;
    for (int k = first; k < net.log_a[r].size(); k++) begin
      longint a;
      a = net.log_a[r][k] - net.rx_base[r];
      if (int'(net.log_v[r][k][31:28]) == s && a >= lo && a < hi) c++;
    end
    return c;
  endfunction

  initial begin
    int unsigned seed;
    int rounds, w, hv0, hw0, t, own, barriers_disc;
    bit bar;
    logic [31:0] r, e0, e1;
    longint cut_cyc, disc_cyc;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("rounds=%d", rounds)) rounds = 4;
    bar = !$test$plusargs("bar=0");
    void'($urandom(seed));
    repeat (5) @(posedge clk);
    rst_n = 1;
    repeat (5) @(posedge clk);
    net.init(32'b0);
    up_watch = 1;
    net.random_setup(NPG);
    for (int n = 0; n < 4; n++)
      net.set_page(n, LCP, MC_TX_PCT_TX_EN_MASK | MC_TX_PCT_LOCAL_COPY_MASK |
                           (MC_DEST_KIND_BROADCAST << MC_TX_PCT_DEST_KIND_SHIFT),
                   MC_RX_PCT_RX_EN_MASK);
    for (int k = 0; k < rounds; k++) net.random_round(NPG);
    net.quiesce(400);
    net.check();

    // 1) the hub's retry toward v runs out while the port stays up
    v = $urandom_range(0, 3);
    w = (v + 1) % 4;
    net.excl[v] = 1'b1;
    net.cut_down[v] = 1;
    cut_cyc = cyc;
    t = 0;
    while (!net.port_disc[v]) begin
      net.store(w, longint'(LCP) * PS + 8 * (t % 64), 2);
      repeat (100) @(posedge clk);
      t++;
      if (t > 200) $fatal(1, "hub_disc: the hub's retry toward node %0d never ran out", v);
    end
    disc_cyc = cyc;
    if (!net.port_up[v]) $fatal(1, "hub_disc: node %0d's port went down, not discarding", v);

    // 2) the others' barriers complete although v acknowledges nothing
    barriers_disc = 0;
    if (bar)
      for (int s = 0; s < 4; s++) if (s != v) begin
        net.store(s, longint'($urandom_range(0, NPG - 1)) * PS + 4 * $urandom_range(0, 900),
                  $urandom_range(1, 60));
        net.barrier(s);
        barriers_disc++;
      end

    // 3) the cable back just after a lost periodic heartbeat; v's local-copy frames at once
    while (!hb_now[v]) @(posedge clk);
    repeat (50) @(posedge clk);
    net.cut_down[v] = 0;
    net.rd(v, MC_REG_ERROR_COUNT, e0);
    hv0 = net.log_a[v].size();
    hw0 = net.log_a[w].size();
    for (int i = 0; i < FRAMES; i++) begin
      net.store_post(v, LO + 8 * i, 2);
      t = 0;
      while (net.op_done[v] != net.op_req[v]) begin
        @(posedge clk);
        t++;
        if (t > 30000)
          $fatal(1, "hub_disc: node %0d stored %0d of its %0d local-copy frames (%0d reached node %0d), the next store never completed: its transmit window waits for echoes its discarding hub port dropped",
                 v, i, FRAMES, words(w, v, hw0, LO, MID) / 2, w);
      end
      repeat (40) @(posedge clk);
    end
    t = 0;
    while (words(w, v, hw0, LO, MID) < 2 * FRAMES) begin
      @(posedge clk);
      t++;
      if (t > 50000)
        $fatal(1, "hub_disc: %0d of node %0d's %0d local-copy frames reached node %0d, the others wait in its transmit window for echoes its discarding hub port dropped",
               words(w, v, hw0, LO, MID) / 2, v, FRAMES, w);
    end

    // 4) the hub ends the state itself
    t = 0;
    while (net.port_disc[v] || net.hub.dann[v]) begin
      @(posedge clk);
      t++;
      if (t > 100000) $fatal(1, "hub_disc: the hub never ended node %0d's discarding", v);
    end
    if (!heard) $fatal(1, "hub_disc: node %0d never heard the hub announce the discarding", v);
    net.quiesce(2000);
    net.rd(v, MC_REG_ERROR_COUNT, e1);
    own = words(v, v, hv0, LO, MID) / 2;
    if (e1 - e0 == 0)
      $fatal(1, "hub_disc: node %0d lost no local copy: the case was not tested", v);
    if (own + int'(e1 - e0) != FRAMES)
      $fatal(1, "hub_disc: of node %0d's %0d local copies %0d came back and %0d were counted lost (ERROR_COUNT): each must be one or the other, once",
             v, FRAMES, own, e1 - e0);
    net.forgive_gaps(v);
    net.check();

    // 5) echoed again, more than the credits, nothing counted; then traffic among all
    hv0 = net.log_a[v].size();
    for (int i = 0; i < FRAMES; i++) begin
      net.store(v, MID + 8 * i, 2);
      repeat (40) @(posedge clk);
    end
    net.quiesce(2000);
    if (words(v, v, hv0, MID, HI) != 2 * FRAMES)
      $fatal(1, "hub_disc: after the recovery %0d of node %0d's %0d local copies came back",
             words(v, v, hv0, MID, HI) / 2, v, FRAMES);
    net.rd(v, MC_REG_ERROR_COUNT, r);
    if (r != e1) $fatal(1, "hub_disc: node %0d counted %0d errors after the recovery", v, r - e1);
    net.check();
    for (int k = 0; k < rounds; k++) net.random_round(NPG);
    net.quiesce(2000);
    net.check();
    for (int n = 0; n < 4; n++) begin
      net.rd(n, MC_REG_ACK_OUTSTANDING, r);
      tb_score_pkg::expect_value(n, "ACK_OUTSTANDING", r, 0);
      net.rd(n, MC_REG_ERROR_COUNT, r);
      if (n != v) tb_score_pkg::expect_value(n, "ERROR_COUNT", r, 0);
      else tb_score_pkg::expect_value(n, "ERROR_COUNT (its lost local copies)", r, e1);
    end
    if (net.port_disc != '0) $fatal(1, "hub_disc: a hub port is discarding (%b)", net.port_disc);
    begin
      int words_all;
      words_all = 0;
      for (int n = 0; n < 4; n++) words_all += net.log_a[n].size();
      $display("hub_disc: PASS (seed %0d: node %0d's hub port discarding %0d cycles after the cut, port up throughout; %0d barriers of the others meanwhile; %0d local-copy frames of node %0d all reached the others, %0d copies came back, %0d counted lost; the hub announced for %0d cycles and ended it itself; %0d echoed after; %0d words checked, %0d words to node %0d lost in order)",
               seed, v, disc_cyc - cut_cyc, barriers_disc,
               FRAMES, v, own, e1 - e0, ann_cycles, FRAMES, words_all, net.gaps_lost, v);
    end
    $finish;
  end

  initial begin
    #400000000;
    $fatal(1, "hub_disc: global timeout");
  end
endmodule : tb_hub_disc

`default_nettype wire
