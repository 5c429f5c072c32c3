// Receive FIFO for a link without TREADY (Aurora 64B/66B's m_axi_rx): words arrive whether or
// not there is room, so the FIFO asks the far transmitter to pause (native flow control, NFC
// XOFF) while it still has room for every word that can arrive before the pause takes effect,
// and to resume (XON) once the core has drained it to XON_FREE free entries. The words cross
// from the link's user clock to the core's clock in a memchan_async_fifo; the flow control is
// decided on the link side from its conservative free count.
//
// Headroom, in link user-clock cycles (one word per cycle at most), counted from the edge that
// decides XOFF (free entries after that edge's write <= HEADROOM):
//   1                  nfc_tvalid_o is registered: it rises at the next edge
//   NFC_READY_MAX      the IP may hold s_axi_nfc_tx_tready low this long
//   NFC_MSG_LAT        handshake to the far transmitter's last word (our TX pipeline, the far
//                      RX pipeline and its reaction), cable excluded
//   2 * CABLE_CYC      the request's and the last word's flight (CABLE_M metres at 5 ns/m)
//   LINK_LAT           a word's way from the far transmitter's user interface to this FIFO's
//                      input (far TX pipeline, serdes, our RX pipeline), cable excluded
//   1                  the far side's latencies count in its own clock, which may run faster
//                      (+-100 ppm each side): its phase can put its last word one cycle later.
//                      More words per cycle cannot come: the IP's receive side runs on our user
//                      clock, and its clock compensation absorbs the difference
// Every word counted there finds a free entry; the bench drives exactly that round trip, and
// with the headroom one short (HEADROOM_ADJ = -1) the FIFO overflows.
`default_nettype none

module memchan_nfc_rx_fifo #(
  parameter int unsigned DEPTH         = 256,   // entries, a power of two
  parameter int unsigned LINK_LAT      = 40,    // cycles, see above
  parameter int unsigned NFC_READY_MAX = 8,
  parameter int unsigned NFC_MSG_LAT   = 40,
  parameter int unsigned CABLE_M       = 10,    // longest cable, metres
  parameter int unsigned CLK_PS        = 6400,  // link user clock period (156.25 MHz)
  parameter int unsigned XON_FREE      = DEPTH / 2,
  parameter int unsigned XOFF_BIT      = 7,     // bit of the NFC request word that means XOFF
  // subtracted from the computed headroom; -1 only for the bench's negative control
  parameter int          HEADROOM_ADJ  = 0,
  localparam int unsigned AW        = $clog2(DEPTH),
  localparam int unsigned CABLE_CYC = (CABLE_M * 5000 + CLK_PS - 1) / CLK_PS,
  localparam int unsigned HEADROOM  = 1 + NFC_READY_MAX + NFC_MSG_LAT + 2 * CABLE_CYC + LINK_LAT + 1
                                      + HEADROOM_ADJ
) (
  // link side: the IP's receive stream and its NFC request interface (link user clock)
  input  wire logic        link_clk_i,
  input  wire logic        link_rst_ni,
  input  wire logic        s_tvalid_i,
  input  wire logic [63:0] s_tdata_i,
  input  wire logic        s_tlast_i,
  output logic             nfc_tvalid_o,
  output logic [15:0]      nfc_tdata_o,
  input  wire logic        nfc_tready_i,
  output logic             overflow_o,      // sticky: a word arrived with no room (lost)
  output logic             paused_o,        // XOFF is in force
  // core side
  input  wire logic        core_clk_i,
  input  wire logic        core_rst_ni,
  output logic             m_tvalid_o,
  output logic [63:0]      m_tdata_o,
  output logic             m_tlast_o,
  input  wire logic        m_tready_i
);
  if (HEADROOM + 2 > DEPTH || XON_FREE < HEADROOM + NFC_READY_MAX + 2 || XON_FREE > DEPTH ||
      XOFF_BIT > 15) begin : g_check
    $error("memchan_nfc_rx_fifo: DEPTH must exceed the round-trip headroom, XON_FREE lie NFC_READY_MAX + 2 above it");
  end

  logic        wr_ready, wr_en, want_xoff;
  logic [AW:0] wr_free, free_after;
  logic        target_q, sent_xoff_q, req_valid_q, req_xoff_q, overflow_q;

  memchan_async_fifo #(.WIDTH(65), .DEPTH(DEPTH)) u_fifo (
    .wr_clk_i(link_clk_i), .wr_rst_ni(link_rst_ni), .wr_valid_i(s_tvalid_i),
    .wr_data_i({s_tlast_i, s_tdata_i}), .wr_ready_o(wr_ready), .wr_free_o(wr_free),
    .rd_clk_i(core_clk_i), .rd_rst_ni(core_rst_ni), .rd_valid_o(m_tvalid_o),
    .rd_data_o({m_tlast_o, m_tdata_o}), .rd_ready_i(m_tready_i));

  assign wr_en      = s_tvalid_i && wr_ready;
  assign free_after = wr_free - (AW+1)'(wr_en);

  // the state the far transmitter should be in after this edge, with hysteresis
  always_comb begin
    want_xoff = target_q;
    if (!target_q && free_after <= (AW+1)'(HEADROOM)) want_xoff = 1'b1;
    else if (target_q && free_after >= (AW+1)'(XON_FREE)) want_xoff = 1'b0;
  end

  // one request at a time, held until the IP takes it (AXI4-Stream); a pending XON is taken
  // before the free count can fall from XON_FREE to HEADROOM (checked above), so an XOFF never
  // waits behind one
  always_ff @(posedge link_clk_i or negedge link_rst_ni) begin
    if (!link_rst_ni) begin
      target_q    <= 1'b0;
      sent_xoff_q <= 1'b0;
      req_valid_q <= 1'b0;
      req_xoff_q  <= 1'b0;
      overflow_q  <= 1'b0;
    end else begin
      target_q <= want_xoff;
      if (req_valid_q) begin
        if (nfc_tready_i) begin
          req_valid_q <= 1'b0;
          sent_xoff_q <= req_xoff_q;
        end
      end else if (want_xoff != sent_xoff_q) begin
        req_valid_q <= 1'b1;
        req_xoff_q  <= want_xoff;
      end
      if (s_tvalid_i && !wr_ready) begin
        overflow_q <= 1'b1;
`ifndef SYNTHESIS
        // the headroom covers the worst round trip: a word with no room breaks that promise
        $error("memchan_nfc_rx_fifo: overflow, a received word was lost");
`endif
      end
    end
  end

  assign nfc_tvalid_o = req_valid_q;
  assign nfc_tdata_o  = req_xoff_q ? 16'(1 << XOFF_BIT) : 16'h0;
  assign overflow_o   = overflow_q;
  assign paused_o     = sent_xoff_q;
endmodule : memchan_nfc_rx_fifo

`default_nettype wire
