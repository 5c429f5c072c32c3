// memchan adapter top level (RTL under test; vendor IP stays outside).
//   BAR0  AXI4-Lite slave: registers and both PCTs           (PCIe bridge master)
//   BAR2  AXI4 slave, write bursts: the transmit window       (PCIe bridge master)
//   DMA   AXI4 master, write bursts into host memory          (PCIe bridge slave)
//         and read bursts of remote read / atomic requests served here
//   irq_o level per IRQ_STATUS bit (masked)                   (bridge MSI-X request)
//   link  AXI4-Stream, 64 bit, one port per direction         (transceiver IP, e.g. Aurora 64B/66B)
// One clock domain: the bridge's AXI clock is also the transceiver user clock (clock
// converters, if the board needs them, belong to the vendor IP side).
`default_nettype none

module memchan_top #(
  parameter int unsigned PAGES       = memchan_regs_pkg::MC_BOARD_PAGES,   // PCT entries (network pages), block RAM
  parameter int unsigned PAGE_SIZE   = memchan_regs_pkg::MC_BOARD_PAGE_SIZE,
  parameter int unsigned ID_W        = 4,      // BAR2 AXI ID width
  parameter int unsigned RING_DEPTH  = 1024,   // replay ring, 64-bit words
  parameter int unsigned RXQ_DEPTH   = 512,    // receive store-and-forward FIFO, words
  parameter int unsigned TXQ_DEPTH   = 512,    // transmit payload FIFO, words
  // virtual hub ordering in two-node direct mode (NODE_ID.AUTO); 0 only to show what it
  // prevents (the ordering bench), never on a board
  parameter bit          VHUB        = 1'b1,
  // remote requests wait for earlier host writes' responses (atomics serialized, rule 1);
  // 0 only to show what it prevents (the atomics bench), never on a board
  parameter bit          SERIALIZE   = 1'b1,
  // global clock: as the clock master, send sync frames; 0 only to show what they do (the
  // clock bench's negative control), never on a board
  parameter bit          CLOCK_SYNC  = 1'b1,
  // which bitstream this is (the BUILD_GIT and BUILD_TIME registers): the board's build sets
  // them, everything else (the co-simulated board, the benches) reads 0
  parameter int unsigned BUILD_GIT   = 0,
  parameter int unsigned BUILD_TIME  = 0,
  localparam int unsigned PG_W   = $clog2(PAGES),
  localparam int unsigned WIN_AW = PG_W + $clog2(PAGE_SIZE)
) (
  input  wire logic              clk_i,
  input  wire logic              rst_ni,
  input  wire logic [31:0]       serial_i,      // board serial (DNA_PORT), autoconfiguration
  // BAR0: AXI4-Lite slave
  input  wire logic [memchan_regs_pkg::MC_BAR0_AW-1:0] s_axil_awaddr,
  input  wire logic              s_axil_awvalid,
  output logic                   s_axil_awready,
  input  wire logic [31:0]       s_axil_wdata,
  input  wire logic [3:0]        s_axil_wstrb,
  input  wire logic              s_axil_wvalid,
  output logic                   s_axil_wready,
  output logic [1:0]             s_axil_bresp,
  output logic                   s_axil_bvalid,
  input  wire logic              s_axil_bready,
  input  wire logic [memchan_regs_pkg::MC_BAR0_AW-1:0] s_axil_araddr,
  input  wire logic              s_axil_arvalid,
  output logic                   s_axil_arready,
  output logic [31:0]            s_axil_rdata,
  output logic [1:0]             s_axil_rresp,
  output logic                   s_axil_rvalid,
  input  wire logic              s_axil_rready,
  // BAR2: AXI4 slave (write channels)
  input  wire logic [ID_W-1:0]   s_axi_awid,
  input  wire logic [WIN_AW-1:0] s_axi_awaddr,
  input  wire logic [7:0]        s_axi_awlen,
  input  wire logic              s_axi_awvalid,
  output logic                   s_axi_awready,
  input  wire logic [63:0]       s_axi_wdata,
  input  wire logic [7:0]        s_axi_wstrb,
  input  wire logic              s_axi_wlast,
  input  wire logic              s_axi_wvalid,
  output logic                   s_axi_wready,
  output logic [ID_W-1:0]        s_axi_bid,
  output logic [1:0]             s_axi_bresp,
  output logic                   s_axi_bvalid,
  input  wire logic              s_axi_bready,
  // host memory: AXI4 master (write channels)
  output logic [63:0]            m_axi_awaddr,
  output logic [7:0]             m_axi_awlen,
  output logic [2:0]             m_axi_awsize,
  output logic [1:0]             m_axi_awburst,
  output logic                   m_axi_awvalid,
  input  wire logic              m_axi_awready,
  output logic [63:0]            m_axi_wdata,
  output logic [7:0]             m_axi_wstrb,
  output logic                   m_axi_wlast,
  output logic                   m_axi_wvalid,
  input  wire logic              m_axi_wready,
  input  wire logic [1:0]        m_axi_bresp,
  input  wire logic              m_axi_bvalid,
  output logic                   m_axi_bready,
  // host memory: AXI4 master (read channels; remote read and atomics served at this home)
  output logic [63:0]            m_axi_araddr,
  output logic [7:0]             m_axi_arlen,
  output logic [2:0]             m_axi_arsize,
  output logic [1:0]             m_axi_arburst,
  output logic                   m_axi_arvalid,
  input  wire logic              m_axi_arready,
  input  wire logic [63:0]       m_axi_rdata,
  input  wire logic [1:0]        m_axi_rresp,
  input  wire logic              m_axi_rlast,
  input  wire logic              m_axi_rvalid,
  output logic                   m_axi_rready,
  // interrupts toward the bridge's MSI-X interface
  output logic [memchan_regs_pkg::MC_IRQ_STATUS_W-1:0] irq_o,
  // link: AXI4-Stream toward the transceiver
  output logic                   m_link_tvalid,
  output logic [63:0]            m_link_tdata,
  output logic                   m_link_tlast,
  input  wire logic              m_link_tready,
  input  wire logic              s_link_tvalid,
  input  wire logic [63:0]       s_link_tdata,
  input  wire logic              s_link_tlast,
  output logic                   s_link_tready
);
  import memchan_pkt_pkg::*;
  import memchan_regs_pkg::*;

  localparam int unsigned RXQ_AW = $clog2(RXQ_DEPTH);

  if (RXQ_DEPTH < 2 * MAX_FRAME_WORDS || TXQ_DEPTH < 2 * MAX_PAYLOAD_WORDS ||
      TXQ_DEPTH > 1024) begin : g_check
    $error("memchan_top: receive FIFO needs >= 2 frames, transmit FIFO 64..1024 words");
  end

  // configuration and status; LOOPBACK.MODE's value OFF at its width
  localparam logic [MC_LOOPBACK_MODE_W-1:0] LB_OFF = MC_LOOPBACK_MODE_W'(MC_LOOPBACK_MODE_OFF);
  logic [MC_NODE_ID_ID_W-1:0] node_id, auto_id;
  logic [MC_LINK_STATUS_PEER_NODE_W-1:0] peer_node;
  logic [MC_LINK_RETRY_LIMIT_LIMIT_W-1:0] retry_limit;
  logic         node_valid, node_auto, enable, retry_en, err_reset, barrier_req, auto_set;
  logic         link_up, peer_seen, peer_auto, peer_hub;
  logic         hub, spoke;       // virtual hub roles (docs/firmware.md "Ordering")
  logic [MC_LOOPBACK_MODE_W-1:0] lb_mode;
  logic [2*MC_REG_W-1:0] rx_base;   // RX_BASE_HI, RX_BASE_LO
  mc_link_ack_timeout_t ack_timeout;
  mc_heartbeat_period_t hb_period;
  logic [MC_TX_COMBINE_IDLE_CYCLES_W-1:0] combine_idle;
  logic [2*MC_REG_W-1:0] cas_cmp;   // REMOTE_CAS_CMP_HI, REMOTE_CAS_CMP_LO
  logic [MC_REG_W-1:0] cas_page;    // REMOTE_CAS_PAGE as its word (PAGE, ARM)
  mc_group_table_t mcast;
  mc_group_mask_t mcast_groups;     // the groups this node is a member of (heartbeats to a hub)
  mc_nodes_up_t nodes_up;           // the hub's live nodes (NODES_UP)
  mc_group_mask_t peer_groups;      // only a hub reads the adapters' groups

  // PCTs
  logic              txp_a_en, txp_a_we, txp_b_en, rxp_a_en, rxp_b_en;
  // a transmit entry is one word, a receive entry two (a RAM each, low word first)
  localparam int unsigned TXP_W = 8 * MC_TX_PCT_ENTRY_SIZE;
  localparam int unsigned RXP_W = 8 * MC_RX_PCT_ENTRY_SIZE;
  logic [RXP_W/MC_REG_W-1:0] rxp_a_we;
  logic [PG_W-1:0]   txp_a_addr, txp_b_addr, rxp_a_addr, rxp_b_addr;
  logic [TXP_W-1:0]  txp_a_wdata, txp_a_rdata, txp_b_rdata;
  logic [MC_REG_W-1:0] rxp_a_wdata;
  logic [RXP_W-1:0]  rxp_a_rdata, rxp_b_rdata;

  memchan_ram_tdp #(.WIDTH(TXP_W), .DEPTH(PAGES)) u_tx_pct (
    .clk_i, .a_en_i(txp_a_en), .a_we_i(txp_a_we), .a_addr_i(txp_a_addr),
    .a_wdata_i(txp_a_wdata), .a_rdata_o(txp_a_rdata),
    .b_en_i(txp_b_en), .b_addr_i(txp_b_addr), .b_rdata_o(txp_b_rdata));
  memchan_ram_tdp #(.WIDTH(MC_REG_W), .DEPTH(PAGES)) u_rx_pct_lo (
    .clk_i, .a_en_i(rxp_a_en), .a_we_i(rxp_a_we[0]), .a_addr_i(rxp_a_addr),
    .a_wdata_i(rxp_a_wdata), .a_rdata_o(rxp_a_rdata[0 +: MC_REG_W]),
    .b_en_i(rxp_b_en), .b_addr_i(rxp_b_addr), .b_rdata_o(rxp_b_rdata[0 +: MC_REG_W]));
  memchan_ram_tdp #(.WIDTH(MC_REG_W), .DEPTH(PAGES)) u_rx_pct_hi (
    .clk_i, .a_en_i(rxp_a_en), .a_we_i(rxp_a_we[1]), .a_addr_i(rxp_a_addr),
    .a_wdata_i(rxp_a_wdata), .a_rdata_o(rxp_a_rdata[MC_REG_W +: MC_REG_W]),
    .b_en_i(rxp_b_en), .b_addr_i(rxp_b_addr), .b_rdata_o(rxp_b_rdata[MC_REG_W +: MC_REG_W]));

  // events
  logic       ev_tx_pkt, ev_rx_pkt, ev_tx_dd, ev_tx_dp, ev_rx_dd, ev_crc, ev_retry;
  logic       ev_ack_rcv, ev_ackreq, ev_bar_sent, ev_notify, ev_bus_err;
  logic       tx_err_event, tx_err_drop, rx_err_event, rx_err_drop, tx_disc, rx_disc;
  logic       lc_lost;        // the spoke gave up a local copy (its path discards)
  logic [5:0] ev_tx_len;
  logic [8:0] ev_rx_bytes;
  logic [7:0] ev_ack_cnt;
  logic [31:0] ev_notify_page;
  // remote read and atomics (docs/firmware.md "Remote read and atomics")
  logic        ev_req_sent, ev_resp_done, ev_resp_err, ev_req_refused, ev_home_refused;
  logic [25:0] ev_resp_addr, ev_req_addr;
  logic [63:0] ev_resp_val;
  logic        served, served_atomic, served_cnt_irq, cnt_wr_reads, cnt_wr_atomics, ev_hot;
  logic [PG_W-1:0] served_page, cnt_sel, ev_hot_page;
  mc_page_cnt_reads_t cnt_reads;
  mc_page_cnt_atomics_t cnt_atomics;
  logic [MC_REG_W-1:0] cnt_wdata;
  mc_page_cnt_threshold_t cnt_threshold;
  logic        rs_we, rs_commit, rs_drop, rs_room, rs_rv, rs_rr;
  logic [63:0] rs_w, rs_r;
  logic [9:0]  rs_space;

  memchan_axil_regs #(.PAGES(PAGES), .PAGE_SIZE(PAGE_SIZE), .BUILD_GIT(BUILD_GIT), .BUILD_TIME(BUILD_TIME)) u_regs (
    .clk_i, .rst_ni,
    .s_awaddr_i(s_axil_awaddr), .s_awvalid_i(s_axil_awvalid), .s_awready_o(s_axil_awready),
    .s_wdata_i(s_axil_wdata), .s_wstrb_i(s_axil_wstrb), .s_wvalid_i(s_axil_wvalid),
    .s_wready_o(s_axil_wready), .s_bresp_o(s_axil_bresp), .s_bvalid_o(s_axil_bvalid),
    .s_bready_i(s_axil_bready), .s_araddr_i(s_axil_araddr), .s_arvalid_i(s_axil_arvalid),
    .s_arready_o(s_axil_arready), .s_rdata_o(s_axil_rdata), .s_rresp_o(s_axil_rresp),
    .s_rvalid_o(s_axil_rvalid), .s_rready_i(s_axil_rready),
    .txp_en_o(txp_a_en), .txp_we_o(txp_a_we), .txp_addr_o(txp_a_addr),
    .txp_wdata_o(txp_a_wdata), .txp_rdata_i(txp_a_rdata),
    .rxp_en_o(rxp_a_en), .rxp_we_o(rxp_a_we), .rxp_addr_o(rxp_a_addr),
    .rxp_wdata_o(rxp_a_wdata), .rxp_rdata_i(rxp_a_rdata),
    .node_id_o(node_id), .node_valid_o(node_valid), .node_auto_o(node_auto),
    .enable_o(enable), .retry_en_o(retry_en), .err_reset_o(err_reset), .loopback_o(lb_mode),
    .rx_base_o(rx_base), .retry_limit_o(retry_limit), .ack_timeout_o(ack_timeout),
    .hb_period_o(hb_period), .combine_idle_o(combine_idle), .mcast_o(mcast),
    .cas_cmp_o(cas_cmp), .cas_page_o(cas_page),
    .barrier_req_o(barrier_req),
    .link_up_i(link_up), .peer_seen_i(peer_seen), .discarding_i(tx_disc || rx_disc),
    .peer_node_i(peer_node), .nodes_up_i(nodes_up), .auto_set_i(auto_set), .auto_id_i(auto_id),
    .ev_tx_pkt_i(ev_tx_pkt), .ev_tx_len_i(ev_tx_len), .ev_rx_pkt_i(ev_rx_pkt),
    .ev_rx_bytes_i(ev_rx_bytes), .ev_tx_drop_dis_i(ev_tx_dd), .ev_tx_drop_part_i(ev_tx_dp),
    .ev_rx_drop_dis_i(ev_rx_dd), .ev_crc_err_i(ev_crc), .ev_retry_i(ev_retry),
    // six ERROR_COUNT events, registered one by one in u_regs and summed there
    .ev_err_i({tx_err_event, tx_err_drop, rx_err_event, rx_err_drop, ev_bus_err, lc_lost}),
    .ev_ack_rcv_i(ev_ack_rcv), .ev_ack_cnt_i(ev_ack_cnt), .ev_ackreq_sent_i(ev_ackreq),
    .ev_barrier_sent_i(ev_bar_sent), .ev_notify_i(ev_notify), .ev_notify_page_i(ev_notify_page),
    .ev_req_sent_i(ev_req_sent), .ev_resp_done_i(ev_resp_done), .ev_resp_err_i(ev_resp_err),
    .ev_resp_addr_i(ev_resp_addr), .ev_resp_val_i(ev_resp_val), .ev_req_refused_i(ev_req_refused),
    .ev_req_addr_i(ev_req_addr), .ev_home_refused_i(ev_home_refused),
    .cnt_sel_o(cnt_sel), .cnt_reads_i(cnt_reads), .cnt_atomics_i(cnt_atomics),
    .cnt_wr_reads_o(cnt_wr_reads), .cnt_wr_atomics_o(cnt_wr_atomics), .cnt_wdata_o(cnt_wdata),
    .cnt_threshold_o(cnt_threshold), .ev_hot_i(ev_hot), .ev_hot_page_i(ev_hot_page),
    .gtime_i(gtime), .clk_valid_i(clk_valid), .clk_master_i(clk_master),
    .clk_syncs_i(clk_syncs), .clk_bound_i(clk_bound), .clk_offset_i(clk_offset),
    .clk_link_delay_o(clk_link_delay), .clk_interval_o(clk_interval),
    .irq_o(irq_o));

  memchan_page_cnt #(.PAGES(PAGES)) u_pcnt (
    .clk_i, .rst_ni, .served_i(served), .atomic_i(served_atomic), .page_i(served_page),
    .cnt_irq_i(served_cnt_irq), .threshold_i(cnt_threshold), .sel_i(cnt_sel),
    .reads_o(cnt_reads), .atomics_o(cnt_atomics), .wr_reads_i(cnt_wr_reads),
    .wr_atomics_i(cnt_wr_atomics), .wdata_i(cnt_wdata), .hot_o(ev_hot),
    .hot_page_o(ev_hot_page));

  // ---------------- transmit path ----------------
  logic        data_we, desc_we, data_rv, data_rr, desc_rv, desc_rr;
  logic [63:0] data_w, data_r;
  logic [64:0] desc_w, desc_r;
  logic        data_room, desc_room;     // registered: 2 free entries
  logic [$clog2(TXQ_DEPTH):0] data_space;
  logic [5:0]  desc_space;

  memchan_tx_window #(.PAGES(PAGES), .PAGE_SIZE(PAGE_SIZE), .ID_W(ID_W)) u_txw (
    .clk_i, .rst_ni,
    .s_awid_i(s_axi_awid), .s_awaddr_i(s_axi_awaddr), .s_awlen_i(s_axi_awlen),
    .s_awvalid_i(s_axi_awvalid), .s_awready_o(s_axi_awready), .s_wdata_i(s_axi_wdata),
    .s_wstrb_i(s_axi_wstrb), .s_wlast_i(s_axi_wlast), .s_wvalid_i(s_axi_wvalid),
    .s_wready_o(s_axi_wready), .s_bid_o(s_axi_bid), .s_bresp_o(s_axi_bresp),
    .s_bvalid_o(s_axi_bvalid), .s_bready_i(s_axi_bready),
    .pct_re_o(txp_b_en), .pct_addr_o(txp_b_addr), .pct_rdata_i(txp_b_rdata),
    .enable_i(enable), .combine_idle_i(combine_idle), .barrier_req_i(barrier_req),
    .cas_cmp_i(cas_cmp), .cas_page_i(cas_page),
    .data_we_o(data_we), .data_o(data_w), .data_room_i(data_room),
    .desc_we_o(desc_we), .desc_o(desc_w), .desc_room_i(desc_room),
    .drop_disabled_o(ev_tx_dd), .drop_partial_o(ev_tx_dp));

  memchan_fifo #(.WIDTH(64), .DEPTH(TXQ_DEPTH), .ROOM(2)) u_txq (
    .clk_i, .rst_ni, .wr_valid_i(data_we), .wr_data_i(data_w), .wr_commit_i(1'b1),
    .wr_drop_i(1'b0), .wr_space_o(data_space), .wr_room_o(data_room),
    .rd_valid_o(data_rv), .rd_data_o(data_r), .rd_ready_i(data_rr));
  memchan_fifo #(.WIDTH(65), .DEPTH(32), .ROOM(2)) u_descq (
    .clk_i, .rst_ni, .wr_valid_i(desc_we), .wr_data_i(desc_w), .wr_commit_i(1'b1),
    .wr_drop_i(1'b0), .wr_space_o(desc_space), .wr_room_o(desc_room),
    .rd_valid_o(desc_rv), .rd_data_o(desc_r), .rd_ready_i(desc_rr));

  logic        f_valid, f_last, f_ready, lc_we, ack_inc, ack_inc_ready;
  logic [63:0] f_data, lc_data;
  logic [7:0]  ack_src;
  logic        lc_room;
  // virtual hub: echo FIFO (node 0), merge of received frames into the local-copy FIFO
  localparam int unsigned EQ_DEPTH = 512;
  logic        b_lc_we, m_lc_we, lc_hold, merge_busy, echo_rx;
  logic [63:0] b_lc_data, m_lc_data;
  logic        eq_we, eq_commit, eq_rv, eq_rr;
  logic [63:0] eq_w, eq_r;
  logic [$clog2(EQ_DEPTH):0] eq_space;
  logic        eq_room;

  // node 0 orders for both nodes, node 1 gets its local copies back from node 0; only in
  // two-node direct mode (autoconfigured IDs, no loopback) and, for node 1, if the peer is
  // autoconfigured as well (a hub). Registered: the roles change only with the configuration
  // (NODE_ID, LOOPBACK.MODE, the peer's heartbeat), which may change only while the link is
  // idle, so one cycle of delay is harmless; every user (builder, receiver, merge, delivery
  // select) sees the same registered value, never a mix of old and new role.
  logic hub_q, spoke_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hub_q   <= 1'b0;
      spoke_q <= 1'b0;
    end else begin
      hub_q   <= VHUB && node_auto && node_valid && (node_id == '0) && (lb_mode == LB_OFF) &&
                 !peer_hub;
      // hub mode (peer_hub, memchan_hub) is a spoke as well: the hub echoes local copies
      spoke_q <= node_valid && (lb_mode == LB_OFF) &&
                 (peer_hub || (VHUB && node_auto && (node_id == MC_NODE_ID_ID_W'(1)) && peer_auto));
    end
  end
  assign hub   = hub_q;
  assign spoke = spoke_q;

  // "my link discards", announced in every heartbeat (H_HB_DISC) from the entry into
  // DISCARDING (either direction) until ERR_RESET ended it, the echo FIFO is empty and the
  // peer's heartbeat said it heard the announcement: the peer meanwhile asks for no echo and
  // returns its credits (memchan_tx_builder), so that when the announcement ends no echo it
  // asked for earlier is left to come (a peer that never heard it would wait for them forever)
  logic disc_ann_q, peer_disc, peer_disc_seen, peer_disc_gen;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)                 disc_ann_q <= 1'b0;
    else if (tx_disc || rx_disc) disc_ann_q <= 1'b1;
    else if (!eq_rv && !merge_busy && peer_disc_seen) disc_ann_q <= 1'b0;
  end
  // the answer "I heard your announcement" (H_HB_DISC_SEEN) waits until every frame written
  // into our link before we heard it is acknowledged (or dropped): the frames that asked for
  // an echo are then all at the peer, so that no go-back-N resend of one can reach it after
  // it ended the announcement and be echoed although its credit was returned (and, on a hub,
  // counted as lost); on a hub also until every echo credit is returned and counted
  logic tx_empty, echo_wait, disc_seen_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) disc_seen_q <= 1'b0;
    else         disc_seen_q <= peer_disc && (disc_seen_q || (tx_empty && !echo_wait));
  end

  memchan_tx_builder #(.NODES(32), .ECHO_CREDITS(EQ_DEPTH / MAX_FRAME_WORDS)) u_build (
    .clk_i, .rst_ni, .node_id_i(node_id), .loopback_i(lb_mode != LB_OFF),
    .hub_i(hub), .spoke_i(spoke), .err_reset_i(err_reset), .discarding_i(tx_disc || rx_disc),
    .peer_disc_i(peer_disc && lb_mode == LB_OFF), .peer_hub_i(peer_hub),  // loopback: ourselves
    .lc_lost_o(lc_lost), .echo_wait_o(echo_wait),
    .e_valid_i(eq_rv), .e_data_i(eq_r), .e_ready_o(eq_rr), .e_commit_i(eq_commit),
    .merge_busy_i(merge_busy), .lc_hold_o(lc_hold), .echo_rx_i(echo_rx),
    .desc_valid_i(desc_rv), .desc_i(desc_r), .desc_ready_o(desc_rr),
    .data_valid_i(data_rv), .data_i(data_r), .data_ready_o(data_rr),
    .ack_inc_i(ack_inc), .ack_src_i(ack_src), .ack_inc_ready_o(ack_inc_ready),
    .f_valid_o(f_valid), .f_data_o(f_data), .f_last_o(f_last), .f_ready_i(f_ready),
    .lc_we_o(b_lc_we), .lc_data_o(b_lc_data), .lc_room_i(lc_room),
    .r_valid_i(rs_rv), .r_data_i(rs_r), .r_ready_o(rs_rr), .r_commit_i(rs_commit),
    .resp_done_i(ev_resp_done), .req_sent_o(ev_req_sent), .req_refused_o(ev_req_refused),
    .req_addr_o(ev_req_addr));

  // ---------------- link ----------------
  logic        rx_lack, rx_lnak, lack_req, lnak_req, hb_req, ctrl_rx, sync_rx, sync_req;
  logic [7:0]  rx_seq, req_seq;
  logic [63:0] hb_hdr, ctrl_hdr, sync_hdr;
  logic        c_tx_tvalid, c_tx_tlast, c_tx_tready, c_rx_tvalid, c_rx_tlast, c_rx_tready;
  logic [63:0] c_tx_tdata, c_rx_tdata;
  // core side of the register slices: transmitter -> slice -> loopback -> slice -> receiver
  logic        t_tvalid, t_tlast, t_tready, r_tvalid, r_tlast, r_tready;
  logic [63:0] t_tdata, r_tdata;

  memchan_link_tx #(.RING_DEPTH(RING_DEPTH)) u_ltx (
    .clk_i, .rst_ni, .node_id_i(node_id), .retry_en_i(retry_en),
    .retry_limit_i(retry_limit), .ack_timeout_i(ack_timeout), .err_reset_i(err_reset),
    .f_valid_i(f_valid), .f_data_i(f_data), .f_last_i(f_last), .f_ready_o(f_ready),
    .rx_lack_i(rx_lack), .rx_lnak_i(rx_lnak), .rx_seq_i(rx_seq),
    .lack_req_i(lack_req), .lnak_req_i(lnak_req), .req_seq_i(req_seq),
    .hb_req_i(hb_req), .hb_hdr_i(hb_hdr), .sync_req_i(sync_req), .sync_hdr_i(sync_hdr),
    .m_tvalid_o(t_tvalid), .m_tdata_o(t_tdata), .m_tlast_o(t_tlast),
    .m_tready_i(t_tready),
    .discarding_o(tx_disc), .empty_o(tx_empty), .retry_o(ev_retry), .err_event_o(tx_err_event),
    .err_drop_o(tx_err_drop), .tx_pkt_o(ev_tx_pkt), .tx_len_o(ev_tx_len),
    .ackreq_sent_o(ev_ackreq), .barrier_sent_o(ev_bar_sent));

  // register slices: no combinational path from the receiver's TREADY (receive FIFO room)
  // through the loopback switch into the transmitter, and registered link ports
  memchan_skid #(.WIDTH(65)) u_tx_slice (
    .clk_i, .rst_ni,
    .s_valid_i(t_tvalid), .s_data_i({t_tlast, t_tdata}), .s_ready_o(t_tready),
    .m_valid_o(c_tx_tvalid), .m_data_o({c_tx_tlast, c_tx_tdata}), .m_ready_i(c_tx_tready));
  memchan_skid #(.WIDTH(65)) u_rx_slice (
    .clk_i, .rst_ni,
    .s_valid_i(c_rx_tvalid), .s_data_i({c_rx_tlast, c_rx_tdata}), .s_ready_o(c_rx_tready),
    .m_valid_o(r_tvalid), .m_data_o({r_tlast, r_tdata}), .m_ready_i(r_tready));

  memchan_loopback u_lb (
    .mode_i(lb_mode),
    .c_tx_tvalid_i(c_tx_tvalid), .c_tx_tdata_i(c_tx_tdata), .c_tx_tlast_i(c_tx_tlast),
    .c_tx_tready_o(c_tx_tready),
    .c_rx_tvalid_o(c_rx_tvalid), .c_rx_tdata_o(c_rx_tdata), .c_rx_tlast_o(c_rx_tlast),
    .c_rx_tready_i(c_rx_tready),
    .x_tx_tvalid_o(m_link_tvalid), .x_tx_tdata_o(m_link_tdata), .x_tx_tlast_o(m_link_tlast),
    .x_tx_tready_i(m_link_tready),
    .x_rx_tvalid_i(s_link_tvalid), .x_rx_tdata_i(s_link_tdata), .x_rx_tlast_i(s_link_tlast),
    .x_rx_tready_o(s_link_tready));

  logic        q_we, q_commit, q_drop, rxq_rv, rxq_rr, lcq_rv, lcq_rr;
  logic [63:0] q_data, rxq_r, lcq_r;
  logic [RXQ_AW:0] q_space;
  logic        q_room;
  logic [7:0]  lc_space;

  memchan_link_rx #(.FIFO_AW(RXQ_AW)) u_lrx (
    .clk_i, .rst_ni, .node_id_i(node_id), .node_valid_i(node_valid), .mcast_i(mcast),
    .retry_en_i(retry_en), .err_reset_i(err_reset), .hub_i(hub), .spoke_i(spoke),
    .s_tvalid_i(r_tvalid), .s_tdata_i(r_tdata), .s_tlast_i(r_tlast),
    .s_tready_o(r_tready),
    .q_we_o(q_we), .q_data_o(q_data), .q_commit_o(q_commit), .q_drop_o(q_drop),
    .q_room_i(q_room),
    .rx_lack_o(rx_lack), .rx_lnak_o(rx_lnak), .rx_seq_o(rx_seq),
    .lack_req_o(lack_req), .lnak_req_o(lnak_req), .req_seq_o(req_seq),
    .ctrl_o(ctrl_rx), .ctrl_hdr_o(ctrl_hdr), .sync_o(sync_rx),
    .discarding_o(rx_disc), .crc_err_o(ev_crc), .err_event_o(rx_err_event),
    .err_drop_o(rx_err_drop), .echo_rx_o(echo_rx));

  memchan_link_ctrl u_lctrl (
    .clk_i, .rst_ni, .node_id_i(node_id), .node_valid_i(node_valid), .node_auto_i(node_auto),
    .serial_i, .groups_i(mcast_groups), .disc_i(disc_ann_q), .disc_seen_i(disc_seen_q),
    .hb_period_i(hb_period),
    .ctrl_i(ctrl_rx),
    .ctrl_hdr_i(ctrl_hdr), .hb_req_o(hb_req), .hb_hdr_o(hb_hdr), .peer_seen_o(peer_seen),
    .link_up_o(link_up), .peer_node_o(peer_node), .peer_auto_o(peer_auto),
    .peer_hub_o(peer_hub), .auto_set_o(auto_set), .auto_id_o(auto_id),
    .hub_nodes_o(nodes_up), .peer_groups_o(peer_groups), .peer_disc_o(peer_disc),
    .peer_disc_seen_o(peer_disc_seen), .peer_disc_gen_o(peer_disc_gen));
  logic        unused_groups;
  assign unused_groups = ^peer_groups;
  // the generation of a hub's announcement matters to the hub only (we send it back)
  logic        unused_gen;
  assign unused_gen = peer_disc_gen;
  // the hub replicates multicast by the groups announced here (as memchan_link_rx filters)
  always_comb begin
    for (int g = 0; g < MC_MULTICAST_GROUPS; g++)
      mcast_groups[g] = node_valid && mcast[{MC_GROUP_IDX_W'(g), node_id[MC_NODE_IDX_W-1:0]}];
  end

  // ---------------- global clock ----------------
  // master: not on a hub, and the lower node ID of the two back to back (or alone: no
  // partner, no node ID, a loopback); the moments are taken at the link ports
  logic [MC_REG_W+MC_GLOBAL_TIME_HI_HIGH_W-1:0] gtime;   // GLOBAL_TIME_HI.HIGH, GLOBAL_TIME_LO
  logic        clk_valid, clk_master, clk_master_q;
  logic [MC_CLOCK_STATUS_SYNCS_W-1:0] clk_syncs;
  mc_clock_bound_t clk_bound;
  mc_clock_offset_t clk_offset;
  logic [MC_REG_W-1:0] clk_link_delay;   // CLOCK_LINK_DELAY as its word (SPREAD, MIN)
  mc_clock_sync_interval_t clk_interval;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) clk_master_q <= 1'b1;
    else         clk_master_q <= !peer_hub && (!peer_seen || !node_valid || lb_mode != LB_OFF ||
                                               node_id < peer_node);
  end
  assign clk_master = clk_master_q;

  memchan_global_clock #(.SYNC(CLOCK_SYNC)) u_clock (
    .clk_i, .rst_ni, .master_i(clk_master), .send_i(clk_master && link_up && lb_mode == LB_OFF),
    .interval_i(clk_interval), .link_delay_i(clk_link_delay),
    .sync_i(sync_rx), .sync_hdr_i(ctrl_hdr),
    .rx_tvalid_i(s_link_tvalid), .rx_tready_i(s_link_tready), .rx_tlast_i(s_link_tlast),
    .rx_tdata_i(s_link_tdata[6:0]),
    .tx_tvalid_i(m_link_tvalid), .tx_tready_i(m_link_tready), .tx_tlast_i(m_link_tlast),
    .tx_tdata_i(m_link_tdata[6:0]),
    .sync_req_o(sync_req), .sync_hdr_o(sync_hdr), .time_o(gtime), .valid_o(clk_valid),
    .bound_o(clk_bound), .offset_o(clk_offset), .syncs_o(clk_syncs));

  // ---------------- receive path ----------------
  memchan_fifo #(.WIDTH(64), .DEPTH(RXQ_DEPTH), .ROOM(MAX_FRAME_WORDS)) u_rxq (
    .clk_i, .rst_ni, .wr_valid_i(q_we), .wr_data_i(q_data), .wr_commit_i(q_commit),
    .wr_drop_i(q_drop), .wr_space_o(q_space), .wr_room_o(q_room),
    .rd_valid_o(rxq_rv), .rd_data_o(rxq_r), .rd_ready_i(rxq_rr));
  memchan_fifo #(.WIDTH(64), .DEPTH(128), .ROOM(MAX_FRAME_WORDS)) u_lcq (
    .clk_i, .rst_ni, .wr_valid_i(lc_we), .wr_data_i(lc_data), .wr_commit_i(1'b1),
    .wr_drop_i(1'b0), .wr_space_o(lc_space), .wr_room_o(lc_room),
    .rd_valid_o(lcq_rv), .rd_data_o(lcq_r), .rd_ready_i(lcq_rr));

  // node 0 of the virtual hub delivers received frames through the local-copy FIFO
  logic [1:0] src_ready;
  logic       m_rxq_rr;
  assign rxq_rr = hub ? m_rxq_rr : src_ready[0];
  assign lcq_rr = src_ready[1];

  memchan_vhub_merge u_merge (
    .clk_i, .rst_ni, .hub_i(hub),
    .q_valid_i(rxq_rv), .q_data_i(rxq_r), .q_ready_o(m_rxq_rr),
    .lc_hold_i(lc_hold), .lc_room_i(lc_room), .lc_we_o(m_lc_we), .lc_data_o(m_lc_data),
    .busy_o(merge_busy),
    .e_room_i(eq_room), .e_we_o(eq_we), .e_data_o(eq_w), .e_commit_o(eq_commit));
  memchan_fifo #(.WIDTH(64), .DEPTH(EQ_DEPTH), .ROOM(MAX_FRAME_WORDS)) u_echoq (
    .clk_i, .rst_ni, .wr_valid_i(eq_we), .wr_data_i(eq_w), .wr_commit_i(eq_commit),
    .wr_drop_i(1'b0), .wr_space_o(eq_space), .wr_room_o(eq_room),
    .rd_valid_o(eq_rv), .rd_data_o(eq_r), .rd_ready_i(eq_rr));
  // the builder and the merge never write in the same cycle (lc_hold / merge_busy)
  assign lc_we   = b_lc_we || m_lc_we;
  assign lc_data = m_lc_we ? m_lc_data : b_lc_data;

  // responses of this home, committed whole: room for 2 * REQ_CREDITS maximum frames, so
  // that the requests a peer and this node (loopback) may have outstanding always find room
  memchan_fifo #(.WIDTH(64), .DEPTH(512), .ROOM(MAX_FRAME_WORDS)) u_respq (
    .clk_i, .rst_ni, .wr_valid_i(rs_we), .wr_data_i(rs_w), .wr_commit_i(rs_commit),
    .wr_drop_i(rs_drop), .wr_space_o(rs_space), .wr_room_o(rs_room),
    .rd_valid_o(rs_rv), .rd_data_o(rs_r), .rd_ready_i(rs_rr));

  memchan_rx_deliver #(.PAGES(PAGES), .PAGE_SIZE(PAGE_SIZE), .SERIALIZE(SERIALIZE)) u_dlv (
    .clk_i, .rst_ni, .enable_i(enable), .node_id_i(node_id), .rx_base_i(rx_base),
    .src_valid_i({lcq_rv, rxq_rv && !hub}), .src_data_i({lcq_r, rxq_r}), .src_ready_o(src_ready),
    .pct_re_o(rxp_b_en), .pct_addr_o(rxp_b_addr), .pct_rdata_i(rxp_b_rdata),
    .m_awaddr_o(m_axi_awaddr), .m_awlen_o(m_axi_awlen), .m_awsize_o(m_axi_awsize),
    .m_awburst_o(m_axi_awburst), .m_awvalid_o(m_axi_awvalid), .m_awready_i(m_axi_awready),
    .m_wdata_o(m_axi_wdata), .m_wstrb_o(m_axi_wstrb), .m_wlast_o(m_axi_wlast),
    .m_wvalid_o(m_axi_wvalid), .m_wready_i(m_axi_wready), .m_bresp_i(m_axi_bresp),
    .m_bvalid_i(m_axi_bvalid), .m_bready_o(m_axi_bready),
    .m_araddr_o(m_axi_araddr), .m_arlen_o(m_axi_arlen), .m_arsize_o(m_axi_arsize),
    .m_arburst_o(m_axi_arburst), .m_arvalid_o(m_axi_arvalid), .m_arready_i(m_axi_arready),
    .m_rdata_i(m_axi_rdata), .m_rresp_i(m_axi_rresp), .m_rlast_i(m_axi_rlast),
    .m_rvalid_i(m_axi_rvalid), .m_rready_o(m_axi_rready),
    .r_we_o(rs_we), .r_data_o(rs_w), .r_commit_o(rs_commit), .r_drop_o(rs_drop),
    .r_room_i(rs_room),
    .resp_done_o(ev_resp_done), .resp_err_o(ev_resp_err), .resp_addr_o(ev_resp_addr),
    .resp_val_o(ev_resp_val),
    .refused_o(ev_home_refused), .served_o(served), .served_atomic_o(served_atomic),
    .served_page_o(served_page), .served_cnt_irq_o(served_cnt_irq),
    .ack_inc_o(ack_inc), .ack_src_o(ack_src), .ack_inc_ready_i(ack_inc_ready),
    .ack_rcv_o(ev_ack_rcv), .ack_cnt_o(ev_ack_cnt), .notify_o(ev_notify),
    .notify_page_o(ev_notify_page), .rx_pkt_o(ev_rx_pkt), .rx_bytes_o(ev_rx_bytes),
    .drop_disabled_o(ev_rx_dd), .bus_err_o(ev_bus_err));

  // exact free counts are not used: the writers take the registered room flags
  logic unused_space;
  assign unused_space = ^{data_space, desc_space, q_space, lc_space, eq_space, rs_space};
endmodule : memchan_top

`default_nettype wire
