// One direction of a link cable: AXI4-Stream in, AXI4-Stream out, a queue in between,
// random back-pressure on both sides, optional random bit flips (errors) or a cut cable.
`default_nettype none

module tb_link_chan #(
  parameter int STALL = 30
) (
  input  wire logic        clk,
  input  wire logic        rst_n,
  input  wire logic        i_tvalid,
  input  wire logic [63:0] i_tdata,
  input  wire logic        i_tlast,
  output logic             i_tready,
  output logic             o_tvalid,
  output logic [63:0]      o_tdata,
  output logic             o_tlast,
  input  wire logic        o_tready
);
  logic [64:0] q [$];
  int  flip_ppm;      // bit-flip probability per word, parts per million
  bit  cut;           // cable cut: everything sent is lost
  int  stall_pct;
  longint flips, words;

  initial begin flip_ppm = 0; cut = 0; stall_pct = STALL; flips = 0; words = 0; end

  always @(posedge clk) begin
    if (!rst_n) begin
      i_tready <= 1'b0; o_tvalid <= 1'b0; o_tdata <= '0; o_tlast <= 1'b0;
    end else begin
      if (i_tvalid && i_tready && !cut) begin
        logic [63:0] d;
        d = i_tdata;
        words++;
        if (flip_ppm > 0 && $urandom_range(0, 999999) < flip_ppm) begin
          d[$urandom_range(0, 63)] ^= 1'b1;
          flips++;
        end
        q.push_back({i_tlast, d});
      end
      if (o_tvalid && o_tready) void'(q.pop_front());
      i_tready <= (q.size() < 64) && ($urandom_range(0, 99) >= stall_pct);
      // present the head of the queue (after this cycle's pop) with random gaps
      if (!(o_tvalid && !o_tready)) begin
        if (q.size() > 0 && $urandom_range(0, 99) >= stall_pct) begin
          o_tvalid <= 1'b1;
          {o_tlast, o_tdata} <= q[0];
        end else begin
          o_tvalid <= 1'b0;
        end
      end
    end
  end
endmodule : tb_link_chan

`default_nettype wire
