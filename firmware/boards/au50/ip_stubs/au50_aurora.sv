// PORT-LIST STUB, not the IP: replace with the stub Vivado generates for au50_aurora
// (tcl/ip_aurora.tcl; build/ip/au50_aurora/au50_aurora_stub.v, see docs/board-u50.md). Ports of
// Aurora 64B/66B as PG074 lists them for the configuration of tcl/ip_aurora.tcl: one lane,
// framing (AXI4-Stream with TLAST and TKEEP), native flow control, shared logic in the core,
// the GT reference clock from the QSFP cage's clock (161.1328125 MHz). PG074 numbers the data
// bits from 0 at the most significant end ([0:63]); the stub keeps that order.
// It has no body: lint and yosys see the ports only (yosys reads it as a black box).
`default_nettype none

module au50_aurora (
  // user interface, user_clk_out domain
  input  wire logic [0:63] s_axi_tx_tdata,
  input  wire logic [0:7]  s_axi_tx_tkeep,
  input  wire logic        s_axi_tx_tlast,
  input  wire logic        s_axi_tx_tvalid,
  output logic             s_axi_tx_tready,
  output logic      [0:63] m_axi_rx_tdata,
  output logic      [0:7]  m_axi_rx_tkeep,
  output logic             m_axi_rx_tlast,
  output logic             m_axi_rx_tvalid,    // no TREADY: the receive side cannot be stalled
  input  wire logic        s_axi_nfc_tx_tvalid,
  input  wire logic [0:15] s_axi_nfc_tx_tdata,
  output logic             s_axi_nfc_tx_tready,
  // serial lane and reference clock
  input  wire logic [0:0]  rxp,
  input  wire logic [0:0]  rxn,
  output logic      [0:0]  txp,
  output logic      [0:0]  txn,
  input  wire logic        gt_refclk1_p,
  input  wire logic        gt_refclk1_n,
  // clocks, resets, status
  input  wire logic        init_clk,
  input  wire logic        reset_pb,
  input  wire logic        pma_init,
  input  wire logic        power_down,
  input  wire logic [2:0]  loopback,
  output logic             user_clk_out,
  output logic             sync_clk_out,
  output logic             sys_reset_out,
  output logic             gt_reset_out,
  output logic             mmcm_not_locked_out,
  output logic             gt_pll_lock,
  output logic             channel_up,
  output logic      [0:0]  lane_up,
  output logic             hard_err,
  output logic             soft_err,
  output logic      [0:0]  gt_powergood,
  output logic             link_reset_out
);
endmodule : au50_aurora

`default_nettype wire
