// Unit bench: memchan_bar2_rd_resp beside the adapter's BAR2 write channels, as on the board
// (the bridge's AXI master for BAR2 has both). Random read bursts (ID, length) interleaved with
// write bursts into the transmit window of a real memchan_top, random ready on R and B.
// Checks: every read gets arlen + 1 beats, in order, with its ID, zeros, OKAY, RLAST on the
// last beat only, within READ_BOUND cycles (the host's completion timeout stands for it);
// every write gets its B response. With RESPONDER=0 (no responder: the board without it) the
// reads must time out.
`default_nettype none

module tb_bar2_rd_resp #(
  parameter bit RESPONDER = 1'b1
);
  import memchan_regs_pkg::*;
  localparam int ID_W = 4, READ_BOUND = 2000;
  localparam int WIN_AW = $clog2(MC_BOARD_PAGES) + $clog2(MC_BOARD_PAGE_SIZE);

  int seed = 1, bursts = 3000;
  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;

  // BAR2 read channels (responder) and write channels (adapter)
  logic [ID_W-1:0]   arid, rid, awid, bid;
  logic [7:0]        arlen, awlen;
  logic              arvalid, arready, rvalid, rready, rlast;
  logic [63:0]       rdata, wdata;
  logic [1:0]        rresp, bresp;
  logic [WIN_AW-1:0] awaddr;
  logic              awvalid, awready, wvalid, wready, wlast, bvalid, bready;
  logic [7:0]        wstrb;

  if (RESPONDER) begin : g_resp
    memchan_bar2_rd_resp #(.ID_W(ID_W), .DATA_W(64)) u_resp (
      .clk_i(clk), .rst_ni(rst_n), .s_axi_arid(arid), .s_axi_arlen(arlen),
      .s_axi_arvalid(arvalid), .s_axi_arready(arready), .s_axi_rid(rid), .s_axi_rdata(rdata),
      .s_axi_rresp(rresp), .s_axi_rlast(rlast), .s_axi_rvalid(rvalid), .s_axi_rready(rready));
  end else begin : g_none
    assign arready = 1'b0;
    assign rvalid = 1'b0;
    assign rid = '0;
    assign rdata = '0;
    assign rresp = '0;
    assign rlast = 1'b0;
  end

  memchan_top #(.ID_W(ID_W)) u_top (
    .clk_i(clk), .rst_ni(rst_n), .serial_i(32'h1234),
    .s_axil_awaddr('0), .s_axil_awvalid(1'b0), .s_axil_awready(), .s_axil_wdata('0),
    .s_axil_wstrb('0), .s_axil_wvalid(1'b0), .s_axil_wready(), .s_axil_bresp(), .s_axil_bvalid(),
    .s_axil_bready(1'b1), .s_axil_araddr('0), .s_axil_arvalid(1'b0), .s_axil_arready(),
    .s_axil_rdata(), .s_axil_rresp(), .s_axil_rvalid(), .s_axil_rready(1'b1),
    .s_axi_awid(awid), .s_axi_awaddr(awaddr), .s_axi_awlen(awlen), .s_axi_awvalid(awvalid),
    .s_axi_awready(awready), .s_axi_wdata(wdata), .s_axi_wstrb(wstrb), .s_axi_wlast(wlast),
    .s_axi_wvalid(wvalid), .s_axi_wready(wready), .s_axi_bid(bid), .s_axi_bresp(bresp),
    .s_axi_bvalid(bvalid), .s_axi_bready(bready),
    .m_axi_awaddr(), .m_axi_awlen(), .m_axi_awsize(), .m_axi_awburst(), .m_axi_awvalid(),
    .m_axi_awready(1'b1), .m_axi_wdata(), .m_axi_wstrb(), .m_axi_wlast(), .m_axi_wvalid(),
    .m_axi_wready(1'b1), .m_axi_bresp(2'b00), .m_axi_bvalid(1'b0), .m_axi_bready(),
    .m_axi_araddr(), .m_axi_arlen(), .m_axi_arsize(), .m_axi_arburst(), .m_axi_arvalid(),
    .m_axi_arready(1'b1), .m_axi_rdata('0), .m_axi_rresp(2'b00), .m_axi_rlast(1'b0),
    .m_axi_rvalid(1'b0), .m_axi_rready(), .irq_o(),
    .m_link_tvalid(), .m_link_tdata(), .m_link_tlast(), .m_link_tready(1'b1),
    .s_link_tvalid(1'b0), .s_link_tdata('0), .s_link_tlast(1'b0), .s_link_tready());

  // reads in flight, in order: ID, beats still to come, cycle issued
  int unsigned rd_id[$], rd_left[$], rd_at[$];
  int unsigned wr_out, w_beats_left, reads_done, writes_done, reads_issued, writes_issued;
  int unsigned cycle, errors, ar_since;   // ar_since: the cycle the waiting read was raised
  logic [ID_W-1:0] wr_ids[$];

  initial begin
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("bursts=%d", bursts));
    void'($urandom(seed));
    arvalid = 0; arid = 0; arlen = 0; awvalid = 0; awid = 0; awaddr = 0; awlen = 0;
    wvalid = 0; wdata = 0; wstrb = 8'hFF; wlast = 0; rready = 0; bready = 0;
    wr_out = 0; w_beats_left = 0; reads_done = 0; writes_done = 0; reads_issued = 0;
    writes_issued = 0; cycle = 0; errors = 0; ar_since = 0;
    repeat (5) @(posedge clk);
    rst_n = 1;
  end

  always @(posedge clk) if (rst_n) begin
    cycle++;
    // R: checked against the oldest read in flight
    if (rvalid && rready) begin
      if (rd_id.size() == 0) begin
        $display("bar2_rd_resp: FAIL read data with no read in flight"); errors++;
      end else begin
        if (rid != rd_id[0]) begin $display("bar2_rd_resp: FAIL RID %0d, expected %0d", rid, rd_id[0]); errors++; end
        if (rdata != 0 || rresp != 2'b00) begin
          $display("bar2_rd_resp: FAIL beat %h resp %0d: expected zeros, OKAY", rdata, rresp); errors++;
        end
        if (rlast != (rd_left[0] == 1)) begin
          $display("bar2_rd_resp: FAIL RLAST %0d with %0d beats left", rlast, rd_left[0]); errors++;
        end
        rd_left[0]--;
        if (rd_left[0] == 0) begin
          void'(rd_id.pop_front()); void'(rd_left.pop_front()); void'(rd_at.pop_front());
          reads_done++;
        end
      end
    end
    // a read counts from the cycle it was raised, accepted or not
    if ((rd_at.size() != 0 && cycle - rd_at[0] > READ_BOUND) || (arvalid && cycle - ar_since > READ_BOUND))
      $fatal(1, "bar2_rd_resp: FAIL a read not answered in %0d cycles: the host would see a completion timeout",
             READ_BOUND);
    // B
    if (bvalid && bready) begin
      if (wr_ids.size() == 0) begin $display("bar2_rd_resp: FAIL B with no write in flight"); errors++; end
      else begin
        if (bid != wr_ids[0]) begin $display("bar2_rd_resp: FAIL BID %0d, expected %0d", bid, wr_ids[0]); errors++; end
        void'(wr_ids.pop_front());
        writes_done++;
      end
    end
    // AR: a new read burst now and then
    if (arvalid && arready) begin
      rd_id.push_back(arid); rd_left.push_back(arlen + 1); rd_at.push_back(ar_since);
      reads_issued++;
      arvalid <= 0;
    end else if (!arvalid && reads_issued < bursts && $urandom_range(99) < 30) begin
      arvalid <= 1; arid <= ID_W'($urandom); arlen <= 8'($urandom_range(15)); ar_since = cycle;
    end
    // AW and W: one write burst at a time, its beats interleaved with the reads' beats
    if (awvalid && awready) begin
      wr_ids.push_back(awid);
      writes_issued++;
      awvalid <= 0;
    end else if (!awvalid && w_beats_left == 0 && writes_issued < bursts && $urandom_range(99) < 30) begin
      awvalid <= 1; awid <= ID_W'($urandom); awlen <= 8'($urandom_range(15));
      awaddr <= WIN_AW'($urandom) & ~WIN_AW'(127);
    end
    if (awvalid && awready) w_beats_left = awlen + 1;
    if (wvalid && wready) begin
      w_beats_left--;
    end
    wvalid <= (w_beats_left != 0) && ($urandom_range(99) < 70);
    wlast  <= (w_beats_left == 1);
    wdata  <= {$urandom, $urandom};
    if (wvalid && !wready) begin wvalid <= 1; wlast <= wlast; wdata <= wdata; end
    rready <= $urandom_range(99) < 60;
    bready <= $urandom_range(99) < 60;
    if (errors > 5) $fatal(1, "bar2_rd_resp: FAIL %0d errors", errors);
    if (reads_done == bursts && writes_done == bursts) begin
      if (errors != 0) $fatal(1, "bar2_rd_resp: FAIL %0d errors", errors);
      $display("bar2_rd_resp: PASS %0d read bursts answered (zeros, OKAY), %0d write bursts acknowledged, in %0d cycles",
               reads_done, writes_done, cycle);
      $finish;
    end
    if (cycle > 200 * bursts) $fatal(1, "bar2_rd_resp: FAIL no progress: %0d reads, %0d writes", reads_done, writes_done);
  end
endmodule : tb_bar2_rd_resp

`default_nettype wire
