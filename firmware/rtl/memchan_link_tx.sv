// Link transmitter: numbers sequenced frames, keeps them in a replay ring until the peer's
// cumulative link acknowledgement (LACK) frees them, retransmits go-back-N on a LNAK or an
// acknowledgement timeout, inserts control frames (LNAK, LACK, clock sync, heartbeat) between
// frames,
// and appends the CRC-32 trailer to every frame on the AXI4-Stream link port.
// Retry exhausted: every frame in the ring and every later frame is discarded
// (DISCARDING) until ERR_RESET; the sender epoch then toggles so that the receiver resyncs.
// Pipelining: the room check for a new frame (ring space and window) and the choice of the
// next control frame are registered, so that neither sits in front of the CRC or f_ready_o;
// received link acknowledgements (LACK/LNAK from the link receiver's CRC check) are
// registered before the acknowledgement and retry logic uses them (with the sequence number
// an LNAK acknowledges already computed), and the retry decision (LNAK or timeout) is taken
// one cycle after the acknowledgement it follows, from registers only.
`default_nettype none

module memchan_link_tx #(
  parameter int unsigned RING_DEPTH = 1024,
  localparam int unsigned RA = $clog2(RING_DEPTH)
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic [memchan_regs_pkg::MC_NODE_ID_ID_W-1:0] node_id_i,
  input  wire logic        retry_en_i,
  input  wire logic [memchan_regs_pkg::MC_LINK_RETRY_LIMIT_LIMIT_W-1:0] retry_limit_i,
  input  wire memchan_regs_pkg::mc_link_ack_timeout_t ack_timeout_i,
  input  wire logic        err_reset_i,
  // frames from the builder
  input  wire logic        f_valid_i,
  input  wire logic [63:0] f_data_i,
  input  wire logic        f_last_i,
  output logic             f_ready_o,
  // link acknowledgements received, and control frames to send
  input  wire logic        rx_lack_i,
  input  wire logic        rx_lnak_i,
  input  wire logic [7:0]  rx_seq_i,
  input  wire logic        lack_req_i,
  input  wire logic        lnak_req_i,
  input  wire logic [7:0]  req_seq_i,
  input  wire logic        hb_req_i,
  input  wire logic [63:0] hb_hdr_i,
  input  wire logic        sync_req_i,     // global clock sync frame (memchan_clock_sync_tx)
  input  wire logic [63:0] sync_hdr_i,
  // link stream
  output logic             m_tvalid_o,
  output logic [63:0]      m_tdata_o,
  output logic             m_tlast_o,
  input  wire logic        m_tready_i,
  // status and events
  output logic             discarding_o,
  output logic             empty_o,        // no frame in the ring or being written into it
  output logic             retry_o,
  output logic             err_event_o,
  output logic             err_drop_o,
  output logic             tx_pkt_o,
  output logic [5:0]       tx_len_o,
  output logic             ackreq_sent_o,
  output logic             barrier_sent_o
);
  import memchan_pkt_pkg::*;

  if (RING_DEPTH < 4 * MAX_FRAME_WORDS || (1 << RA) != RING_DEPTH) begin : g_check
    $error("memchan_link_tx: RING_DEPTH must be a power of two >= 4 maximum frames");
  end
  localparam int unsigned WINDOW = 31;   // frames in flight (frame-end table has 32 entries)

  // ---------------- ring write side ----------------
  logic [RA:0] wr_q, free_q, free_d, rd_q, sent_q;
  logic [RA:0] fend_q [32];         // ring position after the frame with seq[4:0]
  logic [7:0]  nseq_q;              // next sequence number
  logic [5:0]  unack_q, unack_d;    // frames in the ring
  logic        epoch_q, disc_q, inf_q, drop_frame_q;
  logic        room_q;              // room for one more frame (registered, see below)
  logic [RA:0] used, lag, space;
  logic        hdr_ok, f_fire, f_hdr, ring_we;
  logic [63:0] wdata;

  assign used  = wr_q - free_q;
  assign lag   = wr_q - rd_q;
  assign space = (RA+1)'(RING_DEPTH) - ((used > lag) ? used : lag);
  // room_q is computed one cycle ahead, with a margin for what that cycle may have taken
  // (one ring word, one frame): space only shrinks by ring writes, unack_q by one per frame
  assign hdr_ok    = disc_q || room_q;
  assign f_ready_o = inf_q || hdr_ok;
  assign f_fire    = f_valid_i && f_ready_o;
  assign f_hdr     = f_fire && !inf_q;
  assign ring_we   = f_fire && (inf_q ? !drop_frame_q : !disc_q);

  always_comb begin
    wdata = f_data_i;
    if (!inf_q) begin
      wdata[H_SEQ_LSB +: 8] = nseq_q;
      wdata[C_EPOCH]        = epoch_q;
    end
  end

  assign tx_pkt_o       = f_hdr && !disc_q && (f_data_i[H_TP_LSB +: 4] == TP_DATA);
  assign tx_len_o       = f_data_i[H_LEN_LSB +: 6];
  assign ackreq_sent_o  = f_hdr && !disc_q && f_data_i[C_ACK_REQ] &&
                          (f_data_i[H_TP_LSB +: 4] != TP_ACK);
  assign barrier_sent_o = f_hdr && (f_data_i[H_TP_LSB +: 4] == TP_ACKREQ);
  assign err_drop_o     = f_hdr && disc_q;
  assign discarding_o   = disc_q;
  assign empty_o        = (unack_q == 6'd0) && !inf_q;

  // ---------------- ring read side (two-word prefetch buffer) ----------------
  logic        issue, inflight_q, ob_pop, flush;
  logic [1:0]  ocnt_q;
  logic [64:0] ob_q [2];
  logic [64:0] ram_rdata;

  assign issue = !flush && (rd_q != wr_q) &&
                 ({1'b0, ocnt_q} + {2'b0, inflight_q} <= {2'b0, ob_pop} + 3'd1);

  memchan_ram_sdp #(.WIDTH(65), .DEPTH(RING_DEPTH)) u_ring (
    .clk_i,
    .we_i    (ring_we),
    .waddr_i (wr_q[RA-1:0]),
    .wdata_i ({f_last_i, wdata}),
    .re_i    (issue),
    .raddr_i (rd_q[RA-1:0]),
    .rdata_o (ram_rdata)
  );

  // ---------------- output stage ----------------
  typedef enum logic [1:0] {OS_SEL, OS_BODY, OS_CRC} os_e;
  os_e         os_q;
  logic        tvalid_q, tlast_q;
  logic [63:0] tdata_q;
  logic [31:0] crc_q, crc_in, crc_out;
  logic [63:0] crc_word;
  logic        load, ld_word, ld_crc;
  logic [63:0] ld_data;
  logic        nak_q, lack_q, hb_q, sync_q;
  logic [7:0]  nak_seq_q, lack_seq_q;
  logic        rew_q, fl_q;          // rewind / flush requested (done between frames)
  logic        take_nak, take_lack, take_hb, take_sync, take_ctl;
  // registered choice of the next control frame (LNAK > LACK > sync > heartbeat): the flags
  // only clear when their frame is taken, so a chosen kind stays pending until it is sent
  typedef enum logic [1:0] {CK_NAK, CK_LACK, CK_HB, CK_SYNC} ck_e;
  logic        ctl_v_q;
  ck_e         ctl_k_q;
  logic [63:0] ctl_hdr;

  assign load = !tvalid_q || m_tready_i;
  assign m_tvalid_o = tvalid_q;
  assign m_tdata_o  = tdata_q;
  assign m_tlast_o  = tlast_q;

  always_comb begin
    take_nak  = 1'b0;
    take_lack = 1'b0;
    take_hb   = 1'b0;
    take_sync = 1'b0;
    flush     = 1'b0;
    ob_pop    = 1'b0;
    ld_word   = 1'b0;
    ld_crc    = 1'b0;
    // the control header from registers only (kind chosen a cycle earlier)
    ctl_hdr   = '0;
    ctl_hdr[H_SID_LSB +: 8] = node_id_i;
    unique case (ctl_k_q)
      CK_NAK: begin
        ctl_hdr[H_TP_LSB +: 4]  = TP_LNAK;
        ctl_hdr[H_SEQ_LSB +: 8] = nak_seq_q;
      end
      CK_LACK: begin
        ctl_hdr[H_TP_LSB +: 4]  = TP_LACK;
        ctl_hdr[H_SEQ_LSB +: 8] = lack_seq_q;
      end
      CK_SYNC: ctl_hdr = sync_hdr_i;
      default: ctl_hdr = hb_hdr_i;
    endcase
    // the word to send, selected by registers only (in front of the CRC)
    ld_data   = (os_q == OS_SEL && ctl_v_q) ? ctl_hdr : ob_q[0][63:0];
    unique case (os_q)
      OS_SEL: if (load) begin
        if (ctl_v_q) begin
          take_nak  = (ctl_k_q == CK_NAK);
          take_lack = (ctl_k_q == CK_LACK);
          take_hb   = (ctl_k_q == CK_HB);
          take_sync = (ctl_k_q == CK_SYNC);
        end else if ((rew_q || fl_q) && !(fl_q && inf_q)) begin
          flush = 1'b1;
        end else if (ocnt_q != 2'd0) begin
          ob_pop = 1'b1;
        end
        ld_word = ctl_v_q || ob_pop;
      end
      OS_BODY: if (load && ocnt_q != 2'd0) begin
        ob_pop  = 1'b1;
        ld_word = 1'b1;
      end
      OS_CRC: ld_crc = load;
      default: ;
    endcase
    take_ctl = take_nak || take_lack || take_hb || take_sync;
    crc_in   = (os_q == OS_SEL) ? 32'hFFFFFFFF : crc_q;
    crc_word = {32'h0, ~crc_q};
  end

  memchan_crc32 u_crc (.crc_i(crc_in), .data_i(ld_data), .crc_o(crc_out));

  // ---------------- acknowledgement processing and retry ----------------
  logic [7:0]  oldest, sdist;
  logic        rx_lack_q, rx_lnak_q;
  logic [7:0]  ack_seq_q;         // sequence number acknowledged (LNAK(e): e - 1)
  logic        ack_ok, do_retry, exhaust, ack_in;
  // retry stage: registered causes of a rewind (a valid LNAK, the timeout without progress)
  // and whether frames stayed unacknowledged after that cycle's acknowledgement
  logic        nak_rt_q, tmo_rt_q, unack_nz_q;
  logic [7:0]  rcnt_q, rcnt_eff;
  logic [31:0] timer_q;

  always_comb begin
    oldest  = nseq_q - 8'(unack_q);
    ack_in  = (rx_lack_q || rx_lnak_q) && retry_en_i && !disc_q;
    sdist   = ack_seq_q - oldest;
    ack_ok  = ack_in && (sdist < 8'(unack_q));
    free_d  = ack_ok ? fend_q[ack_seq_q[4:0]] : free_q;
    unack_d = unack_q - (ack_ok ? 6'(sdist + 1'b1) : 6'd0);
    // a cycle after the LNAK or the timeout (link acknowledgements are at least two cycles
    // apart, a frame being two words; an acknowledgement in this cycle defers a timeout retry)
    do_retry = retry_en_i && !disc_q && !rew_q && !fl_q && !ack_in && unack_nz_q &&
               (nak_rt_q || tmo_rt_q);
    rcnt_eff = rcnt_q;               // no acknowledgement in a retry cycle (!ack_in)
    exhaust = do_retry && (rcnt_eff >= retry_limit_i);
  end

  assign retry_o     = do_retry && !exhaust;
  assign err_event_o = exhaust;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q <= '0; free_q <= '0; rd_q <= '0; sent_q <= '0;
      nseq_q <= '0; unack_q <= '0; epoch_q <= 1'b0; disc_q <= 1'b0;
      inf_q <= 1'b0; drop_frame_q <= 1'b0;
      inflight_q <= 1'b0; ocnt_q <= 2'd0;
      os_q <= OS_SEL; tvalid_q <= 1'b0; tlast_q <= 1'b0; tdata_q <= '0; crc_q <= '1;
      nak_q <= 1'b0; lack_q <= 1'b0; hb_q <= 1'b0; sync_q <= 1'b0; nak_seq_q <= '0; lack_seq_q <= '0;
      rew_q <= 1'b0; fl_q <= 1'b0; rcnt_q <= '0; timer_q <= '0;
      room_q <= 1'b1; ctl_v_q <= 1'b0; ctl_k_q <= CK_NAK;
      rx_lack_q <= 1'b0; rx_lnak_q <= 1'b0; ack_seq_q <= '0;
      nak_rt_q <= 1'b0; tmo_rt_q <= 1'b0; unack_nz_q <= 1'b0;
      for (int i = 0; i < 32; i++) fend_q[i] <= '0;
    end else begin
      rx_lack_q <= rx_lack_i;
      rx_lnak_q <= rx_lnak_i;
      ack_seq_q <= rx_lnak_i ? rx_seq_i - 1'b1 : rx_seq_i;
      // retry stage (see do_retry); not again while a rewind or flush is pending or taken
      nak_rt_q   <= rx_lnak_q && ack_in && !rew_q && !fl_q && !do_retry;
      tmo_rt_q   <= !ack_ok && retry_en_i && (timer_q >= ack_timeout_i) && !rew_q && !fl_q &&
                    !do_retry;
      unack_nz_q <= (unack_d != 6'd0);
      // room for a frame next cycle, if this cycle writes a ring word and ends a frame
      room_q <= (space >= (RA+1)'(MAX_FRAME_WORDS + 1)) && (unack_q < 6'(WINDOW - 1));
      // ring write
      if (f_fire) begin
        inf_q <= !f_last_i;
        if (!inf_q) drop_frame_q <= disc_q;
      end
      if (ring_we) begin
        wr_q <= wr_q + 1'b1;
        if (f_last_i) begin
          fend_q[nseq_q[4:0]] <= wr_q + 1'b1;
          nseq_q <= nseq_q + 1'b1;
        end
      end
      // acknowledgements, retry, flush
      free_q  <= free_d;
      unack_q <= unack_d + 6'(ring_we && f_last_i);
      if (ack_ok) rcnt_q <= '0;
      // the timer pauses while the link is back-pressured (the peer cannot answer what it
      // has not taken); resetting it instead would let every stalled control frame (heartbeats,
      // LACKs of the other direction) restart the count, and a lost LNAK would never be recovered
      if (ack_ok || !retry_en_i || unack_d == 6'd0) timer_q <= '0;
      else if (!(m_tvalid_o && !m_tready_i)) timer_q <= timer_q + 1'b1;
      if (do_retry) begin
        timer_q <= '0;
        if (exhaust) begin
          disc_q <= 1'b1;
          fl_q   <= 1'b1;
        end else begin
          rew_q  <= 1'b1;
          rcnt_q <= rcnt_eff + 1'b1;
        end
      end
      if (flush) begin
        rew_q <= 1'b0;
        fl_q  <= 1'b0;
        ocnt_q <= 2'd0;
        if (fl_q) begin
          rd_q <= wr_q; free_q <= wr_q; sent_q <= wr_q; unack_q <= '0;
        end else begin
          rd_q <= free_d; sent_q <= free_d;
        end
      end else begin
        if (issue) rd_q <= rd_q + 1'b1;
        ocnt_q <= ocnt_q - 2'(ob_pop) + 2'(inflight_q);
      end
      inflight_q <= issue;
      // without retry a frame is freed as soon as it has been sent
      if (ob_pop) begin
        sent_q <= sent_q + 1'b1;
        if (!retry_en_i && !disc_q && ob_q[0][64]) begin
          free_q  <= sent_q + 1'b1;
          unack_q <= unack_d - 1'b1 + 6'(ring_we && f_last_i);
        end
      end
      if (err_reset_i) begin
        if (disc_q) epoch_q <= !epoch_q;
        disc_q <= 1'b0;
        rcnt_q <= '0;
      end
      // control frame requests
      if (lnak_req_i) begin nak_q <= 1'b1; nak_seq_q <= req_seq_i; end
      else if (take_nak) nak_q <= 1'b0;
      if (lack_req_i) begin lack_q <= 1'b1; lack_seq_q <= req_seq_i; end
      else if (take_lack) lack_q <= 1'b0;
      if (hb_req_i) hb_q <= 1'b1;
      else if (take_hb) hb_q <= 1'b0;
      if (sync_req_i) sync_q <= 1'b1;
      else if (take_sync) sync_q <= 1'b0;
      ctl_v_q <= !take_ctl && (nak_q || lack_q || sync_q || hb_q);
      if (nak_q)       ctl_k_q <= CK_NAK;
      else if (lack_q) ctl_k_q <= CK_LACK;
      else if (sync_q) ctl_k_q <= CK_SYNC;
      else             ctl_k_q <= CK_HB;
      // output register and frame state
      if (load) begin
        tvalid_q <= ld_word || ld_crc;
        tlast_q  <= ld_crc;
        tdata_q  <= ld_crc ? crc_word : ld_data;
      end
      if (ld_word) crc_q <= crc_out;
      if (ld_crc) begin
        os_q <= OS_SEL;
      end else if (ld_word) begin
        if (take_ctl || ob_q[0][64]) os_q <= OS_CRC;
        else os_q <= OS_BODY;
      end
    end
  end

  // prefetch buffer data (no reset needed)
  always_ff @(posedge clk_i) begin
    if (ob_pop) ob_q[0] <= ob_q[1];
    if (inflight_q && !flush) begin
      if (ocnt_q - 2'(ob_pop) == 2'd0) ob_q[0] <= ram_rdata;
      else                              ob_q[1] <= ram_rdata;
    end
  end
endmodule : memchan_link_tx

`default_nettype wire
