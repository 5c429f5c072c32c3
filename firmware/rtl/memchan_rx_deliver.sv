// Receive delivery: takes committed frames from the receive FIFO (link) and the local-copy
// FIFO, looks the page up in the receive PCT, drops and counts disabled pages, remaps the
// network page to a host address (REMAP_ADDR or the identity area RX_BASE), writes the
// payload into host memory with one AXI4 burst per packet, and after the write responses
// raises the receive notification and owes the acknowledgement reply the packet asked for.
// A local-copy FIFO frame marked Q_FROM_LINK (virtual hub, node 0: every received frame
// comes this way) is treated as a frame from the link.
`default_nettype none

module memchan_rx_deliver #(
  parameter int unsigned PAGES     = 1024,
  parameter int unsigned PAGE_SIZE = 4096,
  localparam int unsigned PG_W  = $clog2(PAGES),
  localparam int unsigned OFF_W = $clog2(PAGE_SIZE)
) (
  input  wire logic            clk_i,
  input  wire logic            rst_ni,
  input  wire logic            enable_i,
  input  wire logic [63:0]     rx_base_i,
  // sources: 0 = link (receive FIFO), 1 = local copy
  input  wire logic [1:0]      src_valid_i,
  input  wire logic [127:0]    src_data_i,
  output logic      [1:0]      src_ready_o,
  // receive PCT read port
  output logic                 pct_re_o,
  output logic [PG_W-1:0]      pct_addr_o,
  input  wire logic [63:0]     pct_rdata_i,
  // AXI4 master toward host memory (write channels)
  output logic [63:0]          m_awaddr_o,
  output logic [7:0]           m_awlen_o,
  output logic [2:0]           m_awsize_o,
  output logic [1:0]           m_awburst_o,
  output logic                 m_awvalid_o,
  input  wire logic            m_awready_i,
  output logic [63:0]          m_wdata_o,
  output logic [7:0]           m_wstrb_o,
  output logic                 m_wlast_o,
  output logic                 m_wvalid_o,
  input  wire logic            m_wready_i,
  input  wire logic [1:0]      m_bresp_i,
  input  wire logic            m_bvalid_i,
  output logic                 m_bready_o,
  // acknowledgement replies owed, events
  output logic                 ack_inc_o,
  output logic [7:0]           ack_src_o,
  input  wire logic            ack_inc_ready_i,
  output logic                 ack_rcv_o,
  output logic [7:0]           ack_cnt_o,
  output logic                 notify_o,
  output logic [31:0]          notify_page_o,
  output logic                 rx_pkt_o,
  output logic [8:0]           rx_bytes_o,
  output logic                 drop_disabled_o,
  output logic                 bus_err_o
);
  import memchan_regs_pkg::*;
  import memchan_pkt_pkg::*;

  typedef enum logic [2:0] {D_IDLE, D_PCT, D_SEND, D_DROP, D_WAITB} st_e;
  st_e         st_q;
  logic        src_q, last_q;           // source of the current frame, last source served
  logic        link_q;                  // the current frame came from the link
  logic        in_link;                 // ... the frame being picked
  logic [63:0] hdr_q;
  logic [5:0]  left_q;                  // payload words still to move
  logic        aw_q, first_q, notify_q, ackreq_q;
  logic [7:0]  bout_q;                  // write bursts without response
  logic        pick, pick_src;
  logic [63:0] in_hdr, cur_data;
  logic        cur_valid, w_fire, aw_fire;
  logic [25:0] a;                       // network address / 4
  logic [5:0]  len;
  logic [5:0]  nwords;
  logic [63:0] haddr;
  logic        rx_en;
  logic        end_odd;                 // the payload ends on a high 32-bit word
  assign end_odd = a[0] ^ len[0];

  // fair choice between link and local copy at frame boundaries
  always_comb begin
    pick_src = src_valid_i[1] && (!src_valid_i[0] || !last_q);
    pick     = (st_q == D_IDLE) && (src_valid_i != 2'b00);
    in_hdr   = pick_src ? src_data_i[127:64] : src_data_i[63:0];
    cur_valid = src_q ? src_valid_i[1] : src_valid_i[0];
    cur_data  = src_q ? src_data_i[127:64] : src_data_i[63:0];
    in_link   = !pick_src || in_hdr[Q_FROM_LINK];
  end

  assign a      = hdr_q[H_ADDR_LSB +: 26];
  assign len    = hdr_q[H_LEN_LSB +: 6];
  assign nwords = 6'((7'(a[0]) + 7'(len) + 7'd2) >> 1);
  assign pct_re_o   = pick;
  assign pct_addr_o = in_hdr[H_ADDR_LSB + OFF_W - 2 +: PG_W];
  assign rx_en = enable_i && ((pct_rdata_i & MC_RX_PCT_RX_EN_MASK) != 0) &&
                 (a[25 : OFF_W - 2 + PG_W] == '0);

  always_comb begin
    logic [63:0] base, off;
    off  = 64'({a[OFF_W-3:0], 2'b00});
    if ((pct_rdata_i & MC_RX_PCT_REMAP_EN_MASK) != 0)
      base = pct_rdata_i & MC_RX_PCT_REMAP_ADDR_MASK;
    else
      base = rx_base_i + (64'(a[OFF_W - 2 +: PG_W]) << OFF_W);
    haddr = (base + off) & ~64'h7;
  end

  // data beats come straight from the source FIFO
  assign m_wvalid_o = (st_q == D_SEND) && (left_q != 6'd0) && cur_valid;
  assign m_wdata_o  = cur_data;
  assign m_wlast_o  = (left_q == 6'd1);
  always_comb begin
    m_wstrb_o = 8'hFF;
    if (first_q && a[0]) m_wstrb_o[3:0] = 4'h0;
    if (left_q == 6'd1 && !end_odd) m_wstrb_o[7:4] = 4'h0;
  end
  assign w_fire  = m_wvalid_o && m_wready_i;
  assign aw_fire = m_awvalid_o && m_awready_i;
  assign m_awvalid_o = aw_q;
  assign m_awsize_o  = 3'd3;
  assign m_awburst_o = 2'b01;
  assign m_bready_o  = 1'b1;
  assign bus_err_o   = m_bvalid_i && (m_bresp_i != 2'b00);

  always_comb begin
    src_ready_o = 2'b00;
    if (pick) src_ready_o[pick_src] = 1'b1;
    if ((st_q == D_SEND && m_wready_i && left_q != 6'd0) || (st_q == D_DROP && left_q != 6'd0))
      src_ready_o[src_q] = 1'b1;
  end

  assign ack_rcv_o = pick && in_link && (in_hdr[H_TP_LSB +: 4] == TP_ACK);
  assign ack_cnt_o = in_hdr[H_ADDR_LSB +: 8];
  assign ack_src_o = hdr_q[H_SID_LSB +: 8];
  assign ack_inc_o = (st_q == D_WAITB) && (bout_q == 8'd0) && ackreq_q;
  assign notify_o  = (st_q == D_WAITB) && (bout_q == 8'd0) && notify_q &&
                     (!ackreq_q || ack_inc_ready_i);
  assign notify_page_o = 32'(a[OFF_W - 2 +: PG_W]);
  assign rx_pkt_o   = (st_q == D_SEND) && w_fire && (left_q == 6'd1);
  assign rx_bytes_o = 9'({len, 2'b00}) + 9'd4;
  assign drop_disabled_o = (st_q == D_PCT) && !rx_en && !(hdr_q[C_ACK_ONLY] && link_q);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q <= D_IDLE; src_q <= 1'b0; last_q <= 1'b0; link_q <= 1'b0; hdr_q <= '0; left_q <= '0;
      aw_q <= 1'b0; first_q <= 1'b0; notify_q <= 1'b0; ackreq_q <= 1'b0; bout_q <= '0;
      m_awaddr_o <= '0; m_awlen_o <= '0;
    end else begin
      bout_q <= bout_q + 8'(aw_fire) - 8'(m_bvalid_i);
      if (aw_fire) aw_q <= 1'b0;
      if (src_ready_o[src_q] && cur_valid && st_q != D_IDLE) left_q <= left_q - 1'b1;
      if (w_fire) first_q <= 1'b0;
      unique case (st_q)
        D_IDLE: if (pick) begin
          src_q  <= pick_src;
          last_q <= pick_src;
          link_q <= in_link;
          hdr_q  <= in_hdr;
          notify_q <= 1'b0;
          ackreq_q <= 1'b0;
          unique case (in_hdr[H_TP_LSB +: 4])
            TP_DATA:   st_q <= D_PCT;
            TP_ACKREQ: begin st_q <= D_WAITB; ackreq_q <= in_link; end
            default:   st_q <= D_IDLE;      // TP_ACK: counted at pick
          endcase
        end
        D_PCT: begin
          left_q  <= nwords;
          first_q <= 1'b1;
          if (hdr_q[C_ACK_ONLY] && link_q) begin
            // not for this node, only to be acknowledged (or only echoed, by the hub)
            ackreq_q   <= hdr_q[C_ACK_REQ];
            st_q       <= D_DROP;
          end else if (rx_en) begin
            aw_q       <= 1'b1;
            m_awaddr_o <= haddr;
            m_awlen_o  <= 8'(nwords) - 8'd1;
            notify_q   <= (pct_rdata_i & MC_RX_PCT_IRQ_ON_RX_MASK) != 0;
            ackreq_q   <= hdr_q[C_ACK_REQ] && link_q;
            st_q       <= D_SEND;
          end else begin
            ackreq_q   <= hdr_q[C_ACK_REQ] && link_q;
            st_q       <= D_DROP;
          end
        end
        D_SEND: if (!aw_q && left_q == 6'd0)
                  st_q <= (notify_q || ackreq_q) ? D_WAITB : D_IDLE;
                else if (aw_fire && left_q == 6'd0)
                  st_q <= (notify_q || ackreq_q) ? D_WAITB : D_IDLE;
        D_DROP: if (left_q == 6'd0) st_q <= ackreq_q ? D_WAITB : D_IDLE;
        D_WAITB: if (bout_q == 8'd0 && (!ackreq_q || ack_inc_ready_i)) st_q <= D_IDLE;
        default: st_q <= D_IDLE;
      endcase
    end
  end
endmodule : memchan_rx_deliver

`default_nettype wire
