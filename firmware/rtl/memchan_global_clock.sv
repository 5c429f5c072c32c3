// Global clock of the adapter (seed 000 "global clock"; docs/firmware.md "Global clock").
// The global time is this adapter's free-running cycle counter plus an offset.
//   Master (master_i: back to back the lower node ID, or alone): the offset stays, and every
//   interval a sync frame goes out (memchan_clock_sync_tx), stamped two-step.
//   Otherwise: the counter is sampled when the header word of a sync frame is taken at our
//   link port (arrival A, local time); the frame's CRC confirms the sample. The next good
//   sync frame names the master's time D at which that frame left the master's port; the
//   master's time at our arrival was D + MIN (CLOCK_LINK_DELAY.MIN) or later, so the
//   sample D + MIN - A is the offset or less: the error of a sample is its frame's latency
//   beyond MIN (0..SPREAD), whatever the stalls before or after the cable (both moments
//   are port handshakes) and whatever frames were lost (the index pairs a stamp with its
//   own frame's arrival only; a pair older than the VALID window, 4 intervals, is not used,
//   so that a 3-bit index cannot alias).
//   Least-latency filter: as no sample overshoots, a sample above the offset in use is
//   better and taken at once; lower ones (a frame that waited in the cable) are taken only
//   when WINDOW samples in a row were lower, the best of them, so that a clock that drifts
//   is still followed.
// Pipelining: the sample is registered (stage 1, the cycle of the CRC) and used a cycle later
// (stage 2), where the three possible next global times are summed in parallel and chosen by
// the comparisons, so that no adder follows a comparison.
// SYNC = 0: the master sends no sync frames; only for the negative control of the clock
// bench (the adapters' clocks then stay apart), never on a board.
`default_nettype none

module memchan_global_clock
#(
  parameter bit SYNC = 1'b1,
  parameter int unsigned WINDOW = 4     // samples before a lower offset is taken
) (
  input  wire logic               clk_i,
  input  wire logic               rst_ni,
  input  wire logic               master_i,
  input  wire logic               send_i,         // master with a link: send sync frames
  input  wire memchan_regs_pkg::mc_clock_sync_interval_t interval_i,
  input  wire logic [memchan_regs_pkg::MC_REG_W-1:0] link_delay_i,   // CLOCK_LINK_DELAY as its word: SPREAD, MIN
  // good sync frames from memchan_link_rx
  input  wire logic               sync_i,
  input  wire logic [63:0]        sync_hdr_i,
  // our link ports (observed): receive and transmit
  input  wire logic               rx_tvalid_i,
  input  wire logic               rx_tready_i,
  input  wire logic               rx_tlast_i,
  input  wire logic [6:0]         rx_tdata_i,    // header bits 6:0 (type, sync index)
  input  wire logic               tx_tvalid_i,
  input  wire logic               tx_tready_i,
  input  wire logic               tx_tlast_i,
  input  wire logic [6:0]         tx_tdata_i,
  // toward memchan_link_tx
  output logic                    sync_req_o,
  output logic [63:0]             sync_hdr_o,
  // state (registers)
  output logic [memchan_pkt_pkg::GTIME_W-1:0]      time_o,
  output logic                    valid_o,
  output memchan_regs_pkg::mc_clock_bound_t bound_o,
  output memchan_regs_pkg::mc_clock_offset_t offset_o,
  output logic [memchan_regs_pkg::MC_CLOCK_STATUS_SYNCS_W-1:0] syncs_o
);
  import memchan_pkt_pkg::*;
  import memchan_regs_pkg::*;

  logic [GTIME_W-1:0] lc_q, off_q, off_d, gt_q;
  logic [GTIME_W-1:0] cand_q, arr_q;       // arrivals (local time): taken, confirmed by CRC
  logic [2:0]         arr_idx_q, cand_idx_q;
  logic               arr_ok_q, in_frame_q, synced_q, sample, sample_q, higher, apply, take_best;
  logic [GTIME_W-1:0] samp_off, samp_q, best_q, best_d, diff, gt_keep, gt_samp, gt_best;
  logic [$clog2(WINDOW+1)-1:0] low_q;          // samples in a row below the offset in use
  logic [33:0]        arr_age_q, sync_age_q;   // cycles since: the confirmed arrival, a sync
  logic [33:0]        window;
  logic [GTIME_W-1:0] err;                     // our time minus the master's, as sampled
  logic [31:0]        offset_q, bound_q;
  logic [15:0]        syncs_q;
  logic               valid_q;

  assign window = {interval_i, 2'b00};

  // the stamp of frame k names frame k-1's departure: ours if frame k-1 is our last
  // confirmed arrival, recent enough
  assign sample = sync_i && !master_i && sync_hdr_i[C_SYNC_STAMP] && arr_ok_q &&
                  (sync_hdr_i[C_SYNC_IDX +: 3] == arr_idx_q + 3'd1) && (arr_age_q < window);
  assign samp_off = sync_hdr_i[H_SYNC_TIME_LSB +: GTIME_W] + GTIME_W'(link_delay_i[MC_CLOCK_LINK_DELAY_MIN_SHIFT +: MC_CLOCK_LINK_DELAY_MIN_W]) - arr_q;
  // stage 2
  assign diff     = samp_q - off_q;
  assign higher   = !diff[GTIME_W-1] || !synced_q;
  // the best of the lower samples so far, this one included
  always_comb begin
    logic [GTIME_W-1:0] d;
    d = samp_q - best_q;
    take_best = !(low_q == '0 || !d[GTIME_W-1]);
  end
  assign best_d  = take_best ? best_q : samp_q;
  assign apply   = sample_q && (higher || 32'(low_q) >= WINDOW - 1);
  assign off_d   = !apply ? off_q : (higher || !take_best) ? samp_q : best_q;
  assign gt_keep = lc_q + 1'b1 + off_q;
  assign gt_samp = lc_q + 1'b1 + samp_q;
  assign gt_best = lc_q + 1'b1 + best_q;
  assign err = off_q - samp_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lc_q <= '0; off_q <= '0; gt_q <= '0; cand_q <= '0; arr_q <= '0; arr_idx_q <= '0;
      cand_idx_q <= '0; best_q <= '0; low_q <= '0; sample_q <= 1'b0; samp_q <= '0;
      arr_ok_q <= 1'b0; in_frame_q <= 1'b0; synced_q <= 1'b0;
      arr_age_q <= '0; sync_age_q <= '0; offset_q <= '0; bound_q <= '1; syncs_q <= '0;
      valid_q <= 1'b0;
    end else begin
      lc_q  <= lc_q + 1'b1;
      off_q <= off_d;
      // = the global time of the next cycle, lc_q + 1 + off_d
      gt_q  <= !apply ? gt_keep : (higher || !take_best) ? gt_samp : gt_best;
      sample_q <= sample;
      if (sample) samp_q <= samp_off;
      if (rx_tvalid_i && rx_tready_i) begin
        in_frame_q <= !rx_tlast_i;
        if (!in_frame_q && rx_tdata_i[H_TP_LSB +: 4] == TP_SYNC) begin
          cand_q     <= lc_q;
          cand_idx_q <= rx_tdata_i[C_SYNC_IDX +: 3];
        end
      end
      if (arr_age_q != '1) arr_age_q <= arr_age_q + 1'b1;
      if (sync_age_q != '1) sync_age_q <= sync_age_q + 1'b1;
      if (sync_i) begin
        // this frame's header is the last sync header taken at the port, unless a later
        // header that looks like one (a corrupted frame behind it in the receive slice)
        // replaced it: then the index differs (7 in 8) and this arrival is not used
        arr_q     <= cand_q;
        arr_idx_q <= sync_hdr_i[C_SYNC_IDX +: 3];
        arr_ok_q  <= (cand_idx_q == sync_hdr_i[C_SYNC_IDX +: 3]);
        arr_age_q <= '0;
      end
      if (sample_q) begin
        sync_age_q <= '0;
        low_q      <= '0;
        if (!apply) begin
          low_q  <= low_q + 1'b1;
          best_q <= best_d;
        end
      end
      if (apply) synced_q <= 1'b1;
      if (sample_q) begin
        syncs_q <= syncs_q + 1'b1;
        // signed, saturated to 32 bits
        if (err[GTIME_W-1] && !(&err[GTIME_W-1:31]))       offset_q <= 32'h8000_0000;
        else if (!err[GTIME_W-1] && (|err[GTIME_W-1:31]))  offset_q <= 32'h7FFF_FFFF;
        else                                               offset_q <= err[31:0];
      end
      valid_q <= master_i || (synced_q && sync_age_q < window);
      bound_q <= master_i ? 32'd0 :
                 (synced_q && sync_age_q < window) ? 32'(link_delay_i[MC_CLOCK_LINK_DELAY_SPREAD_SHIFT +: MC_CLOCK_LINK_DELAY_SPREAD_W]) : 32'hFFFF_FFFF;
    end
  end

  assign time_o   = gt_q;
  assign valid_o  = valid_q;
  assign bound_o  = bound_q;
  assign offset_o = master_i ? 32'd0 : offset_q;
  assign syncs_o  = syncs_q;

  memchan_clock_sync_tx u_sync_tx (
    .clk_i, .rst_ni, .en_i(SYNC && send_i), .time_i(gt_q), .interval_i,
    .sync_req_o, .sync_hdr_o,
    .tvalid_i(tx_tvalid_i), .tready_i(tx_tready_i), .tlast_i(tx_tlast_i), .tdata_i(tx_tdata_i));
endmodule : memchan_global_clock

`default_nettype wire
