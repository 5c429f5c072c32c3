// Link controller: periodic heartbeat control frames (node ID, flags, serial number), peer
// liveness (PEER_SEEN: a heartbeat within 4 periods; UP: the peer also hears us), and
// virtual-hub node-ID autoconfiguration: with NODE_ID.AUTO the two adapters of a direct
// link take IDs 0 and 1 (a peer with a valid ID leaves us the other one; two undecided
// peers compare serial numbers, lower takes 0; our own serial coming back (loopback) -> 0).
// On a hub (its heartbeats carry C_HUB) the ID is the one the hub names (DNID: its port).
// Hub port supervision and multicast membership (docs/firmware.md "The hub") ride on the
// heartbeats' serial-number word: a hub's heartbeats carry the nodes whose ports are up
// (hub_nodes_o), an adapter's heartbeats to a hub carry its multicast groups (H_HB_GROUPS,
// peer_groups_o on the hub's side). A change of the announced word is announced at once.
// Each heartbeat also says whether the sender's link discards (H_HB_DISC, disc_i), so that a
// virtual hub's spoke stops waiting for echoes its hub drops (peer_disc_o), and whether it
// hears the peer's such announcement (H_HB_DISC_SEEN from disc_seen_i, peer_disc_seen_o on
// the other side); both announced at once. The generation bit of the peer's last heartbeat
// (H_HB_DISC_GEN, peer_disc_gen_o) is sent back in ours: a hub overrides it with its own.
// PEER_SEEN, the heartbeat request and the heartbeat header are registered (one cycle
// later than their inputs), so that the period comparisons stay off the transmitter's path.
`default_nettype none

module memchan_link_ctrl
(
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic [memchan_regs_pkg::MC_NODE_ID_ID_W-1:0] node_id_i,
  input  wire logic        node_valid_i,
  input  wire logic        node_auto_i,
  input  wire logic [31:0] serial_i,
  input  wire memchan_regs_pkg::mc_group_mask_t groups_i,  // bit g: this node is a member of multicast group g
  input  wire logic        disc_i,         // our link discards (announced in H_HB_DISC)
  input  wire logic        disc_seen_i,    // we heard the peer's H_HB_DISC (H_HB_DISC_SEEN)
  input  wire memchan_regs_pkg::mc_heartbeat_period_t hb_period_i,
  input  wire logic        ctrl_i,
  input  wire logic [63:0] ctrl_hdr_i,
  output logic             hb_req_o,
  output logic [63:0]      hb_hdr_o,
  output logic             peer_seen_o,
  output logic             link_up_o,
  output logic [memchan_regs_pkg::MC_LINK_STATUS_PEER_NODE_W-1:0] peer_node_o,
  output logic             peer_auto_o,    // the peer's last heartbeat announced AUTO
  output logic             peer_hub_o,     // the peer is a hub (memchan_hub)
  output logic             auto_set_o,
  output logic [memchan_regs_pkg::MC_NODE_ID_ID_W-1:0] auto_id_o,
  output memchan_regs_pkg::mc_nodes_up_t hub_nodes_o,  // from a hub while the link is up: nodes up (bit n)
  output memchan_regs_pkg::mc_group_mask_t peer_groups_o,  // the peer's multicast groups (0 unless announced)
  output logic             peer_disc_o,    // the peer's last heartbeat: its link discards
  output logic             peer_disc_seen_o,  // ... and it hears our announcement of ours
  output logic             peer_disc_gen_o    // ... the generation bit it sent back
);
  import memchan_pkt_pkg::*;

  logic [31:0] hb_q;
  logic [33:0] seen_q;         // cycles since the last heartbeat from the peer
  logic        heard_q;        // at least one heartbeat since reset
  logic        peer_valid_q, peer_auto_q, peer_hears_q, peer_hub_q, peer_disc_q;
  logic        peer_disc_seen_q, peer_gen_q;
  logic [7:0]  peer_node_q, hub_id_q;
  logic [31:0] peer_serial_q;
  logic        peer_groups_q;  // the peer's last heartbeat carried its groups (H_HB_GROUPS)
  logic [45:0] ident_q;        // what we announced last, to announce changes at once
  logic        seen_ok_q, hb_req_q;
  logic [63:0] hb_hdr_q;

  // to a hub an adapter announces its multicast groups instead of its serial number (the
  // serial only matters to a partner back to back, for autoconfiguration)
  logic [31:0] word;
  assign word  = peer_hub_q ? {16'b0, groups_i} : serial_i;
  logic [45:0] ident;
  assign ident = {peer_gen_q, disc_seen_i, disc_i, word, node_valid_i, node_auto_i, peer_seen_o, node_id_i};

  assign peer_seen_o = seen_ok_q;
  assign link_up_o   = peer_seen_o && peer_hears_q;
  assign peer_node_o = peer_node_q;
  assign peer_auto_o = peer_auto_q;
  assign peer_hub_o  = peer_hub_q;
  assign peer_disc_o = peer_disc_q;
  assign peer_disc_seen_o = peer_disc_seen_q;
  assign peer_disc_gen_o  = peer_gen_q;
  assign hb_req_o    = hb_req_q;
  assign hub_nodes_o   = (peer_hub_q && link_up_o) ? peer_serial_q : 32'b0;
  assign peer_groups_o = peer_groups_q ? peer_serial_q[15:0] : 16'b0;
  assign hb_hdr_o    = hb_hdr_q;

  logic [63:0] hb_hdr;
  always_comb begin
    hb_hdr = '0;
    hb_hdr[H_TP_LSB +: 4]  = TP_CTRL;
    hb_hdr[C_ID_VALID]     = node_valid_i;
    hb_hdr[C_ID_AUTO]      = node_auto_i;
    hb_hdr[C_PEER_SEEN]    = peer_seen_o;
    hb_hdr[H_SID_LSB +: 8] = node_id_i;
    hb_hdr[H_HB_GROUPS]    = peer_hub_q;
    hb_hdr[H_HB_DISC]      = disc_i;
    hb_hdr[H_HB_DISC_SEEN] = disc_seen_i;
    hb_hdr[H_HB_DISC_GEN]  = peer_gen_q;
    hb_hdr[63:32]          = word;
  end

  // autoconfiguration decision
  always_comb begin
    auto_set_o = 1'b0;
    auto_id_o  = '0;
    if (node_auto_i && !node_valid_i && peer_seen_o) begin
      if (peer_hub_q) begin
        auto_set_o = 1'b1;
        auto_id_o  = hub_id_q;
      end else if (peer_valid_q) begin
        auto_set_o = 1'b1;
        auto_id_o  = (peer_node_q == 8'd0) ? 8'd1 : 8'd0;
      end else if (peer_auto_q) begin
        auto_set_o = 1'b1;
        auto_id_o  = (peer_serial_q < serial_i) ? 8'd1 : 8'd0;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hb_q <= '0; seen_q <= '0; heard_q <= 1'b0; ident_q <= '0;
      peer_valid_q <= 1'b0; peer_auto_q <= 1'b0; peer_hears_q <= 1'b0;
      peer_hub_q <= 1'b0; peer_disc_q <= 1'b0; peer_disc_seen_q <= 1'b0; peer_gen_q <= 1'b0;
      peer_groups_q <= 1'b0; peer_node_q <= '0; hub_id_q <= '0; peer_serial_q <= '0;
      seen_ok_q <= 1'b0; hb_req_q <= 1'b0; hb_hdr_q <= '0;
    end else begin
      ident_q   <= ident;
      seen_ok_q <= heard_q && (seen_q < {hb_period_i, 2'b00});
      hb_req_q  <= (hb_q == 32'd0) || (ident != ident_q);
      hb_hdr_q  <= hb_hdr;
      hb_q <= (hb_q + 1'b1 >= hb_period_i) ? 32'd0 : hb_q + 1'b1;
      if (ctrl_i) begin
        seen_q        <= '0;
        heard_q       <= 1'b1;
        peer_valid_q  <= ctrl_hdr_i[C_ID_VALID];
        peer_auto_q   <= ctrl_hdr_i[C_ID_AUTO];
        peer_hears_q  <= ctrl_hdr_i[C_PEER_SEEN];
        peer_hub_q    <= ctrl_hdr_i[C_HUB];
        peer_disc_q   <= ctrl_hdr_i[H_HB_DISC];
        peer_disc_seen_q <= ctrl_hdr_i[H_HB_DISC_SEEN];
        peer_gen_q    <= ctrl_hdr_i[H_HB_DISC_GEN];
        peer_groups_q <= ctrl_hdr_i[H_HB_GROUPS];
        hub_id_q      <= ctrl_hdr_i[H_DNID_LSB +: 8];
        peer_node_q   <= ctrl_hdr_i[H_SID_LSB +: 8];
        peer_serial_q <= ctrl_hdr_i[63:32];
      end else if (seen_q != '1) begin
        seen_q <= seen_q + 1'b1;
      end
    end
  end
endmodule : memchan_link_ctrl

`default_nettype wire
