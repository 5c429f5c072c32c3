// Hub bench 2: ordering rule 2 (seed 000: packets of different senders arrive in the same
// order at every receiver) with 4 senders and 4 receivers on a hub, in the bid-lock / IRIW
// pattern. Round k: every node writes its bid word (page 0, broadcast with local copy, slot
// k*16 + 4*node) at about the same time, mixed with broadcast bursts with local copy (page 1)
// and point-to-point bursts (page 2 + node, to the next node).
// Checks: the scoreboard of tb_hub_net (every word, per sender in order, right address); the
// words every node sees (pages 0 and 1) appear in one order in all four host memories; the
// bid lock: the first bid of round k in a node's memory names the lock holder, and all nodes
// must agree. SYNC = 0 builds the hub with BCAST_SYNC = 0 (outputs served one by one): the
// bench must then FAIL with "rule 2 violated" (test.sh requires that: the negative control).
`default_nettype none

module tb_hub_order #(
  parameter bit SYNC = 1'b1
);
  import memchan_regs_pkg::*;

  localparam int NN = 4;
  localparam int PS = 4096;

  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;
  int unsigned seed;
  int rounds;

  tb_hub_net #(.NN(NN), .PORTS(NN), .BCAST_SYNC(SYNC)) net (.clk, .rst_n);

  // round k: every node (in random order) maybe a burst to the next node, then its bid;
  // then maybe broadcast bursts. One process: Verilator 5.006 mixes up concurrent calls of a
  // task that waits; the stores only queue BAR2 bursts, so the bids still meet at the hub.
  task automatic round(input int k);
    int order [NN];
    for (int n = 0; n < NN; n++) order[n] = n;
    for (int i = NN - 1; i > 0; i--) begin   // Fisher-Yates
      int j, t;
      j = $urandom_range(0, i);
      t = order[i]; order[i] = order[j]; order[j] = t;
    end
    foreach (order[i]) begin
      int n;
      n = order[i];
      if ($urandom_range(0, 2) == 0)
        net.store(n, longint'((2 + n) * PS + 8 * $urandom_range(0, 400)), $urandom_range(1, 40));
      net.store(n, longint'(k * 16 + 4 * n), 1);
    end
    foreach (order[i])
      if ($urandom_range(0, 2) == 0)
        net.store(order[i], longint'(PS + 8 * $urandom_range(0, 400)), $urandom_range(1, 24));
    repeat ($urandom_range(0, 40)) @(posedge clk);
  endtask

  // host-log words of node n in pages 0 and 1 (seen by every node), as network offsets
  task automatic shared_seq(input int n, output longint a [$], output logic [31:0] v [$]);
    a.delete(); v.delete();
    for (int k = 0; k < net.log_a[n].size(); k++) begin
      longint off;
      off = net.log_a[n][k] - net.rx_base[n];
      if (off >= 0 && off < 2 * PS) begin
        a.push_back(off);
        v.push_back(net.log_v[n][k]);
      end
    end
  endtask

  initial begin
    int order_viol, lock_viol;
    longint a [NN][$];
    logic [31:0] v [NN][$];
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("rounds=%d", rounds)) rounds = 48;
    void'($urandom(seed));
    repeat (5) @(posedge clk);
    rst_n = 1;
    repeat (5) @(posedge clk);
    net.init(32'b0);
    for (int n = 0; n < NN; n++) begin
      // page 0: bids, page 1: broadcast, both with local copy; page 2 + n: to the next node
      net.set_page(n, 0, MC_TX_PCT_TX_EN_MASK | MC_TX_PCT_LOCAL_COPY_MASK |
                         (32'd1 << MC_TX_PCT_DEST_KIND_SHIFT), MC_RX_PCT_RX_EN_MASK);
      net.set_page(n, 1, MC_TX_PCT_TX_EN_MASK | MC_TX_PCT_LOCAL_COPY_MASK |
                         (32'd1 << MC_TX_PCT_DEST_KIND_SHIFT), MC_RX_PCT_RX_EN_MASK);
      net.set_page(n, 2 + n, MC_TX_PCT_TX_EN_MASK | (32'((n + 1) % NN) << MC_TX_PCT_DEST_SHIFT),
                   64'h0);
    end
    for (int n = 0; n < NN; n++)
      net.set_page(n, 2 + (n + NN - 1) % NN, net.txe[n][2 + (n + NN - 1) % NN],
                   MC_RX_PCT_RX_EN_MASK);

    for (int k = 0; k < rounds; k++) begin
      round(k);
      if (k % 16 == 15 || k == rounds - 1) begin
        net.quiesce(300);
        net.check();
      end
    end

    // one order of the shared words, one lock holder per round
    for (int n = 0; n < NN; n++) shared_seq(n, a[n], v[n]);
    order_viol = 0;
    lock_viol = 0;
    for (int n = 1; n < NN; n++) begin
      if (a[n].size() != a[0].size())
        $fatal(1, "hub_order: nodes 0 and %0d saw %0d and %0d shared words", n, a[0].size(),
               a[n].size());
      for (int i = 0; i < a[0].size(); i++)
        if (a[n][i] != a[0][i] || v[n][i] != v[0][i]) order_viol++;
    end
    for (int k = 0; k < rounds; k++) begin
      int holder [NN];
      for (int n = 0; n < NN; n++) begin
        holder[n] = -1;
        for (int i = 0; i < a[n].size() && holder[n] < 0; i++)
          if (a[n][i] >= longint'(k * 16) && a[n][i] < longint'(k * 16 + 4 * NN))
            holder[n] = int'((a[n][i] - k * 16) / 4);
        if (holder[n] < 0) $fatal(1, "hub_order: round %0d: no bid at node %0d", k, n);
      end
      for (int n = 1; n < NN; n++)
        if (holder[n] != holder[0]) begin lock_viol++; break; end
    end
    $display("hub_order: BCAST_SYNC=%0d, %0d rounds, %0d shared words per node, %0d out of order, %0d rounds with disagreeing lock holders",
             SYNC, rounds, a[0].size(), order_viol, lock_viol);
    if (order_viol != 0 || lock_viol != 0)
      $fatal(1, "hub_order: rule 2 violated (BCAST_SYNC=%0d)", SYNC);
    $display("hub_order: PASS (one total order of the broadcasts at all 4 nodes, one lock holder in every round)");
    $finish;
  end

  initial begin
    #400000000;
    $fatal(1, "hub_order: global timeout");
  end
endmodule : tb_hub_order

`default_nettype wire
