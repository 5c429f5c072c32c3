// SIMULATION MODEL of au50_bar2_clkconv, the AXI Clock Converter (PG059) for BAR2's writes:
// AXI4, 64 bits, write channels only, asynchronous clocks, each channel through its own
// clock-crossing FIFO (au50_sim_chan). Same ports as ip_stubs/; benches only.
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
endmodule : au50_bar2_clkconv

`default_nettype wire
