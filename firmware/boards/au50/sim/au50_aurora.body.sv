// SIMULATION MODEL of au50_aurora, Aurora 64B/66B (PG074) as tcl/ip_aurora.tcl configures it:
// one lane, framing, native flow control. Same ports as ip_stubs/; benches only.
//
//   clocks   user_clk_out = the GT reference (161.1328125 MHz) * 64/66 = 156.25 MHz, from the
//            reference's period averaged over about 64 periods (a GT's PLL filters jitter), edges
//            at exact times. TX and RX user interfaces both run on user_clk_out
//   line     by 64B/66B blocks, not bits: each user_clk cycle sends one block (2-bit sync header,
//            01 data or 10 control, and 64 bits) into line_q with the time its last bit leaves
//            (one cycle later, 66 bits at 10.3125 Gb/s); a bench's cable hands it to the far
//            model's line_in. The serial pins carry nothing. Control blocks: idle (with
//            not-ready and clock-compensation flags), NFC (the request's 16 bits), separator
//            with 0 bytes (ends a frame after its last full data block)
//   RX       block lock after 64 good sync headers; an elastic buffer into this side's user_clk
//            that drops idle blocks when over-full and leaves a gap when empty (the far side's
//            +-100 ppm); RX_PIPE cycles of pipeline; m_axi_rx_tvalid has no TREADY: a word comes
//            when it comes
//   TX       s_axi_tx_tready low when the channel is down, during the clock-compensation
//            sequence (CC_BLOCKS blocks every 4,992 cycles), in the cycle after an NFC request
//            is taken (the NFC block uses it), in the separator's cycle after a TLAST, and
//            while the partner's XOFF is in force; TX_PIPE cycles of pipeline
//   NFC      s_axi_nfc_tx_tready after 1-3 cycles (never during clock compensation), tdata[7]
//            XOFF, tdata[8:15] a pause count, all zeros XON; a received XOFF stops this side's
//            transmitter NFC_REACT cycles later until an XON. +aurora_ignore_nfc makes the model
//            ignore received NFC messages (the bench's negative control: the receiver's FIFO
//            must then overflow); +aurora_trace prints every NFC message sent and received
//   status   channel_up once the lane is locked and the partner's idles say it is ready;
//            sys_reset_out while reset_pb or pma_init (and 16 cycles after)
// The latencies (TX_PIPE + a cycle on the line + the cable + the elastic buffer + RX_PIPE, and
// the NFC path) stay inside what memchan_nfc_rx_fifo's headroom assumes (40 cycles each).
`default_nettype none

// (the port list: the stub's in ip_stubs/, put here by au50_models.py)



  localparam int CC_PERIOD = 4992;
  localparam int CC_BLOCKS = 3;
  localparam int TX_PIPE   = 4;
  localparam int RX_PIPE   = 4;
  localparam int EB_TARGET = 2;      // blocks the elastic buffer keeps before it delivers
  localparam int NFC_REACT = 4;
  localparam logic [7:0] T_IDLE = 8'h78, T_NFC = 8'hAA, T_SEP = 8'h1E;

  bit ignore_nfc, trace;
  initial begin
    ignore_nfc = $test$plusargs("aurora_ignore_nfc");
    trace = $test$plusargs("aurora_trace");
  end

  // ---------------- clocks ----------------
  // the reference's period averaged over about 64 periods (a GT's PLL filters the reference's
  // jitter); edges scheduled at exact times so that no rounding to the time step builds up
  realtime ref_last = -1.0, ref_avg = 6.206;
  realtime uclk_period, t_uclk = 0.0;
  logic    uclk = 1'b0;
  always @(posedge gt_refclk1_p) begin
    if (ref_last >= 0) ref_avg = ref_avg + (($realtime - ref_last) - ref_avg) / 64.0;
    ref_last = $realtime;
  end
  always begin
    uclk_period = ref_avg * 66.0 / 64.0;
    t_uclk = t_uclk + uclk_period / 2.0;
    #(t_uclk - $realtime) uclk = ~uclk;
  end
  assign user_clk_out = uclk;
  assign sync_clk_out = uclk;

  // ---------------- reset ----------------
  logic rst_meta, rst_u;
  int   rst_hold;
  always @(posedge uclk) begin
    rst_meta <= reset_pb || pma_init || power_down;
    rst_u    <= rst_meta;
    if (rst_u) rst_hold <= 16;
    else if (rst_hold > 0) rst_hold <= rst_hold - 1;
  end
  assign sys_reset_out       = rst_u || rst_hold != 0;
  assign gt_reset_out        = rst_u;
  assign link_reset_out      = 1'b0;
  assign mmcm_not_locked_out = rst_u;
  assign gt_pll_lock         = !rst_u;
  assign gt_powergood        = !rst_u;

  // ---------------- RX state seen by TX ----------------
  bit locked, partner_ready;
  bit xoff_in_force;
  int pause_left;
  assign lane_up    = locked;
  assign channel_up = locked && partner_ready;
  assign hard_err   = 1'b0;
  assign soft_err   = 1'b0;

  // ---------------- TX ----------------
  typedef enum int {SL_IDLE, SL_DATA, SL_CC, SL_NFC, SL_SEP} slot_e;
  slot_e      slot_q;
  int         cc_cnt, cc_left, nfc_wait;
  bit         nfc_pend, sep_pend;
  logic [0:15] nfc_data_q;
  logic [65:0] tx_pipe [$];
  logic [65:0] line_q [$];
  // what happened, for the bench
  int words_tx = 0, words_rx = 0, nfc_sent = 0, xoff_sent = 0, nfc_applied = 0, cc_dropped = 0,
      eb_gaps = 0, eb_max = 0;

  function automatic logic [65:0] ctrl(input logic [7:0] t, input logic [55:0] rest);
    return {2'b10, t, rest};
  endfunction

  always @(posedge uclk) begin
    if (rst_u) begin
      slot_q = SL_IDLE; cc_cnt = 0; cc_left = 0; nfc_pend = 0; sep_pend = 0; nfc_wait = 0;
      s_axi_tx_tready <= 1'b0; s_axi_nfc_tx_tready <= 1'b0;
      tx_pipe.delete(); line_q.delete(); line_t.delete();
    end else begin
      logic [65:0] blk;
      slot_e nxt;
      blk = ctrl(T_IDLE, {!locked, 55'b0});
      unique case (slot_q)
        SL_CC:   blk = ctrl(T_IDLE, {!locked, 1'b1, 54'b0});
        SL_NFC:  begin blk = ctrl(T_NFC, {nfc_data_q, 40'b0}); nfc_pend = 0; nfc_sent++;
                       if (trace) $display("%m %0.1f ns: NFC %h sent", $realtime, nfc_data_q);
                       if (nfc_data_q[7]) xoff_sent++; end
        SL_SEP:  begin blk = ctrl(T_SEP, 56'b0); sep_pend = 0; end
        SL_DATA: if (s_axi_tx_tvalid) begin
                   blk = {2'b01, s_axi_tx_tdata};
                   words_tx++;
                   if (s_axi_tx_tlast) sep_pend = 1;
                   if (s_axi_tx_tkeep != 8'hFF) $fatal(1, "au50_aurora model: partial TKEEP %b not modelled", s_axi_tx_tkeep);
                 end
        default: ;
      endcase
      // an NFC request taken at this edge goes out in the next free slot
      if (s_axi_nfc_tx_tvalid && s_axi_nfc_tx_tready) begin
        nfc_pend = 1; nfc_data_q = s_axi_nfc_tx_tdata; nfc_wait = 0;
      end
      tx_pipe.push_back(blk);
      if (tx_pipe.size() > TX_PIPE) begin
        line_q.push_back(tx_pipe.pop_front());
        line_t.push_back($realtime + uclk_period);
      end

      // the next slot: clock compensation first, then NFC, the separator, data
      cc_cnt = (cc_cnt + 1) % CC_PERIOD;
      if (cc_cnt == 0) cc_left = CC_BLOCKS;
      if (pause_left > 0) pause_left--;
      if (cc_left > 0) begin nxt = SL_CC; cc_left--; end
      else if (nfc_pend) nxt = SL_NFC;
      else if (sep_pend) nxt = SL_SEP;
      else if (channel_up && !xoff_in_force && pause_left == 0) nxt = SL_DATA;
      else nxt = SL_IDLE;
      slot_q = nxt;
      s_axi_tx_tready <= (nxt == SL_DATA);
      // NFC ready: a few cycles after the request, never into clock compensation
      if (s_axi_nfc_tx_tvalid && !s_axi_nfc_tx_tready && !nfc_pend && nxt != SL_CC && cc_left == 0) nfc_wait++;
      s_axi_nfc_tx_tready <= s_axi_nfc_tx_tvalid && !s_axi_nfc_tx_tready && !nfc_pend && nxt != SL_CC &&
                             cc_left == 0 && nfc_wait > $urandom_range(0, 2);
    end
  end

  // the line: this side's blocks, each with the time its last bit has left (one user_clk
  // period after the edge that sent it), for the bench's cable to take; the pins carry nothing
  realtime line_t [$];
  assign txp = 1'b0;
  assign txn = 1'b1;

  // ---------------- RX: blocks from the far side (the bench's cable calls line_in) ----------
  int          good_blocks = 0;
  logic [65:0] eb_q [$];     // the elastic buffer

  task automatic line_in(input logic [65:0] blk);
    if (rst_u) return;
    if (blk[65:64] != 2'b01 && blk[65:64] != 2'b10) $fatal(1, "au50_aurora model: block with sync header %b", blk[65:64]);
    if (!locked) begin
      good_blocks++;
      if (good_blocks >= 64) locked = 1;      // block lock: 64 good sync headers
    end else eb_q.push_back(blk);
  endtask

  // ---------------- RX: elastic buffer into user_clk, decoding, user interface ----------------
  bit          eb_started, pend_valid;
  logic [63:0] pend_data;
  logic [65:0] out_pipe [$];   // {valid, last, data}
  int          xoff_at, xon_at;

  function automatic bit droppable(input logic [65:0] b);
    return b[65:64] == 2'b10 && b[63:56] == T_IDLE;
  endfunction

  always @(posedge uclk) begin
    if (rst_u) begin
      locked = 0; partner_ready = 0; good_blocks = 0; eb_q.delete(); eb_started = 0; pend_valid = 0;
      out_pipe.delete(); xoff_in_force = 0; pause_left = 0; xoff_at = -1; xon_at = -1;
      m_axi_rx_tvalid <= 1'b0; m_axi_rx_tlast <= 1'b0;
    end else begin
      logic [65:0] o;
      o = '0;
      if (eb_q.size() > eb_max) eb_max = eb_q.size();
      // clock compensation: an idle block dropped while the buffer runs over its target
      if (eb_q.size() > EB_TARGET && droppable(eb_q[0])) begin
        void'(eb_q.pop_front()); cc_dropped++;
      end
      if (!eb_started && eb_q.size() >= EB_TARGET) eb_started = 1;
      if (eb_started && eb_q.size() == 0) eb_gaps++;
      if (eb_started && eb_q.size() > 0) begin
        logic [65:0] b;
        b = eb_q.pop_front();
        if (b[65:64] == 2'b01) begin
          partner_ready = 1;
          if (pend_valid) o = {1'b1, 1'b0, pend_data};
          pend_valid = 1; pend_data = b[63:0];
        end else begin
          unique case (b[63:56])
            T_IDLE: partner_ready = !b[55];
            T_SEP: begin
              if (pend_valid) o = {1'b1, 1'b1, pend_data};
              pend_valid = 0;
            end
            T_NFC: if (!ignore_nfc) begin
              logic [0:15] m;
              m = b[55:40];
              nfc_applied++;
              if (trace) $display("%m %0.1f ns: NFC %h received", $realtime, m);
              if (m[7]) begin xoff_at = NFC_REACT; xon_at = -1; end
              else if (m[8:15] == 8'd0) begin xon_at = NFC_REACT; xoff_at = -1; end
              else pause_left = NFC_REACT + int'(m[8:15]) + 1;
            end
            default: $fatal(1, "au50_aurora model: control block type %h not modelled", b[63:56]);
          endcase
        end
      end
      // the NFC request acts on this side's transmitter NFC_REACT cycles after its block
      if (xoff_at == 0) xoff_in_force = 1;
      if (xon_at == 0) xoff_in_force = 0;
      if (xoff_at >= 0) xoff_at--;
      if (xon_at >= 0) xon_at--;
      out_pipe.push_back(o);
      if (out_pipe.size() > RX_PIPE) begin
        logic [65:0] q;
        q = out_pipe.pop_front();
        m_axi_rx_tvalid <= q[65];
        m_axi_rx_tlast  <= q[65] && q[64];
        m_axi_rx_tdata  <= q[63:0];
        if (q[65]) words_rx++;
      end else m_axi_rx_tvalid <= 1'b0;
    end
  end
  assign m_axi_rx_tkeep = 8'hFF;

  logic unused;
  assign unused = ^{rxp, rxn, gt_refclk1_n, init_clk, loopback};
endmodule : au50_aurora

`default_nettype wire
