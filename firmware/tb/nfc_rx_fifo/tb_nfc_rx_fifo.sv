// Unit bench: memchan_nfc_rx_fifo at the worst round trip its headroom is computed for.
// The far transmitter sends a word every cycle in its bursts; its words reach the FIFO
// LINK_LAT + cable cycles later; the IP takes an NFC request NFC_READY_MAX cycles after it
// is raised (sometimes sooner), and the far transmitter's last word leaves NFC_MSG_LAT + cable
// cycles after that, plus one cycle for the far clock's phase (its latencies count in its own
// clock). The core reads on its own clock, stalls for long phases (the FIFO fills to its
// XOFF point) and drains at random. Checks: every word arrives once, in order, frames intact;
// no word is lost; the fill reached DEPTH exactly (the bench drove the worst case, the
// headroom is not larger than needed); XOFF and XON both sent. With HEADROOM_ADJ=-1 it must
// overflow.
`default_nettype none

module tb_nfc_rx_fifo #(
  parameter int HEADROOM_ADJ = 0
);
  localparam int DEPTH = 256, LINK_LAT = 40, NFC_READY_MAX = 8, NFC_MSG_LAT = 40, CABLE_M = 10;
  localparam int CLK_PS = 6400;
  localparam int CABLE_CYC = (CABLE_M * 5000 + CLK_PS - 1) / CLK_PS;
  localparam int DATA_DELAY = LINK_LAT + CABLE_CYC;               // far user interface to FIFO
  localparam int STOP_DELAY = NFC_MSG_LAT + CABLE_CYC + 1;         // handshake to the last word

  int seed = 1, words = 60000;
  logic lclk = 0, cclk = 0, rst_n = 0;
  always #(CLK_PS / 2) lclk = ~lclk;
  always #(2000 + $urandom_range(60) - 30) cclk = ~cclk;   // 250 MHz, jittered: unrelated

  logic        s_tvalid, s_tlast, nfc_tvalid, nfc_tready, overflow, paused;
  logic [63:0] s_tdata, m_tdata;
  logic [15:0] nfc_tdata;
  logic        m_tvalid, m_tlast, m_tready;

  memchan_nfc_rx_fifo #(.DEPTH(DEPTH), .LINK_LAT(LINK_LAT), .NFC_READY_MAX(NFC_READY_MAX),
                        .NFC_MSG_LAT(NFC_MSG_LAT), .CABLE_M(CABLE_M), .CLK_PS(CLK_PS),
                        .HEADROOM_ADJ(HEADROOM_ADJ)) dut (
    .link_clk_i(lclk), .link_rst_ni(rst_n), .s_tvalid_i(s_tvalid), .s_tdata_i(s_tdata),
    .s_tlast_i(s_tlast), .nfc_tvalid_o(nfc_tvalid), .nfc_tdata_o(nfc_tdata),
    .nfc_tready_i(nfc_tready), .overflow_o(overflow), .paused_o(paused),
    .core_clk_i(cclk), .core_rst_ni(rst_n), .m_tvalid_o(m_tvalid), .m_tdata_o(m_tdata),
    .m_tlast_o(m_tlast), .m_tready_i(m_tready));

  // the link: a word the far side sends at edge s is at the FIFO's input for edge s + DATA_DELAY
  logic [65:0] pipe [DATA_DELAY];          // {valid, last, 64 data bits}
  int unsigned sent, got, errors, lcycle, ccycle, frame_left, xoffs, xons, fill_max;
  int unsigned in_fifo;                    // words written, not yet read (the model's fill)
  int          stop_at, go_at, wait_n;     // far side's pending state changes (edges), -1 none
  bit          far_stopped, nfc_ready_now;

  initial begin
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("words=%d", words));
    void'($urandom(seed));
    sent = 0; got = 0; errors = 0; lcycle = 0; ccycle = 0; frame_left = 1; xoffs = 0; xons = 0;
    fill_max = 0; in_fifo = 0; stop_at = -1; go_at = -1; wait_n = 0; far_stopped = 0;
    nfc_ready_now = 0;
    for (int i = 0; i < DATA_DELAY; i++) pipe[i] = '0;
    s_tvalid = 0; s_tdata = 0; s_tlast = 0; nfc_tready = 0; m_tready = 0;
    #(20 * CLK_PS) rst_n = 1;
  end

  // link clock: the far transmitter, the cable, the IP's NFC interface
  always @(posedge lclk) if (rst_n) begin
    logic [65:0] w;
    lcycle++;
    // the word at the FIFO's input this edge (the DUT takes it at this same edge)
    if (s_tvalid) begin
      in_fifo++;
      if (in_fifo > fill_max) fill_max = in_fifo;
    end
    // the IP's NFC handshake, then the far side's reaction STOP_DELAY edges later
    if (nfc_tvalid && nfc_tready) begin
      if (nfc_tdata[7]) begin
        xoffs++; stop_at = lcycle + STOP_DELAY;
      end else begin
        xons++; go_at = lcycle + STOP_DELAY;
      end
      wait_n = 0;
    end else if (nfc_tvalid) begin
      wait_n++;
    end
    // ready after NFC_READY_MAX cycles of waiting (three times in four), else sooner
    nfc_tready <= nfc_tvalid && !(nfc_tready) &&
                  (wait_n + 1 >= (($urandom_range(3) != 0) ? NFC_READY_MAX : $urandom_range(NFC_READY_MAX)));
    // the far transmitter: sends its last word at edge stop_at, none after
    if (stop_at >= 0 && lcycle > stop_at) begin far_stopped = 1; stop_at = -1; end
    if (go_at >= 0 && lcycle > go_at) begin far_stopped = 0; go_at = -1; end
    w = '0;
    if (!far_stopped && sent < words && (lcycle / 2000) % 5 != 4) begin
      frame_left--;
      w = {1'b1, frame_left == 0, 64'(sent)};
      if (frame_left == 0) frame_left = 1 + $urandom_range(32);
      sent++;
    end
    {s_tvalid, s_tlast, s_tdata} <= pipe[DATA_DELAY-1];
    for (int i = DATA_DELAY - 1; i > 0; i--) pipe[i] = pipe[i-1];
    pipe[0] = w;
    if (overflow) begin
      $display("nfc_rx_fifo: FAIL overflow: a word arrived with %0d words in the FIFO of %0d", in_fifo, DEPTH);
      $fatal(1, "nfc_rx_fifo: FAIL overflow");
    end
  end

  // core clock: long stalls (the FIFO fills to XOFF and beyond), then random draining
  int unsigned last_tlast_at;
  always @(posedge cclk) if (rst_n) begin
    ccycle++;
    if (m_tvalid && m_tready) begin
      if (m_tdata != 64'(got)) begin
        $display("nfc_rx_fifo: FAIL word %0d read as %0d", got, m_tdata); errors++;
      end
      got++;
      in_fifo--;
    end
    m_tready <= ((ccycle / 3000) % 2 == 1) && ($urandom_range(99) < 80);
    if (errors > 5) $fatal(1, "nfc_rx_fifo: FAIL %0d errors", errors);
    if (got == words) begin
      if (fill_max != DEPTH) begin
        $display("nfc_rx_fifo: FAIL the fill peaked at %0d of %0d: the worst round trip was not driven", fill_max, DEPTH);
        errors++;
      end
      if (xoffs == 0 || xons == 0) begin
        $display("nfc_rx_fifo: FAIL %0d XOFF, %0d XON", xoffs, xons); errors++;
      end
      if (errors != 0) $fatal(1, "nfc_rx_fifo: FAIL %0d errors", errors);
      $display("nfc_rx_fifo: PASS %0d words, %0d XOFF, %0d XON, fill peaked at %0d of %0d, headroom %0d",
               got, xoffs, xons, fill_max, DEPTH, dut.HEADROOM);
      $finish;
    end
    if (ccycle > 100 * words) $fatal(1, "nfc_rx_fifo: FAIL no progress: %0d of %0d words", got, words);
  end
endmodule : tb_nfc_rx_fifo

`default_nettype wire
