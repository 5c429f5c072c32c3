// Bench 2: two adapters back to back, randomized traffic from both at once (sizes, offsets,
// burst lengths, point-to-point, to itself, broadcast, multicast, local copy, disabled
// transmit and receive pages, receive remapping), random stalls on every AXI and stream
// port; the scoreboard checks every word at the right host address, in single-sender
// order, and nothing for disabled pages; transmit drop counters exact.
`default_nettype none

module tb_b2b #(
  // the U50 shell's link between the adapters, on unrelated clocks (tb_pair SHELL; the harness's
  // b2b_shell build: --timescale 1ns/1ps)
  parameter bit SHELL = 1'b0,
  parameter bit SHELL_GRAY = 1'b1,
  parameter int SHELL_HEADROOM_ADJ = 0
);
  import memchan_regs_pkg::*;

  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;

  tb_pair #(.STALL(30), .SHELL(SHELL), .SHELL_GRAY(SHELL_GRAY), .SHELL_HEADROOM_ADJ(SHELL_HEADROOM_ADJ)) p (
    .clk, .rst_n);

  int unsigned seed;
  int rounds, host_stall;
  logic [31:0] r;

  function automatic logic [31:0] rand_tx(input int n);
    logic [31:0] e;
    int k;
    e = 0;
    if ($urandom_range(0, 99) < 85) e |= MC_TX_PCT_TX_EN_MASK;
    if ($urandom_range(0, 99) < 30) e |= MC_TX_PCT_LOCAL_COPY_MASK;
    if ($urandom_range(0, 99) < 15) e |= MC_TX_PCT_ACK_REQ_MASK;
    k = $urandom_range(0, 99);
    if (k < 50)      e |= (MC_DEST_KIND_NODE << MC_TX_PCT_DEST_KIND_SHIFT) | ((1 - n) << MC_TX_PCT_DEST_SHIFT);
    else if (k < 60) e |= (MC_DEST_KIND_NODE << MC_TX_PCT_DEST_KIND_SHIFT) | (n << MC_TX_PCT_DEST_SHIFT);
    else if (k < 85) e |= (MC_DEST_KIND_BROADCAST << MC_TX_PCT_DEST_KIND_SHIFT);
    else             e |= (MC_DEST_KIND_MULTICAST << MC_TX_PCT_DEST_KIND_SHIFT) |
                          ($urandom_range(0, 3) << MC_TX_PCT_DEST_SHIFT);
    return e;
  endfunction

  function automatic logic [63:0] rand_rx(input int n, input int page);
    logic [63:0] e;
    e = 0;
    if ($urandom_range(0, 99) < 85) e |= MC_RX_PCT_RX_EN_MASK;
    if ($urandom_range(0, 99) < 20) e |= MC_RX_PCT_IRQ_ON_RX_MASK;
    if ($urandom_range(0, 99) < 30)
      e |= MC_RX_PCT_REMAP_EN_MASK | (64'h0000_00AB_0000_0000 + 64'h0100_0000 * n + 64'(page) * 64'h2000);
    return e;
  endfunction

  task automatic traffic(input int s, input int n);
    for (int i = 0; i < n; i++) begin
      int page, off, len;
      page = $urandom_range(0, p.NP - 1);
      off  = 4 * $urandom_range(0, 1023);
      len  = ($urandom_range(0, 3) == 0) ? $urandom_range(1, 300) : $urandom_range(1, 40);
      if (page * p.PS + off + 4 * len > p.NP * p.PS) len = (p.NP * p.PS - page * p.PS - off) / 4;
      if (s == 0) p.a0.max_burst = $urandom_range(1, 64); else p.a1.max_burst = $urandom_range(1, 64);
      p.store(s, longint'(page) * p.PS + off, len);
      if ($urandom_range(0, 9) == 0) repeat ($urandom_range(1, 200)) @(posedge clk);
    end
  endtask

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("rounds=%d", rounds)) rounds = 3;
    // +host_stall=P: both host memories stall P % of their handshakes (the receivers fall
    // behind the link, which must then pause it)
    if ($value$plusargs("host_stall=%d", host_stall)) begin
      p.a0.host.stall_pct = host_stall;
      p.a1.host.stall_pct = host_stall;
    end
    void'($urandom(seed));
    $display("b2b: seed %0d, %0d rounds", seed, rounds);
    repeat (5) @(posedge clk);
    rst_n = 1;
    repeat (5) @(posedge clk);
    p.init(1);
    for (int g = 0; g < 4; g++) p.set_mcast(g, 32'($urandom_range(0, 3)));
    for (int round = 0; round < rounds; round++) begin
      // new random page tables each round, then both nodes send at the same time
      for (int n = 0; n < 2; n++)
        for (int pg = 0; pg < p.NP; pg++) begin
          p.set_tx(n, pg, rand_tx(n));
          p.set_rx(n, pg, rand_rx(n, pg));
        end
      fork
        traffic(0, 150);
        traffic(1, 150);
      join
      p.quiesce(400);
      p.check(0);
      $display("b2b: round %0d ok (node 0 log %0d words, node 1 log %0d words)", round,
               p.a0.host.log_addr.size(), p.a1.host.log_addr.size());
    end
    // every acknowledge request of the random traffic (ACK_REQ pages of any destination kind)
    // is answered: a barrier on each node completes with nothing outstanding
    for (int n = 0; n < 2; n++) begin
      int t;
      p.wr(n, MC_REG_BARRIER, MC_BARRIER_START_MASK);
      t = 0;
      do begin
        p.rd(n, MC_REG_BARRIER, r);
        t++;
        if (t > 3000) $fatal(1, "node %0d: barrier never completes (BARRIER %h)", n, r);
      end while ((r & MC_BARRIER_DONE_MASK) == 0);
      p.expect_reg(n, MC_REG_ACK_OUTSTANDING, 0, "ACK_OUTSTANDING");
    end
    for (int n = 0; n < 2; n++) begin
      p.expect_reg(n, MC_REG_TX_DROP_DISABLED, p.tx_drop_exp[n], "TX_DROP_DISABLED");
      p.expect_reg(n, MC_REG_ERROR_COUNT, 0, "ERROR_COUNT");
      p.expect_reg(n, MC_REG_CRC_ERRORS, 0, "CRC_ERRORS");
      p.rd(n, MC_REG_RX_DROP_DISABLED, r);
      if (r == 0) $fatal(1, "node %0d: RX_DROP_DISABLED is 0 although disabled pages received traffic", n);
      p.rd(n, MC_REG_NOTIFY_COUNT, r);
      if (r == 0) $fatal(1, "node %0d: no receive notification", n);
      p.rd(n, MC_REG_TX_PACKETS, r);
      $display("b2b: node %0d sent %0d packets", n, r);
    end
    if (SHELL)
      $display("b2b: shell links: XOFF %0d and %0d times, receive FIFO peaks %0d and %0d of 256 words",
               p.shell_xoffs[0], p.shell_xoffs[1], p.shell_fill_max[0], p.shell_fill_max[1]);
    $display("b2b: PASS");
    $finish;
  end

  initial begin
    #200000000;
    $fatal(1, "b2b: global timeout");
  end
endmodule : tb_b2b

`default_nettype wire
