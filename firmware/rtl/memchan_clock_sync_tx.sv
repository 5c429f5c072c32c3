// Global clock, sending side of one link (docs/firmware.md "Global clock"): requests a sync
// frame from the link transmitter every interval_i cycles (one due while en_i is low, e.g.
// a port whose heartbeats come late under load, is sent when it rises), and watches the link
// port the frames leave by. When a sync frame's header word is taken there, the master's
// time of that cycle becomes the stamp of the next sync frame (two-step, as a frame cannot
// carry the moment it leaves itself): the stamp is exact however long the frame waited in
// the transmitter or for TREADY, so the receiver's error is the cable's latency spread only.
// The header is a function of the last departure alone, so a request that the transmitter
// merges with a pending one still pairs the right stamp and index; a new frame is requested
// only after the last one left, so two frames never carry the same index.
`default_nettype none

module memchan_clock_sync_tx
(
  input  wire logic               clk_i,
  input  wire logic               rst_ni,
  input  wire logic               en_i,
  input  wire logic [memchan_pkt_pkg::GTIME_W-1:0] time_i,       // the master's global time
  input  wire logic [31:0]        interval_i,   // cycles between sync frames
  output logic                    sync_req_o,   // toward memchan_link_tx
  output logic [63:0]             sync_hdr_o,
  // the link port (after every register slice): observed only
  input  wire logic               tvalid_i,
  input  wire logic               tready_i,
  input  wire logic               tlast_i,
  input  wire logic [6:0]         tdata_i        // header bits 6:0 (type, sync index)
);
  import memchan_pkt_pkg::*;

  logic [31:0]        cnt_q;
  logic               req_q, due_q, in_frame_q, dep_valid_q, out_q;
  logic [2:0]         dep_idx_q;
  logic [GTIME_W-1:0] dep_time_q;
  logic               take, dep;

  assign take = tvalid_i && tready_i;
  assign dep  = take && !in_frame_q && (tdata_i[H_TP_LSB +: 4] == TP_SYNC);

  always_comb begin
    sync_hdr_o = '0;
    sync_hdr_o[H_TP_LSB +: 4]           = TP_SYNC;
    sync_hdr_o[C_SYNC_IDX +: 3]         = dep_idx_q + 3'd1;
    sync_hdr_o[C_SYNC_STAMP]            = dep_valid_q;
    sync_hdr_o[H_SYNC_TIME_LSB +: GTIME_W] = dep_time_q;
  end
  assign sync_req_o = req_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= '0; req_q <= 1'b0; due_q <= 1'b0; in_frame_q <= 1'b0; out_q <= 1'b0;
      dep_valid_q <= 1'b0; dep_idx_q <= 3'd7; dep_time_q <= '0;
    end else begin
      cnt_q <= (cnt_q + 1'b1 >= interval_i) ? 32'd0 : cnt_q + 1'b1;
      req_q <= en_i && due_q && !out_q && !req_q;
      if (req_q) begin
        out_q <= 1'b1;
        due_q <= 1'b0;
      end
      if (cnt_q + 1'b1 >= interval_i) due_q <= 1'b1;
      if (take) in_frame_q <= !tlast_i;
      if (dep) begin
        dep_valid_q <= 1'b1;
        dep_idx_q   <= tdata_i[C_SYNC_IDX +: 3];
        dep_time_q  <= time_i;
        out_q       <= 1'b0;
      end
      if (!en_i) out_q <= 1'b0;
    end
  end
endmodule : memchan_clock_sync_tx

`default_nettype wire
