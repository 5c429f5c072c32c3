// First-word-fall-through FIFO on a block RAM, with packet commit/drop on the write side.
// Written words become readable only when committed (wr_commit_i, which includes a word
// written in the same cycle); wr_drop_i discards every uncommitted word (store-and-forward
// CRC check). Tie wr_commit_i to 1 for a plain FIFO. wr_space_o counts free entries.
// wr_room_o is registered (no arithmetic behind it for the writer's ready logic): when it
// is 1, at least ROOM entries are free in this cycle (it is computed one cycle earlier with
// a margin of one word for the write that cycle may have made; reads only add room).
// The read side keeps a three-entry output buffer so that it sustains one word per cycle
// without looking at rd_ready_i to decide the RAM read (the reader's ready logic stays off
// the RAM enable path).
`default_nettype none

module memchan_fifo #(
  parameter int unsigned WIDTH = 64,
  parameter int unsigned DEPTH = 512,
  parameter int unsigned ROOM  = 1
) (
  input  wire logic             clk_i,
  input  wire logic             rst_ni,
  input  wire logic             wr_valid_i,
  input  wire logic [WIDTH-1:0] wr_data_i,
  input  wire logic             wr_commit_i,
  input  wire logic             wr_drop_i,
  output logic [$clog2(DEPTH):0] wr_space_o,
  output logic                  wr_room_o,
  output logic                  rd_valid_o,
  output logic      [WIDTH-1:0] rd_data_o,
  input  wire logic             rd_ready_i
);
  localparam int unsigned AW = $clog2(DEPTH);

  if (DEPTH < 4 || (1 << AW) != DEPTH || ROOM < 1 || ROOM >= DEPTH) begin : g_check
    $error("memchan_fifo: DEPTH must be a power of two >= 4, ROOM in 1..DEPTH-1");
  end

  logic [AW:0] wptr_q, cptr_q, rptr_q;  // write, committed, RAM read pointers
  logic        inflight_q;              // a RAM read returns this cycle
  logic [1:0]  ocnt_q;                  // words in the output buffer (0..3)
  logic [WIDTH-1:0] ob_q [3];
  logic [WIDTH-1:0] ram_rdata;
  logic        pop, issue, wr_en, full, room_q;
  logic [1:0]  keep;                    // words left in the output buffer after pop

  // full: the pointers differ by DEPTH (equality, no subtraction)
  assign full       = (wptr_q[AW] != rptr_q[AW]) && (wptr_q[AW-1:0] == rptr_q[AW-1:0]);
  assign wr_en      = wr_valid_i && !wr_drop_i && !full;
  assign wr_space_o = (AW+1)'(DEPTH) - (wptr_q - rptr_q);
  assign wr_room_o  = room_q;
  assign rd_valid_o = (ocnt_q != 2'd0);
  assign rd_data_o  = ob_q[0];
  assign pop        = rd_valid_o && rd_ready_i;
  assign keep       = ocnt_q - 2'(pop);
  // read the RAM when a word is committed and the output buffer has room for it even if
  // nothing is read meanwhile (three entries: one word per cycle without looking at pop)
  assign issue      = (cptr_q != rptr_q) && ({1'b0, ocnt_q} + {2'b0, inflight_q} <= 3'd2);

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
      room_q     <= 1'b1;
    end else begin
      if (wr_drop_i) begin
        wptr_q <= cptr_q;
      end else begin
        if (wr_en) wptr_q <= wptr_q + 1'b1;
        if (wr_commit_i) cptr_q <= wptr_q + (AW+1)'(wr_en);
      end
      if (issue) rptr_q <= rptr_q + 1'b1;
      inflight_q <= issue;
      ocnt_q <= keep + 2'(inflight_q);
      // a write this cycle takes at most one entry
      room_q <= (wr_space_o >= (AW+1)'(ROOM + 1));
    end
  end

  // output buffer data (no reset needed)
  always_ff @(posedge clk_i) begin
    if (pop) begin
      ob_q[0] <= ob_q[1];
      ob_q[1] <= ob_q[2];
    end
    if (inflight_q) begin   // keep <= 2 here (issue left room for the word)
      unique case (keep)
        2'd0:    ob_q[0] <= ram_rdata;
        2'd1:    ob_q[1] <= ram_rdata;
        default: ob_q[2] <= ram_rdata;
      endcase
    end
  end
endmodule : memchan_fifo

`default_nettype wire
