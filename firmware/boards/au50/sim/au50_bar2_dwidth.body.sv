// SIMULATION MODEL of au50_bar2_dwidth, the AXI Data Width Converter (PG247) as a downsizer for
// BAR2's writes: each 512-bit beat of the bridge becomes 64-bit beats, from the lane of the
// burst's start address in its first beat and from lane 0 in the others, every lane of a beat
// up to lane 7 (lanes with no strobe go out with none); one burst at a time, its response
// returned with the burst's ID. Same ports as ip_stubs/; benches only.
`default_nettype none

// (the port list: the stub's in ip_stubs/, put here by au50_models.py)


  logic         busy_q, aw_out_q, w_in_q, b_wait_q, b_out_q;
  logic [3:0]   id_q;
  logic [63:0]  addr_q;
  logic [7:0]   len_q, beat_q;
  logic [2:0]   lane_q, first_lane_q;
  logic [511:0] data_q;
  logic [63:0]  strb_q;
  logic         have_q, last_in_q;
  logic [1:0]   resp_q;

  assign s_axi_awready = !busy_q;
  assign s_axi_wready  = busy_q && !have_q && w_in_q;
  assign m_axi_awvalid = aw_out_q;
  assign m_axi_awaddr  = {addr_q[63:3], 3'b000};
  // output beats: from the start lane to lane 7 of the first input beat, 8 per later beat
  assign m_axi_awlen   = 8'(int'(len_q) * 8 + (8 - int'(first_lane_q)) - 1);
  assign m_axi_awsize  = 3'd3;
  assign m_axi_awburst = 2'b01;
  assign {m_axi_awlock, m_axi_awcache, m_axi_awprot, m_axi_awregion, m_axi_awqos} = '0;
  assign m_axi_wvalid  = have_q;
  assign m_axi_wdata   = data_q[64*lane_q +: 64];
  assign m_axi_wstrb   = strb_q[8*lane_q +: 8];
  assign m_axi_wlast   = have_q && last_in_q && lane_q == 3'd7;
  assign m_axi_bready  = b_wait_q;
  assign s_axi_bvalid  = b_out_q;
  assign s_axi_bresp   = resp_q;
  assign s_axi_bid     = id_q;

  always_ff @(posedge s_axi_aclk or negedge s_axi_aresetn) begin
    if (!s_axi_aresetn) begin
      busy_q <= 1'b0; aw_out_q <= 1'b0; w_in_q <= 1'b0; have_q <= 1'b0; b_wait_q <= 1'b0;
      b_out_q <= 1'b0; beat_q <= '0; lane_q <= '0;
    end else begin
      if (s_axi_awvalid && s_axi_awready) begin
        if (s_axi_awsize != 3'd6 || s_axi_awburst != 2'b01 || s_axi_awlen > 8'd31)
          $fatal(1, "au50_bar2_dwidth model: burst size %0d burst %0d len %0d not modelled", s_axi_awsize,
                 s_axi_awburst, s_axi_awlen);
        busy_q <= 1'b1; aw_out_q <= 1'b1; w_in_q <= 1'b1; id_q <= s_axi_awid; addr_q <= s_axi_awaddr;
        len_q <= s_axi_awlen; beat_q <= '0; first_lane_q <= s_axi_awaddr[5:3];
      end
      if (m_axi_awvalid && m_axi_awready) aw_out_q <= 1'b0;
      if (s_axi_wvalid && s_axi_wready) begin
        have_q <= 1'b1; data_q <= s_axi_wdata; strb_q <= s_axi_wstrb; last_in_q <= s_axi_wlast;
        lane_q <= (beat_q == 8'd0) ? first_lane_q : 3'd0;
        if (s_axi_wlast != (beat_q == len_q)) $fatal(1, "au50_bar2_dwidth model: WLAST at beat %0d of %0d", beat_q, len_q);
        beat_q <= beat_q + 8'd1;
        if (s_axi_wlast) w_in_q <= 1'b0;
      end
      if (m_axi_wvalid && m_axi_wready) begin
        if (lane_q == 3'd7) begin
          have_q <= 1'b0;
          if (last_in_q) b_wait_q <= 1'b1;
        end
        lane_q <= lane_q + 3'd1;
      end
      if (m_axi_bvalid && m_axi_bready) begin
        b_wait_q <= 1'b0; b_out_q <= 1'b1; resp_q <= m_axi_bresp;
      end
      if (s_axi_bvalid && s_axi_bready) begin
        b_out_q <= 1'b0; busy_q <= 1'b0;
      end
    end
  end
endmodule : au50_bar2_dwidth

`default_nettype wire
