// Memory Channel 2 hub (seed 000, "MEMORY CHANNEL 2 hub" and "ordering rules"): PORTS link
// ports, node ID = port number, a non-blocking crossbar.
//   * Each port is the adapter's link layer: memchan_link_rx (CRC, sequence, LACK/LNAK) into
//     a store-and-forward input queue (memchan_hub_inq), memchan_link_tx (replay ring,
//     go-back-N, control frames) out of the crossbar, memchan_link_ctrl (heartbeats). The
//     hub's heartbeat on port p carries C_HUB and DNID = p: the adapter learns that it is on
//     a hub and, with NODE_ID.AUTO, takes p as its node ID.
//   * Routing of the head frame of each input (its destination set): DATA to node DNID
//     (kind 0), to every other port (broadcast), to the other members of group DNID
//     (multicast), plus the sender's own port when it asks for its local copy (H_ECHO);
//     ACKREQ to every other port; every other sequenced type to node DNID. A destination
//     that is no port drops the frame.
//   * Multicast membership (MCAST_FILTER): every adapter announces in its heartbeats the
//     groups its MCAST_GROUP registers make it a member of (memchan_link_ctrl), at once when
//     they change; the hub replicates a multicast frame only to the ports whose last
//     heartbeat named the group. The adapters' registers stay the one configuration (the
//     receivers still filter too). MCAST_FILTER = 0 sends multicast to every port, as a
//     broadcast (the membership bench's negative control).
//   * Port supervision (SUPERVISION): a port is live while its link is up (heartbeats both
//     ways, memchan_link_ctrl: a heartbeat lost for 4 periods takes it down). A port that is
//     not live is isolated: no frame is routed to it, the head frames of its own input are
//     discarded, its receivers' acknowledgements are no longer awaited (memchan_hub_ack);
//     the others never wait on it. Every hub heartbeat carries the live ports (bit n: node
//     n), announced on every port at once when they change: that is the node-down report
//     the adapters show in NODES_UP. A port whose link comes up again is re-admitted.
//     SUPERVISION = 0 keeps every port that was once up live forever (the port-cut bench's
//     negative control, never on a board).
//   * Arbitration (fixed-priority request sampling): the requests present when the previous
//     sample has been served form the new sample; every cycle the allocator walks the
//     sampled inputs in port order, then the newer ones, and each input reserves the outputs
//     it needs, whether it gets them now or not. So a sampled request is served before any
//     newer one for the same output, and nothing starves.
//   * Ordering rule 2 (BCAST_SYNC): a frame is granted all of its outputs in one cycle and
//     streamed into all of them together, so every output serves multi-destination frames
//     in one order, the order of their grants: every receiver sees the broadcasts (and the
//     echoes, i.e. the senders' local copies) of different senders in the same order.
//     BCAST_SYNC = 0 serves a multi-destination frame output by output instead (each output
//     when it is free, the input queue replays the frame); that breaks rule 2 and exists
//     only for the negative control of the ordering bench, never on a board.
//   * Acknowledgements (memchan_hub_ack): the hub consumes every ACK a receiver sends and
//     answers the sender itself, once per acknowledge request (a DATA frame with ACK_REQ or a
//     barrier sweep), when every destination the request was granted to has acknowledged.
//     Its ACK frames, one header word each, enter an output while the output is free, ahead
//     of the crossbar's grants (inject): that is the one place where the hub makes frames.
//     ACK_MERGE = 0 forwards every receiver's ACK to its sender instead, as any sequenced
//     frame to node DNID, so a sender's barrier completes at the first receiver's answer;
//     it exists only for the negative control of the hub bench's barrier check, and
//     synthesis refuses it.
//   * No back-pressure inside the crossbar: an output is granted only while its link
//     transmitter has room for a whole frame (memchan_link_tx takes every word of a frame
//     once it took the header, and its room only grows while it is idle, from the second
//     cycle after a frame on).
//   * A port whose link discards while it stays up (its transmitter's retry ran out: the
//     frames to it are dropped, its adapter's echoes with them) announces it in its
//     heartbeats (H_HB_DISC), as a virtual hub's node 0 does, so that the adapter asks for no
//     echo and counts the ones it will not get (DISC_ANNOUNCE). Meanwhile the port is no
//     destination and no receiver that acknowledgements wait for (its input stays live: its
//     adapter's frames still reach the others). The hub has no software to write ERR_RESET,
//     so it ends the state itself: once the adapter's answer (H_HB_DISC_SEEN, to this
//     announcement's generation H_HB_DISC_GEN) says that every frame it sent before it heard
//     is acknowledged, and every frame it had queued at this input by then has left, the
//     port's transmitter starts a new epoch and the announcement ends; no echo asked for
//     before can reach the adapter after that. A port that goes down is isolated instead
//     (and re-admitted as before). DISC_ANNOUNCE = 0 keeps such a port discarding and
//     silent until it goes down (the bench's negative control, never on a board).
//   * Global clock (memchan_hub_clock, its own module): sync frames on every port.
`default_nettype none

module memchan_hub #(
  parameter int unsigned PORTS       = 8,
  parameter int unsigned RING_DEPTH  = 1024,   // replay ring per port, words
  parameter int unsigned INQ_DEPTH   = 512,    // input queue per port, words
  parameter int unsigned HB_PERIOD   = 4096,   // heartbeat period, cycles
  parameter int unsigned ACK_TIMEOUT = 2048,   // link acknowledgement timeout, cycles
  parameter int unsigned RETRY_LIMIT = 8,      // go-back-N rewinds without progress
  parameter int unsigned ACK_DEPTH   = 16,     // acknowledge requests queued per sender
  parameter bit          BCAST_SYNC  = 1'b1,
  parameter int unsigned SYNC_INTERVAL = 65536,  // global clock: cycles between sync frames
  parameter bit          CLOCK_SYNC  = 1'b1,     // 0: no sync frames (clock bench's control)
  parameter bit          SUPERVISION = 1'b1,     // 0: no port isolation (port-cut bench's control)
  parameter bit          MCAST_FILTER = 1'b1,    // 0: multicast to every port (membership control)
  parameter bit          ACK_MERGE   = 1'b1,     // 0: receivers' ACKs forwarded (barrier control)
  parameter bit          DISC_ANNOUNCE = 1'b1,   // 0: a discarding port stays so (its control)
  localparam int unsigned PW = (PORTS > 1) ? $clog2(PORTS) : 1
) (
  input  wire logic                    clk_i,
  input  wire logic                    rst_ni,
  input  wire logic [31:0]             serial_i,   // unused: hub heartbeats carry the live ports
  // one AXI4-Stream link port per direction and hub port
  output logic      [PORTS-1:0]        m_link_tvalid,
  output logic      [PORTS*64-1:0]     m_link_tdata,     // port p: [64*p +: 64]
  output logic      [PORTS-1:0]        m_link_tlast,
  input  wire logic [PORTS-1:0]        m_link_tready,
  input  wire logic [PORTS-1:0]        s_link_tvalid,
  input  wire logic [PORTS*64-1:0]     s_link_tdata,
  input  wire logic [PORTS-1:0]        s_link_tlast,
  output logic      [PORTS-1:0]        s_link_tready,
  // per port: link up (heartbeats both ways), transmitter discarding (retry exhausted)
  output logic      [PORTS-1:0]        port_up_o,
  output logic      [PORTS-1:0]        port_discarding_o
);
  import memchan_pkt_pkg::*;

  if (PORTS < 2 || PORTS > 32) begin : g_check
    $error("memchan_hub: PORTS must be 2..32 (node IDs are 5 bits)");
  end
`ifdef SYNTHESIS
  if (!ACK_MERGE) begin : g_check_ack_merge
    $error("memchan_hub: ACK_MERGE = 0 (ACKs forwarded) is a bench control, not hardware");
  end
`endif
  localparam int unsigned INQ_AW = $clog2(INQ_DEPTH);
  localparam int unsigned INQ_FW = 5;   // memchan_hub_inq: FRAMES = 32

  // Per-port vectors are flat, port p at [W*p +: W] (yosys 0.23 cannot parse packed 2-D
  // ports, Icarus 11 cannot index them)
  // per input: head header, stream
  logic [PORTS-1:0]    hv, hnew, start, keep, sv, sl, f_ready;
  logic [PORTS*64-1:0] hdr, sd;
  // per output: link transmitter frame input
  logic [PORTS-1:0]    f_valid, f_last;
  logic [PORTS*64-1:0] f_data;
  // global clock (memchan_hub_clock): sync frame requests and headers per port
  logic [PORTS-1:0]    sync_req;
  logic [PORTS*64-1:0] sync_hdr;
  // port supervision and multicast membership: live ports (registered), each port's groups
  logic [PORTS-1:0]    up_q;
  logic [PORTS*16-1:0] groups;       // port p: [16*p +: 16], bit g: member of group g
  // discarding ports (g_disc): announcing, the adapter's fresh answer, the port's recovery;
  // per input queue the frames it holds ([(INQ_FW+1)*p +: INQ_FW+1]) and a frame released
  logic [PORTS-1:0]    dann, dseen, drecover, qrel;
  logic [PORTS*(INQ_FW+1)-1:0] qframes;

  memchan_hub_clock #(.PORTS(PORTS), .SYNC_INTERVAL(SYNC_INTERVAL), .SYNC(CLOCK_SYNC)) u_clock (
    .clk_i, .rst_ni, .port_up_i(port_up_o),
    .tvalid_i(m_link_tvalid), .tready_i(m_link_tready), .tlast_i(m_link_tlast),
    .tdata_i(m_link_tdata), .sync_req_o(sync_req), .sync_hdr_o(sync_hdr));

  logic unused_serial;
  assign unused_serial = ^serial_i;

  for (genvar p = 0; p < PORTS; p++) begin : g_port
    logic        q_we, q_commit, q_drop, q_room;
    logic [63:0] q_data;
    logic        rx_lack, rx_lnak, lack_req, lnak_req, hb_req, ctrl_rx, rx_disc;
    logic [7:0]  rx_seq, req_seq, peer_node, auto_id;
    logic [63:0] ctrl_hdr, hb_hdr, hub_hb_hdr;
    logic [31:0] hub_nodes;
    logic        peer_seen, peer_auto, peer_hub, auto_set, peer_disc, peer_disc_seen;
    logic        peer_disc_gen, gen_q, tx_empty;
    // per-port events of the link layer, not counted by the hub (it has no register block)
    logic        crc_err, rx_err_event, rx_err_drop, echo_rx, retry, tx_err_event, tx_err_drop;
    logic        tx_pkt, ackreq_sent, barrier_sent, sync_rx;   // sync_rx: the hub is the master
    logic [5:0]  tx_len;
    logic        unused;

    memchan_link_rx #(.FIFO_AW(INQ_AW), .HUB_PORT(1'b1)) u_lrx (
      .clk_i, .rst_ni, .node_id_i(HUB_SID), .node_valid_i(1'b1), .mcast_i(512'b0),
      .retry_en_i(1'b1), .err_reset_i(1'b0), .hub_i(1'b0), .spoke_i(1'b0),
      .s_tvalid_i(s_link_tvalid[p]), .s_tdata_i(s_link_tdata[64*p +: 64]), .s_tlast_i(s_link_tlast[p]),
      .s_tready_o(s_link_tready[p]),
      .q_we_o(q_we), .q_data_o(q_data), .q_commit_o(q_commit), .q_drop_o(q_drop),
      .q_room_i(q_room),
      .rx_lack_o(rx_lack), .rx_lnak_o(rx_lnak), .rx_seq_o(rx_seq),
      .lack_req_o(lack_req), .lnak_req_o(lnak_req), .req_seq_o(req_seq),
      .ctrl_o(ctrl_rx), .ctrl_hdr_o(ctrl_hdr), .sync_o(sync_rx),
      .discarding_o(rx_disc), .crc_err_o(crc_err), .err_event_o(rx_err_event),
      .err_drop_o(rx_err_drop), .echo_rx_o(echo_rx));

    memchan_hub_inq #(.DEPTH(INQ_DEPTH), .FRAMES(1 << INQ_FW)) u_inq (
      .clk_i, .rst_ni,
      .we_i(q_we), .wdata_i(q_data), .commit_i(q_commit), .drop_i(q_drop), .room_o(q_room),
      .hdr_valid_o(hv[p]), .hdr_new_o(hnew[p]), .hdr_o(hdr[64*p +: 64]),
      .start_i(start[p]), .keep_i(keep[p]),
      .s_valid_o(sv[p]), .s_data_o(sd[64*p +: 64]), .s_last_o(sl[p]),
      .frames_o(qframes[(INQ_FW+1)*p +: INQ_FW+1]), .release_o(qrel[p]));

    memchan_link_ctrl u_lctrl (
      .clk_i, .rst_ni, .node_id_i(HUB_SID), .node_valid_i(1'b0), .node_auto_i(1'b0),
      .serial_i(32'(up_q)), .groups_i(16'b0), .disc_i(dann[p]), .disc_seen_i(peer_disc),
      .hb_period_i(32'(HB_PERIOD)), .ctrl_i(ctrl_rx), .ctrl_hdr_i(ctrl_hdr),
      .hb_req_o(hb_req), .hb_hdr_o(hb_hdr), .peer_seen_o(peer_seen), .link_up_o(port_up_o[p]),
      .peer_node_o(peer_node), .peer_auto_o(peer_auto), .peer_hub_o(peer_hub),
      .auto_set_o(auto_set), .auto_id_o(auto_id), .hub_nodes_o(hub_nodes),
      .peer_groups_o(groups[16*p +: 16]), .peer_disc_o(peer_disc),
      .peer_disc_seen_o(peer_disc_seen), .peer_disc_gen_o(peer_disc_gen));

    // the generation of this port's announcement: toggles as one starts; the adapter's
    // answer counts only with the generation it heard last equal to it
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) gen_q <= 1'b0;
      else if (DISC_ANNOUNCE && port_discarding_o[p] && port_up_o[p] && !dann[p])
        gen_q <= !gen_q;   // as g_disc's ann_q rises
    end
    assign dseen[p] = peer_disc_seen && (peer_disc_gen == gen_q);

    // the hub's heartbeat: "I am a hub, you are node p"
    always_comb begin
      hub_hb_hdr = hb_hdr;
      hub_hb_hdr[C_HUB] = 1'b1;
      hub_hb_hdr[H_DNID_LSB +: 8] = 8'(p);
      hub_hb_hdr[H_HB_DISC_GEN] = gen_q;
    end

    // a port that comes up again leaves DISCARDING (retry exhausted while it was down): the
    // transmitter starts a new epoch, which the adapter's receiver takes as its new baseline;
    // so does a port whose announced discarding ended (g_disc)
    logic was_up_q, tx_reset;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) was_up_q <= 1'b0;
      else         was_up_q <= port_up_o[p];
    end
    assign tx_reset = (port_up_o[p] && !was_up_q) || drecover[p];

    memchan_link_tx #(.RING_DEPTH(RING_DEPTH)) u_ltx (
      .clk_i, .rst_ni, .node_id_i(HUB_SID), .retry_en_i(1'b1),
      .retry_limit_i(8'(RETRY_LIMIT)), .ack_timeout_i(32'(ACK_TIMEOUT)), .err_reset_i(tx_reset),
      .f_valid_i(f_valid[p]), .f_data_i(f_data[64*p +: 64]), .f_last_i(f_last[p]),
      .f_ready_o(f_ready[p]),
      .rx_lack_i(rx_lack), .rx_lnak_i(rx_lnak), .rx_seq_i(rx_seq),
      .lack_req_i(lack_req), .lnak_req_i(lnak_req), .req_seq_i(req_seq),
      .hb_req_i(hb_req), .hb_hdr_i(hub_hb_hdr),
      .sync_req_i(sync_req[p]), .sync_hdr_i(sync_hdr[64*p +: 64]),
      .m_tvalid_o(m_link_tvalid[p]), .m_tdata_o(m_link_tdata[64*p +: 64]), .m_tlast_o(m_link_tlast[p]),
      .m_tready_i(m_link_tready[p]),
      .discarding_o(port_discarding_o[p]), .empty_o(tx_empty), .retry_o(retry),
      .err_event_o(tx_err_event),
      .err_drop_o(tx_err_drop), .tx_pkt_o(tx_pkt), .tx_len_o(tx_len),
      .ackreq_sent_o(ackreq_sent), .barrier_sent_o(barrier_sent));

    assign unused = ^{rx_disc, peer_seen, peer_node, peer_auto, peer_hub, auto_set, auto_id,
                      crc_err, rx_err_event, rx_err_drop, echo_rx, retry, tx_err_event,
                      tx_err_drop, tx_pkt, ackreq_sent, barrier_sent, tx_len, sync_rx,
                      hub_nodes, tx_empty};
  end

  // ---------------- routing: destination set of a head frame ----------------
  function automatic logic [PORTS-1:0] port_bit(input logic [7:0] n);
    port_bit = (n < 8'(PORTS)) ? PORTS'(1) << n[PW-1:0] : '0;
  endfunction

  // the ports that announced membership of multicast group g
  function automatic logic [PORTS-1:0] members(input logic [3:0] g);
    logic [PORTS-1:0] m;
    for (int p = 0; p < PORTS; p++) m[p] = !MCAST_FILTER || groups[16*p + 32'(g)];
    members = m;
  endfunction

  function automatic logic [PORTS-1:0] route(input logic [63:0] h, input int unsigned src);
    logic [PORTS-1:0] others, m;
    others = ~(PORTS'(1) << src);
    unique case (h[H_TP_LSB +: 4])
      TP_DATA: begin
        unique case (h[C_DKIND +: 2])
          2'd0:    m = port_bit({1'b0, h[H_DNID_LSB +: 7]});
          2'd1:    m = others;
          2'd2:    m = others & members(h[H_DNID_LSB +: 4]);
          default: m = '0;
        endcase
        if (h[H_ECHO]) m |= PORTS'(1) << src;
      end
      TP_ACKREQ: m = others;
      TP_ACK:    m = ACK_MERGE ? '0 : port_bit(h[H_DNID_LSB +: 8]);   // merged, see u_ack
      default:   m = port_bit(h[H_DNID_LSB +: 8]);
    endcase
    route = m;
  endfunction

  // the ports that acknowledge a frame: every destination of an acknowledge request but the
  // sender's own local copy (its echo has ACK_REQ cleared, see the data path)
  function automatic logic [PORTS-1:0] ack_set(input logic [63:0] h, input int unsigned src);
    logic [PORTS-1:0] m;
    m = '0;
    if (h[H_TP_LSB +: 4] == TP_ACKREQ) begin
      m = route(h, src);
    end else if (h[H_TP_LSB +: 4] == TP_DATA && h[C_ACK_REQ]) begin
      m = route(h, src);
      if (!(h[C_DKIND +: 2] == 2'd0 && 32'(h[H_DNID_LSB +: 7]) == src)) m[src] = 1'b0;
    end
    ack_set = m;
  endfunction

  // ---------------- allocator ----------------
  // per input i: rem_q/rem/gmask at [PORTS*i +: PORTS]; per output o: osrc_q at [PW*o +: PW]
  logic [PORTS-1:0]       ibusy_q, batch_q, obusy_q, ofirst_q, oend_q;
  logic [PORTS*PORTS-1:0] rem_q;        // outputs the head frame still has to reach
  logic [PORTS*PW-1:0]    osrc_q;       // input feeding each busy output
  logic [PORTS-1:0]       req, gnt, free, batch_left, ever_up_q;
  logic [PORTS*PORTS-1:0] gmask, rem;
  // acknowledgement merging: per input, the head frame's acknowledging ports (registered with
  // rem_q) and whether its request is still to be queued (at its first grant)
  logic [PORTS*PORTS-1:0] aset_q, apush_set;
  logic [PORTS-1:0]       afirst_q, areq_q, apush, afull, aack, inject;
  logic [PORTS*PW-1:0]    aack_dst;
  logic [PORTS*8-1:0]     aack_cnt, owed;

  // port supervision: outputs that are not live are no destination (their traffic is
  // discarded at once instead of filling the port's replay ring and holding every broadcast
  // back), and frames from an input that is not live go nowhere
  // ... and outputs whose link discards (announced) are none either: what they would carry is
  // dropped at once (their adapter knows it), and nothing waits for them
  always_comb begin
    for (int i = 0; i < PORTS; i++)
      rem[PORTS*i +: PORTS] = up_q[i] ? rem_q[PORTS*i +: PORTS] & up_q & ~dann : '0;
  end

  // a new head frame's destinations (rem_q) are registered in its first cycle (hnew); an
  // acknowledge request waits while its sender's request queue is full
  always_comb begin
    for (int i = 0; i < PORTS; i++)
      req[i] = hv[i] && !ibusy_q[i] && !hnew[i] &&
               !(afirst_q[i] && areq_q[i] && afull[i]);
  end
  // memchan_link_tx's room flag is registered with a margin of one frame: the cycle after a
  // frame's last word it may still be high although that frame took the last room, so an
  // output is granted again only a cycle later (oend_q); while idle the room only grows
  assign free = ~obusy_q & ~oend_q & f_ready;

  // an owed acknowledgement takes a free output before any grant (one header word); it waits
  // while the output's link discards (it is sent after the port's recovery)
  always_comb begin
    for (int o = 0; o < PORTS; o++)
      inject[o] = (owed[8*o +: 8] != 8'd0) && free[o] && !dann[o];
  end

  always_comb begin
    logic [PORTS-1:0] res, avail, ri, gi;
    res   = inject;
    gnt   = '0;
    gmask = '0;
    // sampled requests first, then newer ones; each in port order
    for (int pass = 0; pass < 2; pass++) begin
      for (int i = 0; i < PORTS; i++) begin
        ri = rem[PORTS*i +: PORTS];
        gi = '0;
        if (req[i] && (batch_q[i] == (pass == 0))) begin
          if (ri == '0) begin
            gnt[i] = 1'b1;                 // no destination: stream it to nowhere (drop)
          end else if (BCAST_SYNC) begin
            if ((ri & (res | ~free)) == '0) begin
              gnt[i] = 1'b1;
              gi     = ri;
            end
            res |= ri;
          end else begin
            avail = ri & free & ~res;
            if (avail != '0) begin
              gnt[i] = 1'b1;
              gi     = avail & (~avail + 1'b1);   // lowest free output
            end
            res |= gi;
          end
          gmask[PORTS*i +: PORTS] = gi;
        end
      end
    end
    for (int i = 0; i < PORTS; i++) begin
      start[i] = gnt[i];
      keep[i]  = (rem[PORTS*i +: PORTS] & ~gmask[PORTS*i +: PORTS]) != '0;
    end
  end

  // acknowledgement merging: queue a request at its frame's first grant (to the live ports it
  // is granted to); an ACK is consumed at its grant (it has no destination)
  always_comb begin
    for (int i = 0; i < PORTS; i++) begin
      apush[i] = ACK_MERGE && gnt[i] && afirst_q[i] && areq_q[i];
      apush_set[PORTS*i +: PORTS] = aset_q[PORTS*i +: PORTS] & rem[PORTS*i +: PORTS];
      aack[i] = ACK_MERGE && gnt[i] && hdr[64*i + H_TP_LSB +: 4] == TP_ACK &&
                hdr[64*i + H_DNID_LSB +: 8] < 8'(PORTS);
      aack_dst[PW*i +: PW] = hdr[64*i + H_DNID_LSB +: PW];
      aack_cnt[8*i +: 8]   = hdr[64*i + H_ADDR_LSB +: 8];
    end
  end

  memchan_hub_ack #(.PORTS(PORTS), .DEPTH(ACK_DEPTH)) u_ack (
    .clk_i, .rst_ni, .up_i(up_q), .wait_i(up_q & ~dann),
    .push_i(apush), .push_set_i(apush_set), .full_o(afull),
    .ack_i(aack), .ack_dst_i(aack_dst), .ack_cnt_i(aack_cnt),
    .owed_o(owed), .taken_i(inject));

  // a sampled input leaves the sample when its frame has reached every destination
  always_comb begin
    for (int i = 0; i < PORTS; i++) batch_left[i] = batch_q[i] && !(gnt[i] && !keep[i]);
  end

  // ---------------- crossbar data path ----------------
  for (genvar o = 0; o < PORTS; o++) begin : g_out
    logic [PW-1:0] src;
    logic [63:0]   w;
    logic          v, l;
    assign src = osrc_q[PW*o +: PW];
    always_comb begin
      w = '0;
      v = 1'b0;
      l = 1'b0;
      for (int i = 0; i < PORTS; i++) begin
        if (src == PW'(i)) begin
          w = sd[64*i +: 64];
          v = sv[i];
          l = sl[i];
        end
      end
      // the sender's own copy (echo) of a frame for other nodes is its local copy: they
      // acknowledge, the sender does not (a page addressed to the sender itself it does)
      if (ofirst_q[o] && 32'(src) == o && w[H_TP_LSB +: 4] == TP_DATA &&
          !(w[C_DKIND +: 2] == 2'd0 && 32'(w[H_DNID_LSB +: 7]) == o))
        w[C_ACK_REQ] = 1'b0;
    end
    // the hub's own ACK(count) for node o, SID = the hub
    logic [63:0] ack_hdr;
    always_comb begin
      ack_hdr = '0;
      ack_hdr[H_TP_LSB +: 4]   = TP_ACK;
      ack_hdr[H_DNID_LSB +: 8] = 8'(o);
      ack_hdr[H_SID_LSB +: 8]  = HUB_SID;
      ack_hdr[H_ADDR_LSB +: 8] = owed[8*o +: 8];
    end
    assign f_valid[o]         = (obusy_q[o] && v) || inject[o];
    assign f_last[o]          = inject[o] || l;
    assign f_data[64*o +: 64] = inject[o] ? ack_hdr : w;
  end

  // ---------------- discarding ports (see the header) ----------------
  // from the entry into DISCARDING while the port is up until the recovery; the frames the
  // input queue held when the adapter's answer came (old_q) may still ask for an echo, so
  // the recovery waits until they have left, and until the output is idle (no frame that
  // was granted to it still streams into the transmitter, which drops it)
  for (genvar p = 0; p < PORTS; p++) begin : g_disc
    logic              ann_q, oldv_q;
    logic [INQ_FW:0]   old_q, frames;
    assign frames = qframes[(INQ_FW+1)*p +: INQ_FW+1];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        ann_q <= 1'b0; oldv_q <= 1'b0; old_q <= '0;
      end else begin
        if (!port_up_o[p] || drecover[p])                  ann_q <= 1'b0;
        else if (DISC_ANNOUNCE && port_discarding_o[p]) ann_q <= 1'b1;
        if (!ann_q) begin
          oldv_q <= 1'b0;
        end else if (!oldv_q) begin
          oldv_q <= dseen[p];
          old_q  <= frames - (INQ_FW+1)'(qrel[p]);
        end else if (qrel[p] && old_q != '0) begin
          old_q <= old_q - 1'b1;
        end
      end
    end
    assign dann[p]     = ann_q;
    assign drecover[p] = ann_q && oldv_q && old_q == '0 && !obusy_q[p] && !oend_q[p];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ibusy_q <= '0; batch_q <= '0; obusy_q <= '0; ofirst_q <= '0; oend_q <= '0;
      rem_q <= '0; osrc_q <= '0; up_q <= '0; ever_up_q <= '0; aset_q <= '0; afirst_q <= '0;
      areq_q <= '0;
    end else begin
      ever_up_q <= ever_up_q | port_up_o;
      up_q      <= SUPERVISION ? port_up_o : (port_up_o | ever_up_q);
      batch_q <= (batch_left == '0) ? (req & ~(gnt & ~keep)) : batch_left;
      for (int i = 0; i < PORTS; i++) begin
        if (hnew[i]) begin
          rem_q[PORTS*i +: PORTS]  <= route(hdr[64*i +: 64], i);
          aset_q[PORTS*i +: PORTS] <= ack_set(hdr[64*i +: 64], i);
          // answered even when no port is to acknowledge (a multicast group without other
          // members, a node that is down or no port): its set is then complete at once
          areq_q[i] <= hdr[64*i + H_TP_LSB +: 4] == TP_ACKREQ ||
                       (hdr[64*i + H_TP_LSB +: 4] == TP_DATA && hdr[64*i + C_ACK_REQ]);
          afirst_q[i]              <= 1'b1;
        end
        if (gnt[i]) afirst_q[i] <= 1'b0;
        if (gnt[i]) begin
          rem_q[PORTS*i +: PORTS] <= rem[PORTS*i +: PORTS] & ~gmask[PORTS*i +: PORTS];
          ibusy_q[i] <= 1'b1;
        end else if (sv[i] && sl[i]) begin
          ibusy_q[i] <= 1'b0;
        end
      end
      oend_q <= f_valid & f_last;
      for (int o = 0; o < PORTS; o++) begin
        if (f_valid[o]) ofirst_q[o] <= 1'b0;
        if (f_valid[o] && f_last[o]) obusy_q[o] <= 1'b0;
        for (int i = 0; i < PORTS; i++) begin
          if (gmask[PORTS*i + o]) begin
            obusy_q[o]           <= 1'b1;
            ofirst_q[o]          <= 1'b1;
            osrc_q[PW*o +: PW]   <= PW'(i);
          end
        end
      end
    end
  end

`ifndef SYNTHESIS
  // the crossbar has no back-pressure: a granted output takes every word of its frame
  always_ff @(posedge clk_i) begin
    for (int o = 0; o < PORTS; o++)
      if (f_valid[o] && !f_ready[o])   // f_valid is low in reset (obusy_q)
        $fatal(1, "memchan_hub: output %0d refused a word of a granted frame", o);
  end
`endif
endmodule : memchan_hub

`default_nettype wire
