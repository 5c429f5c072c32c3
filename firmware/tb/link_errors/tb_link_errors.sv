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
//  e) virtual hub, retry on, the hub's (node 0's) retry exhausted: the hub -> spoke cable is
//     cut while the hub sends, the hub discards, the cable comes back, and the spoke (whose
//     own link is fine) keeps storing local-copy frames, more than its echo credits. The hub
//     announces its discarding in its heartbeats, so the spoke asks for no echo and returns
//     its credits: every frame reaches the hub, every lost local copy is counted once (the
//     spoke's given-up copies in its ERROR_COUNT, the echoes the hub dropped in the hub's).
//     Then ERR_RESET on node 0 only: the spoke's local copies come back by echo again, more
//     of them than its credits, and the hub's stores reach the spoke. Waiting for echoes the
//     hub dropped held the spoke's transmit window until node 0's ERR_RESET (on the board's
//     one vCPU for good): 15 of the frames reached the hub.
//  f) virtual hub, retry off, the hub's receiver discarding (bit flips on the spoke -> hub
//     cable): the spoke's 40 local-copy frames all leave it (TX_PACKETS), none comes back,
//     the given-up copies are counted; after ERR_RESET on node 0 only, as in e).
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

  // node s stores (page 0), gap cycles apart, until node n's link discards
  task automatic stores_until_discarding(input int s, input int n, input int gap,
                                         input string never);
    int t;
    t = 0;
    do begin
      v.store(s, 8 * (t % 64), 2);
      repeat (gap) @(posedge clk);
      v.rd(n, MC_REG_LINK_STATUS, r);
      t++;
      if (t > 400) $fatal(1, "%s", never);
    end while ((r & MC_LINK_STATUS_DISCARDING_MASK) == 0);
  endtask

  // the spoke's local-copy frames from address lo on, one store of n32 words each, 40 cycles
  // apart (page 0 or 1: broadcast with local copy)
  task automatic spoke_stores(input longint lo, input int frames, input int n32);
    for (int i = 0; i < frames; i++) begin
      v.store(1, lo + 8 * i, n32);
      repeat (40) @(posedge clk);
    end
  endtask

  // page pg: broadcast with local copy from both nodes, received by both
  task automatic local_copy_page(input int pg);
    for (int n = 0; n < 2; n++) begin
      v.set_tx(n, pg, MC_TX_PCT_TX_EN_MASK | MC_TX_PCT_LOCAL_COPY_MASK |
                      (32'd1 << MC_TX_PCT_DEST_KIND_SHIFT));
      v.set_rx(n, pg, MC_RX_PCT_RX_EN_MASK);
    end
  endtask

  // retry off: bit flips on the cable from node s while it stores, until the other node's
  // receiver discards
  task automatic flips_until_discarding(input int s, input string never);
    if (s == 0) v.c01.flip_ppm = 20000; else v.c10.flip_ppm = 20000;
    stores_until_discarding(s, 1 - s, 50, never);
    v.c01.flip_ppm = 0;
    v.c10.flip_ppm = 0;
  endtask

  task automatic vhub_spoke_discarding();
    localparam int SPOKE_FRAMES = 40;          // more than ECHO_CREDITS (15)
    localparam longint LO = 2048, HI = 2048 + 8 * SPOKE_FRAMES;
    int h0, h1, t;
    v.init_auto(0);                                     // retry off
    local_copy_page(0);
    // the spoke's receiver discards: bit flips on the hub -> spoke cable while the hub sends
    flips_until_discarding(0, "d) node 1 never discarding under bit flips");
    // the spoke's local-copy frames, one store each
    h0 = v.a0.host.log_addr.size();
    h1 = v.a1.host.log_addr.size();
    spoke_stores(LO, SPOKE_FRAMES, 1);
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

  // the spoke's local-copy frames (8-byte stores): all must reach the hub within the bound
  // (they did not while the spoke waited for echoes)
  task automatic spoke_frames(input string part, input longint lo, input int frames, input int h0);
    int t;
    spoke_stores(lo, frames, 2);
    t = 0;
    while (logged(0, h0, lo, lo + 8 * frames) < 2 * frames) begin
      @(posedge clk);
      t++;
      if (t > 50000)
        $fatal(1, "%s the hub got %0d of the spoke's %0d frames, %0d stuck in the spoke: it held them for echoes",
               part, logged(0, h0, lo, lo + 8 * frames) / 2, frames,
               frames - logged(0, h0, lo, lo + 8 * frames) / 2);
    end
  endtask

  task automatic vhub_hub_exhausted();
    localparam int FRAMES = 40;                // more than ECHO_CREDITS
    localparam int CREDITS = 15;               // node 0's echo FIFO / maximum frame
    localparam longint LO = 3072, MID = LO + 8 * FRAMES, HI = MID + 8 * FRAMES;
    // heartbeats 2000 cycles apart: the spoke runs out of credits before it hears the hub
    localparam int HB = 2000;
    int h0, h1;
    logic [31:0] e0, e1, e0b, e1b;
    v.quiesce(1000);                           // retry on only while the link is idle
    for (int n = 0; n < 2; n++) begin
      v.wr(n, MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK | MC_CTRL_ERR_RESET_MASK);
      v.wr(n, MC_REG_LINK_RETRY_LIMIT, 3);
      v.wr(n, MC_REG_LINK_ACK_TIMEOUT, 200);
      v.wr(n, MC_REG_HEARTBEAT_PERIOD, HB);
    end
    // the hub's retry runs out: the hub -> spoke cable cut while the hub stores
    v.c01.cut = 1;
    stores_until_discarding(0, 0, 100, "e) node 0's retry never ran out with the cable cut");
    // the cable comes back just after a periodic heartbeat of the hub was lost in the cut,
    // so that the spoke's credits run out well before the next one
    while (v.a0.dut.u_lctrl.hb_q != 0) @(posedge clk);
    repeat (50) @(posedge clk);
    v.c01.cut = 0;
    v.rd(1, MC_REG_LINK_STATUS, r);
    if ((r & MC_LINK_STATUS_DISCARDING_MASK) != 0) $fatal(1, "e) the spoke's own link discards");
    v.rd(0, MC_REG_ERROR_COUNT, e0);
    v.rd(1, MC_REG_ERROR_COUNT, e1);
    // at once, before the spoke can have heard the hub's announcement (sent into the cut)
    h0 = v.a0.host.log_addr.size();
    h1 = v.a1.host.log_addr.size();
    spoke_frames("e)", LO, FRAMES, h0);
    hub_still_discarding("e)", h1, LO, MID);
    v.rd(0, MC_REG_ERROR_COUNT, e0b);
    v.rd(1, MC_REG_ERROR_COUNT, e1b);
    // each lost local copy once: the first CREDITS frames asked for echoes that the hub
    // dropped, the spoke gave the others up once it heard the hub
    if (e0b - e0 != CREDITS || e1b - e1 != FRAMES - CREDITS)
      $fatal(1, "e) %0d local copies lost, counted: %0d by the spoke, %0d echoes dropped by the hub",
             FRAMES, e1b - e1, e0b - e0);
    $display("link_errors e) hub retry exhausted: all %0d spoke frames reached the hub; local copies lost: %0d given up by the spoke, %0d echoes dropped by the hub",
             FRAMES, e1b - e1, e0b - e0);
    hub_recovers("e)", MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK, MID, FRAMES, HB);
  endtask

  // once quiet: none of the spoke's words in [lo, hi) came back to it (its log from index h1),
  // the hub still discards, the spoke does not
  task automatic hub_still_discarding(input string part, input int h1, input longint lo,
                                      input longint hi);
    v.quiesce(2000);
    if (logged(1, h1, lo, hi) != 0)
      $fatal(1, "%s the spoke got %0d words of its own back from a discarding hub", part,
             logged(1, h1, lo, hi));
    v.rd(0, MC_REG_LINK_STATUS, r);
    if ((r & MC_LINK_STATUS_DISCARDING_MASK) == 0) $fatal(1, "%s node 0 left DISCARDING by itself", part);
    v.rd(1, MC_REG_LINK_STATUS, r);
    if ((r & MC_LINK_STATUS_DISCARDING_MASK) != 0) $fatal(1, "%s the spoke's own link discards", part);
  endtask

  // ERR_RESET on node 0 only (CTRL = ctrl): the spoke's local copies come back by echo again,
  // more of them than its credits, from address lo on; the hub's stores reach the spoke; the
  // spoke counts no error
  task automatic hub_recovers(input string part, input logic [31:0] ctrl, input longint lo,
                              input int frames, input int hb);
    longint hi;
    int h0, h1, t;
    logic [31:0] e1;
    hi = lo + 8 * frames;
    v.rd(1, MC_REG_ERROR_COUNT, e1);
    v.wr(0, MC_REG_CTRL, ctrl | MC_CTRL_ERR_RESET_MASK);
    // the end of the hub's announcement reaches the spoke with the next heartbeat (one at
    // once, the periodic one later if that was lost); until then the spoke gives its local
    // copies up
    repeat (2 * hb) @(posedge clk);
    h0 = v.a0.host.log_addr.size();
    h1 = v.a1.host.log_addr.size();
    spoke_frames({part, " after node 0's ERR_RESET"}, lo, frames, h0);
    t = 0;
    while (logged(1, h1, lo, hi) < 2 * frames) begin
      @(posedge clk);
      t++;
      if (t > 50000) $fatal(1, "%s after node 0's ERR_RESET %0d of the spoke's %0d local copies came back",
                            part, logged(1, h1, lo, hi) / 2, frames);
    end
    h1 = v.a1.host.log_addr.size();
    v.store(0, hi, 2);
    t = 0;
    while (logged(1, h1, hi, hi + 8) < 2) begin
      @(posedge clk);
      t++;
      if (t > 50000) $fatal(1, "%s after node 0's ERR_RESET its stores do not reach the spoke", part);
    end
    v.rd(1, MC_REG_ERROR_COUNT, r);
    if (r != e1) $fatal(1, "%s the spoke counted %0d errors after node 0's recovery", part, r - e1);
    $display("link_errors %s after ERR_RESET on node 0 only: %0d local copies echoed, the hub's stores arrive: ok",
             part, frames);
  endtask

  task automatic vhub_hub_receiver_discarding();
    localparam int FRAMES = 40;
    localparam longint LO = 4096, MID = LO + 8 * FRAMES;   // page 1
    int h1, t;
    logic [31:0] p1, p1b, e1, e1b;
    v.quiesce(1000);                           // retry off only while the link is idle
    for (int n = 0; n < 2; n++) v.wr(n, MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_ERR_RESET_MASK);
    local_copy_page(1);
    // the hub's receiver discards: bit flips on the spoke -> hub cable while the spoke sends
    flips_until_discarding(1, "f) node 0 never discarding under bit flips");
    v.rd(1, MC_REG_LINK_STATUS, r);
    if ((r & MC_LINK_STATUS_DISCARDING_MASK) != 0) $fatal(1, "f) the spoke's own link discards");
    v.rd(1, MC_REG_TX_PACKETS, p1);
    v.rd(1, MC_REG_ERROR_COUNT, e1);
    h1 = v.a1.host.log_addr.size();
    spoke_stores(LO, FRAMES, 2);
    // every frame leaves the spoke (the hub's receiver drops them); none comes back
    t = 0;
    do begin
      repeat (100) @(posedge clk);
      v.rd(1, MC_REG_TX_PACKETS, p1b);
      t++;
      if (t > 500)
        $fatal(1, "f) the spoke sent %0d of its %0d frames, %0d stuck: it held them for echoes",
               p1b - p1, FRAMES, FRAMES - (p1b - p1));
    end while (p1b - p1 < FRAMES);
    hub_still_discarding("f)", h1, LO, MID);
    v.rd(1, MC_REG_ERROR_COUNT, e1b);
    if (e1b == e1) $fatal(1, "f) the spoke gave its local copies up without counting them");
    $display("link_errors f) hub receiver discarding: all %0d spoke frames sent, %0d local copies given up and counted by the spoke",
             FRAMES, e1b - e1);
    hub_recovers("f)", MC_CTRL_ENABLE_MASK, MID, FRAMES, 2000);
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
    vhub_hub_exhausted();
    vhub_hub_receiver_discarding();
    $display("link_errors: PASS");
    $finish;
  end

  initial begin
    #400000000;
    $fatal(1, "link_errors: global timeout");
  end
endmodule : tb_link_errors

`default_nettype wire
