// First-word-fall-through FIFO on a block RAM, with packet commit/drop on the write side.
// Written words become readable only when committed (wr_commit_i, which includes a word
// written in the same cycle); wr_drop_i discards every uncommitted word (store-and-forward
// CRC check). Tie wr_commit_i to 1 for a plain FIFO. wr_space_o counts free entries.
// The read side keeps a two-entry output buffer so that it sustains one word per cycle.
`default_nettype none

module memchan_fifo #(
  parameter int unsigned WIDTH = 64,
  parameter int unsigned DEPTH = 512
) (
  input  wire logic             clk_i,
  input  wire logic             rst_ni,
  input  wire logic             wr_valid_i,
  input  wire logic [WIDTH-1:0] wr_data_i,
  input  wire logic             wr_commit_i,
  input  wire logic             wr_drop_i,
  output logic [$clog2(DEPTH):0] wr_space_o,
  output logic                  rd_valid_o,
  output logic      [WIDTH-1:0] rd_data_o,
  input  wire logic             rd_ready_i
);
  localparam int unsigned AW = $clog2(DEPTH);

  if (DEPTH < 4 || (1 << AW) != DEPTH) begin : g_check
    $error("memchan_fifo: DEPTH must be a power of two >= 4");
  end

  logic [AW:0] wptr_q, cptr_q, rptr_q;  // write, committed, RAM read pointers
  logic        inflight_q;              // a RAM read returns this cycle
  logic [1:0]  ocnt_q;                  // words in the output buffer
  logic [WIDTH-1:0] ob_q [2];
  logic [WIDTH-1:0] ram_rdata;
  logic        pop, issue, wr_en;

  assign wr_en      = wr_valid_i && !wr_drop_i && (wr_space_o != '0);
  assign wr_space_o = (AW+1)'(DEPTH) - (wptr_q - rptr_q);
  assign rd_valid_o = (ocnt_q != 2'd0);
  assign rd_data_o  = ob_q[0];
  assign pop        = rd_valid_o && rd_ready_i;
  // read the RAM when a word is committed and the output buffer will have room for it
  assign issue      = (cptr_q != rptr_q) &&
                      ({1'b0, ocnt_q} + {2'b0, inflight_q} <= {2'b0, pop} + 3'd1);

  memchan_ram_sdp #(.WIDTH(WIDTH), .DEPTH(DEPTH)) u_ram (
    .clk_i,
    .we_i    (wr_en),
    .waddr_i (wptr_q[AW-1:0]),
    .wdata_i (wr_data_i),
    .re_i    (issue),
    .raddr_i (rptr_q[AW-1:0]),
    .rdata_o (ram_rdata)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q     <= '0;
      cptr_q     <= '0;
      rptr_q     <= '0;
      inflight_q <= 1'b0;
      ocnt_q     <= 2'd0;
    end else begin
      if (wr_drop_i) begin
        wptr_q <= cptr_q;
      end else begin
        if (wr_en) wptr_q <= wptr_q + 1'b1;
        if (wr_commit_i) cptr_q <= wptr_q + (AW+1)'(wr_en);
      end
      if (issue) rptr_q <= rptr_q + 1'b1;
      inflight_q <= issue;
      ocnt_q <= ocnt_q - 2'(pop) + 2'(inflight_q);
    end
  end

  // output buffer data (no reset needed)
  always_ff @(posedge clk_i) begin
    if (pop) ob_q[0] <= ob_q[1];
    if (inflight_q) begin
      if (ocnt_q - 2'(pop) == 2'd0) ob_q[0] <= ram_rdata;
      else                          ob_q[1] <= ram_rdata;
    end
  end
endmodule : memchan_fifo

`default_nettype wire
