// Interrupt glue between the core's cause levels (irq_i = IRQ_STATUS & IRQ_MASK, core clock)
// and a PCIe bridge's user interrupt request (XDMA/QDMA: usr_irq_req held until usr_irq_ack,
// a message sent on each rising edge; bridge clock). The driver uses one vector, so every
// cause raises usr_irq_req[0]; the driver reads IRQ_STATUS after each message.
//
// A new cause (a bit of irq_i rising) must be followed by a message sent after it. In the core
// clock a rising edge sets a request that crosses to the bridge clock in a four-phase handshake
// (req, ack; each a level through memchan_sync). Causes while a handshake is under way are kept
// and sent as one more handshake. In the bridge clock each handshake raises usr_irq_req; one
// that arrives while a message waits for its acknowledgement (REARM) raises it once more after
// the acknowledgement, one cycle low in between, so that the bridge sees a new rising edge.
`default_nettype none

module memchan_irq_bridge #(
  parameter int unsigned CAUSES = 5,
  // a cause during a pending message is sent again after it; 0 only to show what it
  // prevents (the bench's negative control), never on a board
  parameter bit          REARM  = 1'b1
) (
  input  wire logic              core_clk_i,
  input  wire logic              core_rst_ni,
  input  wire logic [CAUSES-1:0] irq_i,
  input  wire logic              axi_clk_i,
  input  wire logic              axi_rst_ni,
  output logic                   usr_irq_req_o,
  input  wire logic              usr_irq_ack_i
);
  // core clock: edge detection and the request side of the handshake
  logic [CAUSES-1:0] irq_q;
  logic              hs_req_q, more_q, hs_ack_core, new_cause;

  assign new_cause = |(irq_i & ~irq_q);

  always_ff @(posedge core_clk_i or negedge core_rst_ni) begin
    if (!core_rst_ni) begin
      irq_q    <= '0;
      hs_req_q <= 1'b0;
      more_q   <= 1'b0;
    end else begin
      irq_q <= irq_i;
      if (!hs_req_q && !hs_ack_core) begin
        // idle: start a handshake for a new cause or for those kept meanwhile
        if (new_cause || more_q) begin
          hs_req_q <= 1'b1;
          more_q   <= 1'b0;
        end
      end else begin
        if (hs_req_q && hs_ack_core) hs_req_q <= 1'b0;
        if (new_cause) more_q <= 1'b1;
      end
    end
  end

  logic hs_req_axi, hs_req_axi_q, pending_q, again_q, low_q;

  memchan_sync u_req_sync (.clk_i(axi_clk_i), .rst_ni(axi_rst_ni), .d_i(hs_req_q), .q_o(hs_req_axi));
  memchan_sync u_ack_sync (.clk_i(core_clk_i), .rst_ni(core_rst_ni), .d_i(hs_req_axi), .q_o(hs_ack_core));

  // bridge clock: a handshake's rising request is one cause event
  always_ff @(posedge axi_clk_i or negedge axi_rst_ni) begin
    if (!axi_rst_ni) begin
      hs_req_axi_q <= 1'b0;
      pending_q    <= 1'b0;
      again_q      <= 1'b0;
      low_q        <= 1'b0;
    end else begin
      hs_req_axi_q <= hs_req_axi;
      low_q        <= 1'b0;
      if (pending_q) begin
        if (usr_irq_ack_i) begin
          pending_q <= 1'b0;
          low_q     <= 1'b1;          // at least one cycle low before the next rising edge
        end
        if (REARM && hs_req_axi && !hs_req_axi_q) again_q <= 1'b1;
      end else if (!low_q && (again_q || (hs_req_axi && !hs_req_axi_q))) begin
        pending_q <= 1'b1;
        again_q   <= 1'b0;
      end else if (hs_req_axi && !hs_req_axi_q) begin
        again_q   <= 1'b1;            // arrived in the low cycle
      end
    end
  end
  assign usr_irq_req_o = pending_q;
endmodule : memchan_irq_bridge

`default_nettype wire
