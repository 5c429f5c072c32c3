// Loopback switch between the adapter core and the transceiver stream ports.
// MODE 0 (off) and 2 (external, a cable or the transceiver's own loopback) connect the core
// to the transceiver; MODE 1 (internal) feeds the core's transmit stream straight into its
// receive stream, keeps the transceiver transmit idle and drains (ignores) its receive.
// Change the mode only while the link is idle (between frames).
`default_nettype none

module memchan_loopback (
  input  wire logic [memchan_regs_pkg::MC_LOOPBACK_MODE_W-1:0] mode_i,
  // core side
  input  wire logic        c_tx_tvalid_i,
  input  wire logic [63:0] c_tx_tdata_i,
  input  wire logic        c_tx_tlast_i,
  output logic             c_tx_tready_o,
  output logic             c_rx_tvalid_o,
  output logic [63:0]      c_rx_tdata_o,
  output logic             c_rx_tlast_o,
  input  wire logic        c_rx_tready_i,
  // transceiver side
  output logic             x_tx_tvalid_o,
  output logic [63:0]      x_tx_tdata_o,
  output logic             x_tx_tlast_o,
  input  wire logic        x_tx_tready_i,
  input  wire logic        x_rx_tvalid_i,
  input  wire logic [63:0] x_rx_tdata_i,
  input  wire logic        x_rx_tlast_i,
  output logic             x_rx_tready_o
);
  logic internal;
  assign internal = (mode_i == memchan_regs_pkg::MC_LOOPBACK_MODE_W'(memchan_regs_pkg::MC_LOOPBACK_MODE_INTERNAL));

  assign x_tx_tvalid_o = internal ? 1'b0 : c_tx_tvalid_i;
  assign x_tx_tdata_o  = c_tx_tdata_i;
  assign x_tx_tlast_o  = c_tx_tlast_i;
  assign c_tx_tready_o = internal ? c_rx_tready_i : x_tx_tready_i;

  assign c_rx_tvalid_o = internal ? c_tx_tvalid_i : x_rx_tvalid_i;
  assign c_rx_tdata_o  = internal ? c_tx_tdata_i  : x_rx_tdata_i;
  assign c_rx_tlast_o  = internal ? c_tx_tlast_i  : x_rx_tlast_i;
  assign x_rx_tready_o = internal ? 1'b1 : c_rx_tready_i;
endmodule : memchan_loopback

`default_nettype wire
