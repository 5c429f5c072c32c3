// PORT-LIST STUB, not the IP: replace with the stub Vivado generates for au50_bar0_clkconv
// (tcl/ip_clkconv.tcl; build/ip/au50_bar0_clkconv/au50_bar0_clkconv_stub.v, see docs/board-u50.md).
// Ports of the AXI Clock Converter (PG059), AXI4-Lite, 32-bit address and data, asynchronous
// clocks: BAR0 from the bridge's axi_aclk (slave side) to the core's clock (master side).
// It has no body: lint and yosys see the ports only (yosys reads it as a black box).
`default_nettype none

module au50_bar0_clkconv (
  input  wire logic          s_axi_aclk,
  input  wire logic          s_axi_aresetn,
  input  wire logic [31:0]   s_axi_awaddr,
  input  wire logic [2:0]    s_axi_awprot,
  input  wire logic          s_axi_awvalid,
  output logic               s_axi_awready,
  input  wire logic [31:0]   s_axi_wdata,
  input  wire logic [3:0]    s_axi_wstrb,
  input  wire logic          s_axi_wvalid,
  output logic               s_axi_wready,
  output logic      [1:0]    s_axi_bresp,
  output logic               s_axi_bvalid,
  input  wire logic          s_axi_bready,
  input  wire logic [31:0]   s_axi_araddr,
  input  wire logic [2:0]    s_axi_arprot,
  input  wire logic          s_axi_arvalid,
  output logic               s_axi_arready,
  output logic      [31:0]   s_axi_rdata,
  output logic      [1:0]    s_axi_rresp,
  output logic               s_axi_rvalid,
  input  wire logic          s_axi_rready,
  input  wire logic          m_axi_aclk,
  input  wire logic          m_axi_aresetn,
  output logic      [31:0]   m_axi_awaddr,
  output logic      [2:0]    m_axi_awprot,
  output logic               m_axi_awvalid,
  input  wire logic          m_axi_awready,
  output logic      [31:0]   m_axi_wdata,
  output logic      [3:0]    m_axi_wstrb,
  output logic               m_axi_wvalid,
  input  wire logic          m_axi_wready,
  input  wire logic [1:0]    m_axi_bresp,
  input  wire logic          m_axi_bvalid,
  output logic               m_axi_bready,
  output logic      [31:0]   m_axi_araddr,
  output logic      [2:0]    m_axi_arprot,
  output logic               m_axi_arvalid,
  input  wire logic          m_axi_arready,
  input  wire logic [31:0]   m_axi_rdata,
  input  wire logic [1:0]    m_axi_rresp,
  input  wire logic          m_axi_rvalid,
  output logic               m_axi_rready
);
endmodule : au50_bar0_clkconv

`default_nettype wire
