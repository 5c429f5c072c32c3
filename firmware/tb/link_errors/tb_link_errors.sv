// Bench 3: link errors between two adapters.
//  a) retry on: random bit flips on both cables; every flip is detected (CRC_ERRORS), the
//     link retransmits (LINK_RETRIES) and delivery stays complete and in order, no ERROR_COUNT.
//  b) retry off: bit flips; the receiver that sees a bad frame discards every later packet
//     on the path: what arrived is an exact prefix of what was sent; DISCARDING, ERROR_COUNT
//     and IRQ ERROR visible; after ERR_RESET traffic flows completely again.
//  c) retry exhausted: cable cut while sending; the sender gives up after LINK_RETRY_LIMIT
//     retransmissions, discards (DISCARDING, ERROR_COUNT); after the cable is back and
//     ERR_RESET, delivery resumes (receiver resynchronizes on the new sender epoch).
//  d) virtual hub, retry off, the spoke (node 1) discarding: its local-copy frames keep going
//     out to the hub, more of them than its echo credits (it sends them without asking for
//     the echo, which its discarding receiver would drop); after ERR_RESET its local copies
//     come back by echo again. Holding them for echoes that never came stopped the spoke's
//     transmit window for good, and with it the host's writes (ERR_RESET included): the
//     co-simulated board's one-vCPU guest froze (board-java's retry-off step).
`default_nettype none

module tb_link_errors;
  import memchan_regs_pkg::*;

  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;

  tb_pair #(.STALL(20)) p (.clk, .rst_n);
  tb_pair #(.STALL(20), .VHUB(1'b1)) v (.clk, .rst_n);   // part d: IDs from the link

  int unsigned seed;
  logic [31:0] r, r2;

  // point-to-point pages 0..15 from each node to the other, all received (half remapped)
  task automatic setup_p2p();
    for (int n = 0; n < 2; n++)
      for (int pg = 0; pg < 16; pg++) begin
        p.set_tx(n, pg, MC_TX_PCT_TX_EN_MASK | (MC_DEST_KIND_NODE << MC_TX_PCT_DEST_KIND_SHIFT) |
                        ((1 - n) << MC_TX_PCT_DEST_SHIFT) |
                        ((pg % 5 == 0) ? MC_TX_PCT_ACK_REQ_MASK : 32'h0));
        p.set_rx(n, pg, MC_RX_PCT_RX_EN_MASK |
                        ((pg % 2) ? (MC_RX_PCT_REMAP_EN_MASK | (64'h0000_0077_0000_0000 + 64'(pg) * 64'h1000 + 64'(n) * 64'h10_0000)) : 64'h0));
      end
  endtask

  task automatic traffic(input int s, input int n);
    for (int i = 0; i < n; i++) begin
      int page, off, len;
      page = $urandom_range(0, 15);
      off  = 4 * $urandom_range(0, 1023);
      len  = $urandom_range(1, 130);
      if (off + 4 * len > p.PS) len = (p.PS - off) / 4;
      p.store(s, longint'(page) * p.PS + off, len);
    end
  endtask

  // words of node r's host log from index first on whose network address is in [lo, hi)
  function automatic int logged(input int r, input int first, input longint lo, input longint hi);
    int n, c;
    longint a;
    c = 0;
    n = (r == 0) ? v.a0.host.log_addr.size() : v.a1.host.log_addr.size();
    for (int k = first; k < n; k++) begin
      a = ((r == 0) ? v.a0.host.log_addr[k] : v.a1.host.log_addr[k]) - v.rx_base[r];
      if (a >= lo && a < hi) c++;
    end
    return c;
  endfunction

  task automatic vhub_spoke_discarding();
    localparam int SPOKE_FRAMES = 40;          // more than ECHO_CREDITS (15)
    localparam longint LO = 2048, HI = 2048 + 8 * SPOKE_FRAMES;
    int h0, h1, t;
    v.init_auto(0);                                     // retry off
    for (int n = 0; n < 2; n++) begin
      v.set_tx(n, 0, MC_TX_PCT_TX_EN_MASK | MC_TX_PCT_LOCAL_COPY_MASK |
                     (32'd1 << MC_TX_PCT_DEST_KIND_SHIFT));
      v.set_rx(n, 0, MC_RX_PCT_RX_EN_MASK);
    end
    // the spoke's receiver discards: bit flips on the hub -> spoke cable while the hub sends
    v.c01.flip_ppm = 20000;
    t = 0;
    do begin
      v.store(0, 8 * (t % 64), 2);
      repeat (50) @(posedge clk);
      v.rd(1, MC_REG_LINK_STATUS, r);
      t++;
      if (t > 400) $fatal(1, "d) node 1 never discarding under bit flips");
    end while ((r & MC_LINK_STATUS_DISCARDING_MASK) == 0);
    v.c01.flip_ppm = 0;
    // the spoke's local-copy frames, one store each
    h0 = v.a0.host.log_addr.size();
    h1 = v.a1.host.log_addr.size();
    for (int i = 0; i < SPOKE_FRAMES; i++) begin
      v.store(1, LO + 8 * i, 1);
      repeat (40) @(posedge clk);
    end
    t = 0;
    while (logged(0, h0, LO, HI) < SPOKE_FRAMES) begin
      @(posedge clk);
      t++;
      if (t > 50000)
        $fatal(1, "d) the hub got %0d of the spoke's %0d frames: the spoke held them for echoes its discarding receiver never accepts",
               logged(0, h0, LO, HI), SPOKE_FRAMES);
    end
    if (logged(1, h1, LO, HI) != 0)
      $fatal(1, "d) the discarding spoke delivered %0d of its own words", logged(1, h1, LO, HI));
    v.rd(1, MC_REG_LINK_STATUS, r);
    if ((r & MC_LINK_STATUS_DISCARDING_MASK) == 0) $fatal(1, "d) node 1 left DISCARDING by itself");
    // ERR_RESET: the spoke's local copy comes back by echo again
    v.wr(1, MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_ERR_RESET_MASK);
    h1 = v.a1.host.log_addr.size();
    v.store(1, HI, 1);
    t = 0;
    while (logged(1, h1, HI, HI + 8) == 0) begin
      @(posedge clk);
      t++;
      if (t > 50000) $fatal(1, "d) after ERR_RESET the spoke's local copy did not come back");
    end
    $display("link_errors d) virtual hub, spoke discarding: %0d local-copy frames reached the hub, none echoed; after ERR_RESET echoed again: ok",
             SPOKE_FRAMES);
  endtask

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    void'($urandom(seed));
    $display("link_errors: seed %0d", seed);
    repeat (5) @(posedge clk);
    rst_n = 1;
    repeat (5) @(posedge clk);

    // ---------------- a) retry enabled ----------------
    p.init(1);
    for (int n = 0; n < 2; n++) p.wr(n, MC_REG_LINK_ACK_TIMEOUT, 300);
    setup_p2p();
    p.c01.flip_ppm = 3000;
    p.c10.flip_ppm = 3000;
    fork traffic(0, 250); traffic(1, 250); join
    p.quiesce(3000);
    p.check(0);
    for (int n = 0; n < 2; n++) begin
      p.rd(n, MC_REG_CRC_ERRORS, r);
      p.rd(n, MC_REG_LINK_RETRIES, r2);
      $display("link_errors a) node %0d: CRC_ERRORS %0d, LINK_RETRIES %0d", n, r, r2);
      if (r == 0) $fatal(1, "a) node %0d: no CRC error counted", n);
      p.expect_reg(n, MC_REG_ERROR_COUNT, 0, "ERROR_COUNT");
      p.rd(n, MC_REG_LINK_STATUS, r);
      if ((r & MC_LINK_STATUS_DISCARDING_MASK) != 0) $fatal(1, "a) node %0d discarding", n);
    end
    begin
      logic [31:0] c0, c1, l0, l1;
      p.rd(0, MC_REG_CRC_ERRORS, c0); p.rd(1, MC_REG_CRC_ERRORS, c1);
      p.rd(0, MC_REG_LINK_RETRIES, l0); p.rd(1, MC_REG_LINK_RETRIES, l1);
      if (l0 + l1 == 0) $fatal(1, "a) no retransmission");
      // every flipped word is in a frame that the receiver rejected
      if (c0 + c1 < 1 || p.c01.flips + p.c10.flips == 0) $fatal(1, "a) no flips injected");
      $display("link_errors a) %0d bit flips, %0d CRC errors detected: ok", p.c01.flips + p.c10.flips, c0 + c1);
    end

    // ---------------- b) retry disabled: discard after error ----------------
    p.c01.flip_ppm = 0; p.c10.flip_ppm = 0;
    for (int n = 0; n < 2; n++) p.wr(n, MC_REG_CTRL, MC_CTRL_ENABLE_MASK);
    for (int n = 0; n < 2; n++) p.wr(n, MC_REG_IRQ_MASK, MC_IRQ_STATUS_ERROR_MASK);
    p.c01.flip_ppm = 20000;      // node 0 -> node 1 only
    fork traffic(0, 120); join
    p.quiesce(3000);
    p.c01.flip_ppm = 0;
    p.check(1);                  // what arrived must be an exact prefix
    $display("link_errors b) node 1 received a prefix, %0d words discarded after the error", p.lost[0][1]);
    if (p.lost[0][1] == 0) $fatal(1, "b) nothing was discarded although the link flipped bits");
    p.rd(1, MC_REG_LINK_STATUS, r);
    if ((r & MC_LINK_STATUS_DISCARDING_MASK) == 0) $fatal(1, "b) node 1 not DISCARDING");
    p.rd(1, MC_REG_ERROR_COUNT, r);
    if (r == 0) $fatal(1, "b) node 1 ERROR_COUNT 0");
    p.rd(1, MC_REG_IRQ_STATUS, r);
    if ((r & MC_IRQ_STATUS_ERROR_MASK) == 0 || p.irq1[MC_IRQ_STATUS_ERROR_SHIFT] != 1'b1)
      $fatal(1, "b) node 1 IRQ ERROR not raised");
    // recovery: ERR_RESET, then everything flows again
    p.wr(1, MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_ERR_RESET_MASK);
    p.wr(1, MC_REG_IRQ_STATUS, MC_IRQ_STATUS_ERROR_MASK);
    p.rd(1, MC_REG_LINK_STATUS, r);
    if ((r & MC_LINK_STATUS_DISCARDING_MASK) != 0) $fatal(1, "b) ERR_RESET did not leave DISCARDING");
    if (p.irq1[MC_IRQ_STATUS_ERROR_SHIFT] != 1'b0) $fatal(1, "b) IRQ ERROR not cleared by W1C");
    fork traffic(0, 60); traffic(1, 60); join
    p.quiesce(3000);
    p.check(0);
    $display("link_errors b) after ERR_RESET delivery complete: ok");

    // ---------------- c) retry exhausted ----------------
    for (int n = 0; n < 2; n++) begin
      p.wr(n, MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK);
      p.wr(n, MC_REG_LINK_RETRY_LIMIT, 3);
      p.wr(n, MC_REG_LINK_ACK_TIMEOUT, 200);
    end
    p.rd(0, MC_REG_ERROR_COUNT, r2);
    fork traffic(0, 40); join
    p.c01.cut = 1;
    fork traffic(0, 40); join
    p.quiesce(5000);
    p.rd(0, MC_REG_LINK_STATUS, r);
    if ((r & MC_LINK_STATUS_DISCARDING_MASK) == 0) $fatal(1, "c) sender not DISCARDING after retry exhausted");
    p.rd(0, MC_REG_ERROR_COUNT, r);
    if (r <= r2) $fatal(1, "c) sender ERROR_COUNT did not increase");
    p.check(1);
    $display("link_errors c) retry exhausted: sender discarding, %0d words lost, ERROR_COUNT %0d", p.lost[0][1], r);
    if (p.lost[0][1] == 0) $fatal(1, "c) nothing lost although the cable was cut");
    p.c01.cut = 0;
    p.wr(0, MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK | MC_CTRL_ERR_RESET_MASK);
    fork traffic(0, 60); traffic(1, 60); join
    p.quiesce(3000);
    p.check(0);
    $display("link_errors c) after ERR_RESET delivery complete: ok");
    vhub_spoke_discarding();
    $display("link_errors: PASS");
    $finish;
  end

  initial begin
    #400000000;
    $fatal(1, "link_errors: global timeout");
  end
endmodule : tb_link_errors

`default_nettype wire
