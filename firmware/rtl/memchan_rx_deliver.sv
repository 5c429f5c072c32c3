// Receive delivery: takes committed frames from the receive FIFO (link) and the local-copy
// FIFO, looks the page up in the receive PCT, drops and counts disabled pages, remaps the
// network page to a host address (REMAP_ADDR or the identity area RX_BASE), writes the
// payload into host memory with one AXI4 burst per packet, and after the write responses
// raises the receive notification and owes the acknowledgement reply the packet asked for.
// A local-copy FIFO frame marked Q_FROM_LINK (virtual hub, node 0: every received frame
// comes this way) is treated as a frame from the link.
// Remote read and atomics (docs/firmware.md "Remote read and atomics"), home side: a request
// for a page with READ_EN / ATOMIC_EN is served from host memory through the AXI read
// channel (an atomic then writes the new word through the write channels), and its response
// frame goes into the response FIFO (committed whole) for the frame builder; a request that
// is not allowed or fails is refused, counted and answered with an error response. Requests
// are served one at a time, in arrival order with the writes, so an atomic is serialized
// against every other atomic and every incoming write: with SERIALIZE (never 0 on a board)
// a request's host read waits until every earlier host write has its response (AXI does not
// order a read after an unacknowledged write), which also gives rule 1 (an atomic or read
// from a sender is performed after that sender's earlier stores). Requester side: a
// response is written like a data packet into the receive page and completes (resp_done_o)
// after its write responses; an error response or a page without RX_EN completes as failed.
// A response to this node's own request (SID = this node) is not written: the receive page
// at that address is the home page just served (an atomic's old value would overwrite the
// new one); its first word, like every good response's, is kept in resp_val_o.
`default_nettype none

module memchan_rx_deliver #(
  parameter int unsigned PAGES     = memchan_regs_pkg::MC_BOARD_PAGES,
  parameter int unsigned PAGE_SIZE = memchan_regs_pkg::MC_BOARD_PAGE_SIZE,
  // requests wait for every earlier host write's response before reading host memory;
  // 0 only for the negative control of the atomics bench (lost updates), never on a board
  parameter bit          SERIALIZE = 1'b1,
  localparam int unsigned PG_W  = $clog2(PAGES),
  localparam int unsigned OFF_W = $clog2(PAGE_SIZE)
) (
  input  wire logic            clk_i,
  input  wire logic            rst_ni,
  input  wire logic            enable_i,
  input  wire logic [memchan_regs_pkg::MC_NODE_ID_ID_W-1:0] node_id_i,
  input  wire logic [2*memchan_regs_pkg::MC_REG_W-1:0] rx_base_i,   // RX_BASE_HI, RX_BASE_LO
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
  // AXI4 master toward host memory (read channels): requests served at this home
  output logic [63:0]          m_araddr_o,
  output logic [7:0]           m_arlen_o,
  output logic [2:0]           m_arsize_o,
  output logic [1:0]           m_arburst_o,
  output logic                 m_arvalid_o,
  input  wire logic            m_arready_i,
  input  wire logic [63:0]     m_rdata_i,
  input  wire logic [1:0]      m_rresp_i,
  input  wire logic            m_rlast_i,
  input  wire logic            m_rvalid_i,
  output logic                 m_rready_o,
  // response FIFO (write side, committed per frame) toward the frame builder
  output logic                 r_we_o,
  output logic [63:0]          r_data_o,
  output logic                 r_commit_o,
  output logic                 r_drop_o,
  input  wire logic            r_room_i,      // a maximum frame fits (registered)
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
  output logic                 bus_err_o,
  // remote requests: requester side completion, home side refusals and service
  output logic                 resp_done_o,   // a response to our request completed
  output logic                 resp_err_o,    // ... and failed (nothing written)
  output logic [25:0]          resp_addr_o,   // ... its network address / 4
  output logic [63:0]          resp_val_o,    // ... its first payload word (REMOTE_LAST)
  output logic                 refused_o,     // a request to this home was refused
  output logic                 served_o,      // a request was served from page served_page_o
  output logic                 served_atomic_o, // ... it was an atomic (else a read)
  output logic [PG_W-1:0]      served_page_o,
  output logic                 served_cnt_irq_o // ... whose receive PCT has COUNT_IRQ
);
  import memchan_regs_pkg::*;
  import memchan_pkt_pkg::*;

  typedef enum logic [3:0] {D_IDLE, D_PCT, D_SEND, D_DROP, D_WAITB,
                            D_OPND, D_REQ, D_RDATA, D_AWR, D_ERESP, D_DONE} st_e;
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
  // remote requests and responses
  logic [3:0]  tp;
  logic        is_req, is_resp, req_ok, atomic_ok;
  logic        ok_q, resp_q, rerr_q, cnt_irq_q, wpend_q, ar_q;
  logic [63:0] rd_addr_q, opa_q, opb_q, new_q, rhdr, rval_q;
  logic        r_fire, r_bad, ar_fire, cas_hit;
  logic [1:0]  aop;
  assign tp      = hdr_q[H_TP_LSB +: 4];
  assign is_req  = tp_request(tp);
  assign is_resp = tp_response(tp);
  assign aop     = hdr_q[C_AOP +: 2];
  // an atomic names one aligned 64-bit word: 8 bytes of operand, 16 for compare-and-swap
  assign atomic_ok = !a[0] && aop != 2'd3 && len == ((aop == A_CAS) ? 6'd3 : 6'd1);
  always_comb begin
    req_ok = enable_i && (a[25 : OFF_W - 2 + PG_W] == '0);
    if (tp == TP_RDREQ) req_ok = req_ok && ((pct_rdata_i & MC_RX_PCT_READ_EN_MASK) != 0);
    else req_ok = req_ok && ((pct_rdata_i & MC_RX_PCT_ATOMIC_EN_MASK) != 0) && atomic_ok;
  end

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
  // data beats come straight from the source FIFO; an atomic's new word from a register
  assign m_wvalid_o = ((st_q == D_SEND) && (left_q != 6'd0) && cur_valid) ||
                      ((st_q == D_AWR) && wpend_q);
  assign m_wdata_o  = (st_q == D_AWR) ? new_q : cur_data;
  assign m_wlast_o  = (st_q == D_AWR) || (left_q == 6'd1);
  always_comb begin
    m_wstrb_o = 8'hFF;
    if (st_q != D_AWR) begin
      if (first_q && a[0]) m_wstrb_o[3:0] = 4'h0;
      if (left_q == 6'd1 && !end_odd) m_wstrb_o[7:4] = 4'h0;
    end
  end

  // host reads of the requests
  assign m_arvalid_o = ar_q;
  assign m_araddr_o  = rd_addr_q;
  assign m_arsize_o  = 3'd3;
  assign m_arburst_o = 2'b01;
  assign m_rready_o  = (st_q == D_RDATA);
  assign ar_fire = m_arvalid_o && m_arready_i;
  assign r_fire  = m_rvalid_i && m_rready_o;
  assign r_bad   = r_fire && (m_rresp_i != 2'b00);
  assign cas_hit = (m_rdata_i == opa_q);

  // the response header: back to the requester, same network address; an atomic answers
  // one 8-byte word (LEN 1), a read its whole range
  always_comb begin
    rhdr = '0;
    rhdr[H_TP_LSB +: 4]   = (tp == TP_RDREQ) ? TP_RDRESP : TP_ATRESP;
    rhdr[H_DNID_LSB +: 8] = hdr_q[H_SID_LSB +: 8];
    rhdr[H_LEN_LSB +: 6]  = (tp == TP_RDREQ) ? len : 6'd1;
    rhdr[H_ADDR_LSB +: 26] = a;
  end
  always_comb begin
    r_we_o     = 1'b0;
    r_data_o   = rhdr;
    r_commit_o = 1'b0;
    r_drop_o   = 1'b0;
    if (st_q == D_REQ && ok_q && req_go) begin
      r_we_o = 1'b1;                              // header, committed with the data
    end else if (st_q == D_RDATA && r_fire) begin
      r_we_o     = 1'b1;
      r_data_o   = m_rdata_i;                     // read data, or an atomic's old word
      r_commit_o = m_rlast_i && !(rerr_q || r_bad);
      r_drop_o   = m_rlast_i && (rerr_q || r_bad);
    end else if (st_q == D_ERESP && r_room_i) begin
      r_we_o = 1'b1;
      r_data_o[C_RESP_ERR] = 1'b1;
      r_commit_o = 1'b1;
    end
  end
  logic req_go;     // a served request may start its host read now
  assign req_go = r_room_i && !aw_q && !wpend_q && (!SERIALIZE || bout_q == 8'd0);
  assign refused_o = (st_q == D_ERESP) && r_room_i;
  assign served_o  = (st_q == D_RDATA) && r_fire && m_rlast_i && !(rerr_q || r_bad);
  assign served_atomic_o  = (tp == TP_ATREQ);
  assign served_page_o    = a[OFF_W - 2 +: PG_W];
  assign served_cnt_irq_o = cnt_irq_q;
  assign resp_done_o = (st_q == D_DONE) && (bout_q == 8'd0);
  assign resp_err_o  = rerr_q;
  assign resp_addr_o = a;
  assign resp_val_o  = rval_q;
  assign w_fire  = m_wvalid_o && m_wready_i;
  assign aw_fire = m_awvalid_o && m_awready_i;
  assign m_awvalid_o = aw_q;
  assign m_awsize_o  = 3'd3;
  assign m_awburst_o = 2'b01;
  assign m_bready_o  = 1'b1;
  assign bus_err_o   = m_bvalid_i && (m_bresp_i != 2'b00);

  // the current frame's source moves a word (outside D_IDLE, so never with pick); both
  // readies written out bit by bit: an indexed assignment (src_ready_o[pick_src] = 1)
  // synthesizes into a 32-bit index subtraction in front of the FIFOs' read side
  logic move;
  assign move = left_q != 6'd0 && ((st_q == D_SEND && m_wready_i) || st_q == D_DROP || st_q == D_OPND);
  assign src_ready_o[0] = (pick && !pick_src) || (move && !src_q);
  assign src_ready_o[1] = (pick && pick_src) || (move && src_q);

  assign ack_rcv_o = pick && in_link && (in_hdr[H_TP_LSB +: 4] == TP_ACK);
  assign ack_cnt_o = in_hdr[H_ADDR_LSB +: 8];
  assign ack_src_o = hdr_q[H_SID_LSB +: 8];
  assign ack_inc_o = (st_q == D_WAITB) && (bout_q == 8'd0) && ackreq_q;
  assign notify_o  = (st_q == D_WAITB) && (bout_q == 8'd0) && notify_q &&
                     (!ackreq_q || ack_inc_ready_i);
  assign notify_page_o = 32'(a[OFF_W - 2 +: PG_W]);
  assign rx_pkt_o   = (st_q == D_SEND) && w_fire && (left_q == 6'd1);
  assign rx_bytes_o = 9'({len, 2'b00}) + 9'd4;
  assign drop_disabled_o = (st_q == D_PCT) && (tp == TP_DATA) && !rx_en &&
                           !(hdr_q[C_ACK_ONLY] && link_q);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q <= D_IDLE; src_q <= 1'b0; last_q <= 1'b0; link_q <= 1'b0; hdr_q <= '0; left_q <= '0;
      aw_q <= 1'b0; first_q <= 1'b0; notify_q <= 1'b0; ackreq_q <= 1'b0; bout_q <= '0;
      m_awaddr_o <= '0; m_awlen_o <= '0;
      ok_q <= 1'b0; resp_q <= 1'b0; rerr_q <= 1'b0; cnt_irq_q <= 1'b0; wpend_q <= 1'b0;
      ar_q <= 1'b0; rval_q <= '0; rd_addr_q <= '0; opa_q <= '0; opb_q <= '0; new_q <= '0; m_arlen_o <= '0;
    end else begin
      if (ar_fire) ar_q <= 1'b0;
      if (m_wvalid_o && m_wready_i && st_q == D_AWR) wpend_q <= 1'b0;
      // operands of an atomic: the first payload word, then (compare-and-swap) the second
      if (st_q == D_OPND && move && cur_valid) begin
        if (first_q) opa_q <= cur_data;
        else opb_q <= cur_data;
        first_q <= 1'b0;
      end
      bout_q <= bout_q + 8'(aw_fire) - 8'(m_bvalid_i);
      if (aw_fire) aw_q <= 1'b0;
      if (move && cur_valid) left_q <= left_q - 1'b1;
      if (w_fire) first_q <= 1'b0;
      // a response's first payload word (written or not)
      if (resp_q && first_q && move && cur_valid &&
          (st_q == D_SEND || st_q == D_DROP)) begin
        rval_q  <= cur_data;
        first_q <= 1'b0;
      end
      unique case (st_q)
        D_IDLE: if (pick) begin
          src_q  <= pick_src;
          last_q <= pick_src;
          link_q <= in_link;
          hdr_q  <= in_hdr;
          notify_q <= 1'b0;
          ackreq_q <= 1'b0;
          resp_q   <= 1'b0;
          rerr_q   <= 1'b0;
          unique case (in_hdr[H_TP_LSB +: 4])
            TP_DATA, TP_RDREQ, TP_ATREQ, TP_RDRESP, TP_ATRESP: st_q <= D_PCT;
            TP_ACKREQ: begin st_q <= D_WAITB; ackreq_q <= in_link; end
            default:   st_q <= D_IDLE;      // TP_ACK: counted at pick
          endcase
        end
        D_PCT: begin
          left_q  <= payload_words(hdr_q);
          first_q <= 1'b1;
          if (is_req) begin
            // home: check now (the PCT word is valid in this cycle only), serve or refuse
            // after the operands are in
            ok_q      <= req_ok;
            cnt_irq_q <= (pct_rdata_i & MC_RX_PCT_COUNT_IRQ_MASK) != 0;
            rd_addr_q <= haddr;
            m_arlen_o <= (tp == TP_RDREQ) ? 8'(nwords) - 8'd1 : 8'd0;
            st_q      <= (payload_words(hdr_q) != 6'd0) ? D_OPND : D_REQ;
          end else if (is_resp) begin
            // requester: the data lands like a data packet; completion after its writes
            resp_q <= 1'b1;
            if (hdr_q[C_RESP_ERR] || !rx_en ||
                hdr_q[H_SID_LSB +: 8] == node_id_i) begin
              // failed, or the result of a request to ourselves: nothing is written
              rerr_q <= hdr_q[C_RESP_ERR] || (!rx_en && hdr_q[H_SID_LSB +: 8] != node_id_i);
              st_q   <= (payload_words(hdr_q) != 6'd0) ? D_DROP : D_DONE;
            end else begin
              aw_q       <= 1'b1;
              m_awaddr_o <= haddr;
              m_awlen_o  <= 8'(nwords) - 8'd1;
              st_q       <= D_SEND;
            end
          end else if (hdr_q[C_ACK_ONLY] && link_q) begin
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
        D_SEND: if ((!aw_q || aw_fire) && left_q == 6'd0)
                  st_q <= resp_q ? D_DONE : (notify_q || ackreq_q) ? D_WAITB : D_IDLE;
        D_DROP: if (left_q == 6'd0) st_q <= resp_q ? D_DONE : ackreq_q ? D_WAITB : D_IDLE;
        D_DONE: if (bout_q == 8'd0) st_q <= D_IDLE;
        D_OPND: if (left_q == 6'd0 || (left_q == 6'd1 && move && cur_valid))
                  st_q <= D_REQ;
        D_REQ: if (!ok_q) st_q <= D_ERESP;
               else if (req_go) begin
                 ar_q <= 1'b1;
                 st_q <= D_RDATA;
               end
        D_RDATA: if (r_fire) begin
          if (r_bad) rerr_q <= 1'b1;
          if (tp == TP_ATREQ) begin
            unique case (aop)
              A_FADD:  new_q <= m_rdata_i + opa_q;
              A_SWAP:  new_q <= opa_q;
              default: new_q <= opb_q;      // A_CAS, written only when the compare hit
            endcase
          end
          if (m_rlast_i) begin
            if (rerr_q || r_bad) st_q <= D_ERESP;        // host read failed: error response
            else if (tp == TP_ATREQ && (aop != A_CAS || cas_hit)) begin
              aw_q       <= 1'b1;
              wpend_q    <= 1'b1;
              m_awaddr_o <= rd_addr_q;
              m_awlen_o  <= 8'd0;
              st_q       <= D_AWR;
            end else st_q <= D_IDLE;
          end
        end
        D_AWR: if ((!aw_q || aw_fire) && (!wpend_q || (m_wvalid_o && m_wready_i))) st_q <= D_IDLE;
        D_ERESP: if (r_room_i) st_q <= D_IDLE;
        D_WAITB: if (bout_q == 8'd0 && (!ackreq_q || ack_inc_ready_i)) st_q <= D_IDLE;
        default: st_q <= D_IDLE;
      endcase
    end
  end
endmodule : memchan_rx_deliver

`default_nettype wire
