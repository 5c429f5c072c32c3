// Virtual hub, receive side of node 0 (two-node direct mode, docs/firmware.md "Ordering").
// Node 0 is the single ordering point of the pair: everything it delivers to its own host
// goes through the local-copy FIFO, in one sequence with its own local copies. This module
// moves every frame of the receive FIFO into that sequence (header marked Q_FROM_LINK), and
// a DATA frame that node 1 sent with H_ECHO (node 1's local copy) also into the echo FIFO,
// which the frame builder transmits back to node 1 before any later own frame. The frame
// builder and this module take turns on the local-copy FIFO a whole frame at a time
// (lc_hold_i: the builder writes a local copy this cycle or is inside one). A frame is only
// started when both FIFOs have room for a maximum frame; node 1's echo credits keep the echo
// FIFO from filling, so the receive FIFO always drains without waiting for the link.
`default_nettype none

module memchan_vhub_merge (
  input  wire logic              clk_i,
  input  wire logic              rst_ni,
  input  wire logic              hub_i,        // this node is the virtual hub (node 0)
  // receive FIFO read side (first-word-fall-through)
  input  wire logic              q_valid_i,
  input  wire logic [63:0]       q_data_i,
  output logic                   q_ready_o,
  // local-copy FIFO write side (shared with the frame builder)
  input  wire logic              lc_hold_i,
  input  wire logic              lc_room_i,    // a maximum frame fits (registered)
  output logic                   lc_we_o,
  output logic [63:0]            lc_data_o,
  output logic                   busy_o,       // inside a frame (holds the local-copy FIFO)
  // echo FIFO write side (committed per frame)
  input  wire logic              e_room_i,     // a maximum frame fits (registered)
  output logic                   e_we_o,
  output logic [63:0]            e_data_o,
  output logic                   e_commit_o
);
  import memchan_pkt_pkg::*;

  logic       in_q, echo_q;
  logic [5:0] left_q;            // payload words still to move
  logic       start, move, is_data, echo;
  logic [5:0] nwords;

  assign is_data = (q_data_i[H_TP_LSB +: 4] == TP_DATA);
  assign echo    = is_data && q_data_i[H_ECHO];
  assign nwords  = payload_words(q_data_i);
  assign start   = hub_i && !in_q && q_valid_i && !lc_hold_i &&
                   lc_room_i && e_room_i;
  assign move    = in_q && q_valid_i;
  assign q_ready_o = start || move;
  assign busy_o    = in_q;

  always_comb begin
    lc_we_o   = start || move;
    lc_data_o = q_data_i;
    e_we_o    = (start && echo) || (move && echo_q);
    e_data_o  = q_data_i;
    if (start) begin
      lc_data_o[Q_FROM_LINK] = 1'b1;
      // the echo is node 1's local copy: no echo request, no acknowledge request
      e_data_o[H_ECHO]    = 1'b0;
      e_data_o[C_ACK_REQ] = 1'b0;
    end
    e_commit_o = move && echo_q && (left_q == 6'd1);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_q   <= 1'b0;
      echo_q <= 1'b0;
      left_q <= '0;
    end else if (start) begin
      in_q   <= nwords != 6'd0;     // a frame with a payload (data, requests, responses)
      echo_q <= echo;
      left_q <= nwords;
    end else if (move) begin
      left_q <= left_q - 1'b1;
      if (left_q == 6'd1) in_q <= 1'b0;
    end
  end
endmodule : memchan_vhub_merge

`default_nettype wire
