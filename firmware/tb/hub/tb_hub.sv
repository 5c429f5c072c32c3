// Hub bench 1: 4 adapters on an 8-port hub (ports 4-7 without adapter), randomized traffic
// and the scoreboard of tb_hub_net. Nodes 0-2 take their node ID from the hub (NODE_ID.AUTO),
// node 3 is configured by hand (the manual path). Every round each node stores bursts to
// random pages whose PCT entries were drawn at random: point-to-point (to another node or to
// itself), broadcast, multicast (4 random groups), with or without local copy, acknowledged
// pages of every kind (the hub merges the receivers' acknowledgements), disabled transmit
// pages; receive pages randomly disabled or remapped; barrier sweeps between stores.
// Checks: every word at the right host address of every receiver that must get it, per sender
// in order, nothing else (nothing to a disabled page); a barrier is DONE only when every
// receiver has every earlier word of its sender; ACK_OUTSTANDING back to 0 and no error
// counted. Plusargs: +seed, +rounds, +flips=PPM (bit flips per million words on every
// cable, both directions: every hop retries; the bench then requires retries), +bp=PCT
// (back-pressure percentage on every cable, host port and BAR master; default 30).
`default_nettype none

module tb_hub;
  import memchan_regs_pkg::*;

  localparam int NN = 4;
  localparam int PS = 4096;
  localparam int NPG = 24;     // pages in use

  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;
  int unsigned seed;
  int rounds, flip_ppm, bp;

  tb_hub_net #(.NN(NN), .PORTS(8)) net (.clk, .rst_n);

  // once up, no port of the hub may go down (its traffic would be discarded)
  bit up_watch = 0;
  always @(posedge clk)
    if (up_watch && net.port_up[NN-1:0] != '1)
      $fatal(1, "hub: a hub port went down: %b", net.port_up);

  // one round: every node stores 1-3 bursts to random pages, the nodes' stores interleaved
  // at random (one process: Verilator 5.006 mixes up concurrent calls of a task that waits)
  task automatic round();
    int left [NN];
    for (int n = 0; n < NN; n++) left[n] = $urandom_range(1, 3);
    while (left[0] + left[1] + left[2] + left[3] > 0) begin
      int s;
      s = $urandom_range(0, NN - 1);
      if (left[s] > 0) begin
        repeat ($urandom_range(0, 8)) @(posedge clk);
        net.store(s, longint'($urandom_range(0, NPG - 1) * PS + 4 * $urandom_range(0, 1000)),
                  $urandom_range(1, 90));
        if ($urandom_range(0, 3) == 0) net.barrier(s);
        left[s]--;
      end
    end
  endtask

  initial begin
    logic [31:0] r;
    longint retries, crc_errs, total_flips;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("rounds=%d", rounds)) rounds = 12;
    if (!$value$plusargs("flips=%d", flip_ppm)) flip_ppm = 0;
    if (!$value$plusargs("bp=%d", bp)) bp = -1;
    void'($urandom(seed));
    repeat (5) @(posedge clk);
    rst_n = 1;
    repeat (5) @(posedge clk);
    if (bp >= 0) for (int n = 0; n < NN; n++) net.stall_set[n] = bp;
    net.init(32'b1000);
    up_watch = 1;
    $display("hub: 4 adapters up, node IDs 0-2 from the hub, 3 by hand");

    for (int g = 0; g < 4; g++) net.set_mcast(g, 32'($urandom_range(1, (1 << NN) - 1)));
    for (int n = 0; n < NN; n++) begin
      for (int p = 0; p < NPG; p++) begin
        logic [31:0] e;
        logic [63:0] x;
        int kind, dest;
        kind = $urandom_range(0, 2);
        dest = (kind == 0) ? $urandom_range(0, NN - 1) : (kind == 2) ? $urandom_range(0, 3) : 0;
        e = ($urandom_range(0, 9) != 0) ? MC_TX_PCT_TX_EN_MASK : 32'h0;
        if ($urandom_range(0, 1)) e |= MC_TX_PCT_LOCAL_COPY_MASK;
        // acknowledge requests on every kind: a broadcast or multicast one is answered by
        // every other node, merged by the hub into one acknowledgement
        if ($urandom_range(0, 2) == 0) e |= MC_TX_PCT_ACK_REQ_MASK;
        e |= 32'(kind) << MC_TX_PCT_DEST_KIND_SHIFT;
        e |= 32'(dest) << MC_TX_PCT_DEST_SHIFT;
        x = ($urandom_range(0, 6) != 0) ? MC_RX_PCT_RX_EN_MASK : 64'h0;
        if ($urandom_range(0, 5) == 0)
          x |= MC_RX_PCT_REMAP_EN_MASK | ((64'h90_0000_0000 + 64'(p) * 64'h10000) &
                                          MC_RX_PCT_REMAP_ADDR_MASK);
        net.set_page(n, p, e, x);
      end
    end
    if (flip_ppm > 0) for (int n = 0; n < NN; n++) net.flip_set[n] = flip_ppm;

    for (int k = 0; k < rounds; k++) begin
      round();
      if (k % 4 == 3 || k == rounds - 1) begin
        // a frame lost last on a hop is resent after the acknowledgement timeout (2048
        // cycles) of that hop: two hops
        net.quiesce(flip_ppm > 0 ? 5000 : 400);
        if ($test$plusargs("dbg")) for (int n = 0; n < NN; n++) begin
          logic [31:0] t, x, d;
          net.rd(n, MC_REG_TX_PACKETS, t);
          net.rd(n, MC_REG_RX_PACKETS, x);
          net.rd(n, MC_REG_RX_DROP_DISABLED, d);
          $display("dbg hub: inputs with a head frame %b, outputs busy %b, ports up %b",
                   net.hub.hv, net.hub.obusy_q, net.hub.port_up_o);
          $display("dbg node %0d: TX_PACKETS %0d RX_PACKETS %0d RX_DROP_DISABLED %0d", n, t, x, d);
        end
        net.check();
      end
    end
    if (flip_ppm > 0) for (int n = 0; n < NN; n++) net.flip_set[n] = 0;
    net.quiesce(3000);
    net.check();
    retries = 0;
    crc_errs = 0;
    total_flips = 0;
    for (int n = 0; n < NN; n++) begin
      net.rd(n, MC_REG_ACK_OUTSTANDING, r);
      tb_score_pkg::expect_value(n, "ACK_OUTSTANDING", r, 0);
      net.rd(n, MC_REG_ERROR_COUNT, r);
      tb_score_pkg::expect_value(n, "ERROR_COUNT", r, 0);
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
      for (int n = 0; n < NN; n++) words += net.log_a[n].size();
      $display("hub: PASS (%0d rounds, %0d words checked, %0d barriers, %0d bit flips, adapters: %0d CRC errors, %0d retries)",
               rounds, words, net.barriers, total_flips, crc_errs, retries);
    end
    $finish;
  end

  initial begin
    #400000000;
    $fatal(1, "hub: global timeout");
  end
endmodule : tb_hub

`default_nettype wire
