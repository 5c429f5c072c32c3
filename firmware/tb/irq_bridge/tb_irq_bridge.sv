// Unit bench: memchan_irq_bridge against a model of XDMA's user interrupt handshake and of the
// driver. Core and bridge on unrelated clocks. The causes (5 levels) rise at random, in bursts,
// as IRQ_STATUS bits do; the bridge model sends a message on each rising edge of usr_irq_req,
// acknowledges it 1..24 cycles later, and checks the protocol (the request held until the
// acknowledgement); the driver model reads the causes some cycles after each message and clears
// the bits it read (write 1 to clear). Check: every rising cause is followed by a message sent
// after it, within MSG_BOUND bridge cycles. With REARM=0 it must fail.
`default_nettype none

module tb_irq_bridge #(
  parameter bit REARM = 1'b1
);
  localparam int CAUSES = 5, MSG_BOUND = 120;
  int seed = 1, events_max = 20000;
  logic cclk = 0, aclk = 0, rst_n = 0;
  always #(2000 + $urandom_range(80) - 40) cclk = ~cclk;
  always #1700 aclk = ~aclk;

  logic [CAUSES-1:0] irq;
  logic              req, ack;

  memchan_irq_bridge #(.CAUSES(CAUSES), .REARM(REARM)) dut (
    .core_clk_i(cclk), .core_rst_ni(rst_n), .irq_i(irq), .axi_clk_i(aclk), .axi_rst_ni(rst_n),
    .usr_irq_req_o(req), .usr_irq_ack_i(ack));

  realtime uncovered_since;   // the oldest cause no message has followed yet (< 0: none)
  realtime last_msg;
  int unsigned events, messages, errors, acycle, ccycle, ack_in, read_in, clear_in;
  logic [CAUSES-1:0] read_bits;
  logic req_q, ack_q;   // usr_irq_req and usr_irq_ack as the bridge saw them at the last edge

  initial begin
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("events=%d", events_max));
    void'($urandom(seed));
    uncovered_since = -1; last_msg = -1; events = 0; messages = 0; errors = 0; acycle = 0;
    ccycle = 0; ack_in = 0; read_in = 0; clear_in = 0; read_bits = '0; req_q = 0; ack_q = 0;
    irq = '0; ack = 0;
    #50000 rst_n = 1;
  end

  // core clock: causes rise (in bursts), the driver reads and clears
  always @(posedge cclk) if (rst_n) begin
    logic [CAUSES-1:0] set;
    ccycle++;
    set = '0;
    if (events < events_max && ($urandom_range(999) < (((ccycle / 500) % 4 == 0) ? 60 : 4)))
      set = CAUSES'(1 << $urandom_range(CAUSES - 1)) & ~irq;
    if (set != '0) begin
      events++;
      if (uncovered_since < 0) uncovered_since = $realtime;
    end
    // the driver: reads IRQ_STATUS read_in cycles after a message, clears what it read later
    if (read_in == 1) begin read_bits = irq; clear_in = 1 + $urandom_range(30); end
    if (read_in > 0) read_in--;
    if (clear_in == 1) irq = irq & ~read_bits;
    if (clear_in > 0) clear_in--;
    irq = irq | set;
  end

  // bridge clock: XDMA's handshake
  always @(posedge aclk) if (rst_n) begin
    acycle++;
    if (req_q && !req && !ack_q) begin
      $display("irq_bridge: FAIL usr_irq_req dropped before usr_irq_ack"); errors++;
    end
    if (req && !req_q) begin                 // a message, sent now
      messages++;
      last_msg = $realtime;
      if (uncovered_since >= 0 && uncovered_since < $realtime) uncovered_since = -1;
      ack_in = 1 + $urandom_range(23);
      read_in = 2 + $urandom_range(40);
    end
    ack_q = ack;
    ack <= 0;
    if (ack_in > 0) begin
      ack_in--;
      if (ack_in == 0) ack <= 1;
    end
    req_q = req;
    if (uncovered_since >= 0 && $realtime - uncovered_since > MSG_BOUND * 3400) begin
      $display("irq_bridge: FAIL a cause at %0t ps not followed by a message within %0d cycles (%0d events, %0d messages)",
               uncovered_since, MSG_BOUND, events, messages);
      $fatal(1, "irq_bridge: FAIL lost cause");
    end
    if (errors != 0) $fatal(1, "irq_bridge: FAIL %0d errors", errors);
    if (events >= events_max && uncovered_since < 0 && $realtime - last_msg > 1000 * 3400) begin
      $display("irq_bridge: PASS %0d causes, %0d messages, each cause followed by a message within %0d cycles",
               events, messages, MSG_BOUND);
      $finish;
    end
  end
endmodule : tb_irq_bridge

`default_nettype wire
