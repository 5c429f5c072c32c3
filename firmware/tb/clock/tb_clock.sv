// Clock bench (docs/firmware.md "Global clock"): the global time of 4 adapters on an 8-port
// hub (tb_hub_net) and of 2 adapters back to back (tb_pair), each adapter leaving reset
// STAGGER cycles after the one before (so their own clocks start apart). Cables with random
// stalls (30 %, then 60 % with bit flips and retries), with and without traffic.
// Checks, every cycle once the adapters are VALID: each adapter's global time against the
// master's (the hub's counter; back to back node 0's) lies in -(L - MIN)..0, L the largest
// latency of a sync header through that adapter's cable (tb_clock_mon: the ground truth),
// and within the bound the adapter reports (CLOCK_BOUND = CLOCK_LINK_DELAY.SPREAD) whenever
// the cable kept within it; the registers (GLOBAL_TIME read LO then HI, CLOCK_STATUS,
// CLOCK_BOUND, CLOCK_OFFSET) agree; the traffic arrives (scoreboard, see the bit flips). The
// hub's traffic is point to point: with every node broadcasting, the hub loses words of a
// sender to a receiver under stalls (issue 12's open hub defect, the same in the SYNC = 0
// build). First of all, after
// 8 sync intervals, the skew between any adapter and the master must be within the bound:
// built with SYNC = 0 (no sync frames) the bench must FAIL there ("clock skew").
// Prints "CLOCK up to <phase>: ..." lines with the accuracy measured so far (maxima over the
// phases run). Plusargs: +seed.
`default_nettype none

module tb_clock #(
  parameter bit SYNC = 1'b1
);
  import memchan_regs_pkg::*;

  localparam int NN      = 4;
  localparam int IV      = 2000;   // sync interval, cycles
  localparam int STAGGER = 777;    // reset stagger between adapters, cycles
  localparam int MIN     = 1;      // CLOCK_LINK_DELAY.MIN: tb_link_chan's least latency
  localparam int SPREAD  = 32;     // CLOCK_LINK_DELAY.SPREAD: the bound we state
  localparam int PS      = 4096;

  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;
  int unsigned seed;

  tb_hub_net #(.NN(NN), .PORTS(8), .SYNC_INTERVAL(IV), .CLOCK_SYNC(SYNC), .RST_STAGGER(STAGGER))
    net (.clk, .rst_n);
  tb_pair #(.CLOCK_SYNC(SYNC), .RST_STAGGER(STAGGER)) pair (.clk, .rst_n);

  // ---------------- ground truth: sync header latency per cable toward a slave ----------------
  longint max_lat [NN + 1];        // [NN]: the pair's cable from node 0 to node 1
  for (genvar p = 0; p < NN; p++) begin : g_mon
    tb_clock_mon m (
      .clk, .rst_n,
      .i_tvalid(net.h_tv[p]), .i_tready(net.h_tr[p]), .i_tlast(net.h_tl[p]),
      .i_ttype(net.h_td[64*p +: 4]),
      .o_tvalid(net.g_ad[p].rv), .o_tready(net.g_ad[p].rr), .o_tlast(net.g_ad[p].rl));
    always @(posedge clk) max_lat[p] = m.max_lat;
  end
  tb_clock_mon m_pair (
    .clk, .rst_n, .i_tvalid(pair.t0v), .i_tready(pair.t0r), .i_tlast(pair.t0l),
    .i_ttype(pair.t0d[3:0]), .o_tvalid(pair.r1v), .o_tready(pair.r1r), .o_tlast(pair.r1l));
  always @(posedge clk) max_lat[NN] = m_pair.max_lat;

  // ---------------- the clocks (slave n < NN: hub net node n; NN: the pair's node 1) ----------------
  longint master_t [NN + 1], slave_t [NN + 1];
  bit     slave_valid [NN + 1];
  always_comb begin
    master_t[0] = longint'(net.hub.u_clock.time_q);
    slave_t[0] = longint'(net.g_ad[0].nd.dut.u_clock.gt_q);
    slave_valid[0] = net.g_ad[0].nd.dut.u_clock.valid_q;
    master_t[1] = master_t[0];
    slave_t[1] = longint'(net.g_ad[1].nd.dut.u_clock.gt_q);
    slave_valid[1] = net.g_ad[1].nd.dut.u_clock.valid_q;
    master_t[2] = master_t[0];
    slave_t[2] = longint'(net.g_ad[2].nd.dut.u_clock.gt_q);
    slave_valid[2] = net.g_ad[2].nd.dut.u_clock.valid_q;
    master_t[3] = master_t[0];
    slave_t[3] = longint'(net.g_ad[3].nd.dut.u_clock.gt_q);
    slave_valid[3] = net.g_ad[3].nd.dut.u_clock.valid_q;
    master_t[NN] = longint'(pair.a0.dut.u_clock.gt_q);
    slave_t[NN] = longint'(pair.a1.dut.u_clock.gt_q);
    slave_valid[NN] = pair.a1.dut.u_clock.valid_q;
  end

  function automatic string who(input int n);
    return (n < NN) ? $sformatf("hub node %0d", n) : "back-to-back node 1";
  endfunction

  // every cycle while watching: error against the master, skew between the hub's adapters
  bit     watch = 0;
  longint max_err [NN + 1], max_skew, beyond;
  initial begin
    for (int n = 0; n <= NN; n++) max_err[n] = 0;
    max_skew = 0;
    beyond = 0;
  end
  always @(posedge clk) if (watch) begin
    longint lo, hi;
    lo = 0; hi = 0;
    for (int n = 0; n <= NN; n++) begin
      longint e;
      if (!slave_valid[n])
        $fatal(1, "%s: global clock no longer VALID (error %0d, cable max latency %0d, hub ports up %b)", who(n),
               slave_t[n] - master_t[n], max_lat[n], net.port_up);
      e = slave_t[n] - master_t[n];
      if (e > 0 || -e > max_lat[n] - MIN)
        $fatal(1, "%s: clock error %0d cycles outside -(%0d - %0d)..0 (the cable's sync latency)",
               who(n), e, max_lat[n], MIN);
      if (-e > SPREAD) begin
        if (max_lat[n] - MIN <= SPREAD)
          $fatal(1, "%s: clock error %0d beyond the bound %0d with the cable within it", who(n),
                 e, SPREAD);
        beyond++;
      end
      if (-e > max_err[n]) max_err[n] = -e;
      if (n < NN) begin
        if (n == 0 || e < lo) lo = e;
        if (n == 0 || e > hi) hi = e;
      end
    end
    if (hi - lo > max_skew) max_skew = hi - lo;
  end

  // one BAR0 access on slave n (hub net node, or the pair's node 1), or the pair's node 0
  task automatic wr_all(input int addr, input logic [31:0] v);
    for (int n = 0; n < NN; n++) net.wr(n, addr, v);
    pair.wr(0, addr, v);
    pair.wr(1, addr, v);
  endtask
  task automatic rd_slave(input int n, input int addr, output logic [31:0] v);
    if (n < NN) net.rd(n, addr, v);
    else pair.rd(1, addr, v);
  endtask

  // the skew after the syncs had time to work: within the bound (the negative control
  // fails here), then VALID everywhere
  task automatic first_check();
    for (int n = 0; n <= NN; n++) begin
      longint e;
      e = slave_t[n] - master_t[n];
      if (e < -SPREAD || e > SPREAD)
        $fatal(1, "%s: clock skew %0d cycles exceeds the bound %0d", who(n), e, SPREAD);
    end
    for (int n = 0; n <= NN; n++)
      if (!slave_valid[n]) $fatal(1, "%s: global clock not VALID", who(n));
  endtask

  // registers of every slave against the master
  task automatic check_regs();
    for (int n = 0; n <= NN; n++) begin
      logic [31:0] lo, hi, st, bd, off;
      longint t_first, t_last, t;
      t_first = master_t[n];
      rd_slave(n, MC_REG_GLOBAL_TIME_LO, lo);
      t_last = master_t[n];
      rd_slave(n, MC_REG_GLOBAL_TIME_HI, hi);
      t = {hi, lo};
      if (t < t_first - SPREAD || t > t_last)
        $fatal(1, "%s: GLOBAL_TIME %0d not within the master's %0d..%0d (bound %0d)", who(n), t,
               t_first, t_last, SPREAD);
      rd_slave(n, MC_REG_CLOCK_STATUS, st);
      if ((st & (MC_CLOCK_STATUS_VALID_MASK | MC_CLOCK_STATUS_MASTER_MASK)) !=
          MC_CLOCK_STATUS_VALID_MASK || (st >> MC_CLOCK_STATUS_SYNCS_SHIFT) == 0)
        $fatal(1, "%s: CLOCK_STATUS %h: want VALID, not MASTER, syncs counted", who(n), st);
      rd_slave(n, MC_REG_CLOCK_BOUND, bd);
      tb_score_pkg::expect_value(n, "CLOCK_BOUND", bd, SPREAD);
      rd_slave(n, MC_REG_CLOCK_OFFSET, off);
      if (int'(off) > max_lat[n] - MIN || -int'(off) > max_lat[n] - MIN)
        $fatal(1, "%s: CLOCK_OFFSET %0d beyond the cable's latency spread %0d", who(n), int'(off),
               max_lat[n] - MIN);
    end
    begin
      logic [31:0] st, bd;
      pair.rd(0, MC_REG_CLOCK_STATUS, st);
      if ((st & (MC_CLOCK_STATUS_VALID_MASK | MC_CLOCK_STATUS_MASTER_MASK)) !=
          (MC_CLOCK_STATUS_VALID_MASK | MC_CLOCK_STATUS_MASTER_MASK))
        $fatal(1, "back-to-back node 0: CLOCK_STATUS %h: want VALID and MASTER", st);
      pair.rd(0, MC_REG_CLOCK_BOUND, bd);
      tb_score_pkg::expect_value(0, "CLOCK_BOUND (master)", bd, 0);
    end
  endtask

  // traffic: every hub node stores to its page (to the next node), the pair's to each other
  task automatic traffic(input int cycles);
    longint t_end;
    t_end = master_t[NN] + cycles;
    while (master_t[NN] < t_end) begin
      int s;
      s = $urandom_range(0, NN + 1);
      if (s < NN) net.store(s, longint'(s * PS + 4 * $urandom_range(0, 900)), $urandom_range(1, 64));
      else pair.store(s - NN, longint'(4 * $urandom_range(0, 900)), $urandom_range(1, 64));
      repeat ($urandom_range(0, 50)) @(posedge clk);
    end
  endtask

  task automatic idle(input int cycles);
    repeat (cycles) @(posedge clk);
  endtask

  task automatic report(input string setup);
    longint hub_max, hub_lat;
    hub_max = 0; hub_lat = 0;
    for (int n = 0; n < NN; n++) begin
      if (max_err[n] > hub_max) hub_max = max_err[n];
      if (max_lat[n] > hub_lat) hub_lat = max_lat[n];
    end
    $display("CLOCK up to %s: hub: max error %0d cycles, max skew between adapters %0d, largest sync latency beyond MIN %0d; back to back: max error %0d, largest sync latency beyond MIN %0d; stated bound %0d",
             setup, hub_max, max_skew, hub_lat - MIN, max_err[NN], max_lat[NN] - MIN, SPREAD);
  endtask

  initial begin
    logic [31:0] syncs0 [NN + 1];
    longint flips, crc;
    bit data_only;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    void'($urandom(seed));
    repeat (5) @(posedge clk);
    rst_n = 1;
    repeat (NN * STAGGER + 10) @(posedge clk);
    net.init(32'b0);
    pair.init(1'b1);
    wr_all(MC_REG_CLOCK_LINK_DELAY, (32'(SPREAD) << MC_CLOCK_LINK_DELAY_SPREAD_SHIFT) | 32'(MIN));
    wr_all(MC_REG_CLOCK_SYNC_INTERVAL, IV);
    // pages: hub node n sends on page n to node n + 1, the pair to each other on page 0
    for (int n = 0; n < NN; n++)
      for (int r = 0; r < NN; r++)
        net.set_page(r, n, (r == n) ? (MC_TX_PCT_TX_EN_MASK |
                                       (32'((n + 1) % NN) << MC_TX_PCT_DEST_SHIFT)) : 32'h0,
                     MC_RX_PCT_RX_EN_MASK);
    for (int n = 0; n < 2; n++) begin
      pair.set_tx(n, 0, MC_TX_PCT_TX_EN_MASK | (32'(1 - n) << MC_TX_PCT_DEST_SHIFT));
      pair.set_rx(n, 0, MC_RX_PCT_RX_EN_MASK);
    end
    idle(8 * IV);
    // +data_only: the traffic and its scoreboard alone (to tell a clock failure from a
    // traffic one, e.g. in the SYNC = 0 build)
    data_only = $test$plusargs("data_only");
    if (!data_only) first_check();
    $display("clock: every adapter VALID, skew within %0d cycles after 8 sync intervals", SPREAD);
    watch = !data_only;
    for (int n = 0; n < NN; n++) rd_slave(n, MC_REG_CLOCK_STATUS, syncs0[n]);
    rd_slave(NN, MC_REG_CLOCK_STATUS, syncs0[NN]);

    idle(10 * IV);
    report("idle, 30 % stalls");
    traffic(12 * IV);
    report("traffic, 30 % stalls");
    // (the stresses of the hub bench, one at a time: together they take the hub's ports
    // down, heartbeats being late, and a port that is down gets no sync frames)
    for (int n = 0; n < NN; n++) net.stall_set[n] = 60;
    pair.c01.stall_pct = 60; pair.c10.stall_pct = 60;
    traffic(12 * IV);
    report("traffic, 60 % stalls");
    // the hub's traffic is checked before the bit flips: with them the hub loses words of a
    // sender to a receiver on some seeds (issue 12's open hub defect, also without sync
    // frames); the pair's traffic is checked through all
    net.quiesce(3000);
    net.check();
    for (int n = 0; n < NN; n++) begin net.stall_set[n] = 30; net.flip_set[n] = 1000; end
    pair.c01.stall_pct = 30; pair.c10.stall_pct = 30;
    pair.c01.flip_ppm = 1000; pair.c10.flip_ppm = 1000;
    traffic(12 * IV);
    report("traffic, 30 % stalls, 1000 ppm bit flips (link retries)");
    for (int n = 0; n < NN; n++) net.flip_set[n] = 0;
    pair.c01.flip_ppm = 0; pair.c10.flip_ppm = 0;
    if (!data_only) check_regs();

    // sync frames kept coming through the errors; the errors happened
    flips = pair.c01.flips + pair.c10.flips;
    for (int n = 0; n < NN; n++) flips += net.flips[n];
    crc = 0;
    for (int n = 0; n <= NN; n++) begin
      logic [31:0] st, c;
      rd_slave(n, MC_REG_CLOCK_STATUS, st);
      if (!data_only && (st >> 16) - (syncs0[n] >> 16) < 36)
        $fatal(1, "%s: only %0d sync samples in 46 intervals", who(n),
               (st >> 16) - (syncs0[n] >> 16));
      rd_slave(n, MC_REG_CRC_ERRORS, c);
      crc += c;
    end
    if (flips == 0 || crc == 0) $fatal(1, "clock: %0d bit flips, %0d CRC errors: error path not run",
                                       flips, crc);
    watch = 0;
    pair.quiesce(5000);
    pair.check(1'b0);
    $display("clock: PASS (%0d bit flips, %0d CRC errors at the slaves, traffic checked)", flips, crc);
    $finish;
  end

  initial begin
    #200_000_000;
    $fatal(1, "clock: timeout");
  end
endmodule : tb_clock

`default_nettype wire
