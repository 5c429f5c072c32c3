// Unit bench: memchan_irq_enable against a model of the bridge's AXI4-Lite register slave with
// the User Interrupt Enable Mask (write-one-to-set, cleared by the bridge's reset). The bridge is
// reset RESETS times at random moments (a hot reset clears the mask); after each reset the model
// refuses the first 0 to 2 writes (SLVERR), and AWREADY, WREADY and BVALID come at random.
// Checks: after every reset the mask is set within a bound of cycles (the refused tries and their
// pauses included); done_o only while the mask is set; each try's AWVALID and WVALID held with
// their address and data until accepted; only the mask's register written, with the mask; no
// write once the mask is set. With RETRY=0 a refused write is never repeated: the mask stays
// clear and the bench fails.
`default_nettype none

module tb_irq_enable #(
  parameter bit RETRY = 1'b1
);
  localparam logic [31:0] ADDR = 32'h0000_2008, MASK = 32'h0000_0001;
  localparam int unsigned RETRY_WAIT = 64;
  // a try takes at most ~3 x 8 cycles of ready and response delays; three tries, two pauses
  localparam int unsigned BOUND = 3 * 40 + 2 * (RETRY_WAIT + 2) + 20;

  int seed = 1, resets = 200;
  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;

  logic [31:0] awaddr, wdata;
  logic [3:0]  wstrb;
  logic        awvalid, awready, wvalid, wready, bvalid, bready, done;
  logic [1:0]  bresp;

  memchan_irq_enable #(.ADDR(ADDR), .MASK(MASK), .RETRY_WAIT(RETRY_WAIT), .RETRY(RETRY)) u_dut (
    .clk_i(clk), .rst_ni(rst_n), .m_axil_awaddr(awaddr), .m_axil_awvalid(awvalid),
    .m_axil_awready(awready), .m_axil_wdata(wdata), .m_axil_wstrb(wstrb), .m_axil_wvalid(wvalid),
    .m_axil_wready(wready), .m_axil_bresp(bresp), .m_axil_bvalid(bvalid), .m_axil_bready(bready),
    .done_o(done));

  // the bridge's register slave: address and data in either order, then a response
  logic [31:0] mask_q, aw_q, w_q;
  logic        aw_got, w_got, aw_held, w_held;
  logic [31:0] aw_seen, w_seen;
  int unsigned refuse, b_wait, writes, since_reset;
  int unsigned cycle = 0, errors = 0, refused_total = 0, max_latency = 0;
  bit          set_seen;

  task automatic fail(string what);
    $display("irq_enable: FAIL %s (reset at cycle %0d, %0d cycles ago)", what, cycle - since_reset, since_reset);
    errors++;
    if (errors > 5) $fatal(1, "irq_enable: FAIL %0d errors", errors);
  endtask

  always @(posedge clk) begin
    cycle++;
    if (!rst_n) begin
      mask_q = '0; aw_got = 0; w_got = 0; bvalid <= 0; bresp <= 2'b00; aw_held = 0; w_held = 0;
      refuse = $urandom_range(2, 0); b_wait = 0; writes = 0; since_reset = 0; set_seen = 0;
      awready <= 0; wready <= 0;
    end else begin
      since_reset++;
      // the master's side of the rules: a raised valid stays with its payload until ready
      if (aw_held && !awvalid) fail("AWVALID dropped before AWREADY");
      if (aw_held && awvalid && awaddr != aw_seen) fail("AWADDR changed while AWVALID waited");
      if (w_held && !wvalid) fail("WVALID dropped before WREADY");
      if (w_held && wvalid && wdata != w_seen) fail("WDATA changed while WVALID waited");
      aw_held = awvalid && !awready; aw_seen = awaddr;
      w_held = wvalid && !wready; w_seen = wdata;
      if (awvalid && awready) begin
        if (aw_got) fail("a second address before the response");
        aw_got = 1; aw_q = awaddr;
      end
      if (wvalid && wready) begin
        if (w_got) fail("a second data beat before the response");
        w_got = 1; w_q = wdata;
        if (wstrb != 4'hF) fail($sformatf("WSTRB %h", wstrb));
      end
      if (bvalid && bready) begin
        bvalid <= 0;
      end else if (!bvalid && aw_got && w_got) begin
        if (b_wait == 0) b_wait = $urandom_range(8, 1);
        if (--b_wait == 0) begin
          aw_got = 0; w_got = 0; writes++;
          if (set_seen) fail("a write after the mask was set");
          if (aw_q != ADDR) fail($sformatf("a write to %h, not the mask's register %h", aw_q, ADDR));
          if (refuse != 0) begin
            refuse--; refused_total++;
            bresp <= 2'b10;
          end else begin
            bresp <= 2'b00;
            if (aw_q == ADDR) mask_q = mask_q | w_q;
          end
          bvalid <= 1;
        end
      end
      awready <= ($urandom_range(3, 0) == 0);
      wready <= ($urandom_range(3, 0) == 0);
      if (done && (mask_q & MASK) != MASK) fail("done_o with the mask clear");
      if ((mask_q & MASK) == MASK && !set_seen) begin
        set_seen = 1;
        if (since_reset > max_latency) max_latency = since_reset;
      end
      if (!set_seen && since_reset > BOUND)
        fail($sformatf("mask not set within %0d cycles of the bridge's reset: no MSI-X would leave the card", BOUND));
    end
  end

  initial begin
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("resets=%d", resets));
    void'($urandom(seed));
    repeat (resets) begin : l_reset
      rst_n = 0;
      repeat ($urandom_range(4, 1)) @(posedge clk);
      #1 rst_n = 1;
      // the next hot reset: sometimes in the middle of a try, mostly after the mask is set
      repeat ($urandom_range(1, 0) == 0 ? $urandom_range(30, 1) : BOUND + 50) @(posedge clk);
    end : l_reset
    if (errors != 0) $fatal(1, "irq_enable: FAIL %0d errors", errors);
    $display("irq_enable: PASS %0d bridge resets, %0d writes refused and retried, mask set at most %0d cycles after a reset (bound %0d)",
             resets, refused_total, max_latency, BOUND);
    $finish;
  end
endmodule : tb_irq_enable

`default_nettype wire
