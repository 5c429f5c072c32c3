// Link receiver: store-and-forward CRC check of every frame from the AXI4-Stream link port,
// sequence check of sequenced frames (DATA, ACK, ACKREQ), go-back-N recovery requests (LNAK
// once per gap), coalesced cumulative link acknowledgements (LACK), destination filter, and
// the discard-after-error rule when retry is disabled. Accepted frames (header + payload,
// CRC stripped) are committed into the receive FIFO; anything else is rolled back.
// Virtual hub (docs/firmware.md "Ordering"): node 0 (hub_i) also keeps node 1's frames with
// H_ECHO that are not for itself (to echo them); node 1 (spoke_i) takes a DATA frame with
// its own source ID as the echo of its own frame, i.e. its local copy.
// Hub port (HUB_PORT): no destination filter, every sequenced frame is kept for the crossbar.
// Pipelining: TREADY uses the receive FIFO's registered room flag, and the header's checks
// (destination, expected length) are registered when the header arrives, so that the frame
// decision at the CRC word only compares registers with the CRC word.
`default_nettype none

module memchan_link_rx #(
  parameter int unsigned FIFO_AW  = 9,
  // hub port (memchan_hub): every sequenced frame goes to the queue, header unchanged
  parameter bit          HUB_PORT = 1'b0
) (
  input  wire logic          clk_i,
  input  wire logic          rst_ni,
  input  wire logic [memchan_regs_pkg::MC_NODE_ID_ID_W-1:0] node_id_i,
  input  wire logic          node_valid_i,
  input  wire memchan_regs_pkg::mc_group_table_t mcast_i,   // a node mask per multicast group (MCAST_GROUP_BASE)
  input  wire logic          retry_en_i,
  input  wire logic          err_reset_i,
  input  wire logic          hub_i,
  input  wire logic          spoke_i,
  // link stream
  input  wire logic          s_tvalid_i,
  input  wire logic [63:0]   s_tdata_i,
  input  wire logic          s_tlast_i,
  output logic               s_tready_o,
  // receive FIFO write side
  output logic               q_we_o,
  output logic [63:0]        q_data_o,
  output logic               q_commit_o,
  output logic               q_drop_o,
  input  wire logic          q_room_i,      // at least one maximum frame free (registered)
  // toward the link transmitter
  output logic               rx_lack_o,
  output logic               rx_lnak_o,
  output logic [7:0]         rx_seq_o,
  output logic               lack_req_o,
  output logic               lnak_req_o,
  output logic [7:0]         req_seq_o,
  // control frames toward the link controller
  output logic               ctrl_o,
  output logic [63:0]        ctrl_hdr_o,
  output logic               sync_o,        // a good clock sync frame (header: ctrl_hdr_o)
  // status and events
  output logic               discarding_o,
  output logic               crc_err_o,
  output logic               err_event_o,
  output logic               err_drop_o,
  output logic               echo_rx_o      // spoke: an echo of our own frame was accepted
);
  import memchan_pkt_pkg::*;

  if (FIFO_AW < 6) begin : g_check
    $error("memchan_link_rx: receive FIFO must hold at least one maximum frame");
  end
  localparam int unsigned LACK_EVERY = 4;    // coalesce link acknowledgements
  localparam int unsigned LACK_DELAY = 16;   // ... but send one this many cycles after a frame

  logic [5:0]  idx_q;        // word index in the frame (saturates)
  logic [63:0] hdr_q;
  logic [31:0] crc_q, crc_in, crc_out;
  logic        store_q;      // sequenced frame: words go to the FIFO
  logic [7:0]  exp_q;        // next expected sequence number
  logic        rx_epoch_q, disc_q, nak_sent_q, ack_due_q;
  logic        resync_q;     // after ERR_RESET of a discard: next good frame is the baseline
  logic [3:0]  acc_q;        // frames accepted since the last LACK request
  logic [4:0]  lt_q;         // cycles since the first unacknowledged frame

  logic fire, first, endf, tp_seq, crc_ok, len_ok;
  logic [3:0]  tp;
  logic [7:0]  seq, sdist;
  logic [5:0]  nwords_in, len_q;  // expected frame length in words (header to CRC), registered
  logic        for_me_in, keep_in, keep_q;
  // this node's membership of the 16 multicast groups (bit g = MCAST_GROUP g has our node),
  // registered: MCAST_GROUP and NODE_ID are configuration, so the header's destination
  // filter indexes 16 registered bits instead of the 512-bit mask table
  logic [15:0] mgrp_q;

  // is a frame (type, destination kind and ID, source) for this node?
  function automatic logic addressed(input logic [3:0] f_tp, input logic [1:0] f_kind,
                                     input logic [7:0] f_dnid, input logic [7:0] f_sid);
    logic a;
    unique case (f_kind)
      2'd0:    a = ({1'b0, f_dnid[6:0]} == node_id_i);   // bit 7: H_ECHO
      2'd1:    a = (f_sid != node_id_i);
      2'd2:    a = (f_sid != node_id_i) && mgrp_q[f_dnid[3:0]];
      default: a = 1'b0;
    endcase
    if (f_tp == TP_DATA && spoke_i && f_sid == node_id_i) a = 1'b1;   // our echo
    if (f_tp == TP_ACK)    a = (f_dnid == node_id_i);
    if (f_tp == TP_ACKREQ) a = 1'b1;
    if (tp_request(f_tp) || tp_response(f_tp)) a = (f_dnid == node_id_i);   // point to point
    addressed = a && node_valid_i;
  endfunction

  assign s_tready_o = !((idx_q == 6'd0) && !q_room_i);
  assign fire  = s_tvalid_i && s_tready_o;
  assign first = (idx_q == 6'd0);
  assign endf  = fire && s_tlast_i && !first;

  memchan_crc32 u_crc (.crc_i(crc_in), .data_i(s_tdata_i), .crc_o(crc_out));

  always_comb begin
    crc_in = first ? 32'hFFFFFFFF : crc_q;
    tp     = hdr_q[H_TP_LSB +: 4];
    tp_seq = tp_sequenced(tp);
    seq    = hdr_q[H_SEQ_LSB +: 8];
    sdist   = seq - exp_q;
    nwords_in = payload_words(s_tdata_i);
    crc_ok = (s_tdata_i == {32'h0, ~crc_q});
    len_ok = (idx_q == len_q);
    for_me_in = addressed(s_tdata_i[H_TP_LSB +: 4], s_tdata_i[C_DKIND +: 2],
                          s_tdata_i[H_DNID_LSB +: 8], s_tdata_i[H_SID_LSB +: 8]);
    // a DATA frame for another node that requests an acknowledgement is still acknowledged
    // (the peer is the only receiver on a direct link), so it goes to the FIFO marked
    // ACK_ONLY; the hub also keeps node 1's echo requests that are not for itself
    keep_in = HUB_PORT || for_me_in || (s_tdata_i[H_TP_LSB +: 4] == TP_DATA &&
                            (s_tdata_i[C_ACK_REQ] || (hub_i && s_tdata_i[H_ECHO])));
  end

  // frame-end decision
  logic good, accept, commit, gap, dup, bad;
  always_comb begin
    good   = endf && crc_ok && len_ok;
    bad    = endf && !(crc_ok && len_ok) || (fire && s_tlast_i && first);
    accept = 1'b0;
    gap    = 1'b0;
    dup    = 1'b0;
    if (good && tp_seq && !disc_q) begin
      if (resync_q || hdr_q[C_EPOCH] != rx_epoch_q || sdist == 8'd0) accept = 1'b1;
      else if (sdist[7]) dup = 1'b1;
      else gap = 1'b1;
    end
    commit = accept && keep_q;
  end

  assign q_we_o     = fire && !s_tlast_i && (first ? tp_sequenced(s_tdata_i[H_TP_LSB +: 4])
                                                  : store_q) &&
                      (idx_q < 6'(MAX_FRAME_WORDS - 1));
  always_comb begin
    q_data_o = s_tdata_i;
    if (first && !HUB_PORT) q_data_o[C_ACK_ONLY] = !for_me_in;
  end
  assign q_commit_o = commit;
  assign q_drop_o   = fire && s_tlast_i && !commit;

  assign rx_lack_o  = good && (tp == TP_LACK);
  assign rx_lnak_o  = good && (tp == TP_LNAK);
  assign rx_seq_o   = seq;
  assign ctrl_o     = good && (tp == TP_CTRL);
  assign ctrl_hdr_o = hdr_q;
  assign sync_o     = good && (tp == TP_SYNC);
  assign crc_err_o  = bad;
  assign echo_rx_o  = commit && spoke_i && (tp == TP_DATA) && (hdr_q[H_SID_LSB +: 8] == node_id_i);
  assign discarding_o = disc_q;

  logic enter_disc;
  assign enter_disc  = !retry_en_i && !disc_q && (bad || gap);
  assign err_event_o = enter_disc;
  assign err_drop_o  = (good && tp_seq && disc_q && tp == TP_DATA) || (enter_disc && gap);

  logic send_nak, send_lack;
  assign send_nak   = retry_en_i && !nak_sent_q && (bad || gap);
  assign send_lack  = !send_nak && ((acc_q >= 4'(LACK_EVERY)) || ack_due_q ||
                      (acc_q != 4'd0 && lt_q >= 5'(LACK_DELAY)));
  assign lnak_req_o = send_nak;
  assign lack_req_o = send_lack;
  assign req_seq_o  = send_nak ? exp_q : exp_q - 1'b1;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      idx_q <= '0; hdr_q <= '0; crc_q <= '1; store_q <= 1'b0; len_q <= '0; keep_q <= 1'b0;
      exp_q <= '0; rx_epoch_q <= 1'b0; disc_q <= 1'b0; nak_sent_q <= 1'b0;
      ack_due_q <= 1'b0; acc_q <= '0; lt_q <= '0; resync_q <= 1'b0; mgrp_q <= '0;
    end else begin
      for (int g = 0; g < memchan_regs_pkg::MC_MULTICAST_GROUPS; g++)
        mgrp_q[g] <= mcast_i[{memchan_regs_pkg::MC_GROUP_IDX_W'(g), node_id_i[memchan_regs_pkg::MC_NODE_IDX_W-1:0]}];
      if (fire) begin
        crc_q <= crc_out;
        if (s_tlast_i) idx_q <= '0;
        else if (idx_q != 6'h3F) idx_q <= idx_q + 1'b1;
        if (first) begin
          hdr_q   <= s_tdata_i;
          len_q   <= nwords_in + 6'd1;
          keep_q  <= keep_in;
          store_q <= tp_sequenced(s_tdata_i[H_TP_LSB +: 4]);
        end
      end
      if (accept) begin
        exp_q      <= seq + 1'b1;
        rx_epoch_q <= hdr_q[C_EPOCH];
        nak_sent_q <= 1'b0;
        resync_q   <= 1'b0;
      end
      if (good && tp_seq && disc_q) begin
        // discarding: stay in step with the sender, deliver nothing
        exp_q      <= seq + 1'b1;
        rx_epoch_q <= hdr_q[C_EPOCH];
      end
      if (enter_disc) begin
        disc_q <= 1'b1;
        if (gap) begin
          exp_q <= seq + 1'b1;
        end
      end
      if (send_nak) nak_sent_q <= 1'b1;
      if (send_lack) begin
        acc_q <= 4'(accept);
        ack_due_q <= dup;
        lt_q <= '0;
      end else begin
        if (accept && acc_q != 4'hF) acc_q <= acc_q + 1'b1;
        if (dup) ack_due_q <= 1'b1;
        if (acc_q != 4'd0 && lt_q != 5'h1F) lt_q <= lt_q + 1'b1;
      end
      if (err_reset_i) begin
        if (disc_q) resync_q <= 1'b1;
        disc_q <= 1'b0;
        nak_sent_q <= 1'b0;
      end
    end
  end
endmodule : memchan_link_rx

`default_nettype wire
