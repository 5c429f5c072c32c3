// Read responder for BAR2, the transmit window: the bridge forwards every host read of the
// BAR to its AXI master, and the window is write-only (the core has no read channels there).
// Each read burst is answered with arlen + 1 beats of zeros and an OKAY response, so that a
// stray load from a transmit mapping completes (the Java library and docs/driver.md: reads of
// the window return nothing useful) instead of ending in a completion timeout on the host.
// Zeros, not all ones: all ones is what the host reads from a device that is gone, and the
// co-simulated board answers zeros too. One burst at a time, in order; no address is decoded.
`default_nettype none

module memchan_bar2_rd_resp #(
  parameter int unsigned ID_W   = 4,
  parameter int unsigned DATA_W = 512
) (
  input  wire logic              clk_i,
  input  wire logic              rst_ni,
  input  wire logic [ID_W-1:0]   s_axi_arid,
  input  wire logic [7:0]        s_axi_arlen,
  input  wire logic              s_axi_arvalid,
  output logic                   s_axi_arready,
  output logic [ID_W-1:0]        s_axi_rid,
  output logic [DATA_W-1:0]      s_axi_rdata,
  output logic [1:0]             s_axi_rresp,
  output logic                   s_axi_rlast,
  output logic                   s_axi_rvalid,
  input  wire logic              s_axi_rready
);
  logic            busy_q;
  logic [7:0]      left_q;       // beats after the current one
  logic [ID_W-1:0] id_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      left_q <= '0;
      id_q   <= '0;
    end else if (!busy_q) begin
      if (s_axi_arvalid) begin
        busy_q <= 1'b1;
        left_q <= s_axi_arlen;
        id_q   <= s_axi_arid;
      end
    end else if (s_axi_rready) begin
      if (left_q == 8'd0) busy_q <= 1'b0;
      else left_q <= left_q - 8'd1;
    end
  end

  assign s_axi_arready = !busy_q;
  assign s_axi_rvalid  = busy_q;
  assign s_axi_rid     = id_q;
  assign s_axi_rdata   = '0;
  assign s_axi_rresp   = 2'b00;
  assign s_axi_rlast   = busy_q && (left_q == 8'd0);
endmodule : memchan_bar2_rd_resp

`default_nettype wire
