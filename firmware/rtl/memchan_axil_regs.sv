// BAR0 register block: AXI4-Lite slave with the registers of regmap/memchan.toml
// (offsets and fields from memchan_regs_pkg) and the transmit / receive PCT windows at
// MC_TX_PCT_BASE / MC_RX_PCT_BASE (block RAM port A). Writes must be full 32-bit words.
`default_nettype none

module memchan_axil_regs #(
  parameter int unsigned PAGES     = 1024,
  parameter int unsigned PAGE_SIZE = 4096,
  localparam int unsigned PG_W = $clog2(PAGES)
) (
  input  wire logic          clk_i,
  input  wire logic          rst_ni,
  // AXI4-Lite slave
  input  wire logic [17:0]   s_awaddr_i,
  input  wire logic          s_awvalid_i,
  output logic               s_awready_o,
  input  wire logic [31:0]   s_wdata_i,
  input  wire logic [3:0]    s_wstrb_i,
  input  wire logic          s_wvalid_i,
  output logic               s_wready_o,
  output logic [1:0]         s_bresp_o,
  output logic               s_bvalid_o,
  input  wire logic          s_bready_i,
  input  wire logic [17:0]   s_araddr_i,
  input  wire logic          s_arvalid_i,
  output logic               s_arready_o,
  output logic [31:0]        s_rdata_o,
  output logic [1:0]         s_rresp_o,
  output logic               s_rvalid_o,
  input  wire logic          s_rready_i,
  // PCT RAM port A
  output logic               txp_en_o,
  output logic               txp_we_o,
  output logic [PG_W-1:0]    txp_addr_o,
  output logic [31:0]        txp_wdata_o,
  input  wire logic [31:0]   txp_rdata_i,
  output logic               rxp_en_o,
  output logic [1:0]         rxp_we_o,      // [0] low word, [1] high word
  output logic [PG_W-1:0]    rxp_addr_o,
  output logic [31:0]        rxp_wdata_o,
  input  wire logic [63:0]   rxp_rdata_i,
  // configuration
  output logic [7:0]         node_id_o,
  output logic               node_valid_o,
  output logic               node_auto_o,
  output logic               enable_o,
  output logic               retry_en_o,
  output logic               err_reset_o,
  output logic [1:0]         loopback_o,
  output logic [63:0]        rx_base_o,
  output logic [7:0]         retry_limit_o,
  output logic [31:0]        ack_timeout_o,
  output logic [31:0]        hb_period_o,
  output logic [15:0]        combine_idle_o,
  output logic [63:0]        cas_cmp_o,      // staged compare operand (REMOTE_CAS_CMP_LO/HI)
  output logic [31:0]        cas_page_o,     // REMOTE_CAS_PAGE (PAGE, ARM)
  output logic [511:0]       mcast_o,
  output logic               barrier_req_o,
  // status
  input  wire logic          link_up_i,
  input  wire logic          peer_seen_i,
  input  wire logic          discarding_i,
  input  wire logic [7:0]    peer_node_i,
  input  wire logic [31:0]   nodes_up_i,    // NODES_UP: the hub's live nodes
  input  wire logic          auto_set_i,
  input  wire logic [7:0]    auto_id_i,
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
  input  wire logic [31:0]   ev_notify_page_i,
  // remote read and atomics: requester (sent, completed, refused here) and home (refused)
  input  wire logic          ev_req_sent_i,
  input  wire logic          ev_resp_done_i,
  input  wire logic          ev_resp_err_i,
  input  wire logic [25:0]   ev_resp_addr_i,
  input  wire logic [63:0]   ev_resp_val_i,
  input  wire logic          ev_req_refused_i,
  input  wire logic [25:0]   ev_req_addr_i,
  input  wire logic          ev_home_refused_i,
  // page access counters (memchan_page_cnt): selected page, its counts, writes, hot page
  output logic [PG_W-1:0]    cnt_sel_o,
  input  wire logic [31:0]   cnt_reads_i,
  input  wire logic [31:0]   cnt_atomics_i,
  output logic               cnt_wr_reads_o,
  output logic               cnt_wr_atomics_o,
  output logic [31:0]        cnt_wdata_o,
  output logic [31:0]        cnt_threshold_o,
  input  wire logic          ev_hot_i,
  input  wire logic [PG_W-1:0] ev_hot_page_i,
  // global clock (memchan_global_clock)
  input  wire logic [55:0]   gtime_i,
  input  wire logic          clk_valid_i,
  input  wire logic          clk_master_i,
  input  wire logic [15:0]   clk_syncs_i,
  input  wire logic [31:0]   clk_bound_i,
  input  wire logic [31:0]   clk_offset_i,
  output logic [31:0]        clk_link_delay_o,
  output logic [31:0]        clk_interval_o,
  output logic [4:0]         irq_o           // IRQ_STATUS & IRQ_MASK, toward MSI-X
);
  import memchan_regs_pkg::*;

  if (PAGES < 8 || PAGES > MC_MAX_PAGES || (1 << PG_W) != PAGES) begin : g_check_pages
    $error("memchan_axil_regs: PAGES must be a power of two in 8..MC_MAX_PAGES");
  end

  // reset values: MC_REG_<NAME>_RESET, generated from regmap/memchan.toml
  localparam logic [31:0] CAPS = MC_CAPS_LINK_RETRY_MASK | MC_CAPS_LOOPBACK_INTERNAL_MASK |
                                 MC_CAPS_LOOPBACK_EXTERNAL_MASK | MC_CAPS_MULTICAST_MASK |
                                 MC_CAPS_RX_REMAP_MASK | MC_CAPS_REMOTE_READ_MASK |
                                 MC_CAPS_ATOMICS_MASK | MC_CAPS_PAGE_COUNTERS_MASK |
                                 MC_CAPS_HUB_MODE_MASK | MC_CAPS_GLOBAL_CLOCK_MASK;

  logic [31:0] node_q, ctrl_q, lb_q, irqs_q, irqm_q, rxbl_q, rxbh_q, rlim_q, ato_q, hbp_q, cmb_q;
  logic [31:0] ccl_q, cch_q, cpg_q;
  logic [31:0] mcast_q [16];
  logic        bar_busy_q, bar_done_q, bar_sent_q;
  logic [31:0] ackout_q, npage_q, ncount_q;
  logic [31:0] txp_q, txb_q, rxp_q, rxb_q, txdd_q, rxdd_q, crc_q, rtr_q, err_q, acks_q, txdp_q;
  logic [31:0] lstat, lstat_q, nodes_up_q;
  logic [31:0] rout_q, rdone_q, rerr_q, rerr_addr_q, rref_q, csel_q, cthr_q, hot_q;
  logic [31:0] cldel_q, clint_q;
  logic [23:0] gthi_q;               // GLOBAL_TIME_HI, latched by a read of GLOBAL_TIME_LO

  // ---------------- write channel ----------------
  logic        wr, rd;
  logic [17:0] waddr;
  logic        rd_busy_q, rd2_q;     // read pipeline stages 2 and 3
  logic        w_tx, w_rx, w_reg;

  assign rd = s_arvalid_i && !rd_busy_q && !rd2_q && !s_rvalid_o;
  assign wr = s_awvalid_i && s_wvalid_i && !s_bvalid_o && !rd;
  assign s_arready_o = rd;
  assign s_awready_o = wr;
  assign s_wready_o  = wr;
  assign s_bresp_o   = 2'b00;
  assign s_rresp_o   = 2'b00;
  assign waddr = s_awaddr_i;

  function automatic logic in_tx(input logic [17:0] a);
    in_tx = (32'(a) >= MC_TX_PCT_BASE) && (32'(a) < MC_TX_PCT_BASE + MC_TX_PCT_ENTRY_SIZE * PAGES);
  endfunction
  function automatic logic in_rx(input logic [17:0] a);
    in_rx = (32'(a) >= MC_RX_PCT_BASE) && (32'(a) < MC_RX_PCT_BASE + MC_RX_PCT_ENTRY_SIZE * PAGES);
  endfunction

  assign w_tx  = wr && in_tx(waddr);
  assign w_rx  = wr && in_rx(waddr);
  assign w_reg = wr && (waddr[17:12] == '0);

  // PCT port A: a read issues on AR, a write on AW+W
  assign txp_en_o    = w_tx || (rd && in_tx(s_araddr_i));
  assign txp_we_o    = w_tx;
  assign txp_addr_o  = PG_W'((wr ? waddr : s_araddr_i) >> 2);
  assign txp_wdata_o = s_wdata_i & MC_TX_PCT_VALID_MASK;
  assign rxp_en_o    = w_rx || (rd && in_rx(s_araddr_i));
  assign rxp_we_o    = {w_rx && waddr[2], w_rx && !waddr[2]};
  assign rxp_addr_o  = PG_W'((wr ? waddr : s_araddr_i) >> 3);
  assign rxp_wdata_o = s_wdata_i & (waddr[2] ? MC_RX_PCT_VALID_MASK[63:32]
                                             : MC_RX_PCT_VALID_MASK[31:0]);

  logic [11:0] wo;
  assign wo = waddr[11:0];
  logic start_bar, err_reset, cnt_clear;
  assign start_bar = w_reg && (wo == 12'(MC_REG_BARRIER)) &&
                     ((s_wdata_i & MC_BARRIER_START_MASK) != 0);
  assign err_reset = w_reg && (wo == 12'(MC_REG_CTRL)) &&
                     ((s_wdata_i & MC_CTRL_ERR_RESET_MASK) != 0);
  assign cnt_clear = w_reg && (wo == 12'(MC_REG_CTRL)) &&
                     ((s_wdata_i & MC_CTRL_CNT_CLEAR_MASK) != 0);
  assign err_reset_o   = err_reset;
  assign barrier_req_o = start_bar;
  assign cnt_sel_o        = PG_W'(csel_q);
  assign cnt_threshold_o  = cthr_q;
  assign cnt_wdata_o      = s_wdata_i;
  assign cnt_wr_reads_o   = w_reg && (wo == 12'(MC_REG_PAGE_CNT_READS));
  assign cnt_wr_atomics_o = w_reg && (wo == 12'(MC_REG_PAGE_CNT_ATOMICS));

  // ---------------- outputs ----------------
  assign node_id_o     = node_q[7:0];
  assign node_valid_o  = (node_q & MC_NODE_ID_VALID_MASK) != 0;
  assign node_auto_o   = (node_q & MC_NODE_ID_AUTO_MASK) != 0;
  assign enable_o      = (ctrl_q & MC_CTRL_ENABLE_MASK) != 0;
  assign retry_en_o    = (ctrl_q & MC_CTRL_RETRY_EN_MASK) != 0;
  assign loopback_o    = 2'(lb_q & MC_LOOPBACK_MODE_MASK);
  assign rx_base_o     = {rxbh_q, rxbl_q};
  assign retry_limit_o = rlim_q[7:0];
  assign ack_timeout_o = ato_q;
  assign hb_period_o   = hbp_q;
  assign clk_link_delay_o = cldel_q;
  assign clk_interval_o   = clint_q;
  assign combine_idle_o = cmb_q[15:0];
  assign cas_cmp_o      = {cch_q, ccl_q};
  assign cas_page_o     = cpg_q;
  for (genvar g = 0; g < 16; g++) begin : g_mc
    assign mcast_o[32*g +: 32] = mcast_q[g];
  end
  assign irq_o = irqs_q[4:0] & irqm_q[4:0];

  always_comb begin
    lstat = '0;
    lstat[MC_LINK_STATUS_UP_SHIFT]         = link_up_i;
    lstat[MC_LINK_STATUS_PEER_SEEN_SHIFT]  = peer_seen_i;
    lstat[MC_LINK_STATUS_DISCARDING_SHIFT] = discarding_i;
    lstat[MC_LINK_STATUS_PEER_NODE_SHIFT +: 8] = peer_node_i;
  end

  // event inputs are registered first (counters, IRQ and barrier state one cycle later), so
  // that the producers' logic does not continue into the 32-bit counter adders
  logic [7:0] ev_ack_cnt_q;
  logic ev_ack_rcv_q, ev_ackreq_sent_q, ev_barrier_sent_q, ev_crc_err_q, ev_notify_q,
        ev_retry_q, ev_rx_drop_dis_q, ev_rx_pkt_q, ev_tx_drop_dis_q, ev_tx_drop_part_q,
        ev_tx_pkt_q;
  logic [5:0] ev_err_q;      // each event registered, summed after the register
  logic [2:0] ev_err_n;      // number of ERROR_COUNT events of the registered cycle
  assign ev_err_n = 3'(ev_err_q[0]) + 3'(ev_err_q[1]) + 3'(ev_err_q[2]) + 3'(ev_err_q[3]) +
                    3'(ev_err_q[4]) + 3'(ev_err_q[5]);
  logic [31:0] ev_notify_page_q;
  logic [8:0] ev_rx_bytes_q;
  logic ev_req_sent_q, ev_resp_done_q, ev_resp_err_q, ev_req_refused_q, ev_home_refused_q,
        ev_hot_q;
  logic [25:0] ev_resp_addr_q, ev_req_addr_q;
  logic [63:0] ev_resp_val_q, rlast_q;
  logic [PG_W-1:0] ev_hot_page_q;
  logic [5:0] ev_tx_len_q;
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

  // ---------------- register state ----------------
  // acknowledgements received (never below zero)
  logic [31:0] ack_sub;
  always_comb begin
    ack_sub = ev_ack_rcv_q ? 32'(ev_ack_cnt_q) : 32'd0;
    if (ack_sub > ackout_q + 32'(ev_ackreq_sent_q)) ack_sub = ackout_q + 32'(ev_ackreq_sent_q);
  end

  logic [4:0] irq_set;
  logic       bar_done_now;
  assign bar_done_now = bar_busy_q && bar_sent_q && (ackout_q == '0) && !start_bar;
  always_comb begin
    irq_set = '0;
    irq_set[MC_IRQ_STATUS_RX_NOTIFY_SHIFT]    = ev_notify_q;
    irq_set[MC_IRQ_STATUS_LINK_CHANGE_SHIFT]  = (lstat != lstat_q) || (nodes_up_i != nodes_up_q);
    irq_set[MC_IRQ_STATUS_ERROR_SHIFT]        = (ev_err_q != 6'd0);
    irq_set[MC_IRQ_STATUS_BARRIER_DONE_SHIFT] = bar_done_now;
    irq_set[MC_IRQ_STATUS_PAGE_HOT_SHIFT]     = ev_hot_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      node_q <= MC_REG_NODE_ID_RESET; ctrl_q <= MC_REG_CTRL_RESET; lb_q <= MC_REG_LOOPBACK_RESET;
      irqs_q <= MC_REG_IRQ_STATUS_RESET; irqm_q <= MC_REG_IRQ_MASK_RESET;
      rxbl_q <= MC_REG_RX_BASE_LO_RESET; rxbh_q <= MC_REG_RX_BASE_HI_RESET;
      rlim_q <= MC_REG_LINK_RETRY_LIMIT_RESET; ato_q <= MC_REG_LINK_ACK_TIMEOUT_RESET;
      hbp_q <= MC_REG_HEARTBEAT_PERIOD_RESET; cmb_q <= MC_REG_TX_COMBINE_IDLE_RESET;
      ccl_q <= MC_REG_REMOTE_CAS_CMP_LO_RESET; cch_q <= MC_REG_REMOTE_CAS_CMP_HI_RESET;
      cpg_q <= MC_REG_REMOTE_CAS_PAGE_RESET;
      cldel_q <= MC_REG_CLOCK_LINK_DELAY_RESET; clint_q <= MC_REG_CLOCK_SYNC_INTERVAL_RESET;
      for (int i = 0; i < 16; i++) mcast_q[i] <= MC_REG_MCAST_GROUP_BASE_RESET;
      bar_busy_q <= 1'b0; bar_done_q <= 1'b0; bar_sent_q <= 1'b0;
      ackout_q <= '0; npage_q <= '0; ncount_q <= '0;
      txp_q <= '0; txb_q <= '0; rxp_q <= '0; rxb_q <= '0; txdd_q <= '0; rxdd_q <= '0;
      crc_q <= '0; rtr_q <= '0; err_q <= '0; acks_q <= '0; txdp_q <= '0; lstat_q <= '0;
      nodes_up_q <= MC_REG_NODES_UP_RESET;
      rout_q <= '0; rlast_q <= '0; rdone_q <= '0; rerr_q <= '0; rerr_addr_q <= '0; rref_q <= '0;
      csel_q <= MC_REG_PAGE_CNT_SEL_RESET; cthr_q <= MC_REG_PAGE_CNT_THRESHOLD_RESET;
      hot_q <= MC_REG_PAGE_HOT_RESET;
    end else begin
      // remote requests: completion at the requester (a request refused here completes at
      // once, failed), refusals at the home; ERR_RESET forgets responses that never come
      if (err_reset) rout_q <= '0;
      else rout_q <= rout_q + 32'(ev_req_sent_q) - 32'(ev_resp_done_q && rout_q != '0);
      rdone_q <= rdone_q + 32'(ev_resp_done_q) + 32'(ev_req_refused_q);
      rerr_q  <= rerr_q + 32'(ev_resp_err_q) + 32'(ev_req_refused_q);
      if (ev_req_refused_q) rerr_addr_q <= {4'h0, ev_req_addr_q, 2'b00};
      else if (ev_resp_err_q) rerr_addr_q <= {4'h0, ev_resp_addr_q, 2'b00};
      rref_q <= rref_q + 32'(ev_home_refused_q);
      if (ev_resp_done_q && !ev_resp_err_q) rlast_q <= ev_resp_val_q;
      if (ev_hot_q) hot_q <= 32'(ev_hot_page_q);
      lstat_q <= lstat;
      nodes_up_q <= nodes_up_i;
      // counters (CNT_CLEAR clears all but ERROR_COUNT)
      if (cnt_clear) begin
        txp_q <= '0; txb_q <= '0; rxp_q <= '0; rxb_q <= '0; txdd_q <= '0; rxdd_q <= '0;
        crc_q <= '0; rtr_q <= '0; acks_q <= '0; txdp_q <= '0;
      end else begin
        txp_q  <= txp_q  + 32'(ev_tx_pkt_q);
        txb_q  <= txb_q  + (ev_tx_pkt_q ? 32'({ev_tx_len_q, 2'b00}) + 32'd4 : 32'd0);
        rxp_q  <= rxp_q  + 32'(ev_rx_pkt_q);
        rxb_q  <= rxb_q  + (ev_rx_pkt_q ? 32'(ev_rx_bytes_q) : 32'd0);
        txdd_q <= txdd_q + 32'(ev_tx_drop_dis_q);
        txdp_q <= txdp_q + 32'(ev_tx_drop_part_q);
        rxdd_q <= rxdd_q + 32'(ev_rx_drop_dis_q);
        crc_q  <= crc_q  + 32'(ev_crc_err_q);
        rtr_q  <= rtr_q  + 32'(ev_retry_q);
        acks_q <= acks_q + 32'(ev_ack_rcv_q);
      end
      err_q <= err_q + 32'(ev_err_n);
      // acknowledge bookkeeping and barrier
      if (err_reset) ackout_q <= '0;
      else ackout_q <= ackout_q + 32'(ev_ackreq_sent_q) - ack_sub;
      if (start_bar) begin
        bar_busy_q <= 1'b1; bar_done_q <= 1'b0; bar_sent_q <= 1'b0;
      end else begin
        if (ev_barrier_sent_q) bar_sent_q <= 1'b1;
        if (bar_done_now) begin bar_busy_q <= 1'b0; bar_done_q <= 1'b1; end
      end
      if (ev_notify_q) begin
        npage_q  <= ev_notify_page_q;
        ncount_q <= ncount_q + 1'b1;
      end
      // node ID: autoconfiguration result
      if (auto_set_i) begin
        node_q <= (node_q & ~MC_NODE_ID_ID_MASK) | 32'(auto_id_i) | MC_NODE_ID_VALID_MASK;
      end
      // interrupts: set by events, cleared by writing 1
      irqs_q <= (irqs_q & ~((w_reg && wo == 12'(MC_REG_IRQ_STATUS)) ? s_wdata_i : 32'h0)) |
                32'(irq_set);
      if (w_reg) begin
        unique case (wo)
          12'(MC_REG_NODE_ID): begin
            node_q <= s_wdata_i &
                      (MC_NODE_ID_ID_MASK | MC_NODE_ID_AUTO_MASK | MC_NODE_ID_VALID_MASK);
            if ((s_wdata_i & MC_NODE_ID_AUTO_MASK) != 0)
              node_q <= MC_NODE_ID_AUTO_MASK;
          end
          12'(MC_REG_CTRL):     ctrl_q <= s_wdata_i & (MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK);
          12'(MC_REG_LOOPBACK): lb_q   <= s_wdata_i & MC_LOOPBACK_MODE_MASK;
          12'(MC_REG_IRQ_MASK): irqm_q <= s_wdata_i & 32'h1F;
          12'(MC_REG_PAGE_CNT_SEL):       csel_q <= s_wdata_i & 32'(PAGES - 1);
          12'(MC_REG_PAGE_CNT_THRESHOLD): cthr_q <= s_wdata_i;
          12'(MC_REG_RX_BASE_LO): rxbl_q <= s_wdata_i;
          12'(MC_REG_RX_BASE_HI): rxbh_q <= s_wdata_i;
          12'(MC_REG_LINK_RETRY_LIMIT): rlim_q <= s_wdata_i & 32'hFF;
          12'(MC_REG_LINK_ACK_TIMEOUT): ato_q  <= s_wdata_i;
          12'(MC_REG_HEARTBEAT_PERIOD): hbp_q  <= s_wdata_i;
          12'(MC_REG_TX_COMBINE_IDLE):  cmb_q  <= s_wdata_i & 32'hFFFF;
          12'(MC_REG_REMOTE_CAS_CMP_LO): ccl_q <= s_wdata_i;
          12'(MC_REG_REMOTE_CAS_CMP_HI): cch_q <= s_wdata_i;
          12'(MC_REG_REMOTE_CAS_PAGE):
            cpg_q <= s_wdata_i & (MC_REMOTE_CAS_PAGE_PAGE_MASK | MC_REMOTE_CAS_PAGE_ARM_MASK);
          12'(MC_REG_CLOCK_LINK_DELAY): cldel_q <= s_wdata_i;
          12'(MC_REG_CLOCK_SYNC_INTERVAL): clint_q <= s_wdata_i;
          default: begin
            for (int i = 0; i < 16; i++) begin
              if (wo == 12'(MC_REG_MCAST_GROUP_BASE + MC_REG_MCAST_GROUP_STRIDE * i))
                mcast_q[i] <= s_wdata_i;
            end
          end
        endcase
      end
    end
  end

  // ---------------- read channel ----------------
  // Three cycles (AXI4-Lite lets RVALID come any number of cycles after AR): the AR cycle
  // decodes the address into a register index and starts the PCT block RAM read; the next
  // cycle selects the register (a 64-way multiplexer by the index) and the RAM word into
  // registers; the third puts one of the two on RDATA.
  // register index and its decode (MC_RI_*, mc_reg_index) generated into memchan_regs_pkg
  function automatic logic [MC_RI_W-1:0] reg_index(input logic [17:0] a);
    reg_index = (a[17:12] == '0) ? mc_reg_index(a[11:0]) : MC_RI_NONE;
  endfunction

  logic [MC_RI_W-1:0] ridx_q;
  logic        r_tx_q, r_rx_q, r_hi_q, r_ram_q;
  logic [31:0] rreg, rreg_q, rram_q;
  always_comb begin
    rreg = '0;
    if (ridx_q >= MC_RI_MCAST_GROUP_BASE) begin
      rreg = mcast_q[4'(ridx_q - MC_RI_MCAST_GROUP_BASE)];
    end else begin
      unique case (ridx_q)
        MC_RI_ID: rreg = MC_ID;
        MC_RI_VERSION: rreg = MC_REG_VERSION_RESET;
        MC_RI_PAGE_COUNT: rreg = 32'(PAGES);
        MC_RI_PAGE_SIZE: rreg = 32'(PAGE_SIZE);
        MC_RI_MAX_NODES: rreg = MC_MAX_NODES;
        MC_RI_CAPS: rreg = CAPS;
        MC_RI_NODE_ID: rreg = node_q;
        MC_RI_CTRL: rreg = ctrl_q;
        MC_RI_LOOPBACK: rreg = lb_q;
        MC_RI_LINK_STATUS: rreg = lstat;
        MC_RI_IRQ_STATUS: rreg = irqs_q;
        MC_RI_IRQ_MASK: rreg = irqm_q;
        MC_RI_BARRIER: rreg = (bar_busy_q ? MC_BARRIER_BUSY_MASK : 32'h0) |
                           (bar_done_q ? MC_BARRIER_DONE_MASK : 32'h0);
        MC_RI_ACK_OUTSTANDING: rreg = ackout_q;
        MC_RI_RX_NOTIFY_PAGE: rreg = npage_q;
        MC_RI_NOTIFY_COUNT: rreg = ncount_q;
        MC_RI_NODES_UP: rreg = nodes_up_i;
        MC_RI_TX_PACKETS: rreg = txp_q;
        MC_RI_TX_BYTES: rreg = txb_q;
        MC_RI_RX_PACKETS: rreg = rxp_q;
        MC_RI_RX_BYTES: rreg = rxb_q;
        MC_RI_TX_DROP_DISABLED: rreg = txdd_q;
        MC_RI_RX_DROP_DISABLED: rreg = rxdd_q;
        MC_RI_CRC_ERRORS: rreg = crc_q;
        MC_RI_LINK_RETRIES: rreg = rtr_q;
        MC_RI_ERROR_COUNT: rreg = err_q;
        MC_RI_ACKS_RECEIVED: rreg = acks_q;
        MC_RI_TX_DROP_PARTIAL: rreg = txdp_q;
        MC_RI_RX_BASE_LO: rreg = rxbl_q;
        MC_RI_RX_BASE_HI: rreg = rxbh_q;
        MC_RI_LINK_RETRY_LIMIT: rreg = rlim_q;
        MC_RI_LINK_ACK_TIMEOUT: rreg = ato_q;
        MC_RI_HEARTBEAT_PERIOD: rreg = hbp_q;
        MC_RI_TX_COMBINE_IDLE: rreg = cmb_q;
        MC_RI_REMOTE_CAS_CMP_LO: rreg = ccl_q;
        MC_RI_REMOTE_CAS_CMP_HI: rreg = cch_q;
        MC_RI_REMOTE_CAS_PAGE: rreg = cpg_q;
        MC_RI_REMOTE_OUTSTANDING: rreg = rout_q;
        MC_RI_REMOTE_DONE: rreg = rdone_q;
        MC_RI_REMOTE_ERRORS: rreg = rerr_q;
        MC_RI_REMOTE_ERR_ADDR: rreg = rerr_addr_q;
        MC_RI_REMOTE_REFUSED: rreg = rref_q;
        MC_RI_PAGE_CNT_SEL: rreg = csel_q;
        MC_RI_PAGE_CNT_READS: rreg = cnt_reads_i;
        MC_RI_PAGE_CNT_ATOMICS: rreg = cnt_atomics_i;
        MC_RI_PAGE_CNT_THRESHOLD: rreg = cthr_q;
        MC_RI_PAGE_HOT: rreg = hot_q;
        MC_RI_REMOTE_LAST_LO: rreg = rlast_q[31:0];
        MC_RI_REMOTE_LAST_HI: rreg = rlast_q[63:32];
        MC_RI_GLOBAL_TIME_LO: rreg = gtime_i[31:0];
        MC_RI_GLOBAL_TIME_HI: rreg = {8'h0, gthi_q};
        MC_RI_CLOCK_STATUS: rreg = {clk_syncs_i, 16'h0} |
                                   (clk_master_i ? MC_CLOCK_STATUS_MASTER_MASK : 32'h0) |
                                   (clk_valid_i ? MC_CLOCK_STATUS_VALID_MASK : 32'h0);
        MC_RI_CLOCK_BOUND: rreg = clk_bound_i;
        MC_RI_CLOCK_OFFSET: rreg = clk_offset_i;
        MC_RI_CLOCK_LINK_DELAY: rreg = cldel_q;
        MC_RI_CLOCK_SYNC_INTERVAL: rreg = clint_q;
        default: rreg = '0;
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_busy_q  <= 1'b0;
      rd2_q      <= 1'b0;
      ridx_q     <= MC_RI_NONE;
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
        ridx_q <= reg_index(s_araddr_i);
        r_tx_q <= in_tx(s_araddr_i);
        r_rx_q <= in_rx(s_araddr_i);
        r_hi_q <= s_araddr_i[2];
      end
      if (rd_busy_q) begin
        rreg_q  <= rreg;
        rram_q  <= r_tx_q ? txp_rdata_i : (r_hi_q ? rxp_rdata_i[63:32] : rxp_rdata_i[31:0]);
        r_ram_q <= r_tx_q || r_rx_q;
        if (ridx_q == MC_RI_GLOBAL_TIME_LO) gthi_q <= gtime_i[55:32];
      end
      if (rd2_q) begin
        s_rvalid_o <= 1'b1;
        s_rdata_o  <= r_ram_q ? rram_q : rreg_q;
      end else if (s_rready_i) begin
        s_rvalid_o <= 1'b0;
      end
    end
  end

  logic unused;
  assign unused = ^{s_wstrb_i, lb_q[31:2], rlim_q[31:8], cmb_q[31:16], irqm_q[31:5], irqs_q[31:5]};
endmodule : memchan_axil_regs

`default_nettype wire
