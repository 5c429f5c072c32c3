// PORT-LIST STUB, not the IP: replace with the stub Vivado generates for au50_bar2_clkconv
// (tcl/ip_clkconv.tcl; build/ip/au50_bar2_clkconv/au50_bar2_clkconv_stub.v, see docs/board-u50.md).
// Ports of the AXI Clock Converter (PG059), AXI4, 64-bit address and data, no ID, asynchronous
// clocks: BAR2's writes (after the width converter, 64 bits) from the bridge's
// axi_aclk (slave side) to the core's clock (master side); write channels only (READ_WRITE_MODE
// WRITE_ONLY: the reads are answered at 512 bits on axi_aclk by memchan_bar2_rd_resp).
// It has no body: lint and yosys see the ports only (yosys reads it as a black box).
`default_nettype none

module au50_bar2_clkconv (
  input  wire logic            s_axi_aclk,
  input  wire logic            s_axi_aresetn,
  input  wire logic [63:0]     s_axi_awaddr,
  input  wire logic [7:0]      s_axi_awlen,
  input  wire logic [2:0]      s_axi_awsize,
  input  wire logic [1:0]      s_axi_awburst,
  input  wire logic            s_axi_awlock,
  input  wire logic [3:0]      s_axi_awcache,
  input  wire logic [2:0]      s_axi_awprot,
  input  wire logic [3:0]      s_axi_awregion,
  input  wire logic [3:0]      s_axi_awqos,
  input  wire logic            s_axi_awvalid,
  output logic                 s_axi_awready,
  input  wire logic [63:0]     s_axi_wdata,
  input  wire logic [7:0]      s_axi_wstrb,
  input  wire logic            s_axi_wlast,
  input  wire logic            s_axi_wvalid,
  output logic                 s_axi_wready,
  output logic      [1:0]      s_axi_bresp,
  output logic                 s_axi_bvalid,
  input  wire logic            s_axi_bready,
  input  wire logic            m_axi_aclk,
  input  wire logic            m_axi_aresetn,
  output logic      [63:0]     m_axi_awaddr,
  output logic      [7:0]      m_axi_awlen,
  output logic      [2:0]      m_axi_awsize,
  output logic      [1:0]      m_axi_awburst,
  output logic                 m_axi_awlock,
  output logic      [3:0]      m_axi_awcache,
  output logic      [2:0]      m_axi_awprot,
  output logic      [3:0]      m_axi_awregion,
  output logic      [3:0]      m_axi_awqos,
  output logic                 m_axi_awvalid,
  input  wire logic            m_axi_awready,
  output logic      [63:0]     m_axi_wdata,
  output logic      [7:0]      m_axi_wstrb,
  output logic                 m_axi_wlast,
  output logic                 m_axi_wvalid,
  input  wire logic            m_axi_wready,
  input  wire logic [1:0]      m_axi_bresp,
  input  wire logic            m_axi_bvalid,
  output logic                 m_axi_bready
);
endmodule : au50_bar2_clkconv

`default_nettype wire
