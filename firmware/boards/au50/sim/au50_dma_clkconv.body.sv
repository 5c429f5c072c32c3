// SIMULATION MODEL of au50_dma_clkconv, the AXI Clock Converter (PG059) for host memory: AXI4,
// 64 bits, read and write, asynchronous clocks (the core's clock on the slave side), each
// channel through its own clock-crossing FIFO (au50_sim_chan). Same ports as ip_stubs/;
// benches only.
`default_nettype none

// (the port list: the stub's in ip_stubs/, put here by au50_models.py)


  au50_sim_chan #(.WIDTH(93)) u_aw (
    .s_clk(s_axi_aclk), .s_rst_n(s_axi_aresetn), .s_valid(s_axi_awvalid), .s_ready(s_axi_awready),
    .s_data({s_axi_awqos, s_axi_awregion, s_axi_awprot, s_axi_awcache, s_axi_awlock, s_axi_awburst, s_axi_awsize, s_axi_awlen, s_axi_awaddr}),
    .m_clk(m_axi_aclk), .m_rst_n(m_axi_aresetn), .m_valid(m_axi_awvalid), .m_ready(m_axi_awready),
    .m_data({m_axi_awqos, m_axi_awregion, m_axi_awprot, m_axi_awcache, m_axi_awlock, m_axi_awburst, m_axi_awsize, m_axi_awlen, m_axi_awaddr}));
  au50_sim_chan #(.WIDTH(73)) u_w (
    .s_clk(s_axi_aclk), .s_rst_n(s_axi_aresetn), .s_valid(s_axi_wvalid), .s_ready(s_axi_wready),
    .s_data({s_axi_wlast, s_axi_wstrb, s_axi_wdata}), .m_clk(m_axi_aclk), .m_rst_n(m_axi_aresetn),
    .m_valid(m_axi_wvalid), .m_ready(m_axi_wready), .m_data({m_axi_wlast, m_axi_wstrb, m_axi_wdata}));
  au50_sim_chan #(.WIDTH(2)) u_b (
    .s_clk(m_axi_aclk), .s_rst_n(m_axi_aresetn), .s_valid(m_axi_bvalid), .s_ready(m_axi_bready),
    .s_data(m_axi_bresp), .m_clk(s_axi_aclk), .m_rst_n(s_axi_aresetn),
    .m_valid(s_axi_bvalid), .m_ready(s_axi_bready), .m_data(s_axi_bresp));
  au50_sim_chan #(.WIDTH(93)) u_ar (
    .s_clk(s_axi_aclk), .s_rst_n(s_axi_aresetn), .s_valid(s_axi_arvalid), .s_ready(s_axi_arready),
    .s_data({s_axi_arqos, s_axi_arregion, s_axi_arprot, s_axi_arcache, s_axi_arlock, s_axi_arburst, s_axi_arsize, s_axi_arlen, s_axi_araddr}),
    .m_clk(m_axi_aclk), .m_rst_n(m_axi_aresetn), .m_valid(m_axi_arvalid), .m_ready(m_axi_arready),
    .m_data({m_axi_arqos, m_axi_arregion, m_axi_arprot, m_axi_arcache, m_axi_arlock, m_axi_arburst, m_axi_arsize, m_axi_arlen, m_axi_araddr}));
  au50_sim_chan #(.WIDTH(67)) u_r (
    .s_clk(m_axi_aclk), .s_rst_n(m_axi_aresetn), .s_valid(m_axi_rvalid), .s_ready(m_axi_rready),
    .s_data({m_axi_rlast, m_axi_rresp, m_axi_rdata}), .m_clk(s_axi_aclk), .m_rst_n(s_axi_aresetn),
    .m_valid(s_axi_rvalid), .m_ready(s_axi_rready), .m_data({s_axi_rlast, s_axi_rresp, s_axi_rdata}));
endmodule : au50_dma_clkconv

`default_nettype wire
