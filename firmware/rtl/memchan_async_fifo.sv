// Asynchronous FIFO between two unrelated clocks (first word fall through). Each side keeps
// its pointer in binary and in gray code; only the gray pointer crosses, through a two-flop
// memchan_sync, so that the other side sees either the old or the new pointer, never a mix.
// Full and free space are computed on the write side from the synchronized read pointer, which
// lags the real one: they are conservative (the FIFO may hold less than they say, never more).
// The storage is read asynchronously (distributed RAM on UltraScale+): the word at the read
// pointer is valid once the write pointer that covers it has crossed.
// Both resets must be asserted together (the board's reset synchronizers do so).
`default_nettype none

module memchan_async_fifo #(
  parameter int unsigned WIDTH = 66,
  parameter int unsigned DEPTH = 16,
  // pointers cross in gray code; 0 crosses them in binary, only to show what gray code
  // prevents (the bench's negative control), never on a board
  parameter bit          GRAY  = 1'b1,
  localparam int unsigned AW = $clog2(DEPTH)
) (
  input  wire logic             wr_clk_i,
  input  wire logic             wr_rst_ni,
  input  wire logic             wr_valid_i,
  input  wire logic [WIDTH-1:0] wr_data_i,
  output logic                  wr_ready_o,     // not full: a word written now is stored
  output logic [AW:0]           wr_free_o,      // free entries, as the write side sees them
  input  wire logic             rd_clk_i,
  input  wire logic             rd_rst_ni,
  output logic                  rd_valid_o,
  output logic      [WIDTH-1:0] rd_data_o,
  input  wire logic             rd_ready_i
);
  if (DEPTH < 4 || (1 << AW) != DEPTH) begin : g_check
    $error("memchan_async_fifo: DEPTH must be a power of two >= 4");
  end

  function automatic logic [AW:0] to_gray(input logic [AW:0] b);
    to_gray = GRAY ? (b ^ (b >> 1)) : b;
  endfunction
  function automatic logic [AW:0] from_gray(input logic [AW:0] g);
    from_gray[AW] = g[AW];
    for (int i = AW - 1; i >= 0; i--) from_gray[i] = from_gray[i+1] ^ g[i];
    if (!GRAY) from_gray = g;
  endfunction

  logic [WIDTH-1:0] mem [DEPTH];
  logic [AW:0] wbin_q, wgray_q, rbin_q, rgray_q, rgray_w, wgray_r, rbin_w, wbin_r;
  logic        wr_en, rd_en;

  // write side
  memchan_sync #(.WIDTH(AW + 1)) u_rptr_sync (
    .clk_i(wr_clk_i), .rst_ni(wr_rst_ni), .d_i(rgray_q), .q_o(rgray_w));
  assign rbin_w     = from_gray(rgray_w);
  assign wr_free_o  = (AW+1)'(DEPTH) - (wbin_q - rbin_w);
  assign wr_ready_o = (wr_free_o != '0);
  assign wr_en      = wr_valid_i && wr_ready_o;

  always_ff @(posedge wr_clk_i or negedge wr_rst_ni) begin
    if (!wr_rst_ni) begin
      wbin_q  <= '0;
      wgray_q <= '0;
    end else if (wr_en) begin
      wbin_q  <= wbin_q + 1'b1;
      wgray_q <= to_gray(wbin_q + 1'b1);
    end
  end
  always_ff @(posedge wr_clk_i) begin
    if (wr_en) mem[wbin_q[AW-1:0]] <= wr_data_i;
  end

  // read side
  memchan_sync #(.WIDTH(AW + 1)) u_wptr_sync (
    .clk_i(rd_clk_i), .rst_ni(rd_rst_ni), .d_i(wgray_q), .q_o(wgray_r));
  assign wbin_r     = from_gray(wgray_r);
  assign rd_valid_o = (wbin_r != rbin_q);
  assign rd_data_o  = mem[rbin_q[AW-1:0]];
  assign rd_en      = rd_valid_o && rd_ready_i;

  always_ff @(posedge rd_clk_i or negedge rd_rst_ni) begin
    if (!rd_rst_ni) begin
      rbin_q  <= '0;
      rgray_q <= '0;
    end else if (rd_en) begin
      rbin_q  <= rbin_q + 1'b1;
      rgray_q <= to_gray(rbin_q + 1'b1);
    end
  end
endmodule : memchan_async_fifo

`default_nettype wire
