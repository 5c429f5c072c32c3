// Frame builder: turns descriptors (data packets, barrier acknowledge requests) and pending
// acknowledgement replies into frames (header + payload words) for the link transmitter,
// in order. Data frames of LOCAL_COPY pages are also copied, word for word, into the
// local-copy FIFO of the receive path, except frames addressed to this very node while a
// loopback brings them back; without loopback (virtual hub: the peer would ignore them) a
// frame addressed to this node is always delivered by the local copy.
// Virtual hub (two-node direct mode, docs/firmware.md "Ordering"): on node 1 (spoke_i) a
// frame that needs a local copy is not copied here but sent with H_ECHO; node 0 echoes it
// and the echo is node 1's local copy. Node 1 keeps at most ECHO_CREDITS echoes outstanding
// (the size of node 0's echo FIFO). On node 0 (hub_i) echo frames (from memchan_vhub_merge)
// go out before any descriptor, and an own frame with local copy starts only when no echo is
// waiting and the merge is not inside a frame, so that the local-copy FIFO order (node 0's
// delivery order) and the transmit order (what node 1 sees) are the same sequence.
// Remote read and atomics (docs/firmware.md "Remote read and atomics"): responses (from the
// receive path's response FIFO, committed whole) go out after echoes and before any
// descriptor; a request descriptor waits while REQ_CREDITS requests are outstanding (so
// that the home's response FIFO always has room: no request/response deadlock), and a
// request that names no single node is not sent but completes at once as refused. A request
// to this node itself without a loopback, and its response, take the local-copy FIFO
// instead of the link: the home's own requests go through its adapter too (as in
// Telegraphos), so they are serialized with everyone else's.
// While the link discards (discarding_i: after an error, until ERR_RESET) no echo or
// response can come back, so nothing waits for one: a spoke's frame goes out without H_ECHO
// (its local copy is lost, as the echo would have been) and a request to another node is
// refused at once. Waiting held the transmit window, and with it every later host write to
// the adapter, ERR_RESET included, for good (board-java's rule-3 step without retry froze).
// The same holds while the peer announces that its link discards (peer_disc_i, its
// heartbeats): a hub whose retry ran out drops the echoes, and a peer whose receiver discards
// drops the frames. Every local copy given up so counts in ERROR_COUNT (lc_lost_o), and the
// echo and request credits are returned while the peer discards: what they wait for never
// comes, and the peer ends its announcement only once its echo FIFO is empty and it has
// heard from us that we heard it (memchan_top). A hub (memchan_hub, peer_hub_i) has no
// counters: there the echoes it dropped are counted here instead, one returned credit per
// cycle (a virtual hub's node 0 counts its own drops, so its peer's credits return at once).
`default_nettype none

module memchan_tx_builder #(
  parameter int unsigned NODES = 32,
  parameter int unsigned ECHO_CREDITS = 15,
  parameter int unsigned REQ_CREDITS  = 7
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic [memchan_regs_pkg::MC_NODE_ID_ID_W-1:0] node_id_i,
  input  wire logic        loopback_i,     // LOOPBACK.MODE != 0: the link returns our frames
  input  wire logic        hub_i,          // virtual hub: node 0, orders and echoes
  input  wire logic        spoke_i,        // virtual hub: node 1, local copies by echo
  input  wire logic        err_reset_i,    // CTRL.ERR_RESET: echoes of discarded frames never come
  input  wire logic        discarding_i,   // the link discards: no echo or response comes back
  input  wire logic        peer_disc_i,    // the peer's link discards (its heartbeats): the same
  input  wire logic        peer_hub_i,     // the peer is a memchan_hub: it counts no drop
  output logic             lc_lost_o,      // a local copy was given up (ERROR_COUNT)
  output logic             echo_wait_o,    // echoes outstanding (credits not returned)
  // descriptors {local_copy, header} and payload words (first-word-fall-through)
  input  wire logic        desc_valid_i,
  input  wire logic [64:0] desc_i,
  output logic             desc_ready_o,
  input  wire logic        data_valid_i,
  input  wire logic [63:0] data_i,
  output logic             data_ready_o,
  // acknowledgement replies owed (from the receive path)
  input  wire logic        ack_inc_i,
  input  wire logic [7:0]  ack_src_i,
  output logic             ack_inc_ready_o,
  // hub: echo frames (committed whole) and the merge of received frames
  input  wire logic        e_valid_i,
  input  wire logic [63:0] e_data_i,
  output logic             e_ready_o,
  input  wire logic        e_commit_i,     // the merge committed an echo frame
  input  wire logic        merge_busy_i,
  output logic             lc_hold_o,      // writing a local copy (the merge must wait)
  // spoke: an echo of our own frame arrived
  input  wire logic        echo_rx_i,
  // responses of this node as home (committed whole), requests of this node as requester
  input  wire logic        r_valid_i,
  input  wire logic [63:0] r_data_i,
  output logic             r_ready_o,
  input  wire logic        r_commit_i,     // a response frame was committed
  input  wire logic        resp_done_i,    // a response to one of our requests completed
  output logic             req_sent_o,     // a request frame went to the link
  output logic             req_refused_o,  // a request was refused here (not sent)
  output logic [25:0]      req_addr_o,     // ... its network address / 4
  // frames toward the link transmitter
  output logic             f_valid_o,
  output logic [63:0]      f_data_o,
  output logic             f_last_o,
  input  wire logic        f_ready_i,
  // local copy toward the receive path
  output logic             lc_we_o,
  output logic [63:0]      lc_data_o,
  input  wire logic        lc_room_i      // local-copy FIFO: a maximum frame fits (registered)
);
  import memchan_pkt_pkg::*;

  if (NODES < 2 || NODES > 32) begin : g_check
    $error("memchan_tx_builder: NODES must be 2..32");
  end
  if (REQ_CREDITS < 1 || REQ_CREDITS > 15) begin : g_check_req
    $error("memchan_tx_builder: REQ_CREDITS must be 1..15");
  end
  localparam int unsigned NW = $clog2(NODES);

  logic [7:0]  ackc_q [NODES];   // acknowledgements owed per requesting node
  logic        ack_any;
  logic [NW-1:0] ack_sel;
  logic        ack_v_q;          // registered: an ACK frame is owed to node ack_sel_q
  logic [NW-1:0] ack_sel_q;
  logic        body_q, lc_q, esrc_q;   // in a frame body; copying it; body from echo FIFO
  logic        rsrc_q;                 // body from the response FIFO
  logic        nolink_q;               // body not sent on the link (refused, or local only)
  logic        d_lconly, r_self, lc_ok, b_adv;
  logic [5:0]  rpend_q;                // response frames committed and not yet started
  logic [3:0]  rcred_q;                // requests outstanding
  logic        d_req, d_refuse, r_go, r_fire;
  logic [5:0]  d_pw, r_pw;
  logic [5:0]  epend_q;                // hub: echo frames committed and not yet started
  logic [4:0]  cred_q;                 // spoke: echoes outstanding
  logic        d_echo, d_go, e_go, e_fire, b_valid;
  logic [63:0] b_data;
  logic [5:0]  left_q;
  logic [63:0] hdr;
  logic        d_data, d_self, d_lc, d_wants_lc, hdr_fire, ack_fire;
  logic        path_down;              // no echo or response can come back
  logic        lc_gone, cred_ret;      // a local copy given up; an echo credit returned
  logic [5:0]  e_nwords;

  always_comb begin
    ack_any = 1'b0;
    ack_sel = '0;
    for (int i = NODES - 1; i >= 0; i--) begin
      if (ackc_q[i] != 8'd0) begin
        ack_any = 1'b1;
        ack_sel = NW'(i);
      end
    end
  end

  assign ack_inc_ready_o = (ack_src_i < 8'(NODES)) && (ackc_q[ack_src_i[NW-1:0]] != 8'hFF);

  always_comb begin
    d_data = (desc_i[H_TP_LSB +: 4] == TP_DATA);
    d_req  = tp_request(desc_i[H_TP_LSB +: 4]);
    d_lconly = d_req && (desc_i[H_DNID_LSB +: 8] == node_id_i) && !loopback_i;
    path_down = discarding_i || peer_disc_i;
    d_refuse = d_req && ((desc_i[H_DNID_LSB +: 8] >= 8'(NODES)) || (path_down && !d_lconly));
    r_self   = (r_data_i[H_DNID_LSB +: 8] == node_id_i) && !loopback_i;
    // the local-copy FIFO takes a whole frame, not while the hub's merge or echoes need it
    lc_ok    = lc_room_i && !(hub_i && (epend_q != 6'd0 || merge_busy_i));
    d_pw   = payload_words(desc_i[63:0]);
    r_pw   = payload_words(r_data_i);
    r_go   = rpend_q != 6'd0 && r_valid_i;
    d_self = (desc_i[C_DKIND +: 2] == 2'd0) &&
             (desc_i[H_DNID_LSB +: 8] == node_id_i);
    d_wants_lc = d_data && (loopback_i ? (desc_i[64] && !d_self) : (desc_i[64] || d_self));
    d_echo = d_wants_lc && spoke_i && !path_down;
    d_lc   = d_wants_lc && !spoke_i;
    d_go   = d_lc ? lc_ok
                  : d_req ? (d_refuse || (rcred_q < 4'(REQ_CREDITS) && (!d_lconly || lc_ok)))
                  : (!d_echo || cred_q < 5'(ECHO_CREDITS));
    e_go   = hub_i && epend_q != 6'd0 && e_valid_i;
    e_nwords = payload_words(e_data_i);
    b_valid = esrc_q ? e_valid_i : rsrc_q ? r_valid_i : data_valid_i;
    b_data  = esrc_q ? e_data_i : rsrc_q ? r_data_i : data_i;
    hdr = '0;
    f_valid_o = 1'b0;
    f_last_o  = 1'b0;
    desc_ready_o = 1'b0;
    data_ready_o = 1'b0;
    e_ready_o = 1'b0;
    r_ready_o = 1'b0;
    lc_we_o = 1'b0;
    b_adv = f_ready_i || nolink_q;
    if (body_q) begin
      hdr = b_data;
      f_valid_o = b_valid && !nolink_q;
      f_last_o  = (left_q == 6'd1);
      data_ready_o = b_adv && !esrc_q && !rsrc_q;
      e_ready_o    = f_ready_i && esrc_q;
      r_ready_o    = b_adv && rsrc_q;
      lc_we_o = lc_q && b_valid && b_adv;
    end else if (ack_v_q) begin
      hdr[H_TP_LSB +: 4]   = TP_ACK;
      hdr[H_DNID_LSB +: 8] = 8'(ack_sel_q);
      hdr[H_SID_LSB +: 8]  = node_id_i;
      hdr[H_ADDR_LSB +: 8] = ackc_q[ack_sel_q];
      f_valid_o = 1'b1;
      f_last_o  = 1'b1;
    end else if (e_go) begin
      hdr = e_data_i;          // node 1's frame as node 1 sent it (SID 1), echo bits cleared
      f_valid_o = 1'b1;
      e_ready_o = f_ready_i;
    end else if (r_go && r_self) begin
      hdr = r_data_i;            // a response to this node's own request: local copy only
      hdr[H_SID_LSB +: 8] = node_id_i;
      r_ready_o = lc_ok;
      lc_we_o   = lc_ok;
    end else if (r_go) begin
      hdr = r_data_i;
      hdr[H_SID_LSB +: 8] = node_id_i;
      f_valid_o = 1'b1;
      f_last_o  = (r_pw == 6'd0);
      r_ready_o = f_ready_i;
    end else if (desc_valid_i && d_go && d_refuse) begin
      desc_ready_o = 1'b1;       // refused request: consumed, not sent (nor its payload)
    end else if (desc_valid_i && d_go && d_lconly) begin
      hdr = desc_i[63:0];        // a request to this node itself: local copy only
      hdr[H_SID_LSB +: 8] = node_id_i;
      desc_ready_o = 1'b1;
      lc_we_o = 1'b1;
    end else if (desc_valid_i && d_go) begin
      hdr = desc_i[63:0];
      hdr[H_SID_LSB +: 8] = node_id_i;
      hdr[H_ECHO] = d_echo;
      f_valid_o = 1'b1;
      f_last_o  = (d_pw == 6'd0);
      desc_ready_o = f_ready_i;
      lc_we_o = d_lc && f_ready_i;
    end
    f_data_o  = hdr;
    lc_data_o = hdr;
    // an own frame's header in the local-copy FIFO is not from the link; payload words are data
    if (!body_q) lc_data_o[Q_FROM_LINK] = 1'b0;
    hdr_fire  = !body_q && !ack_v_q && !e_go && !r_go && desc_ready_o;
    e_fire    = !body_q && !ack_v_q && e_go && f_ready_i;
    r_fire    = !body_q && !ack_v_q && !e_go && r_go && r_ready_o;
    req_sent_o    = hdr_fire && d_req && !d_refuse;
    lc_gone       = hdr_fire && d_wants_lc && spoke_i && path_down;
    // the echoes a discarding hub dropped, one per cycle (one ERROR_COUNT event a cycle)
    cred_ret      = peer_hub_i && peer_disc_i && cred_q != 5'd0 && !echo_rx_i && !lc_gone;
    lc_lost_o     = lc_gone || cred_ret;
    echo_wait_o   = cred_q != 5'd0;
    req_refused_o = hdr_fire && d_refuse;
    req_addr_o    = desc_i[H_ADDR_LSB +: 26];
    ack_fire  = !body_q && ack_v_q && f_ready_i;
    lc_hold_o = (body_q && lc_q) || (!body_q && lc_we_o);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      body_q <= 1'b0;
      lc_q   <= 1'b0;
      esrc_q <= 1'b0;
      rsrc_q <= 1'b0;
      nolink_q <= 1'b0;
      rpend_q <= '0;
      rcred_q <= '0;
      left_q <= '0;
      epend_q <= '0;
      cred_q  <= '0;
      ack_v_q <= 1'b0;
      ack_sel_q <= '0;
      for (int i = 0; i < NODES; i++) ackc_q[i] <= 8'd0;
    end else begin
      if (hdr_fire && d_pw != 6'd0) begin
        body_q <= 1'b1;
        lc_q   <= d_lc || d_lconly;
        esrc_q <= 1'b0;
        rsrc_q <= 1'b0;
        nolink_q <= d_refuse || d_lconly;
        left_q <= d_pw;
      end else if (e_fire) begin
        body_q <= 1'b1;
        lc_q   <= 1'b0;
        esrc_q <= 1'b1;
        rsrc_q <= 1'b0;
        nolink_q <= 1'b0;
        left_q <= e_nwords;
      end else if (r_fire && r_pw != 6'd0) begin
        body_q <= 1'b1;
        lc_q   <= r_self;
        esrc_q <= 1'b0;
        rsrc_q <= 1'b1;
        nolink_q <= r_self;
        left_q <= r_pw;
      end else if (body_q && b_valid && b_adv) begin
        left_q <= left_q - 1'b1;
        if (left_q == 6'd1) body_q <= 1'b0;
      end
      epend_q <= epend_q + 6'(e_commit_i) - 6'(e_fire);
      rpend_q <= rpend_q + 6'(r_commit_i) - 6'(r_fire);
      if (err_reset_i || peer_disc_i) rcred_q <= '0;
      else rcred_q <= rcred_q + 4'(req_sent_o) - 4'(resp_done_i && rcred_q != 4'd0);
      // the owed-acknowledgement choice is registered (the priority encoder over the counts
      // is not in front of f_valid_o): a count only drops to 0 when its ACK frame is sent,
      // so the chosen count is still non-zero when used; right after an ACK frame the choice
      // is made again (one cycle without an ACK frame)
      ack_v_q   <= ack_any && !ack_fire;
      ack_sel_q <= ack_sel;
      if (err_reset_i || (peer_disc_i && !peer_hub_i)) cred_q <= '0;
      else cred_q <= cred_q + 5'(hdr_fire && d_echo) -
                     5'((echo_rx_i || cred_ret) && cred_q != 5'd0);
      for (int i = 0; i < NODES; i++) begin
        ackc_q[i] <= ackc_q[i]
                   + 8'(ack_inc_i && ack_inc_ready_o && (ack_src_i[NW-1:0] == NW'(i)))
                   - ((ack_fire && (ack_sel_q == NW'(i))) ? ackc_q[i] : 8'd0);
      end
    end
  end
endmodule : memchan_tx_builder

`default_nettype wire
