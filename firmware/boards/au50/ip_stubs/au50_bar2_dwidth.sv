// PORT-LIST STUB, not the IP: replace with the stub Vivado generates for au50_bar2_dwidth
// (tcl/ip_dwidth.tcl; build/ip/au50_bar2_dwidth/au50_bar2_dwidth_stub.v, see docs/board-u50.md).
// Ports of the AXI Data Width Converter (PG247) for BAR2's writes: 512-bit bridge master to the
// adapter's 64-bit slave, write channels only (the reads go to memchan_bar2_rd_resp at 512 bits),
// one clock (s_axi_aclk).
// It has no body: lint and yosys see the ports only (yosys reads it as a black box).
`default_nettype none

module au50_bar2_dwidth (
  input  wire logic          s_axi_aclk,
  input  wire logic          s_axi_aresetn,
  input  wire logic [3:0]    s_axi_awid,
  input  wire logic [63:0]   s_axi_awaddr,
  input  wire logic [7:0]    s_axi_awlen,
  input  wire logic [2:0]    s_axi_awsize,
  input  wire logic [1:0]    s_axi_awburst,
  input  wire logic          s_axi_awlock,
  input  wire logic [3:0]    s_axi_awcache,
  input  wire logic [2:0]    s_axi_awprot,
  input  wire logic [3:0]    s_axi_awregion,
  input  wire logic [3:0]    s_axi_awqos,
  input  wire logic          s_axi_awvalid,
  output logic               s_axi_awready,
  input  wire logic [511:0]  s_axi_wdata,
  input  wire logic [63:0]   s_axi_wstrb,
  input  wire logic          s_axi_wlast,
  input  wire logic          s_axi_wvalid,
  output logic               s_axi_wready,
  output logic      [3:0]    s_axi_bid,
  output logic      [1:0]    s_axi_bresp,
  output logic               s_axi_bvalid,
  input  wire logic          s_axi_bready,
  output logic      [63:0]   m_axi_awaddr,
  output logic      [7:0]    m_axi_awlen,
  output logic      [2:0]    m_axi_awsize,
  output logic      [1:0]    m_axi_awburst,
  output logic               m_axi_awlock,
  output logic      [3:0]    m_axi_awcache,
  output logic      [2:0]    m_axi_awprot,
  output logic      [3:0]    m_axi_awregion,
  output logic      [3:0]    m_axi_awqos,
  output logic               m_axi_awvalid,
  input  wire logic          m_axi_awready,
  output logic      [63:0]   m_axi_wdata,
  output logic      [7:0]    m_axi_wstrb,
  output logic               m_axi_wlast,
  output logic               m_axi_wvalid,
  input  wire logic          m_axi_wready,
  input  wire logic [1:0]    m_axi_bresp,
  input  wire logic          m_axi_bvalid,
  output logic               m_axi_bready
);
endmodule : au50_bar2_dwidth

`default_nettype wire
