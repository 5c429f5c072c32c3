// Hub bench: NN adapters instantiated (8), the first +nodes of them in use (4 by default, 4..NN;
// the others stay in reset, their hub ports never come up), on an 8-port hub; randomized
// traffic (tb_hub_net's random_setup and random_round) and tb_hub_net's scoreboard. Every
// node but node 3 takes its node ID from the hub (NODE_ID.AUTO), node 3 is configured by hand
// (the manual path). Every round each node stores bursts to random pages whose PCT entries
// were drawn at random: point-to-point (to another node or to itself), broadcast, multicast
// (4 random groups), with or without local copy, acknowledged pages of every kind (the hub
// merges the receivers' acknowledgements), disabled transmit pages; receive pages randomly
// disabled or remapped; barrier sweeps between stores.
// Checks: every word at the right host address of every receiver that must get it, per sender
// in order, nothing else (nothing to a disabled page); a barrier is DONE only when every
// receiver has every earlier word of its sender; ACK_OUTSTANDING back to 0 and no error
// counted. Multicast reaches members only: tb_hub_net fails on a multicast frame on a
// non-member's link (MCAST_FILTER = 0, the hub sending multicast everywhere, must fail so).
// Port cut (+cut, docs/firmware.md "The hub", port supervision): in the middle of the traffic
// both cables of one random node are cut. The other nodes' traffic completes intact and in
// order (the cut node's streams, to it and from it, are a prefix of what was sent); barriers
// of the live senders complete during the cut; every live adapter's NODES_UP loses the node
// within REPORT_BOUND cycles of the cut, with IRQ_STATUS.LINK_CHANGE set; after the heal (the
// cut adapter's software resets its DISCARDING state) the node is re-admitted, every NODES_UP
// shows every node again, and traffic among all nodes completes. SUPERVISION = 0 (the hub
// never isolates a port) must fail so: a barrier waits forever. ACK_MERGE = 0 (the hub
// forwards every receiver's ACK instead of merging them) must fail the barrier check.
// Plusargs: +seed, +rounds, +nodes, +cut, +mcast=0 (no multicast pages), +flips=PPM (bit flips
// per million words on every cable, both directions: every hop retries; the bench then
// requires retries), +bp=PCT (back-pressure percentage on every cable, host port and BAR
// master; default 30).
`default_nettype none

module tb_hub #(
  parameter int NN           = 8,
  parameter bit MCAST_FILTER = 1'b1,
  parameter bit SUPERVISION  = 1'b1,
  parameter bit ACK_MERGE    = 1'b1
);
  import memchan_regs_pkg::*;

  localparam int PS  = 4096;
  localparam int NPG = 24;     // pages in use
  localparam int HB  = 300;    // heartbeat period, cycles
  // node-down report: detection (at most 4 periods after the last heartbeat heard, i.e.
  // after the cut) plus the report's way: a frame in progress on the hub's output and the
  // cable's queue
  localparam int REPORT_BOUND = 4 * HB + 256;

  if (NN < 4 || NN > 8) begin : g_check
    $error("tb_hub: NN must be 4..8 (8 hub ports; node 3 is the manual one)");
  end

  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;
  int unsigned seed;
  int rounds, flip_ppm, bp, nodes;
  bit cut_mode, mcast_on;

  tb_hub_net #(.NN(NN), .PORTS(8), .HB_PERIOD(HB), .MCAST_FILTER(MCAST_FILTER),
               .SUPERVISION(SUPERVISION), .ACK_MERGE(ACK_MERGE)) net (.clk, .rst_n);

  longint cyc = 0;
  always @(posedge clk) cyc <= cyc + 1;

  // once up, no port of the hub may go down (its traffic would be discarded), but a cut one
  bit up_watch = 0;
  always @(posedge clk) begin
    logic [7:0] m;
    m = 8'((1 << nodes) - 1) & ~net.excl;
    if (up_watch && (net.port_up & m) != m)
      $fatal(1, "hub: a hub port went down: %b", net.port_up);
  end

  // the node-down report: the first cycle (after the cut) at which each adapter's NODES_UP
  // loses the cut node v
  int     v = 0;
  longint cut_cyc = -1;
  longint down_at [NN];
  initial for (int n = 0; n < NN; n++) down_at[n] = -1;
  always @(posedge clk)
    if (cut_cyc >= 0)
      for (int n = 0; n < NN; n++)
        if (down_at[n] < 0 && !net.nodes_up[n][v]) down_at[n] = cyc - cut_cyc;

  // rounds of random traffic, checked every 4 rounds
  task automatic traffic();
    for (int k = 0; k < rounds; k++) begin
      net.random_round(NPG);
      if (k % 4 == 3 || k == rounds - 1) begin
        // a frame lost last on a hop is resent after the acknowledgement timeout (2048
        // cycles) of that hop: two hops
        net.quiesce(flip_ppm > 0 ? 5000 : 400);
        net.check();
      end
    end
  endtask

  // the port cut (+cut); returns the report line
  task automatic port_cut(output string report);
    logic [31:0] r, all;
    longint heal_cyc, worst;
    int cut_len, readmit;
    all = (1 << nodes) - 1;
    for (int n = 0; n < nodes; n++) begin
      net.rd(n, MC_REG_NODES_UP, r);
      tb_score_pkg::expect_value(n, "NODES_UP before the cut", r, all);
      net.wr(n, MC_REG_IRQ_STATUS, MC_IRQ_STATUS_LINK_CHANGE_MASK);
    end
    // traffic; the cut falls at a random moment inside it (within the first third of the
    // stores, up to 400 cycles after one was posted)
    v = $urandom_range(0, nodes - 1);
    fork
      begin
        int after;
        after = net.stores + $urandom_range(1, rounds * nodes * 2 / 3);
        wait (net.stores >= after);
        repeat ($urandom_range(0, 400)) @(posedge clk);
        net.cut[v] = 1;
        net.excl[v] = 1'b1;
        cut_cyc = cyc;
      end
    join_none
    for (int k = 0; k < rounds; k++) net.random_round(NPG);
    wait (cut_cyc >= 0);
    if (net.stores_cut == 0) $fatal(1, "hub: the cut fell after the traffic: nothing tested");
    // every live sender's barrier completes although the cut node never answers
    for (int s = 0; s < nodes; s++) if (s != v) begin net.barrier(s); net.barriers_cut++; end

    // the node-down report reached every live adapter in time, visible to software
    while (cyc - cut_cyc <= REPORT_BOUND) @(posedge clk);
    worst = 0;
    for (int n = 0; n < nodes; n++) if (n != v) begin
      if (down_at[n] < 0 || down_at[n] > REPORT_BOUND)
        $fatal(1, "hub: node %0d: node %0d down not reported within %0d cycles of the cut (%0d)",
               n, v, REPORT_BOUND, down_at[n]);
      if (down_at[n] > worst) worst = down_at[n];
      net.rd(n, MC_REG_NODES_UP, r);
      tb_score_pkg::expect_value(n, "NODES_UP after the cut", r, all & ~(1 << v));
      net.rd(n, MC_REG_IRQ_STATUS, r);
      if ((r & MC_IRQ_STATUS_LINK_CHANGE_MASK) == 0)
        $fatal(1, "hub: node %0d: IRQ_STATUS.LINK_CHANGE not set by the node-down report", n);
    end
    net.rd(v, MC_REG_NODES_UP, r);
    tb_score_pkg::expect_value(v, "NODES_UP of the cut node", r, 0);
    net.quiesce(2000);
    net.check();

    // the cut link's frames are given up on both ends (retry exhausted) before the cable is
    // healed: the link layer then starts a new epoch instead of resending them
    begin
      int t;
      t = 0;
      while (!((net.hub_unacked[v] == 1'b0 || net.port_disc[v]) &&
               (net.ad_unacked[v] == 1'b0 || net.ad_disc[v]))) begin
        @(posedge clk);
        t++;
        if (t > 200000) $fatal(1, "hub: the cut link's transmitters never gave up");
      end
    end
    heal_cyc = cyc;
    cut_len = int'(cyc - cut_cyc);
    net.cut[v] = 0;
    net.wait_reg(v, MC_REG_LINK_STATUS, MC_LINK_STATUS_UP_MASK, MC_LINK_STATUS_UP_MASK,
                 "link up after the heal");
    net.wr(v, MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK | MC_CTRL_ERR_RESET_MASK);
    for (int n = 0; n < nodes; n++)
      net.wait_reg(n, MC_REG_NODES_UP, 32'hFFFF_FFFF, all, "every node up again");
    readmit = int'(cyc - heal_cyc);
    net.quiesce(2000);
    net.forgive(v);
    // traffic among all nodes again, the re-admitted one included
    traffic();
    $sformat(report, "node %0d cut for %0d cycles: reported down to every live node within %0d cycles (bound %0d), %0d stores and %0d barriers of live senders completed during the cut, re-admitted %0d cycles after the heal; ",
             v, cut_len, worst, REPORT_BOUND, net.stores_cut, net.barriers_cut, readmit);
  endtask

  initial begin
    logic [31:0] r;
    longint retries, crc_errs, total_flips;
    string cut_report;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("rounds=%d", rounds)) rounds = 12;
    if (!$value$plusargs("flips=%d", flip_ppm)) flip_ppm = 0;
    if (!$value$plusargs("bp=%d", bp)) bp = -1;
    if (!$value$plusargs("nodes=%d", nodes)) nodes = 4;
    cut_mode = $test$plusargs("cut");
    mcast_on = !$test$plusargs("mcast=0");
    if (nodes < 4 || nodes > NN) $fatal(1, "hub: +nodes must be 4..%0d", NN);
    net.nn = nodes;
    void'($urandom(seed));
    repeat (5) @(posedge clk);
    rst_n = 1;
    repeat (5) @(posedge clk);
    if (bp >= 0) for (int n = 0; n < nodes; n++) net.stall_set[n] = bp;
    net.init(32'b1000);
    up_watch = 1;
    $display("hub: %0d adapters up, node IDs from the hub, node 3's by hand", nodes);

    net.random_setup(NPG, mcast_on);
    if (flip_ppm > 0) for (int n = 0; n < nodes; n++) net.flip_set[n] = flip_ppm;
    cut_report = "";
    if (cut_mode) port_cut(cut_report);
    else traffic();
    if (flip_ppm > 0) for (int n = 0; n < nodes; n++) net.flip_set[n] = 0;
    net.quiesce(3000);
    net.check();
    retries = 0;
    crc_errs = 0;
    total_flips = 0;
    for (int n = 0; n < nodes; n++) begin
      net.rd(n, MC_REG_ACK_OUTSTANDING, r);
      tb_score_pkg::expect_value(n, "ACK_OUTSTANDING", r, 0);
      if (!(cut_mode && n == v)) begin   // the cut node counted its lost frames
        net.rd(n, MC_REG_ERROR_COUNT, r);
        tb_score_pkg::expect_value(n, "ERROR_COUNT", r, 0);
      end
      net.rd(n, MC_REG_LINK_RETRIES, r);
      retries += r;
      net.rd(n, MC_REG_CRC_ERRORS, r);
      crc_errs += r;
      total_flips += net.flips[n];
    end
    if (net.port_disc != '0) $fatal(1, "hub: a hub port is discarding (%b)", net.port_disc);
    // flips toward an adapter show in its CRC_ERRORS, flips toward the hub in its retries
    if (flip_ppm > 0 && (total_flips == 0 || retries + crc_errs == 0))
      $fatal(1, "hub: %0d bit flips, no CRC error or retry at an adapter: error path not run",
             total_flips);
    begin
      int words;
      words = 0;
      for (int n = 0; n < nodes; n++) words += net.log_a[n].size();
      $display("hub: PASS (%0d adapters, %0d rounds, %s%0d words checked, %0d barriers, %0d multicast frames to members only, %0d bit flips, adapters: %0d CRC errors, %0d retries)",
               nodes, rounds, cut_report, words, net.barriers, net.mc_member_frames, total_flips,
               crc_errs, retries);
    end
    $finish;
  end

  initial begin
    #400000000;
    $fatal(1, "hub: global timeout");
  end
endmodule : tb_hub

`default_nettype wire
