// Page access counters (Telegraphos, seed 003 section 2.2.6): per network page, the remote
// reads and the remote atomics this adapter served as home, in two block RAMs beside the
// receive PCT. A served request increments its page's count (read, +1 saturating, write
// back: two cycles on port A); reaching PAGE_CNT_THRESHOLD exactly on a page with COUNT_IRQ
// raises hot_o. Software sees the counts of one page (PAGE_CNT_SEL) through port B and sets
// a count by a write, applied on port A in a cycle the increment does not use it (served
// requests are several cycles apart: each waits for a host read).
`default_nettype none

module memchan_page_cnt #(
  parameter int unsigned PAGES = memchan_regs_pkg::MC_BOARD_PAGES,
  localparam int unsigned PG_W = $clog2(PAGES)
) (
  input  wire logic            clk_i,
  input  wire logic            rst_ni,
  // a request was served (home side)
  input  wire logic            served_i,
  input  wire logic            atomic_i,       // an atomic, else a read
  input  wire logic [PG_W-1:0] page_i,
  input  wire logic            cnt_irq_i,      // the page's receive PCT has COUNT_IRQ
  input  wire memchan_regs_pkg::mc_page_cnt_threshold_t threshold_i,   // 0: never
  // software: the selected page's counts, and writes that set them
  input  wire logic [PG_W-1:0] sel_i,
  output memchan_regs_pkg::mc_page_cnt_reads_t reads_o,
  output memchan_regs_pkg::mc_page_cnt_atomics_t atomics_o,
  input  wire logic            wr_reads_i,
  input  wire logic            wr_atomics_i,
  input  wire logic [memchan_regs_pkg::MC_REG_W-1:0] wdata_i,
  // a count reached the threshold
  output logic                 hot_o,
  output logic      [PG_W-1:0] hot_page_o
);
  logic            inc_q, inc_atomic_q, inc_irq_q;   // stage 2: the old count is on port A
  logic [PG_W-1:0] inc_page_q;
  logic            sw_q, sw_atomic_q;                // a software write waits for port A
  logic [PG_W-1:0] sw_page_q;
  logic [31:0]     sw_data_q;
  logic [31:0]     a_rd_reads, a_rd_atomics, old, inc;
  logic            a_en, we_reads, we_atomics, sw_go;
  logic [PG_W-1:0] a_addr;
  logic [31:0]     a_wdata;

  assign old = inc_atomic_q ? a_rd_atomics : a_rd_reads;
  assign inc = (old == 32'hFFFFFFFF) ? old : old + 32'd1;
  assign sw_go = sw_q && !inc_q && !served_i;

  always_comb begin
    a_en = 1'b0; a_addr = page_i; a_wdata = inc; we_reads = 1'b0; we_atomics = 1'b0;
    if (inc_q) begin                       // write the incremented count back
      a_en = 1'b1; a_addr = inc_page_q;
      we_reads = !inc_atomic_q; we_atomics = inc_atomic_q;
    end else if (served_i) begin           // read the old count
      a_en = 1'b1; a_addr = page_i;
    end else if (sw_go) begin
      a_en = 1'b1; a_addr = sw_page_q; a_wdata = sw_data_q;
      we_reads = !sw_atomic_q; we_atomics = sw_atomic_q;
    end
  end

  memchan_ram_tdp #(.WIDTH(32), .DEPTH(PAGES)) u_reads (
    .clk_i, .a_en_i(a_en), .a_we_i(we_reads), .a_addr_i(a_addr), .a_wdata_i(a_wdata),
    .a_rdata_o(a_rd_reads), .b_en_i(1'b1), .b_addr_i(sel_i), .b_rdata_o(reads_o));
  memchan_ram_tdp #(.WIDTH(32), .DEPTH(PAGES)) u_atomics (
    .clk_i, .a_en_i(a_en), .a_we_i(we_atomics), .a_addr_i(a_addr), .a_wdata_i(a_wdata),
    .a_rdata_o(a_rd_atomics), .b_en_i(1'b1), .b_addr_i(sel_i), .b_rdata_o(atomics_o));

  assign hot_o      = inc_q && inc_irq_q && (threshold_i != '0) && (inc == threshold_i);
  assign hot_page_o = inc_page_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      inc_q <= 1'b0; inc_atomic_q <= 1'b0; inc_irq_q <= 1'b0; inc_page_q <= '0;
      sw_q <= 1'b0; sw_atomic_q <= 1'b0; sw_page_q <= '0; sw_data_q <= '0;
    end else begin
      inc_q <= served_i && !inc_q;
      if (served_i) begin
        inc_atomic_q <= atomic_i;
        inc_irq_q    <= cnt_irq_i;
        inc_page_q   <= page_i;
      end
      if (wr_reads_i || wr_atomics_i) begin
        sw_q        <= 1'b1;
        sw_atomic_q <= wr_atomics_i;
        sw_page_q   <= sel_i;
        sw_data_q   <= wdata_i;
      end else if (sw_go) begin
        sw_q <= 1'b0;
      end
    end
  end
endmodule : memchan_page_cnt

`default_nettype wire
