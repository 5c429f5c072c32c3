// Transmit window (BAR2): AXI4 slave with bursts. Every write beat is looked up in the
// transmit PCT by page; enabled 32-bit words are combined into packets of up to 256 bytes
// (sequential stores, same page, gap-free); each packet's payload goes into the data FIFO
// (8-byte aligned words) and, when the packet closes, its header into the descriptor FIFO.
// A packet closes when it holds 32 words, when it ends on a low 32-bit word, when a store
// does not continue it, when no store arrived for TX_COMBINE_IDLE cycles, or for a barrier.
// Pages whose transmit PCT OP is not WRITE make requests (docs/firmware.md "Remote read and
// atomics"): a READ packet is a header-only read request for its range (the stored data is
// not kept); an atomic packet holds exactly one request (one 8-byte word, two for CAS).
// A request page takes whole 32-bit words only: a beat with a partial word there (QEMU's TCG
// splits a misaligned store into bytes) is one request refused here, not a dropped write, so
// that it completes (REMOTE_DONE, REMOTE_ERRORS) instead of leaving its requester waiting.
// Compare-and-swap with a staged operand: on the page REMOTE_CAS_PAGE arms, a packet that
// starts with one full 8-byte word first takes REMOTE_CAS_CMP as its word 0 (one cycle, the
// beat held) and the beat as word 1, so one 8-byte store launches a whole CAS request; a CPU
// cannot be relied on to deliver a 16-byte store to a BAR as one write.
`default_nettype none

module memchan_tx_window #(
  parameter int unsigned PAGES     = memchan_regs_pkg::MC_BOARD_PAGES,
  parameter int unsigned PAGE_SIZE = memchan_regs_pkg::MC_BOARD_PAGE_SIZE,
  parameter int unsigned ID_W      = 4,
  localparam int unsigned PG_W   = $clog2(PAGES),
  localparam int unsigned OFF_W  = $clog2(PAGE_SIZE),
  localparam int unsigned WIN_AW = PG_W + OFF_W
) (
  input  wire logic              clk_i,
  input  wire logic              rst_ni,
  // AXI4 slave, write channels only (BAR2 is write-only; reads are answered by the bridge)
  input  wire logic [ID_W-1:0]   s_awid_i,
  input  wire logic [WIN_AW-1:0] s_awaddr_i,
  input  wire logic [7:0]        s_awlen_i,
  input  wire logic              s_awvalid_i,
  output logic                   s_awready_o,
  input  wire logic [63:0]       s_wdata_i,
  input  wire logic [7:0]        s_wstrb_i,
  input  wire logic              s_wlast_i,
  input  wire logic              s_wvalid_i,
  output logic                   s_wready_o,
  output logic [ID_W-1:0]        s_bid_o,
  output logic [1:0]             s_bresp_o,
  output logic                   s_bvalid_o,
  input  wire logic              s_bready_i,
  // transmit PCT read port
  output logic                   pct_re_o,
  output logic [PG_W-1:0]        pct_addr_o,
  input  wire logic [31:0]       pct_rdata_i,
  // configuration
  input  wire logic              enable_i,
  input  wire logic [memchan_regs_pkg::MC_TX_COMBINE_IDLE_CYCLES_W-1:0] combine_idle_i,
  input  wire logic              barrier_req_i,   // pulse: queue an acknowledge request
  input  wire logic [2*memchan_regs_pkg::MC_REG_W-1:0] cas_cmp_i,  // REMOTE_CAS_CMP_HI/LO
  input  wire logic [memchan_regs_pkg::MC_REG_W-1:0] cas_page_i,  // REMOTE_CAS_PAGE (PAGE, ARM)
  // payload and descriptor FIFOs (descriptor = {local_copy, header})
  output logic                   data_we_o,
  output logic [63:0]            data_o,
  input  wire logic              data_room_i,    // payload FIFO: 2 words free (registered)
  output logic                   desc_we_o,
  output logic [64:0]            desc_o,
  input  wire logic              desc_room_i,    // descriptor FIFO: 2 entries free
  // counter events
  output logic                   drop_disabled_o,
  output logic                   drop_partial_o
);
  import memchan_regs_pkg::*;
  import memchan_pkt_pkg::*;

  if (WIN_AW > 28) begin : g_check_win
    $error("memchan_tx_window: PAGES * PAGE_SIZE must not exceed 256 MiB (26-bit word address)");
  end
  if (PAGE_SIZE != 4096 && PAGE_SIZE != 8192) begin : g_check_ps
    $error("memchan_tx_window: PAGE_SIZE must be 4096 or 8192");
  end
  if (ID_W < 1) begin : g_check_id
    $error("memchan_tx_window: ID_W must be >= 1");
  end

  localparam int unsigned WA_W = WIN_AW - 3;  // 8-byte word address
  localparam int unsigned DA_W = WIN_AW - 2;  // 4-byte word address

  // ---------------- AXI write address / burst tracking ----------------
  logic              awp_q;          // accepted AW waiting for its burst
  logic [ID_W-1:0]   awp_id_q;
  logic [WA_W-1:0]   awp_addr_q;
  logic              burst_q;        // a burst is receiving W beats
  logic [ID_W-1:0]   bur_id_q;
  logic [WA_W-1:0]   bur_addr_q;
  logic              w_fire, load_burst;
  logic              b_space;
  logic [2:0]        bq_space;

  assign s_awready_o = !awp_q;

  // B responses: one per burst, queued with its ID
  memchan_fifo #(.WIDTH(ID_W), .DEPTH(4)) u_bq (
    .clk_i, .rst_ni,
    .wr_valid_i  (w_fire && s_wlast_i),
    .wr_data_i   (bur_id_q),
    .wr_commit_i (1'b1),
    .wr_drop_i   (1'b0),
    .wr_space_o  (bq_space),
    .wr_room_o   (b_space),
    .rd_valid_o  (s_bvalid_o),
    .rd_data_o   (s_bid_o),
    .rd_ready_i  (s_bready_i)
  );
  assign s_bresp_o = 2'b00;

  // ---------------- stage 1: beat with its PCT entry ----------------
  logic            s1_q;
  logic [WA_W-1:0] s1_addr_q;
  logic [63:0]     s1_data_q;
  logic [7:0]      s1_strb_q;
  logic            s1_go;
  logic            bar_q;          // barrier requested, not yet queued

  assign s_wready_o = burst_q && b_space && !bar_q && !(s1_q && !s1_go);
  assign w_fire     = s_wvalid_i && s_wready_o;
  assign load_burst = awp_q && (!burst_q || (w_fire && s_wlast_i));
  assign pct_re_o   = w_fire;
  assign pct_addr_o = bur_addr_q[WA_W-1 -: PG_W];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      awp_q      <= 1'b0;
      awp_id_q   <= '0;
      awp_addr_q <= '0;
      burst_q    <= 1'b0;
      bur_id_q   <= '0;
      bur_addr_q <= '0;
      s1_q       <= 1'b0;
      s1_addr_q  <= '0;
      s1_data_q  <= '0;
      s1_strb_q  <= '0;
    end else begin
      if (s_awvalid_i && s_awready_o) begin
        awp_q      <= 1'b1;
        awp_id_q   <= s_awid_i;
        awp_addr_q <= s_awaddr_i[WIN_AW-1:3];
      end else if (load_burst) begin
        awp_q <= 1'b0;
      end
      if (load_burst) begin
        burst_q    <= 1'b1;
        bur_id_q   <= awp_id_q;
        bur_addr_q <= awp_addr_q;
      end else if (w_fire) begin
        if (s_wlast_i) burst_q <= 1'b0;
        bur_addr_q <= bur_addr_q + 1'b1;
      end
      if (w_fire) begin
        s1_q      <= 1'b1;
        s1_addr_q <= bur_addr_q;
        s1_data_q <= s_wdata_i;
        s1_strb_q <= s_wstrb_i;
      end else if (s1_go) begin
        s1_q <= 1'b0;
      end
    end
  end

  // ---------------- request pages ----------------
  function automatic logic [1:0] entry_op(input logic [31:0] entry);
    entry_op = 2'((entry & MC_TX_PCT_OP_MASK) >> MC_TX_PCT_OP_SHIFT);
  endfunction
  function automatic logic entry_cas(input logic [31:0] entry);
    entry_cas = (entry_op(entry) == 2'(MC_OP_SWAP)) && ((entry & MC_TX_PCT_CAS_MASK) != 0);
  endfunction
  // 8-byte words one packet of the page may hold
  function automatic logic [5:0] entry_limit(input logic [31:0] entry);
    if (entry_op(entry) == 2'(MC_OP_FETCH_ADD) || entry_op(entry) == 2'(MC_OP_SWAP))
      entry_limit = entry_cas(entry) ? 6'd2 : 6'd1;
    else
      entry_limit = 6'(MAX_PAYLOAD_WORDS);
  endfunction

  // ---------------- packet combining ----------------
  logic            pk_q;            // a packet is open
  logic            pk_full_q;       // open packet cannot grow any more
  logic [DA_W-1:0] pk_start_q;      // first 32-bit word
  logic [DA_W-1:0] pk_next_q;       // 32-bit word that would continue it
  logic [5:0]      pk_words_q;      // 8-byte words in the packet
  logic [31:0]     pk_entry_q;      // transmit PCT entry
  logic            pk_refuse_q;     // a request refused here (a partial word): no payload
  logic            pk_cmp_q;        // a CAS whose word 0 is the staged compare operand
  logic            cmp_wait_q;      // ... pushed; its beat (word 1) not yet taken
  logic            cmp_ins;         // push the staged compare operand, hold the beat
  logic [15:0]     idle_q;

  logic            en, lo_full, hi_full, lo_part, hi_part, lo_ok, hi_ok, req_part;
  logic [DA_W-1:0] beat_first, beat_next;
  logic            append, start, space_ok;
  logic            close_old, close_idle, push_bar;

  always_comb begin
    en      = enable_i && ((pct_rdata_i & MC_TX_PCT_TX_EN_MASK) != 0);
    lo_full = (s1_strb_q[3:0] == 4'hF);
    hi_full = (s1_strb_q[7:4] == 4'hF);
    lo_part = !lo_full && (s1_strb_q[3:0] != 4'h0);
    hi_part = !hi_full && (s1_strb_q[7:4] != 4'h0);
    req_part = en && (entry_op(pct_rdata_i) != 2'(MC_OP_WRITE)) && (lo_part || hi_part);
    lo_ok   = en && lo_full && !req_part;
    hi_ok   = en && hi_full && !req_part;
    beat_first = req_part ? {s1_addr_q, s1_strb_q[3:0] == 4'h0} : {s1_addr_q, !lo_ok};
    beat_next  = {s1_addr_q, 1'b0} + (hi_ok ? DA_W'(2) : DA_W'(1));
    space_ok   = data_room_i && desc_room_i;
    cmp_ins    = s1_q && space_ok && !cmp_wait_q && lo_ok && hi_ok &&
                 entry_cas(pct_rdata_i) && ((cas_page_i & MC_REMOTE_CAS_PAGE_ARM_MASK) != 0) &&
                 (32'(s1_addr_q[WA_W-1 -: PG_W]) == (cas_page_i & MC_REMOTE_CAS_PAGE_PAGE_MASK));
    s1_go      = s1_q && space_ok && !cmp_ins;
    // a beat continues the open packet when it starts at the next 32-bit word, the packet
    // ended on a full 8-byte word, and the packet is neither full nor on another page
    append = s1_go && (lo_ok || hi_ok) && pk_q && !pk_full_q && lo_ok &&
             (beat_first == pk_next_q) && (pk_words_q < entry_limit(pk_entry_q)) &&
             (s1_addr_q[WA_W-1 -: PG_W] == pk_start_q[DA_W-1 -: PG_W]);
    start  = s1_go && (lo_ok || hi_ok || req_part) && !append;
    close_old  = (start || cmp_ins) && pk_q;
    close_idle = !close_old && pk_q && (pk_full_q || bar_q || (idle_q >= combine_idle_i)) &&
                 !append && !cmp_wait_q;
    push_bar   = bar_q && !pk_q && !s1_q && !close_old;
  end

  function automatic logic [64:0] make_desc(input logic [31:0] entry, input logic [DA_W-1:0] first,
                                            input logic [DA_W-1:0] next, input logic barrier,
                                            input logic refuse);
    logic [63:0] h;
    logic [5:0] ndw;
    h = '0;
    ndw = 6'(next - first - 1'b1);      // at most 63: a packet holds at most 32 words
    h[H_LEN_LSB +: 6] = ndw;
    h[H_ADDR_LSB +: 26] = 26'(first);
    if (barrier) begin
      h[H_TP_LSB +: 4] = TP_ACKREQ;
      h[C_ACK_REQ] = 1'b1;
      h[H_DNID_LSB +: 8] = 8'hFF;
      h[H_LEN_LSB +: 6] = '0;
      h[H_ADDR_LSB +: 26] = '0;
      make_desc = {1'b0, h};
    end else if (refuse) begin
      // header only, to node 0xFF: the frame builder completes it as refused, at this address
      h[H_TP_LSB +: 4] = TP_RDREQ;
      h[H_DNID_LSB +: 8] = 8'hFF;
      h[H_LEN_LSB +: 6] = '0;
      make_desc = {1'b0, h};
    end else if (entry_op(entry) != 2'(MC_OP_WRITE)) begin
      // a request goes to one node; any other destination kind is named 0xFF, which the
      // frame builder refuses (completes as failed) instead of sending
      h[H_TP_LSB +: 4] = (entry_op(entry) == 2'(MC_OP_READ)) ? TP_RDREQ : TP_ATREQ;
      h[H_DNID_LSB +: 8] = ((entry & MC_TX_PCT_DEST_KIND_MASK) == 0) ?
                           8'((entry & MC_TX_PCT_DEST_MASK) >> MC_TX_PCT_DEST_SHIFT) : 8'hFF;
      if (entry_op(entry) != 2'(MC_OP_READ))
        h[C_AOP +: 2] = entry_cas(entry) ? A_CAS :
                        (entry_op(entry) == 2'(MC_OP_SWAP)) ? A_SWAP : A_FADD;
      make_desc = {1'b0, h};
    end else begin
      h[H_TP_LSB +: 4] = TP_DATA;
      h[C_ACK_REQ] = (entry & MC_TX_PCT_ACK_REQ_MASK) != 0;
      h[C_DKIND +: 2] = 2'((entry & MC_TX_PCT_DEST_KIND_MASK) >> MC_TX_PCT_DEST_KIND_SHIFT);
      h[H_DNID_LSB +: 8] = 8'((entry & MC_TX_PCT_DEST_MASK) >> MC_TX_PCT_DEST_SHIFT);
      make_desc = {(entry & MC_TX_PCT_LOCAL_COPY_MASK) != 0, h};
    end
  endfunction

  always_comb begin
    // a read request carries no payload: its stored words are not kept
    data_we_o = append ? (entry_op(pk_entry_q) != 2'(MC_OP_READ))
                       : cmp_ins || (start && !req_part && (entry_op(pct_rdata_i) != 2'(MC_OP_READ)));
    data_o    = cmp_ins ? cas_cmp_i
                        : {hi_ok ? s1_data_q[63:32] : 32'h0, lo_ok ? s1_data_q[31:0] : 32'h0};
    desc_we_o = close_old || close_idle || push_bar;
    desc_o    = make_desc(pk_entry_q, pk_start_q, pk_next_q, push_bar, pk_refuse_q);
    drop_disabled_o = s1_go && !en && (s1_strb_q != 8'h0);
    drop_partial_o  = s1_go && en && (lo_part || hi_part) && !req_part;
  end

  // AxLEN is implied by WLAST; the low address bits by the byte strobes
  logic unused;
  assign unused = ^{s_awlen_i, s_awaddr_i[2:0], bq_space};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pk_q       <= 1'b0;
      pk_full_q  <= 1'b0;
      pk_start_q <= '0;
      pk_next_q  <= '0;
      pk_words_q <= '0;
      pk_entry_q <= '0;
      pk_refuse_q <= 1'b0;
      pk_cmp_q   <= 1'b0;
      cmp_wait_q <= 1'b0;
      idle_q     <= '0;
      bar_q      <= 1'b0;
    end else begin
      if (barrier_req_i) bar_q <= 1'b1;
      else if (push_bar) bar_q <= 1'b0;
      idle_q <= (append || start || cmp_ins) ? 16'd0
                                             : (idle_q == 16'hFFFF ? idle_q : idle_q + 1'b1);
      if (cmp_ins) cmp_wait_q <= 1'b1;
      else if (s1_go) cmp_wait_q <= 1'b0;
      if (cmp_ins) begin
        // word 0 pushed; the held beat appends as word 1 at the same address next
        pk_q       <= 1'b1;
        pk_full_q  <= 1'b0;
        pk_start_q <= beat_first;
        pk_next_q  <= beat_first;
        pk_words_q <= 6'd1;
        pk_entry_q <= pct_rdata_i;
        pk_refuse_q <= 1'b0;
        pk_cmp_q   <= 1'b1;
      end else if (start) begin
        pk_q       <= 1'b1;
        pk_full_q  <= !hi_ok || (entry_limit(pct_rdata_i) == 6'd1) || req_part;
        pk_start_q <= beat_first;
        pk_next_q  <= beat_next;
        pk_words_q <= 6'd1;
        pk_entry_q <= pct_rdata_i;
        pk_refuse_q <= req_part;
        pk_cmp_q   <= 1'b0;
      end else if (append) begin
        pk_full_q  <= !hi_ok || (pk_words_q + 1'b1 == entry_limit(pk_entry_q));
        // a staged CAS covers two words at its address: {compare, the stored word}
        pk_next_q  <= pk_cmp_q ? beat_next + DA_W'(2) : beat_next;
        pk_words_q <= pk_words_q + 1'b1;
      end else if (close_idle) begin
        pk_q <= 1'b0;
      end
    end
  end
endmodule : memchan_tx_window

`default_nettype wire
