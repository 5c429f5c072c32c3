// Alveo U50 board top: the memchan adapter (memchan_top) between the PCIe bridge and one QSFP28
// lane, with the board shell's glue (docs/board-u50.md).
//
//   PCIe Gen3 x16 ── au50_xdma (AXI Bridge mode, axi_aclk 250 MHz)
//     m_axil (BAR0) ─► au50_bar0_clkconv (axi_aclk to core_clk) ─► memchan_top s_axil
//     m_axib writes (BAR2, 512 bit) ─► au50_bar2_dwidth ─► au50_bar2_clkconv ─► memchan_top s_axi
//     m_axib reads (BAR2) ─► memchan_bar2_rd_resp (zeros, on axi_aclk)
//     s_axib (host memory, 512 bit) ◄─ au50_dma_dwidth ◄─ au50_dma_clkconv ◄─ memchan_top m_axi
//     usr_irq_req[0] ◄─ memchan_irq_bridge (core_clk to axi_aclk) ◄─ memchan_top irq_o
//     s_axil (the IP's registers) ◄─ memchan_irq_enable: the user-interrupt enable mask
//   QSFP28 lane 0 ── au50_aurora (64B/66B, framing, NFC; user_clk 156.25 MHz)
//     s_axi_tx ◄─ memchan_async_fifo (core_clk to user_clk) ◄─ memchan_top m_link
//     m_axi_rx, s_axi_nfc_tx ─► memchan_nfc_rx_fifo (user_clk to core_clk) ─► memchan_top s_link
//   DNA_PORTE2 ─► au50_dna (100 MHz system clock) ─► memchan_top serial_i
//   sys_clk 100 MHz ─► MMCME4_BASE ─► core_clk 250 MHz: memchan_top and its side of every crossing
//
// Clock domains: core_clk (the adapter: the card's own 100 MHz oscillator, times 10 over 4 in an
// MMCM, clean of the host's spread spectrum, so that GLOBAL_TIME counts a steady clock), axi_aclk
// (the bridge, derived from the host's PCIe reference clock, which may be spread-spectrum),
// user_clk (the link, from the QSFP reference clock), init_clk (the 100 MHz system clock itself:
// Aurora's init clock, the DNA read, the power-on reset). Every crossing is a vendor AXI Clock
// Converter (PG059) or a memchan_sync (levels, gray pointers, handshakes): docs/board-u50.md
// lists them.
`default_nettype none

module au50_top #(
  // which bitstream this is, read by software in BUILD_GIT and BUILD_TIME: tcl/build.tcl sets
  // them at synthesis (the commit's first 8 hex digits, the time in seconds since 1970 UTC)
  parameter int unsigned BUILD_GIT  = 0,
  parameter int unsigned BUILD_TIME = 0
) (
  input  wire logic        pcie_refclk_p,
  input  wire logic        pcie_refclk_n,
  input  wire logic        pcie_perst_n,
  input  wire logic [15:0] pcie_rx_p,
  input  wire logic [15:0] pcie_rx_n,
  output logic      [15:0] pcie_tx_p,
  output logic      [15:0] pcie_tx_n,
  input  wire logic        qsfp_refclk_p,
  input  wire logic        qsfp_refclk_n,
  input  wire logic        qsfp_rx_p,
  input  wire logic        qsfp_rx_n,
  output logic             qsfp_tx_p,
  output logic             qsfp_tx_n,
  input  wire logic        sys_clk_p,
  input  wire logic        sys_clk_n,
  output logic             hbm_cattrip,    // low: HBM unused (the card's controller watches it)
  output logic      [2:0]  led
);
  import memchan_regs_pkg::*;

  localparam int unsigned WIN_AW = $clog2(MC_BOARD_PAGES) + $clog2(MC_BOARD_PAGE_SIZE);

  assign hbm_cattrip = 1'b0;

  // ---- clocks and resets -----------------------------------------------------------------
  logic pcie_refclk_gt, pcie_refclk, sys_clk_ibuf, init_clk;
  logic axi_aclk, axi_aresetn, user_clk, aurora_sys_reset;
  logic core_clk, core_clk_mmcm, core_clk_fb, core_clk_locked;

  IBUFDS_GTE4 u_pcie_refclk (.I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0), .O(pcie_refclk_gt),
                             .ODIV2(pcie_refclk));
  IBUFDS u_sys_clk (.I(sys_clk_p), .IB(sys_clk_n), .O(sys_clk_ibuf));
  BUFG u_init_clk (.I(sys_clk_ibuf), .O(init_clk));

  // the core's clock: 100 MHz x 10 / 4 = 250 MHz (VCO 1000 MHz). 250 MHz is the bridge's own
  // AXI rate at Gen3 x16, so the core keeps up with BAR2's writes, and it drains the link
  // (156.25 MHz) faster than the link fills
  MMCME4_BASE #(.CLKIN1_PERIOD(10.0), .DIVCLK_DIVIDE(1), .CLKFBOUT_MULT_F(10.0),
                .CLKOUT0_DIVIDE_F(4.0)) u_core_mmcm (
    .CLKIN1(sys_clk_ibuf), .CLKFBIN(core_clk_fb), .RST(1'b0), .PWRDWN(1'b0),
    .CLKFBOUT(core_clk_fb), .CLKFBOUTB(), .CLKOUT0(core_clk_mmcm), .CLKOUT0B(), .CLKOUT1(),
    .CLKOUT1B(), .CLKOUT2(), .CLKOUT2B(), .CLKOUT3(), .CLKOUT3B(), .CLKOUT4(), .CLKOUT5(),
    .CLKOUT6(), .LOCKED(core_clk_locked));
  BUFG u_core_clk (.I(core_clk_mmcm), .O(core_clk));

  // power-on reset in init_clk (registers start at 0 after configuration): Aurora's pma_init
  // is released before its reset_pb, as PG074's reset sequence asks
  logic [15:0] por_q = '0;
  logic        init_rst_n;
  always_ff @(posedge init_clk) begin
    if (por_q != 16'hFFFF) por_q <= por_q + 16'd1;
  end
  assign init_rst_n = (por_q == 16'hFFFF);

  // the DNA, read once, crosses as a level (done) and a value that holds still after it
  logic [31:0] dna_serial, serial_q;
  logic        dna_done, core_rst_n, link_arst_n, link_rst_n, core_link_rst_n;

  au50_dna u_dna (.clk_i(init_clk), .rst_ni(init_rst_n), .serial_o(dna_serial), .done_o(dna_done));

  // the AXI crossings' two sides reset together (PG059 asks it of the clock converters): held
  // while the bridge is in reset or the core's clock is not locked, released in each clock
  logic xing_arst_n, bridge_xing_rst_n, core_xing_rst_n;
  assign xing_arst_n = axi_aresetn && core_clk_locked;
  memchan_sync u_bridge_xing_rst (.clk_i(axi_aclk), .rst_ni(xing_arst_n), .d_i(1'b1), .q_o(bridge_xing_rst_n));
  memchan_sync u_core_xing_rst (.clk_i(core_clk), .rst_ni(xing_arst_n), .d_i(1'b1), .q_o(core_xing_rst_n));

  // the core leaves reset when the crossings are out of reset and the serial is known: the serial
  // is taken until the DNA's done level has crossed, and the core's reset follows two cycles later
  logic dna_seen;
  memchan_sync u_dna_done (.clk_i(core_clk), .rst_ni(core_xing_rst_n), .d_i(dna_done), .q_o(dna_seen));
  memchan_sync u_core_rst (.clk_i(core_clk), .rst_ni(core_xing_rst_n), .d_i(dna_seen), .q_o(core_rst_n));
  always_ff @(posedge core_clk) begin
    if (!dna_seen) serial_q <= dna_serial;
  end

  // the link FIFOs: both sides reset together, by the core's reset or the link's
  assign link_arst_n = core_rst_n && !aurora_sys_reset;
  memchan_sync u_link_rst (.clk_i(user_clk), .rst_ni(link_arst_n), .d_i(1'b1), .q_o(link_rst_n));
  memchan_sync u_core_link_rst (.clk_i(core_clk), .rst_ni(link_arst_n), .d_i(1'b1), .q_o(core_link_rst_n));

  // ---- the bridge --------------------------------------------------------------------------
  logic         user_lnk_up, msix_enable;
  logic [0:0]   usr_irq_req, usr_irq_ack;
  // BAR2 master
  logic [3:0]   b2_awid, b2_arid, b2_bid, b2_rid;
  logic [63:0]  b2_awaddr, b2_araddr;
  logic [7:0]   b2_awlen, b2_arlen;
  logic [2:0]   b2_awsize, b2_awprot, b2_arsize, b2_arprot;
  logic [1:0]   b2_awburst, b2_arburst, b2_bresp, b2_rresp;
  logic [3:0]   b2_awcache, b2_arcache;
  logic         b2_awlock, b2_arlock, b2_awvalid, b2_awready, b2_wlast, b2_wvalid, b2_wready;
  logic         b2_bvalid, b2_bready, b2_arvalid, b2_arready, b2_rlast, b2_rvalid, b2_rready;
  logic [511:0] b2_wdata, b2_rdata;
  logic [63:0]  b2_wstrb;
  // BAR0 master
  logic [31:0]  b0_awaddr, b0_wdata, b0_araddr, b0_rdata;
  logic [2:0]   b0_awprot, b0_arprot;
  logic [3:0]   b0_wstrb;
  logic [1:0]   b0_bresp, b0_rresp;
  logic         b0_awvalid, b0_awready, b0_wvalid, b0_wready, b0_bvalid, b0_bready;
  logic         b0_arvalid, b0_arready, b0_rvalid, b0_rready;
  // the bridge's register slave (the interrupt enable mask)
  logic [31:0]  ie_awaddr, ie_wdata;
  logic [3:0]   ie_wstrb;
  logic [1:0]   ie_bresp;
  logic         ie_awvalid, ie_awready, ie_wvalid, ie_wready, ie_bvalid, ie_bready, irq_enabled;
  // host memory slave (512 bit side)
  logic [63:0]  hm_awaddr, hm_araddr;
  logic [7:0]   hm_awlen, hm_arlen;
  logic [2:0]   hm_awsize, hm_arsize;
  logic [1:0]   hm_awburst, hm_arburst, hm_bresp, hm_rresp;
  logic         hm_awvalid, hm_awready, hm_wlast, hm_wvalid, hm_wready, hm_bvalid, hm_bready;
  logic         hm_arvalid, hm_arready, hm_rlast, hm_rvalid, hm_rready;
  logic [511:0] hm_wdata, hm_rdata;
  logic [63:0]  hm_wstrb;

  au50_xdma u_xdma (
    .sys_clk(pcie_refclk), .sys_clk_gt(pcie_refclk_gt), .sys_rst_n(pcie_perst_n),
    .user_lnk_up, .pci_exp_rxp(pcie_rx_p), .pci_exp_rxn(pcie_rx_n), .pci_exp_txp(pcie_tx_p),
    .pci_exp_txn(pcie_tx_n), .axi_aclk, .axi_aresetn, .usr_irq_req, .usr_irq_ack, .msix_enable,
    .m_axib_awid(b2_awid), .m_axib_awaddr(b2_awaddr), .m_axib_awlen(b2_awlen),
    .m_axib_awsize(b2_awsize), .m_axib_awburst(b2_awburst), .m_axib_awprot(b2_awprot),
    .m_axib_awlock(b2_awlock), .m_axib_awcache(b2_awcache), .m_axib_awvalid(b2_awvalid),
    .m_axib_awready(b2_awready), .m_axib_wdata(b2_wdata), .m_axib_wstrb(b2_wstrb),
    .m_axib_wlast(b2_wlast), .m_axib_wvalid(b2_wvalid), .m_axib_wready(b2_wready),
    .m_axib_bid(b2_bid), .m_axib_bresp(b2_bresp), .m_axib_bvalid(b2_bvalid),
    .m_axib_bready(b2_bready), .m_axib_arid(b2_arid), .m_axib_araddr(b2_araddr),
    .m_axib_arlen(b2_arlen), .m_axib_arsize(b2_arsize), .m_axib_arburst(b2_arburst),
    .m_axib_arprot(b2_arprot), .m_axib_arlock(b2_arlock), .m_axib_arcache(b2_arcache),
    .m_axib_arvalid(b2_arvalid), .m_axib_arready(b2_arready), .m_axib_rid(b2_rid),
    .m_axib_rdata(b2_rdata), .m_axib_rresp(b2_rresp), .m_axib_rlast(b2_rlast),
    .m_axib_rvalid(b2_rvalid), .m_axib_rready(b2_rready),
    .m_axil_awaddr(b0_awaddr), .m_axil_awprot(b0_awprot), .m_axil_awvalid(b0_awvalid),
    .m_axil_awready(b0_awready), .m_axil_wdata(b0_wdata), .m_axil_wstrb(b0_wstrb),
    .m_axil_wvalid(b0_wvalid), .m_axil_wready(b0_wready), .m_axil_bvalid(b0_bvalid),
    .m_axil_bresp(b0_bresp), .m_axil_bready(b0_bready), .m_axil_araddr(b0_araddr),
    .m_axil_arprot(b0_arprot), .m_axil_arvalid(b0_arvalid), .m_axil_arready(b0_arready),
    .m_axil_rdata(b0_rdata), .m_axil_rresp(b0_rresp), .m_axil_rvalid(b0_rvalid),
    .m_axil_rready(b0_rready),
    .s_axil_awaddr(ie_awaddr), .s_axil_awprot(3'b000), .s_axil_awvalid(ie_awvalid),
    .s_axil_awready(ie_awready), .s_axil_wdata(ie_wdata), .s_axil_wstrb(ie_wstrb),
    .s_axil_wvalid(ie_wvalid), .s_axil_wready(ie_wready), .s_axil_bvalid(ie_bvalid),
    .s_axil_bresp(ie_bresp), .s_axil_bready(ie_bready), .s_axil_araddr(32'd0), .s_axil_arprot(3'b000),
    .s_axil_arvalid(1'b0), .s_axil_arready(), .s_axil_rdata(), .s_axil_rresp(), .s_axil_rvalid(),
    .s_axil_rready(1'b1),
    .s_axib_awid(4'd0), .s_axib_awaddr(hm_awaddr), .s_axib_awregion(4'd0), .s_axib_awlen(hm_awlen),
    .s_axib_awsize(hm_awsize), .s_axib_awburst(hm_awburst), .s_axib_awvalid(hm_awvalid),
    .s_axib_awready(hm_awready), .s_axib_wdata(hm_wdata), .s_axib_wstrb(hm_wstrb),
    .s_axib_wlast(hm_wlast), .s_axib_wvalid(hm_wvalid), .s_axib_wready(hm_wready),
    .s_axib_bid(), .s_axib_bresp(hm_bresp), .s_axib_bvalid(hm_bvalid), .s_axib_bready(hm_bready),
    .s_axib_arid(4'd0), .s_axib_araddr(hm_araddr), .s_axib_arregion(4'd0), .s_axib_arlen(hm_arlen),
    .s_axib_arsize(hm_arsize), .s_axib_arburst(hm_arburst), .s_axib_arvalid(hm_arvalid),
    .s_axib_arready(hm_arready), .s_axib_rid(), .s_axib_rdata(hm_rdata), .s_axib_rresp(hm_rresp),
    .s_axib_rlast(hm_rlast), .s_axib_rvalid(hm_rvalid), .s_axib_rready(hm_rready));

  // the bridge's user-interrupt enable mask: set after every reset of the bridge, which clears it
  memchan_irq_enable u_irq_enable (
    .clk_i(axi_aclk), .rst_ni(axi_aresetn), .m_axil_awaddr(ie_awaddr), .m_axil_awvalid(ie_awvalid),
    .m_axil_awready(ie_awready), .m_axil_wdata(ie_wdata), .m_axil_wstrb(ie_wstrb),
    .m_axil_wvalid(ie_wvalid), .m_axil_wready(ie_wready), .m_axil_bresp(ie_bresp),
    .m_axil_bvalid(ie_bvalid), .m_axil_bready(ie_bready), .done_o(irq_enabled));

  // BAR2 reads: answered here, the window is write-only
  memchan_bar2_rd_resp #(.ID_W(4), .DATA_W(512)) u_bar2_rd (
    .clk_i(axi_aclk), .rst_ni(bridge_xing_rst_n), .s_axi_arid(b2_arid), .s_axi_arlen(b2_arlen),
    .s_axi_arvalid(b2_arvalid), .s_axi_arready(b2_arready), .s_axi_rid(b2_rid),
    .s_axi_rdata(b2_rdata), .s_axi_rresp(b2_rresp), .s_axi_rlast(b2_rlast),
    .s_axi_rvalid(b2_rvalid), .s_axi_rready(b2_rready));

  // BAR2 writes: 512 to 64 bits
  logic [63:0] w_awaddr, w_wdata;
  logic [7:0]  w_awlen, w_wstrb;
  logic        w_awvalid, w_awready, w_wlast, w_wvalid, w_wready, w_bvalid, w_bready;
  logic [1:0]  w_bresp;

  au50_bar2_dwidth u_bar2_dwidth (
    .s_axi_aclk(axi_aclk), .s_axi_aresetn(bridge_xing_rst_n),
    .s_axi_awid(b2_awid), .s_axi_awaddr(b2_awaddr), .s_axi_awlen(b2_awlen), .s_axi_awsize(b2_awsize),
    .s_axi_awburst(b2_awburst), .s_axi_awlock(b2_awlock), .s_axi_awcache(b2_awcache),
    .s_axi_awprot(b2_awprot), .s_axi_awregion(4'd0), .s_axi_awqos(4'd0),
    .s_axi_awvalid(b2_awvalid), .s_axi_awready(b2_awready), .s_axi_wdata(b2_wdata),
    .s_axi_wstrb(b2_wstrb), .s_axi_wlast(b2_wlast), .s_axi_wvalid(b2_wvalid),
    .s_axi_wready(b2_wready), .s_axi_bid(b2_bid), .s_axi_bresp(b2_bresp),
    .s_axi_bvalid(b2_bvalid), .s_axi_bready(b2_bready),
    .m_axi_awaddr(w_awaddr), .m_axi_awlen(w_awlen), .m_axi_awsize(), .m_axi_awburst(),
    .m_axi_awlock(), .m_axi_awcache(), .m_axi_awprot(), .m_axi_awregion(), .m_axi_awqos(),
    .m_axi_awvalid(w_awvalid), .m_axi_awready(w_awready), .m_axi_wdata(w_wdata),
    .m_axi_wstrb(w_wstrb), .m_axi_wlast(w_wlast), .m_axi_wvalid(w_wvalid),
    .m_axi_wready(w_wready), .m_axi_bresp(w_bresp), .m_axi_bvalid(w_bvalid),
    .m_axi_bready(w_bready));

  // BAR2 writes: axi_aclk to core_clk
  logic [63:0] cw_awaddr, cw_wdata;
  logic [7:0]  cw_awlen, cw_wstrb;
  logic        cw_awvalid, cw_awready, cw_wlast, cw_wvalid, cw_wready, cw_bvalid, cw_bready;
  logic [1:0]  cw_bresp;

  au50_bar2_clkconv u_bar2_clkconv (
    .s_axi_aclk(axi_aclk), .s_axi_aresetn(bridge_xing_rst_n),
    .s_axi_awaddr(w_awaddr), .s_axi_awlen(w_awlen), .s_axi_awsize(3'd3), .s_axi_awburst(2'b01),
    .s_axi_awlock(1'b0), .s_axi_awcache(4'b0011), .s_axi_awprot(3'b000), .s_axi_awregion(4'd0),
    .s_axi_awqos(4'd0), .s_axi_awvalid(w_awvalid), .s_axi_awready(w_awready),
    .s_axi_wdata(w_wdata), .s_axi_wstrb(w_wstrb), .s_axi_wlast(w_wlast), .s_axi_wvalid(w_wvalid),
    .s_axi_wready(w_wready), .s_axi_bresp(w_bresp), .s_axi_bvalid(w_bvalid), .s_axi_bready(w_bready),
    .m_axi_aclk(core_clk), .m_axi_aresetn(core_xing_rst_n),
    .m_axi_awaddr(cw_awaddr), .m_axi_awlen(cw_awlen), .m_axi_awsize(), .m_axi_awburst(),
    .m_axi_awlock(), .m_axi_awcache(), .m_axi_awprot(), .m_axi_awregion(), .m_axi_awqos(),
    .m_axi_awvalid(cw_awvalid), .m_axi_awready(cw_awready), .m_axi_wdata(cw_wdata),
    .m_axi_wstrb(cw_wstrb), .m_axi_wlast(cw_wlast), .m_axi_wvalid(cw_wvalid),
    .m_axi_wready(cw_wready), .m_axi_bresp(cw_bresp), .m_axi_bvalid(cw_bvalid),
    .m_axi_bready(cw_bready));

  // host memory: core_clk to axi_aclk, then 64 to 512 bits
  logic [63:0] d_awaddr, d_wdata, d_araddr, d_rdata;
  logic [7:0]  d_awlen, d_wstrb, d_arlen;
  logic [2:0]  d_awsize, d_arsize;
  logic [1:0]  d_awburst, d_arburst, d_bresp, d_rresp;
  logic        d_awvalid, d_awready, d_wlast, d_wvalid, d_wready, d_bvalid, d_bready;
  logic        d_arvalid, d_arready, d_rlast, d_rvalid, d_rready;

  logic [63:0] cd_awaddr, cd_wdata, cd_araddr, cd_rdata;
  logic [7:0]  cd_awlen, cd_wstrb, cd_arlen;
  logic [2:0]  cd_awsize, cd_arsize;
  logic [1:0]  cd_awburst, cd_arburst, cd_bresp, cd_rresp;
  logic        cd_awvalid, cd_awready, cd_wlast, cd_wvalid, cd_wready, cd_bvalid, cd_bready;
  logic        cd_arvalid, cd_arready, cd_rlast, cd_rvalid, cd_rready;
  logic        d_awlock, d_arlock;
  logic [3:0]  d_awcache, d_arcache, d_awregion, d_arregion, d_awqos, d_arqos;
  logic [2:0]  d_awprot, d_arprot;

  au50_dma_clkconv u_dma_clkconv (
    .s_axi_aclk(core_clk), .s_axi_aresetn(core_xing_rst_n),
    .s_axi_awaddr(cd_awaddr), .s_axi_awlen(cd_awlen), .s_axi_awsize(cd_awsize),
    .s_axi_awburst(cd_awburst), .s_axi_awlock(1'b0), .s_axi_awcache(4'b0011), .s_axi_awprot(3'b000),
    .s_axi_awregion(4'd0), .s_axi_awqos(4'd0), .s_axi_awvalid(cd_awvalid), .s_axi_awready(cd_awready),
    .s_axi_wdata(cd_wdata), .s_axi_wstrb(cd_wstrb), .s_axi_wlast(cd_wlast), .s_axi_wvalid(cd_wvalid),
    .s_axi_wready(cd_wready), .s_axi_bresp(cd_bresp), .s_axi_bvalid(cd_bvalid), .s_axi_bready(cd_bready),
    .s_axi_araddr(cd_araddr), .s_axi_arlen(cd_arlen), .s_axi_arsize(cd_arsize),
    .s_axi_arburst(cd_arburst), .s_axi_arlock(1'b0), .s_axi_arcache(4'b0011), .s_axi_arprot(3'b000),
    .s_axi_arregion(4'd0), .s_axi_arqos(4'd0), .s_axi_arvalid(cd_arvalid), .s_axi_arready(cd_arready),
    .s_axi_rdata(cd_rdata), .s_axi_rresp(cd_rresp), .s_axi_rlast(cd_rlast), .s_axi_rvalid(cd_rvalid),
    .s_axi_rready(cd_rready),
    .m_axi_aclk(axi_aclk), .m_axi_aresetn(bridge_xing_rst_n),
    .m_axi_awaddr(d_awaddr), .m_axi_awlen(d_awlen), .m_axi_awsize(d_awsize),
    .m_axi_awburst(d_awburst), .m_axi_awlock(d_awlock), .m_axi_awcache(d_awcache),
    .m_axi_awprot(d_awprot), .m_axi_awregion(d_awregion), .m_axi_awqos(d_awqos),
    .m_axi_awvalid(d_awvalid), .m_axi_awready(d_awready), .m_axi_wdata(d_wdata),
    .m_axi_wstrb(d_wstrb), .m_axi_wlast(d_wlast), .m_axi_wvalid(d_wvalid), .m_axi_wready(d_wready),
    .m_axi_bresp(d_bresp), .m_axi_bvalid(d_bvalid), .m_axi_bready(d_bready),
    .m_axi_araddr(d_araddr), .m_axi_arlen(d_arlen), .m_axi_arsize(d_arsize),
    .m_axi_arburst(d_arburst), .m_axi_arlock(d_arlock), .m_axi_arcache(d_arcache),
    .m_axi_arprot(d_arprot), .m_axi_arregion(d_arregion), .m_axi_arqos(d_arqos),
    .m_axi_arvalid(d_arvalid), .m_axi_arready(d_arready), .m_axi_rdata(d_rdata),
    .m_axi_rresp(d_rresp), .m_axi_rlast(d_rlast), .m_axi_rvalid(d_rvalid), .m_axi_rready(d_rready));

  au50_dma_dwidth u_dma_dwidth (
    .s_axi_aclk(axi_aclk), .s_axi_aresetn(bridge_xing_rst_n),
    .s_axi_awaddr(d_awaddr), .s_axi_awlen(d_awlen), .s_axi_awsize(d_awsize),
    .s_axi_awburst(d_awburst), .s_axi_awlock(d_awlock), .s_axi_awcache(d_awcache),
    .s_axi_awprot(d_awprot), .s_axi_awregion(d_awregion), .s_axi_awqos(d_awqos),
    .s_axi_awvalid(d_awvalid), .s_axi_awready(d_awready),
    .s_axi_wdata(d_wdata), .s_axi_wstrb(d_wstrb), .s_axi_wlast(d_wlast), .s_axi_wvalid(d_wvalid),
    .s_axi_wready(d_wready), .s_axi_bresp(d_bresp), .s_axi_bvalid(d_bvalid), .s_axi_bready(d_bready),
    .s_axi_araddr(d_araddr), .s_axi_arlen(d_arlen), .s_axi_arsize(d_arsize),
    .s_axi_arburst(d_arburst), .s_axi_arlock(d_arlock), .s_axi_arcache(d_arcache),
    .s_axi_arprot(d_arprot), .s_axi_arregion(d_arregion), .s_axi_arqos(d_arqos),
    .s_axi_arvalid(d_arvalid), .s_axi_arready(d_arready),
    .s_axi_rdata(d_rdata), .s_axi_rresp(d_rresp), .s_axi_rlast(d_rlast), .s_axi_rvalid(d_rvalid),
    .s_axi_rready(d_rready),
    .m_axi_awaddr(hm_awaddr), .m_axi_awlen(hm_awlen), .m_axi_awsize(hm_awsize),
    .m_axi_awburst(hm_awburst), .m_axi_awlock(), .m_axi_awcache(), .m_axi_awprot(),
    .m_axi_awregion(), .m_axi_awqos(), .m_axi_awvalid(hm_awvalid), .m_axi_awready(hm_awready),
    .m_axi_wdata(hm_wdata), .m_axi_wstrb(hm_wstrb), .m_axi_wlast(hm_wlast),
    .m_axi_wvalid(hm_wvalid), .m_axi_wready(hm_wready), .m_axi_bresp(hm_bresp),
    .m_axi_bvalid(hm_bvalid), .m_axi_bready(hm_bready),
    .m_axi_araddr(hm_araddr), .m_axi_arlen(hm_arlen), .m_axi_arsize(hm_arsize),
    .m_axi_arburst(hm_arburst), .m_axi_arlock(), .m_axi_arcache(), .m_axi_arprot(),
    .m_axi_arregion(), .m_axi_arqos(), .m_axi_arvalid(hm_arvalid), .m_axi_arready(hm_arready),
    .m_axi_rdata(hm_rdata), .m_axi_rresp(hm_rresp), .m_axi_rlast(hm_rlast),
    .m_axi_rvalid(hm_rvalid), .m_axi_rready(hm_rready));

  // ---- the link ----------------------------------------------------------------------------
  logic [63:0] tx_tdata, rx_tdata, core_tx_tdata, core_rx_tdata;
  logic        tx_tlast, tx_tvalid, tx_tready, rx_tlast, rx_tvalid;
  logic        core_tx_tvalid, core_tx_tlast, core_tx_tready;
  logic        core_rx_tvalid, core_rx_tlast, core_rx_tready;
  logic        nfc_tvalid, nfc_tready, channel_up, rx_overflow, rx_paused;
  logic [15:0] nfc_tdata;
  logic [0:15] nfc_tdata_pg;     // PG074's bit order: index i here is index i in the guide

  for (genvar i = 0; i < 16; i++) begin : g_nfc_bits
    assign nfc_tdata_pg[i] = nfc_tdata[i];
  end

  memchan_async_fifo #(.WIDTH(65), .DEPTH(16)) u_link_tx_fifo (
    .wr_clk_i(core_clk), .wr_rst_ni(core_link_rst_n), .wr_valid_i(core_tx_tvalid),
    .wr_data_i({core_tx_tlast, core_tx_tdata}), .wr_ready_o(core_tx_tready), .wr_free_o(),
    .rd_clk_i(user_clk), .rd_rst_ni(link_rst_n), .rd_valid_o(tx_tvalid),
    .rd_data_o({tx_tlast, tx_tdata}), .rd_ready_i(tx_tready));

  memchan_nfc_rx_fifo u_link_rx_fifo (
    .link_clk_i(user_clk), .link_rst_ni(link_rst_n), .s_tvalid_i(rx_tvalid), .s_tdata_i(rx_tdata),
    .s_tlast_i(rx_tlast), .nfc_tvalid_o(nfc_tvalid), .nfc_tdata_o(nfc_tdata),
    .nfc_tready_i(nfc_tready), .overflow_o(rx_overflow), .paused_o(rx_paused),
    .core_clk_i(core_clk), .core_rst_ni(core_link_rst_n), .m_tvalid_o(core_rx_tvalid),
    .m_tdata_o(core_rx_tdata), .m_tlast_o(core_rx_tlast), .m_tready_i(core_rx_tready));

  au50_aurora u_aurora (
    .s_axi_tx_tdata(tx_tdata), .s_axi_tx_tkeep(8'hFF), .s_axi_tx_tlast(tx_tlast),
    .s_axi_tx_tvalid(tx_tvalid), .s_axi_tx_tready(tx_tready),
    .m_axi_rx_tdata(rx_tdata), .m_axi_rx_tkeep(), .m_axi_rx_tlast(rx_tlast),
    .m_axi_rx_tvalid(rx_tvalid),
    .s_axi_nfc_tx_tvalid(nfc_tvalid), .s_axi_nfc_tx_tdata(nfc_tdata_pg),
    .s_axi_nfc_tx_tready(nfc_tready),
    .rxp(qsfp_rx_p), .rxn(qsfp_rx_n), .txp(qsfp_tx_p), .txn(qsfp_tx_n),
    .gt_refclk1_p(qsfp_refclk_p), .gt_refclk1_n(qsfp_refclk_n),
    .init_clk, .reset_pb(por_q != 16'hFFFF), .pma_init(por_q[15] == 1'b0), .power_down(1'b0),
    .loopback(3'b000), .user_clk_out(user_clk), .sync_clk_out(), .sys_reset_out(aurora_sys_reset),
    .gt_reset_out(), .mmcm_not_locked_out(), .gt_pll_lock(), .channel_up, .lane_up(),
    .hard_err(), .soft_err(), .gt_powergood(), .link_reset_out());

  // ---- the adapter -------------------------------------------------------------------------
  // BAR0: axi_aclk to core_clk
  logic [31:0]  c0_awaddr, c0_wdata, c0_araddr, c0_rdata;
  logic [3:0]   c0_wstrb;
  logic [1:0]   c0_bresp, c0_rresp;
  logic         c0_awvalid, c0_awready, c0_wvalid, c0_wready, c0_bvalid, c0_bready;
  logic         c0_arvalid, c0_arready, c0_rvalid, c0_rready;

  au50_bar0_clkconv u_bar0_clkconv (
    .s_axi_aclk(axi_aclk), .s_axi_aresetn(bridge_xing_rst_n),
    .s_axi_awaddr(b0_awaddr), .s_axi_awprot(b0_awprot), .s_axi_awvalid(b0_awvalid),
    .s_axi_awready(b0_awready), .s_axi_wdata(b0_wdata), .s_axi_wstrb(b0_wstrb),
    .s_axi_wvalid(b0_wvalid), .s_axi_wready(b0_wready), .s_axi_bresp(b0_bresp),
    .s_axi_bvalid(b0_bvalid), .s_axi_bready(b0_bready), .s_axi_araddr(b0_araddr),
    .s_axi_arprot(b0_arprot), .s_axi_arvalid(b0_arvalid), .s_axi_arready(b0_arready),
    .s_axi_rdata(b0_rdata), .s_axi_rresp(b0_rresp), .s_axi_rvalid(b0_rvalid),
    .s_axi_rready(b0_rready),
    .m_axi_aclk(core_clk), .m_axi_aresetn(core_xing_rst_n),
    .m_axi_awaddr(c0_awaddr), .m_axi_awprot(), .m_axi_awvalid(c0_awvalid),
    .m_axi_awready(c0_awready), .m_axi_wdata(c0_wdata), .m_axi_wstrb(c0_wstrb),
    .m_axi_wvalid(c0_wvalid), .m_axi_wready(c0_wready), .m_axi_bresp(c0_bresp),
    .m_axi_bvalid(c0_bvalid), .m_axi_bready(c0_bready), .m_axi_araddr(c0_araddr),
    .m_axi_arprot(), .m_axi_arvalid(c0_arvalid), .m_axi_arready(c0_arready),
    .m_axi_rdata(c0_rdata), .m_axi_rresp(c0_rresp), .m_axi_rvalid(c0_rvalid),
    .m_axi_rready(c0_rready));

  logic [MC_IRQ_STATUS_W-1:0] irq;

  memchan_top #(.ID_W(1), .BUILD_GIT(BUILD_GIT), .BUILD_TIME(BUILD_TIME)) u_core (
    .clk_i(core_clk), .rst_ni(core_rst_n), .serial_i(serial_q),
    .s_axil_awaddr(c0_awaddr[MC_BAR0_AW-1:0]), .s_axil_awvalid(c0_awvalid),
    .s_axil_awready(c0_awready), .s_axil_wdata(c0_wdata), .s_axil_wstrb(c0_wstrb),
    .s_axil_wvalid(c0_wvalid), .s_axil_wready(c0_wready), .s_axil_bresp(c0_bresp),
    .s_axil_bvalid(c0_bvalid), .s_axil_bready(c0_bready),
    .s_axil_araddr(c0_araddr[MC_BAR0_AW-1:0]), .s_axil_arvalid(c0_arvalid),
    .s_axil_arready(c0_arready), .s_axil_rdata(c0_rdata), .s_axil_rresp(c0_rresp),
    .s_axil_rvalid(c0_rvalid), .s_axil_rready(c0_rready),
    .s_axi_awid(1'b0), .s_axi_awaddr(cw_awaddr[WIN_AW-1:0]), .s_axi_awlen(cw_awlen),
    .s_axi_awvalid(cw_awvalid), .s_axi_awready(cw_awready), .s_axi_wdata(cw_wdata),
    .s_axi_wstrb(cw_wstrb), .s_axi_wlast(cw_wlast), .s_axi_wvalid(cw_wvalid),
    .s_axi_wready(cw_wready), .s_axi_bid(), .s_axi_bresp(cw_bresp), .s_axi_bvalid(cw_bvalid),
    .s_axi_bready(cw_bready),
    .m_axi_awaddr(cd_awaddr), .m_axi_awlen(cd_awlen), .m_axi_awsize(cd_awsize),
    .m_axi_awburst(cd_awburst), .m_axi_awvalid(cd_awvalid), .m_axi_awready(cd_awready),
    .m_axi_wdata(cd_wdata), .m_axi_wstrb(cd_wstrb), .m_axi_wlast(cd_wlast), .m_axi_wvalid(cd_wvalid),
    .m_axi_wready(cd_wready), .m_axi_bresp(cd_bresp), .m_axi_bvalid(cd_bvalid),
    .m_axi_bready(cd_bready),
    .m_axi_araddr(cd_araddr), .m_axi_arlen(cd_arlen), .m_axi_arsize(cd_arsize),
    .m_axi_arburst(cd_arburst), .m_axi_arvalid(cd_arvalid), .m_axi_arready(cd_arready),
    .m_axi_rdata(cd_rdata), .m_axi_rresp(cd_rresp), .m_axi_rlast(cd_rlast), .m_axi_rvalid(cd_rvalid),
    .m_axi_rready(cd_rready),
    .irq_o(irq),
    .m_link_tvalid(core_tx_tvalid), .m_link_tdata(core_tx_tdata), .m_link_tlast(core_tx_tlast),
    .m_link_tready(core_tx_tready),
    .s_link_tvalid(core_rx_tvalid), .s_link_tdata(core_rx_tdata), .s_link_tlast(core_rx_tlast),
    .s_link_tready(core_rx_tready));

  memchan_irq_bridge #(.CAUSES(MC_IRQ_STATUS_W)) u_irq (
    .core_clk_i(core_clk), .core_rst_ni(core_rst_n), .irq_i(irq), .axi_clk_i(axi_aclk),
    .axi_rst_ni(axi_aresetn), .usr_irq_req_o(usr_irq_req[0]), .usr_irq_ack_i(usr_irq_ack[0]));

  // what the board leaves unused: the bridge's MSI-X enable (the driver asks the PCI core), the
  // BAR2 read address and attributes (every read is answered alike), BAR0 address bits above the
  // register map and protection bits, BAR2 write address bits above the window
  logic unused;
  assign unused = ^{msix_enable, b2_araddr, b2_arsize, b2_arprot, b2_arburst, b2_arcache, b2_arlock,
                    c0_awaddr[31:MC_BAR0_AW], c0_araddr[31:MC_BAR0_AW], cw_awaddr[63:WIN_AW]};

  // LEDs: PCIe link up with the interrupt mask set, Aurora channel up, the far transmitter
  // paused or a word lost
  assign led = {rx_paused || rx_overflow, channel_up, user_lnk_up && irq_enabled};
endmodule : au50_top

`default_nettype wire
