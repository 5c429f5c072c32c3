// SIMULATION MODEL of au50_bar0_clkconv, the AXI Clock Converter (PG059) for BAR0: AXI4-Lite,
// asynchronous clocks, each of the five channels through its own clock-crossing FIFO
// (au50_sim_chan), as the IP's asynchronous mode does. Same ports as ip_stubs/; benches only.
`default_nettype none

// (the port list: the stub's in ip_stubs/, put here by au50_models.py)

  au50_sim_chan #(.WIDTH(35)) u_aw (
    .s_clk(s_axi_aclk), .s_rst_n(s_axi_aresetn), .s_valid(s_axi_awvalid), .s_ready(s_axi_awready),
    .s_data({s_axi_awprot, s_axi_awaddr}), .m_clk(m_axi_aclk), .m_rst_n(m_axi_aresetn),
    .m_valid(m_axi_awvalid), .m_ready(m_axi_awready), .m_data({m_axi_awprot, m_axi_awaddr}));
  au50_sim_chan #(.WIDTH(36)) u_w (
    .s_clk(s_axi_aclk), .s_rst_n(s_axi_aresetn), .s_valid(s_axi_wvalid), .s_ready(s_axi_wready),
    .s_data({s_axi_wstrb, s_axi_wdata}), .m_clk(m_axi_aclk), .m_rst_n(m_axi_aresetn),
    .m_valid(m_axi_wvalid), .m_ready(m_axi_wready), .m_data({m_axi_wstrb, m_axi_wdata}));
  au50_sim_chan #(.WIDTH(2)) u_b (
    .s_clk(m_axi_aclk), .s_rst_n(m_axi_aresetn), .s_valid(m_axi_bvalid), .s_ready(m_axi_bready),
    .s_data(m_axi_bresp), .m_clk(s_axi_aclk), .m_rst_n(s_axi_aresetn),
    .m_valid(s_axi_bvalid), .m_ready(s_axi_bready), .m_data(s_axi_bresp));
  au50_sim_chan #(.WIDTH(35)) u_ar (
    .s_clk(s_axi_aclk), .s_rst_n(s_axi_aresetn), .s_valid(s_axi_arvalid), .s_ready(s_axi_arready),
    .s_data({s_axi_arprot, s_axi_araddr}), .m_clk(m_axi_aclk), .m_rst_n(m_axi_aresetn),
    .m_valid(m_axi_arvalid), .m_ready(m_axi_arready), .m_data({m_axi_arprot, m_axi_araddr}));
  au50_sim_chan #(.WIDTH(34)) u_r (
    .s_clk(m_axi_aclk), .s_rst_n(m_axi_aresetn), .s_valid(m_axi_rvalid), .s_ready(m_axi_rready),
    .s_data({m_axi_rresp, m_axi_rdata}), .m_clk(s_axi_aclk), .m_rst_n(s_axi_aresetn),
    .m_valid(s_axi_rvalid), .m_ready(s_axi_rready), .m_data({s_axi_rresp, s_axi_rdata}));
endmodule : au50_bar0_clkconv

`default_nettype wire
