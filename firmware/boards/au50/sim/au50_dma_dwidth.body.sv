// SIMULATION MODEL of au50_dma_dwidth, the AXI Data Width Converter (PG247) as an upsizer for
// host memory: the core's 64-bit bursts go to the bridge's 512-bit slave as narrow bursts of
// the same length (8-byte beats, each in the byte lane of its address), reads likewise, the
// data taken from the lane of each beat's address. One write burst at a time (W waits for its
// AW); reads in order. Same ports as ip_stubs/; benches only.
`default_nettype none

// (the port list: the stub's in ip_stubs/, put here by au50_models.py)


  // writes
  logic        w_busy_q, aw_out_q;
  logic [63:0] w_addr_q;
  logic [2:0]  w_lane;
  assign w_lane = w_addr_q[5:3];
  assign s_axi_awready = !w_busy_q;
  assign m_axi_awvalid = aw_out_q;
  assign s_axi_wready  = w_busy_q && !aw_out_q && m_axi_wready;
  assign m_axi_wvalid  = w_busy_q && !aw_out_q && s_axi_wvalid;
  assign m_axi_wdata   = {8{s_axi_wdata}};
  assign m_axi_wstrb   = 64'(s_axi_wstrb) << (8 * w_lane);
  assign m_axi_wlast   = s_axi_wlast;
  assign s_axi_bvalid  = m_axi_bvalid;
  assign s_axi_bresp   = m_axi_bresp;
  assign m_axi_bready  = s_axi_bready;

  always_ff @(posedge s_axi_aclk or negedge s_axi_aresetn) begin
    if (!s_axi_aresetn) begin
      w_busy_q <= 1'b0; aw_out_q <= 1'b0;
    end else begin
      if (s_axi_awvalid && s_axi_awready) begin
        if (s_axi_awsize != 3'd3 || s_axi_awburst != 2'b01)
          $fatal(1, "au50_dma_dwidth model: write size %0d burst %0d not modelled", s_axi_awsize, s_axi_awburst);
        w_busy_q <= 1'b1; aw_out_q <= 1'b1; w_addr_q <= s_axi_awaddr;
        {m_axi_awaddr, m_axi_awlen, m_axi_awsize, m_axi_awburst, m_axi_awlock, m_axi_awcache, m_axi_awprot,
         m_axi_awregion, m_axi_awqos} <= {s_axi_awaddr, s_axi_awlen, s_axi_awsize, s_axi_awburst, s_axi_awlock,
                                          s_axi_awcache, s_axi_awprot, s_axi_awregion, s_axi_awqos};
      end
      if (m_axi_awvalid && m_axi_awready) aw_out_q <= 1'b0;
      if (s_axi_wvalid && s_axi_wready) begin
        w_addr_q <= w_addr_q + 64'd8;
        if (s_axi_wlast) w_busy_q <= 1'b0;
      end
    end
  end

  // reads: address channel straight through, each data beat from its address's lane (the
  // addresses of the bursts in flight in a ring, in order)
  logic [63:0] r_addr_q [16];
  logic [3:0]  r_head_q, r_tail_q;
  logic [4:0]  r_count_q;
  assign {m_axi_araddr, m_axi_arlen, m_axi_arsize, m_axi_arburst, m_axi_arlock, m_axi_arcache, m_axi_arprot,
          m_axi_arregion, m_axi_arqos} = {s_axi_araddr, s_axi_arlen, s_axi_arsize, s_axi_arburst, s_axi_arlock,
                                          s_axi_arcache, s_axi_arprot, s_axi_arregion, s_axi_arqos};
  assign m_axi_arvalid = s_axi_arvalid && r_count_q != 5'd16;
  assign s_axi_arready = m_axi_arready && r_count_q != 5'd16;
  assign s_axi_rvalid  = m_axi_rvalid;
  assign m_axi_rready  = s_axi_rready;
  assign s_axi_rdata   = m_axi_rdata[64 * r_addr_q[r_head_q][5:3] +: 64];
  assign s_axi_rresp   = m_axi_rresp;
  assign s_axi_rlast   = m_axi_rlast;

  always_ff @(posedge s_axi_aclk or negedge s_axi_aresetn) begin
    if (!s_axi_aresetn) begin
      r_head_q <= '0; r_tail_q <= '0; r_count_q <= '0;
    end else begin
      if (s_axi_arvalid && s_axi_arready) begin
        if (s_axi_arsize != 3'd3 || s_axi_arburst != 2'b01)
          $fatal(1, "au50_dma_dwidth model: read size %0d burst %0d not modelled", s_axi_arsize, s_axi_arburst);
        r_addr_q[r_tail_q] <= s_axi_araddr;
        r_tail_q <= r_tail_q + 4'd1;
      end
      if (m_axi_rvalid && m_axi_rready) begin
        if (m_axi_rlast) r_head_q <= r_head_q + 4'd1;
        else r_addr_q[r_head_q] <= r_addr_q[r_head_q] + 64'd8;
      end
      r_count_q <= r_count_q + 5'(s_axi_arvalid && s_axi_arready) - 5'(m_axi_rvalid && m_axi_rready && m_axi_rlast);
    end
  end
endmodule : au50_dma_dwidth

`default_nettype wire
