// BAR0 register block: AXI4-Lite slave with the registers of regmap/memchan.toml and the transmit /
// receive PCT windows at MC_TX_PCT_BASE / MC_RX_PCT_BASE (block RAM port A). Writes must be full
// 32-bit words. The registers' storage, reset values and address decode are generated
// (memchan_reg_top); this module adds the AXI4-Lite handshake, the PCT windows and what hardware
// does with the registers: counters, status, interrupts, the barrier and autoconfiguration.
`default_nettype none

module memchan_axil_regs #(
  parameter int unsigned PAGES     = memchan_regs_pkg::MC_BOARD_PAGES,
  parameter int unsigned PAGE_SIZE = memchan_regs_pkg::MC_BOARD_PAGE_SIZE,
  parameter int unsigned BUILD_GIT  = 0,   // the build's stamp: BUILD_GIT, BUILD_TIME read it
  parameter int unsigned BUILD_TIME = 0,
  localparam int unsigned PG_W = $clog2(PAGES)
) (
  input  wire logic          clk_i,
  input  wire logic          rst_ni,
  // AXI4-Lite slave
  input  wire logic [memchan_regs_pkg::MC_BAR0_AW-1:0] s_awaddr_i,
  input  wire logic          s_awvalid_i,
  output logic               s_awready_o,
  input  wire logic [memchan_regs_pkg::MC_REG_W-1:0] s_wdata_i,
  input  wire logic [memchan_regs_pkg::MC_REG_W/8-1:0] s_wstrb_i,
  input  wire logic          s_wvalid_i,
  output logic               s_wready_o,
  output logic [1:0]         s_bresp_o,
  output logic               s_bvalid_o,
  input  wire logic          s_bready_i,
  input  wire logic [memchan_regs_pkg::MC_BAR0_AW-1:0] s_araddr_i,
  input  wire logic          s_arvalid_i,
  output logic               s_arready_o,
  output logic [memchan_regs_pkg::MC_REG_W-1:0] s_rdata_o,
  output logic [1:0]         s_rresp_o,
  output logic               s_rvalid_o,
  input  wire logic          s_rready_i,
  // PCT RAM port A
  output logic               txp_en_o,
  output logic               txp_we_o,
  output logic [PG_W-1:0]    txp_addr_o,
  output logic [8*memchan_regs_pkg::MC_TX_PCT_ENTRY_SIZE-1:0] txp_wdata_o,
  input  wire logic [8*memchan_regs_pkg::MC_TX_PCT_ENTRY_SIZE-1:0] txp_rdata_i,
  output logic               rxp_en_o,
  output logic [8*memchan_regs_pkg::MC_RX_PCT_ENTRY_SIZE/memchan_regs_pkg::MC_REG_W-1:0] rxp_we_o,  // per word, low first
  output logic [PG_W-1:0]    rxp_addr_o,
  output logic [memchan_regs_pkg::MC_REG_W-1:0] rxp_wdata_o,
  input  wire logic [8*memchan_regs_pkg::MC_RX_PCT_ENTRY_SIZE-1:0] rxp_rdata_i,
  // configuration
  output logic [memchan_regs_pkg::MC_NODE_ID_ID_W-1:0] node_id_o,
  output logic               node_valid_o,
  output logic               node_auto_o,
  output logic               enable_o,
  output logic               retry_en_o,
  output logic               err_reset_o,
  output logic [memchan_regs_pkg::MC_LOOPBACK_MODE_W-1:0] loopback_o,
  output logic [2*memchan_regs_pkg::MC_REG_W-1:0] rx_base_o,
  output logic [memchan_regs_pkg::MC_LINK_RETRY_LIMIT_LIMIT_W-1:0] retry_limit_o,
  output memchan_regs_pkg::mc_link_ack_timeout_t ack_timeout_o,
  output memchan_regs_pkg::mc_heartbeat_period_t hb_period_o,
  output logic [memchan_regs_pkg::MC_TX_COMBINE_IDLE_CYCLES_W-1:0] combine_idle_o,
  output logic [2*memchan_regs_pkg::MC_REG_W-1:0] cas_cmp_o,      // staged compare operand (REMOTE_CAS_CMP_LO/HI)
  output logic [memchan_regs_pkg::MC_REG_W-1:0] cas_page_o,      // REMOTE_CAS_PAGE (PAGE, ARM)
  output logic [memchan_regs_pkg::MC_MCAST_GROUP_BASE_COUNT*memchan_regs_pkg::MC_REG_W-1:0] mcast_o,
  output logic               barrier_req_o,
  // status
  input  wire logic          link_up_i,
  input  wire logic          peer_seen_i,
  input  wire logic          discarding_i,
  input  wire logic [memchan_regs_pkg::MC_LINK_STATUS_PEER_NODE_W-1:0] peer_node_i,
  input  wire memchan_regs_pkg::mc_nodes_up_t nodes_up_i,    // NODES_UP: the hub's live nodes
  input  wire logic          auto_set_i,
  input  wire logic [memchan_regs_pkg::MC_NODE_ID_ID_W-1:0] auto_id_i,
  // events
  input  wire logic          ev_tx_pkt_i,
  input  wire logic [5:0]    ev_tx_len_i,
  input  wire logic          ev_rx_pkt_i,
  input  wire logic [8:0]    ev_rx_bytes_i,
  input  wire logic          ev_tx_drop_dis_i,
  input  wire logic          ev_tx_drop_part_i,
  input  wire logic          ev_rx_drop_dis_i,
  input  wire logic          ev_crc_err_i,
  input  wire logic          ev_retry_i,
  input  wire logic [5:0]    ev_err_i,      // ERROR_COUNT events (one bit each, summed here)
  input  wire logic          ev_ack_rcv_i,
  input  wire logic [7:0]    ev_ack_cnt_i,
  input  wire logic          ev_ackreq_sent_i,
  input  wire logic          ev_barrier_sent_i,
  input  wire logic          ev_notify_i,
  input  wire memchan_regs_pkg::mc_rx_notify_page_t ev_notify_page_i,
  // remote read and atomics: requester (sent, completed, refused here) and home (refused)
  input  wire logic          ev_req_sent_i,
  input  wire logic          ev_resp_done_i,
  input  wire logic          ev_resp_err_i,
  input  wire logic [25:0]   ev_resp_addr_i,
  input  wire logic [2*memchan_regs_pkg::MC_REG_W-1:0] ev_resp_val_i,
  input  wire logic          ev_req_refused_i,
  input  wire logic [25:0]   ev_req_addr_i,
  input  wire logic          ev_home_refused_i,
  // page access counters (memchan_page_cnt): selected page, its counts, writes, hot page
  output logic [PG_W-1:0]    cnt_sel_o,
  input  wire memchan_regs_pkg::mc_page_cnt_reads_t cnt_reads_i,
  input  wire memchan_regs_pkg::mc_page_cnt_atomics_t cnt_atomics_i,
  output logic               cnt_wr_reads_o,
  output logic               cnt_wr_atomics_o,
  output logic [memchan_regs_pkg::MC_REG_W-1:0] cnt_wdata_o,
  output memchan_regs_pkg::mc_page_cnt_threshold_t cnt_threshold_o,
  input  wire logic          ev_hot_i,
  input  wire logic [PG_W-1:0] ev_hot_page_i,
  // global clock (memchan_global_clock)
  input  wire logic [memchan_regs_pkg::MC_REG_W+memchan_regs_pkg::MC_GLOBAL_TIME_HI_HIGH_W-1:0] gtime_i,
  input  wire logic          clk_valid_i,
  input  wire logic          clk_master_i,
  input  wire logic [memchan_regs_pkg::MC_CLOCK_STATUS_SYNCS_W-1:0] clk_syncs_i,
  input  wire memchan_regs_pkg::mc_clock_bound_t clk_bound_i,
  input  wire memchan_regs_pkg::mc_clock_offset_t clk_offset_i,
  output logic [memchan_regs_pkg::MC_REG_W-1:0] clk_link_delay_o,
  output memchan_regs_pkg::mc_clock_sync_interval_t clk_interval_o,
  output logic [memchan_regs_pkg::MC_IRQ_STATUS_W-1:0] irq_o   // IRQ_STATUS & IRQ_MASK, toward MSI-X
);
  import memchan_regs_pkg::*;

  if (PAGES < 8 || PAGES > MC_MAX_PAGES || (1 << PG_W) != PAGES) begin : g_check_pages
    $error("memchan_axil_regs: PAGES must be a power of two in 8..MC_MAX_PAGES");
  end

  // ---------------- AXI4-Lite handshake and the PCT windows ----------------
  logic wr, rd;
  logic rd_busy_q, rd2_q;     // read pipeline stages 2 and 3
  logic w_tx, w_rx;

  assign rd = s_arvalid_i && !rd_busy_q && !rd2_q && !s_rvalid_o;
  assign wr = s_awvalid_i && s_wvalid_i && !s_bvalid_o && !rd;
  assign s_arready_o = rd;
  assign s_awready_o = wr;
  assign s_wready_o  = wr;
  assign s_bresp_o   = '0;
  assign s_rresp_o   = '0;

  function automatic logic in_tx(input logic [MC_BAR0_AW-1:0] a);
    in_tx = (MC_REG_W'(a) >= MC_TX_PCT_BASE) && (MC_REG_W'(a) < MC_TX_PCT_BASE + MC_TX_PCT_ENTRY_SIZE * PAGES);
  endfunction
  function automatic logic in_rx(input logic [MC_BAR0_AW-1:0] a);
    in_rx = (MC_REG_W'(a) >= MC_RX_PCT_BASE) && (MC_REG_W'(a) < MC_RX_PCT_BASE + MC_RX_PCT_ENTRY_SIZE * PAGES);
  endfunction
  // the word of a receive PCT entry an address names: its high word or its low word
  localparam int unsigned WORD_SHIFT = $clog2(MC_REG_W / 8);
  function automatic logic rx_hi(input logic [MC_BAR0_AW-1:0] a);
    rx_hi = a[WORD_SHIFT];
  endfunction

  assign w_tx = wr && in_tx(s_awaddr_i);
  assign w_rx = wr && in_rx(s_awaddr_i);

  // PCT port A: a read issues on AR, a write on AW+W
  assign txp_en_o    = w_tx || (rd && in_tx(s_araddr_i));
  assign txp_we_o    = w_tx;
  assign txp_addr_o  = PG_W'((wr ? s_awaddr_i : s_araddr_i) >> $clog2(MC_TX_PCT_ENTRY_SIZE));
  assign txp_wdata_o = s_wdata_i & MC_TX_PCT_VALID_MASK;
  assign rxp_en_o    = w_rx || (rd && in_rx(s_araddr_i));
  assign rxp_we_o    = {w_rx && rx_hi(s_awaddr_i), w_rx && !rx_hi(s_awaddr_i)};
  assign rxp_addr_o  = PG_W'((wr ? s_awaddr_i : s_araddr_i) >> $clog2(MC_RX_PCT_ENTRY_SIZE));
  assign rxp_wdata_o = s_wdata_i & (rx_hi(s_awaddr_i) ? MC_RX_PCT_VALID_MASK[2*MC_REG_W-1:MC_REG_W]
                                                      : MC_RX_PCT_VALID_MASK[MC_REG_W-1:0]);

  // ---------------- the registers (generated) ----------------
  mc_node_id_t            node_id, node_id_d;
  mc_ctrl_t               ctrl;
  mc_loopback_t           loopback;
  mc_link_status_t        lstat, lstat_q;
  mc_irq_status_t         irqs, irq_set;
  mc_irq_mask_t           irqm;
  mc_barrier_t            barrier, bar_status;
  mc_rx_base_lo_t         rx_base_lo;
  mc_rx_base_hi_t         rx_base_hi;
  mc_link_retry_limit_t   retry_limit;
  mc_tx_combine_idle_t    combine_idle;
  mc_remote_cas_cmp_lo_t  cas_cmp_lo;
  mc_remote_cas_cmp_hi_t  cas_cmp_hi;
  mc_remote_cas_page_t    cas_page;
  mc_page_cnt_sel_t       cnt_sel;
  mc_clock_status_t       clock_status;
  mc_clock_link_delay_t   clk_link_delay;
  mc_global_time_hi_t     gthi_q;          // GLOBAL_TIME_HI, latched by a read of GLOBAL_TIME_LO
  logic                   gtime_lo_read;
  mc_nodes_up_t           nodes_up_q;
  mc_ack_outstanding_t    ackout_q;
  mc_rx_notify_page_t     npage_q;
  mc_notify_count_t       ncount_q;
  mc_tx_packets_t         txp_q;
  mc_tx_bytes_t           txb_q;
  mc_rx_packets_t         rxp_q;
  mc_rx_bytes_t           rxb_q;
  mc_tx_drop_disabled_t   txdd_q;
  mc_rx_drop_disabled_t   rxdd_q;
  mc_crc_errors_t         crc_q;
  mc_link_retries_t       rtr_q;
  mc_error_count_t        err_q;
  mc_acks_received_t      acks_q;
  mc_tx_drop_partial_t    txdp_q;
  mc_remote_outstanding_t rout_q;
  mc_remote_done_t        rdone_q;
  mc_remote_errors_t      rerr_q;
  mc_remote_err_addr_t    rerr_addr_q;
  mc_remote_refused_t     rref_q;
  mc_page_hot_t           hot_q;
  logic [2*MC_REG_W-1:0]  rlast_q;         // REMOTE_LAST_HI, REMOTE_LAST_LO
  logic [MC_REG_W-1:0]    rdata;

  memchan_reg_top #(.PAGES(PAGES), .PAGE_SIZE(PAGE_SIZE), .BUILD_GIT(BUILD_GIT), .BUILD_TIME(BUILD_TIME)) u_top (
    .clk_i, .rst_ni,
    .wr_i(wr), .waddr_i(s_awaddr_i), .wdata_i(s_wdata_i),
    .rd_i(rd), .raddr_i(s_araddr_i), .rdata_o(rdata),
    .node_id_o(node_id), .node_id_de_i(auto_set_i), .node_id_d_i(node_id_d),
    .ctrl_o(ctrl), .loopback_o(loopback), .link_status_i(lstat),
    .irq_status_o(irqs), .irq_status_set_i(irq_set), .irq_mask_o(irqm),
    .barrier_o(barrier), .barrier_i(bar_status),
    .ack_outstanding_i(ackout_q), .rx_notify_page_i(npage_q), .notify_count_i(ncount_q),
    .nodes_up_i(nodes_up_i),
    .tx_packets_i(txp_q), .tx_bytes_i(txb_q), .rx_packets_i(rxp_q), .rx_bytes_i(rxb_q),
    .tx_drop_disabled_i(txdd_q), .rx_drop_disabled_i(rxdd_q), .crc_errors_i(crc_q),
    .link_retries_i(rtr_q), .error_count_i(err_q), .acks_received_i(acks_q),
    .tx_drop_partial_i(txdp_q), .remote_outstanding_i(rout_q), .remote_done_i(rdone_q),
    .remote_errors_i(rerr_q), .remote_err_addr_i(rerr_addr_q), .remote_refused_i(rref_q),
    .rx_base_lo_o(rx_base_lo), .rx_base_hi_o(rx_base_hi), .link_retry_limit_o(retry_limit),
    .link_ack_timeout_o(ack_timeout_o), .heartbeat_period_o(hb_period_o),
    .tx_combine_idle_o(combine_idle), .remote_cas_cmp_lo_o(cas_cmp_lo),
    .remote_cas_cmp_hi_o(cas_cmp_hi), .remote_cas_page_o(cas_page),
    .page_cnt_sel_o(cnt_sel), .page_cnt_reads_we_o(cnt_wr_reads_o), .page_cnt_reads_i(cnt_reads_i),
    .page_cnt_atomics_we_o(cnt_wr_atomics_o), .page_cnt_atomics_i(cnt_atomics_i),
    .page_cnt_threshold_o(cnt_threshold_o), .page_hot_i(hot_q),
    .remote_last_lo_i(rlast_q[MC_REG_W-1:0]), .remote_last_hi_i(rlast_q[2*MC_REG_W-1:MC_REG_W]),
    .mcast_group_base_o(mcast_o),
    .global_time_lo_i(gtime_i[MC_REG_W-1:0]), .global_time_lo_re_o(gtime_lo_read),
    .global_time_hi_i(gthi_q), .clock_status_i(clock_status), .clock_bound_i(clk_bound_i),
    .clock_offset_i(clk_offset_i), .clock_link_delay_o(clk_link_delay),
    .clock_sync_interval_o(clk_interval_o));

  // ---------------- outputs ----------------
  assign node_id_o      = node_id.id;
  assign node_valid_o   = node_id.valid;
  assign node_auto_o    = node_id.auto_;
  assign enable_o       = ctrl.enable;
  assign retry_en_o     = ctrl.retry_en;
  assign err_reset_o    = ctrl.err_reset;
  assign barrier_req_o  = barrier.start;
  assign loopback_o     = loopback.mode;
  assign rx_base_o      = {rx_base_hi, rx_base_lo};
  assign retry_limit_o  = retry_limit.limit;
  assign combine_idle_o = combine_idle.cycles;
  assign cas_cmp_o      = {cas_cmp_hi, cas_cmp_lo};
  assign cas_page_o     = mc_remote_cas_page_word(cas_page);
  assign cnt_sel_o      = PG_W'(cnt_sel.page);
  assign cnt_wdata_o    = s_wdata_i;
  assign clk_link_delay_o = clk_link_delay;
  assign irq_o          = irqs & irqm;

  // autoconfiguration: the link's ID, valid; AUTO stays
  always_comb begin
    node_id_d = node_id;
    node_id_d.id = auto_id_i;
    node_id_d.valid = 1'b1;
  end

  always_comb begin
    lstat = '0;
    lstat.up         = link_up_i;
    lstat.peer_seen  = peer_seen_i;
    lstat.discarding = discarding_i;
    lstat.peer_node  = peer_node_i;
    clock_status = '0;
    clock_status.valid  = clk_valid_i;
    clock_status.master = clk_master_i;
    clock_status.syncs  = clk_syncs_i;
  end

  // event inputs are registered first (counters, IRQ and barrier state one cycle later), so
  // that the producers' logic does not continue into the 32-bit counter adders
  logic [$bits(ev_ack_cnt_i)-1:0] ev_ack_cnt_q;
  logic ev_ack_rcv_q, ev_ackreq_sent_q, ev_barrier_sent_q, ev_crc_err_q, ev_notify_q,
        ev_retry_q, ev_rx_drop_dis_q, ev_rx_pkt_q, ev_tx_drop_dis_q, ev_tx_drop_part_q,
        ev_tx_pkt_q;
  logic [5:0] ev_err_q;      // each event registered, summed after the register
  logic [2:0] ev_err_n;      // number of ERROR_COUNT events of the registered cycle
  assign ev_err_n = 3'(ev_err_q[0]) + 3'(ev_err_q[1]) + 3'(ev_err_q[2]) + 3'(ev_err_q[3]) +
                    3'(ev_err_q[4]) + 3'(ev_err_q[5]);
  mc_rx_notify_page_t ev_notify_page_q;
  logic [$bits(ev_rx_bytes_i)-1:0] ev_rx_bytes_q;
  logic ev_req_sent_q, ev_resp_done_q, ev_resp_err_q, ev_req_refused_q, ev_home_refused_q,
        ev_hot_q;
  logic [$bits(ev_resp_addr_i)-1:0] ev_resp_addr_q, ev_req_addr_q;
  logic [$bits(ev_resp_val_i)-1:0] ev_resp_val_q;
  logic [PG_W-1:0] ev_hot_page_q;
  logic [$bits(ev_tx_len_i)-1:0] ev_tx_len_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ev_ack_cnt_q <= '0; ev_ack_rcv_q <= '0; ev_ackreq_sent_q <= '0; ev_barrier_sent_q <= '0;
      ev_crc_err_q <= '0; ev_err_q <= '0; ev_notify_q <= '0; ev_notify_page_q <= '0;
      ev_retry_q <= '0; ev_rx_bytes_q <= '0; ev_rx_drop_dis_q <= '0; ev_rx_pkt_q <= '0;
      ev_tx_drop_dis_q <= '0; ev_tx_drop_part_q <= '0; ev_tx_len_q <= '0; ev_tx_pkt_q <= '0;
      ev_req_sent_q <= '0; ev_resp_done_q <= '0; ev_resp_err_q <= '0; ev_req_refused_q <= '0;
      ev_home_refused_q <= '0; ev_hot_q <= '0; ev_resp_addr_q <= '0; ev_req_addr_q <= '0;
      ev_hot_page_q <= '0; ev_resp_val_q <= '0;
    end else begin
      ev_resp_val_q <= ev_resp_val_i;
      ev_req_sent_q <= ev_req_sent_i;
      ev_resp_done_q <= ev_resp_done_i;
      ev_resp_err_q <= ev_resp_done_i && ev_resp_err_i;
      ev_resp_addr_q <= ev_resp_addr_i;
      ev_req_refused_q <= ev_req_refused_i;
      ev_req_addr_q <= ev_req_addr_i;
      ev_home_refused_q <= ev_home_refused_i;
      ev_hot_q <= ev_hot_i;
      ev_hot_page_q <= ev_hot_page_i;
      ev_ack_cnt_q <= ev_ack_cnt_i;
      ev_ack_rcv_q <= ev_ack_rcv_i;
      ev_ackreq_sent_q <= ev_ackreq_sent_i;
      ev_barrier_sent_q <= ev_barrier_sent_i;
      ev_crc_err_q <= ev_crc_err_i;
      ev_err_q <= ev_err_i;
      ev_notify_q <= ev_notify_i;
      ev_notify_page_q <= ev_notify_page_i;
      ev_retry_q <= ev_retry_i;
      ev_rx_bytes_q <= ev_rx_bytes_i;
      ev_rx_drop_dis_q <= ev_rx_drop_dis_i;
      ev_rx_pkt_q <= ev_rx_pkt_i;
      ev_tx_drop_dis_q <= ev_tx_drop_dis_i;
      ev_tx_drop_part_q <= ev_tx_drop_part_i;
      ev_tx_len_q <= ev_tx_len_i;
      ev_tx_pkt_q <= ev_tx_pkt_i;
    end
  end

  // ---------------- hardware's side of the registers ----------------
  // acknowledgements received (never below zero)
  mc_ack_outstanding_t ack_sub;
  always_comb begin
    ack_sub = ev_ack_rcv_q ? MC_REG_W'(ev_ack_cnt_q) : '0;
    if (ack_sub > ackout_q + MC_REG_W'(ev_ackreq_sent_q)) ack_sub = ackout_q + MC_REG_W'(ev_ackreq_sent_q);
  end

  logic bar_busy_q, bar_done_q, bar_sent_q, bar_done_now;
  assign bar_done_now = bar_busy_q && bar_sent_q && (ackout_q == '0) && !barrier.start;
  always_comb begin
    bar_status = '0;
    bar_status.busy = bar_busy_q;
    bar_status.done = bar_done_q;
    irq_set = '0;
    irq_set.rx_notify    = ev_notify_q;
    irq_set.link_change  = (lstat != lstat_q) || (nodes_up_i != nodes_up_q);
    irq_set.error        = (ev_err_q != '0);
    irq_set.barrier_done = bar_done_now;
    irq_set.page_hot     = ev_hot_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bar_busy_q <= 1'b0; bar_done_q <= 1'b0; bar_sent_q <= 1'b0;
      ackout_q <= MC_REG_ACK_OUTSTANDING_RESET; npage_q <= MC_REG_RX_NOTIFY_PAGE_RESET;
      ncount_q <= MC_REG_NOTIFY_COUNT_RESET;
      txp_q <= MC_REG_TX_PACKETS_RESET; txb_q <= MC_REG_TX_BYTES_RESET;
      rxp_q <= MC_REG_RX_PACKETS_RESET; rxb_q <= MC_REG_RX_BYTES_RESET;
      txdd_q <= MC_REG_TX_DROP_DISABLED_RESET; rxdd_q <= MC_REG_RX_DROP_DISABLED_RESET;
      crc_q <= MC_REG_CRC_ERRORS_RESET; rtr_q <= MC_REG_LINK_RETRIES_RESET;
      err_q <= MC_REG_ERROR_COUNT_RESET; acks_q <= MC_REG_ACKS_RECEIVED_RESET;
      txdp_q <= MC_REG_TX_DROP_PARTIAL_RESET; lstat_q <= '0;
      nodes_up_q <= MC_REG_NODES_UP_RESET;
      rout_q <= MC_REG_REMOTE_OUTSTANDING_RESET; rlast_q <= '0; rdone_q <= MC_REG_REMOTE_DONE_RESET;
      rerr_q <= MC_REG_REMOTE_ERRORS_RESET; rerr_addr_q <= MC_REG_REMOTE_ERR_ADDR_RESET;
      rref_q <= MC_REG_REMOTE_REFUSED_RESET; hot_q <= MC_REG_PAGE_HOT_RESET;
    end else begin
      // remote requests: completion at the requester (a request refused here completes at
      // once, failed), refusals at the home; ERR_RESET forgets responses that never come
      if (ctrl.err_reset) rout_q <= '0;
      else rout_q <= rout_q + MC_REG_W'(ev_req_sent_q) - MC_REG_W'(ev_resp_done_q && rout_q != '0);
      rdone_q <= rdone_q + MC_REG_W'(ev_resp_done_q) + MC_REG_W'(ev_req_refused_q);
      rerr_q  <= rerr_q + MC_REG_W'(ev_resp_err_q) + MC_REG_W'(ev_req_refused_q);
      // the failed request's network byte address, from its word address
      if (ev_req_refused_q) rerr_addr_q <= MC_REG_W'(ev_req_addr_q) << WORD_SHIFT;
      else if (ev_resp_err_q) rerr_addr_q <= MC_REG_W'(ev_resp_addr_q) << WORD_SHIFT;
      rref_q <= rref_q + MC_REG_W'(ev_home_refused_q);
      if (ev_resp_done_q && !ev_resp_err_q) rlast_q <= ev_resp_val_q;
      if (ev_hot_q) hot_q <= MC_REG_W'(ev_hot_page_q);
      lstat_q <= lstat;
      nodes_up_q <= nodes_up_i;
      // counters (CNT_CLEAR clears all but ERROR_COUNT)
      if (ctrl.cnt_clear) begin
        txp_q <= '0; txb_q <= '0; rxp_q <= '0; rxb_q <= '0; txdd_q <= '0; rxdd_q <= '0;
        crc_q <= '0; rtr_q <= '0; acks_q <= '0; txdp_q <= '0;
      end else begin
        txp_q  <= txp_q  + MC_REG_W'(ev_tx_pkt_q);
        // a packet's length field counts its words beyond the first
        txb_q  <= txb_q  + (ev_tx_pkt_q ? (MC_REG_W'(ev_tx_len_q) << WORD_SHIFT) + (1 << WORD_SHIFT) : '0);
        rxp_q  <= rxp_q  + MC_REG_W'(ev_rx_pkt_q);
        rxb_q  <= rxb_q  + (ev_rx_pkt_q ? MC_REG_W'(ev_rx_bytes_q) : '0);
        txdd_q <= txdd_q + MC_REG_W'(ev_tx_drop_dis_q);
        txdp_q <= txdp_q + MC_REG_W'(ev_tx_drop_part_q);
        rxdd_q <= rxdd_q + MC_REG_W'(ev_rx_drop_dis_q);
        crc_q  <= crc_q  + MC_REG_W'(ev_crc_err_q);
        rtr_q  <= rtr_q  + MC_REG_W'(ev_retry_q);
        acks_q <= acks_q + MC_REG_W'(ev_ack_rcv_q);
      end
      err_q <= err_q + MC_REG_W'(ev_err_n);
      // acknowledge bookkeeping and barrier
      if (ctrl.err_reset) ackout_q <= '0;
      else ackout_q <= ackout_q + MC_REG_W'(ev_ackreq_sent_q) - ack_sub;
      if (barrier.start) begin
        bar_busy_q <= 1'b1; bar_done_q <= 1'b0; bar_sent_q <= 1'b0;
      end else begin
        if (ev_barrier_sent_q) bar_sent_q <= 1'b1;
        if (bar_done_now) begin bar_busy_q <= 1'b0; bar_done_q <= 1'b1; end
      end
      if (ev_notify_q) begin
        npage_q  <= ev_notify_page_q;
        ncount_q <= ncount_q + 1'b1;
      end
    end
  end

  // ---------------- read channel ----------------
  // Three cycles (AXI4-Lite lets RVALID come any number of cycles after AR): the AR cycle
  // decodes the address into a register index (in memchan_reg_top) and starts the PCT block RAM
  // read; the next cycle selects the register (memchan_reg_top's multiplexer) and the RAM word
  // into registers; the third puts one of the two on RDATA.
  logic r_tx_q, r_rx_q, r_hi_q, r_ram_q;
  logic [MC_REG_W-1:0] rreg_q, rram_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_busy_q  <= 1'b0;
      rd2_q      <= 1'b0;
      r_tx_q     <= 1'b0;
      r_rx_q     <= 1'b0;
      r_hi_q     <= 1'b0;
      r_ram_q    <= 1'b0;
      gthi_q     <= '0;
      rreg_q     <= '0;
      rram_q     <= '0;
      s_rvalid_o <= 1'b0;
      s_rdata_o  <= '0;
      s_bvalid_o <= 1'b0;
    end else begin
      if (wr) s_bvalid_o <= 1'b1;
      else if (s_bready_i) s_bvalid_o <= 1'b0;
      rd_busy_q <= rd;
      rd2_q     <= rd_busy_q;
      if (rd) begin
        r_tx_q <= in_tx(s_araddr_i);
        r_rx_q <= in_rx(s_araddr_i);
        r_hi_q <= rx_hi(s_araddr_i);
      end
      if (rd_busy_q) begin
        rreg_q  <= rdata;
        rram_q  <= r_tx_q ? txp_rdata_i : r_hi_q ? rxp_rdata_i[2*MC_REG_W-1:MC_REG_W] : rxp_rdata_i[MC_REG_W-1:0];
        r_ram_q <= r_tx_q || r_rx_q;
      end
      if (gtime_lo_read) gthi_q <= gtime_i[$bits(gtime_i)-1:MC_REG_W];
      if (rd2_q) begin
        s_rvalid_o <= 1'b1;
        s_rdata_o  <= r_ram_q ? rram_q : rreg_q;
      end else if (s_rready_i) begin
        s_rvalid_o <= 1'b0;
      end
    end
  end

  logic unused;
  assign unused = ^{s_wstrb_i, barrier.busy, barrier.done};
endmodule : memchan_axil_regs

`default_nettype wire
