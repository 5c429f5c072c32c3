// One direction of the board shell's link between two adapters on unrelated clocks, as the U50
// top wires it: the sender's memchan_async_fifo (its core clock to its link clock), a model of
// the Aurora 64B/66B channel (link clock to the far link clock: latency, a clock-compensation
// cycle every CC_PERIOD cycles in which the transmitter takes nothing, no TREADY at the
// receiver, native flow control that pauses the transmitter), and the receiver's
// memchan_nfc_rx_fifo (the far link clock to the receiver's core clock).
`default_nettype none

module tb_shell_link #(
  parameter int LINK_LAT      = 40,    // cycles, a word's way through the channel (cable included)
  parameter int NFC_READY_MAX = 8,
  parameter int NFC_MSG_LAT   = 40,    // cycles, NFC handshake to the transmitter's pause (cable included)
  parameter int CC_PERIOD     = 5000,
  parameter bit GRAY          = 1'b1,  // the crossings' FIFOs (0: the negative control)
  parameter int HEADROOM_ADJ  = 0
) (
  input  wire logic        src_clk,    // the sender's core clock
  input  wire logic        src_rst_n,
  input  wire logic        src_lclk,   // the sender's link user clock
  input  wire logic        dst_lclk,   // the receiver's link user clock
  input  wire logic        dst_clk,    // the receiver's core clock
  input  wire logic        dst_rst_n,
  input  wire logic        i_tvalid,
  input  wire logic [63:0] i_tdata,
  input  wire logic        i_tlast,
  output logic             i_tready,
  output logic             o_tvalid,
  output logic [63:0]      o_tdata,
  output logic             o_tlast,
  input  wire logic        o_tready
);
  // both FIFOs of the direction reset together (as the board top does)
  logic rst_n, src_lrst_n, dst_lrst_n;
  assign rst_n = src_rst_n && dst_rst_n;
  memchan_sync u_src_lrst (.clk_i(src_lclk), .rst_ni(rst_n), .d_i(1'b1), .q_o(src_lrst_n));
  memchan_sync u_dst_lrst (.clk_i(dst_lclk), .rst_ni(rst_n), .d_i(1'b1), .q_o(dst_lrst_n));

  logic        tx_valid, tx_ready, tx_last, rx_valid, rx_last, nfc_valid, nfc_ready, overflow, paused;
  logic [63:0] tx_data, rx_data;
  logic [15:0] nfc_data;

  memchan_async_fifo #(.WIDTH(65), .DEPTH(16), .GRAY(GRAY)) u_tx_fifo (
    .wr_clk_i(src_clk), .wr_rst_ni(rst_n), .wr_valid_i(i_tvalid), .wr_data_i({i_tlast, i_tdata}),
    .wr_ready_o(i_tready), .wr_free_o(), .rd_clk_i(src_lclk), .rd_rst_ni(src_lrst_n),
    .rd_valid_o(tx_valid), .rd_data_o({tx_last, tx_data}), .rd_ready_i(tx_ready));

  // the FIFO's parameters bound this channel in the receiver's cycles: each latency the channel
  // counts in the sender's link clock ends between two edges of the receiver's, one cycle more
  // (the cable is inside the latencies)
  memchan_nfc_rx_fifo #(.DEPTH(256), .LINK_LAT(LINK_LAT + 1), .NFC_READY_MAX(NFC_READY_MAX),
                        .NFC_MSG_LAT(NFC_MSG_LAT + 1), .CABLE_M(0), .HEADROOM_ADJ(HEADROOM_ADJ)) u_rx_fifo (
    .link_clk_i(dst_lclk), .link_rst_ni(dst_lrst_n), .s_tvalid_i(rx_valid), .s_tdata_i(rx_data),
    .s_tlast_i(rx_last), .nfc_tvalid_o(nfc_valid), .nfc_tdata_o(nfc_data), .nfc_tready_i(nfc_ready),
    .overflow_o(overflow), .paused_o(paused), .core_clk_i(dst_clk), .core_rst_ni(rst_n),
    .m_tvalid_o(o_tvalid), .m_tdata_o(o_tdata), .m_tlast_o(o_tlast), .m_tready_i(o_tready));

  // the channel: words leave at the sender's link clock, arrive LINK_LAT of its cycles later
  realtime src_period, last_src_edge, pause_from, resume_from;
  logic [64:0] wire_q [$];
  realtime     arrive_q [$];
  int          cc_count, nfc_wait;
  bit          tx_paused;
  initial begin
    src_period = 0; last_src_edge = 0; pause_from = -1; resume_from = -1; cc_count = 0;
    nfc_wait = 0; tx_paused = 0;
  end

  always @(posedge src_lclk) begin
    if (last_src_edge > 0) src_period = $realtime - last_src_edge;
    last_src_edge = $realtime;
    if (pause_from >= 0 && $realtime >= pause_from) begin tx_paused = 1; pause_from = -1; end
    if (resume_from >= 0 && $realtime >= resume_from) begin tx_paused = 0; resume_from = -1; end
    if (tx_valid && tx_ready) begin
      wire_q.push_back({tx_last, tx_data});
      arrive_q.push_back($realtime + LINK_LAT * src_period);
    end
    cc_count = (cc_count + 1) % CC_PERIOD;
    tx_ready <= src_lrst_n && !tx_paused && cc_count != 0;
  end

  // the receiver: one word per cycle of its link clock, no TREADY; its NFC requests
  always @(posedge dst_lclk) begin
    if (!dst_lrst_n) begin
      rx_valid <= 1'b0; nfc_ready <= 1'b0;
    end else begin
      if (arrive_q.size() > 0 && arrive_q[0] <= $realtime) begin
        logic [64:0] w;
        w = wire_q.pop_front();
        void'(arrive_q.pop_front());
        rx_valid <= 1'b1;
        {rx_last, rx_data} <= w;
      end else begin
        rx_valid <= 1'b0;
      end
      if (nfc_valid && nfc_ready) begin
        // the far transmitter pauses (or resumes) NFC_MSG_LAT of our cycles later
        if (nfc_data[7]) pause_from = $realtime + NFC_MSG_LAT * src_period;
        else resume_from = $realtime + NFC_MSG_LAT * src_period;
        nfc_wait = 0;
        nfc_ready <= 1'b0;
      end else begin
        if (nfc_valid) nfc_wait++;
        nfc_ready <= nfc_valid && nfc_wait + 1 >= $urandom_range(NFC_READY_MAX);
      end
      if (overflow) $fatal(1, "shell link: FAIL the receive FIFO overflowed: a received word was lost");
    end
  end

  // what the flow control did: XOFF requests taken, the fill's peak (the bench prints them)
  int xoffs = 0, fill_max = 0;
  always @(posedge dst_lclk) begin
    if (nfc_valid && nfc_ready && nfc_data[7]) xoffs++;
    if (256 - int'(u_rx_fifo.wr_free) > fill_max) fill_max = 256 - int'(u_rx_fifo.wr_free);
  end

  logic unused;
  assign unused = paused;
endmodule : tb_shell_link

`default_nettype wire
