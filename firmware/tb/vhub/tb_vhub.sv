// Bench 5: ordering rule 2 (multi-sender rule) in two-node direct mode (virtual hub).
// Two pairs of adapters run the same traffic: one pair with the virtual hub (VHUB = 1, the
// design), one without (VHUB = 0: each node writes its own local copies at once, the old
// behaviour). Both nodes of a pair autoconfigure their IDs, then repeatedly run the bid-lock
// (IRIW) pattern: in round k each node writes its bid word (page 0, broadcast with local
// copy, slot k*8 + 4*node) at about the same time, mixed with point-to-point bursts to the
// peer (no local copy) and acknowledged broadcast bursts with local copy (page 3).
// Checks, per pair:
//   * the scoreboard of tb_pair (every word exactly once, per sender in order, right address);
//   * total order: the stores that both nodes see (pages 0 and 3) appear in the same order in
//     both host memories;
//   * bid lock: a node holds the lock of round k when its own bid reaches its memory before the
//     peer's bid; both holding it is a mutual-exclusion failure;
//   * ACK_OUTSTANDING returns to 0, barrier sweeps complete, no error counted.
// The VHUB = 1 pair must pass all of them; the VHUB = 0 pair must show total-order and
// lock violations (this bench fails if it does not: the case the virtual hub fixes).
`default_nettype none

module tb_vhub_run #(
  parameter bit VHUB = 1'b1
) (
  input  wire logic clk,
  input  wire logic rst_n,
  input  wire int   rounds,
  output bit        done,
  output int        order_viol,
  output int        lock_viol,
  output int        both_seen
);
  import memchan_regs_pkg::*;

  tb_pair #(.STALL(30), .VHUB(VHUB)) p (.clk, .rst_n);

  localparam int PS = 4096;
  logic [31:0] r;

  task automatic wait_reg(input int n, input int addr, input logic [31:0] mask,
                          input logic [31:0] val, input string what);
    int t;
    t = 0;
    do begin
      p.rd(n, addr, r);
      t++;
      if (t > 5000) $fatal(1, "vhub%0d node %0d: timeout waiting for %s (reads %h)",
                           VHUB, n, what, r);
    end while ((r & mask) != val);
  endtask

  // host-log words of node n that fall into pages 0 and 3 (seen by both nodes)
  task automatic shared_seq(input int n, output longint a [$], output logic [31:0] v [$]);
    int sz;
    a.delete(); v.delete();
    sz = (n == 0) ? p.a0.host.log_addr.size() : p.a1.host.log_addr.size();
    for (int k = 0; k < sz; k++) begin
      longint la, off;
      la  = (n == 0) ? p.a0.host.log_addr[k] : p.a1.host.log_addr[k];
      off = la - p.rx_base[n];
      if ((off >= 0 && off < PS) || (off >= 3 * PS && off < 4 * PS)) begin
        a.push_back(off);
        v.push_back((n == 0) ? p.a0.host.log_val[k] : p.a1.host.log_val[k]);
      end
    end
  endtask

  // one node's part of a round: maybe a burst to the peer, the bid, maybe an acked burst
  task automatic node_round(input int n, input int k);
    repeat ($urandom_range(0, 12)) @(posedge clk);
    if ($urandom_range(0, 2) == 0)
      p.store(n, longint'((1 + n) * PS + 8 * $urandom_range(0, 400)), $urandom_range(1, 40));
    p.store(n, longint'(k * 8 + 4 * n), 1);
    if ($urandom_range(0, 3) == 0)
      p.store(n, longint'(3 * PS + 8 * $urandom_range(0, 400)), $urandom_range(1, 12));
  endtask

  initial begin
    done = 0; order_viol = 0; lock_viol = 0; both_seen = 0;
    @(posedge rst_n);
    repeat (5) @(posedge clk);
    // ---------------- two-node direct mode: autoconfigured IDs ----------------
    p.init_auto(1);
    for (int n = 0; n < 2; n++) begin
      // page 0: bids, broadcast with local copy; page 3: broadcast, local copy, acknowledged
      p.set_tx(n, 0, MC_TX_PCT_TX_EN_MASK | MC_TX_PCT_LOCAL_COPY_MASK |
                     (32'd1 << MC_TX_PCT_DEST_KIND_SHIFT));
      p.set_tx(n, 3, MC_TX_PCT_TX_EN_MASK | MC_TX_PCT_LOCAL_COPY_MASK | MC_TX_PCT_ACK_REQ_MASK |
                     (32'd1 << MC_TX_PCT_DEST_KIND_SHIFT));
      // page 1 + n: to the peer only
      p.set_tx(n, 1 + n, MC_TX_PCT_TX_EN_MASK | (32'(1 - n) << MC_TX_PCT_DEST_SHIFT));
      p.set_rx(n, 0, MC_RX_PCT_RX_EN_MASK);
      p.set_rx(n, 3, MC_RX_PCT_RX_EN_MASK);
      p.set_rx(n, 2 - n, MC_RX_PCT_RX_EN_MASK);
    end

    // ---------------- rounds of the bid-lock pattern ----------------
    for (int k = 0; k < rounds; k++) begin
      fork
        node_round(0, k);
        node_round(1, k);
      join
      if (k % 16 == 15 || k == rounds - 1) begin
        p.quiesce(200);
        p.check(0);
      end
    end
    for (int n = 0; n < 2; n++) begin
      p.wr(n, MC_REG_BARRIER, MC_BARRIER_START_MASK);
      wait_reg(n, MC_REG_BARRIER, MC_BARRIER_DONE_MASK, MC_BARRIER_DONE_MASK, "barrier done");
      p.expect_reg(n, MC_REG_ACK_OUTSTANDING, 0, "ACK_OUTSTANDING");
      p.expect_reg(n, MC_REG_ERROR_COUNT, 0, "ERROR_COUNT");
    end

    // ---------------- total order and bid lock ----------------
    begin
      longint a0 [$], a1 [$];
      logic [31:0] v0 [$], v1 [$];
      shared_seq(0, a0, v0);
      shared_seq(1, a1, v1);
      if (a0.size() != a1.size())
        $fatal(1, "vhub%0d: nodes saw %0d and %0d shared words", VHUB, a0.size(), a1.size());
      both_seen = a0.size();
      for (int i = 0; i < a0.size(); i++)
        if (a0[i] != a1[i] || v0[i] != v1[i]) order_viol++;
      for (int k = 0; k < rounds; k++) begin
        int pos [2][2];   // [observer][bidder]: position of the bid in the observer's sequence
        for (int o = 0; o < 2; o++) for (int b = 0; b < 2; b++) begin
          pos[o][b] = -1;
          for (int i = 0; i < a0.size(); i++)
            if (((o == 0) ? a0[i] : a1[i]) == longint'(k * 8 + 4 * b)) pos[o][b] = i;
          if (pos[o][b] < 0) $fatal(1, "vhub%0d: bid %0d/%0d missing at %0d", VHUB, k, b, o);
        end
        if (pos[0][0] < pos[0][1] && pos[1][1] < pos[1][0]) lock_viol++;
      end
    end
    $display("vhub%0d: %0d rounds, %0d shared words, %0d out of order, %0d double lock holds",
             VHUB, rounds, both_seen, order_viol, lock_viol);
    done = 1;
  end
endmodule : tb_vhub_run

module tb_vhub;
  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;
  int unsigned seed;
  int rounds;
  bit done_on, done_off;
  int ov_on, lv_on, n_on, ov_off, lv_off, n_off;

  tb_vhub_run #(.VHUB(1'b1)) on (.clk, .rst_n, .rounds, .done(done_on), .order_viol(ov_on),
                                 .lock_viol(lv_on), .both_seen(n_on));
  tb_vhub_run #(.VHUB(1'b0)) off (.clk, .rst_n, .rounds, .done(done_off), .order_viol(ov_off),
                                  .lock_viol(lv_off), .both_seen(n_off));

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("rounds=%d", rounds)) rounds = 48;
    void'($urandom(seed));
    repeat (5) @(posedge clk);
    rst_n = 1;
    wait (done_on && done_off);
    if (ov_on != 0 || lv_on != 0)
      $fatal(1, "vhub: virtual hub on: %0d out of order, %0d double lock holds", ov_on, lv_on);
    if (ov_off == 0 || lv_off == 0)
      $fatal(1, "vhub: without the virtual hub no violation was seen: the bench proves nothing");
    $display("vhub: PASS (virtual hub: one total order of %0d words, mutual exclusion in %0d rounds;",
             n_on, rounds);
    $display("vhub:       without it: %0d words out of order, %0d rounds with two lock holders)",
             ov_off, lv_off);
    $finish;
  end

  initial begin
    #400000000;
    $fatal(1, "vhub: global timeout");
  end
endmodule : tb_vhub

`default_nettype wire
