// Simple dual-port RAM: one write port, one registered read port (infers block RAM).
`default_nettype none

module memchan_ram_sdp #(
  parameter int unsigned WIDTH = 64,
  parameter int unsigned DEPTH = 512
) (
  input  wire logic             clk_i,
  input  wire logic             we_i,
  input  wire logic [$clog2(DEPTH)-1:0]    waddr_i,
  input  wire logic [WIDTH-1:0] wdata_i,
  input  wire logic             re_i,
  input  wire logic [$clog2(DEPTH)-1:0]    raddr_i,
  output logic      [WIDTH-1:0] rdata_o
);
  localparam int unsigned AW = $clog2(DEPTH);

  if (DEPTH < 2 || (1 << AW) != DEPTH) begin : g_check
    $error("memchan_ram_sdp: DEPTH must be a power of two >= 2");
  end

  logic [WIDTH-1:0] mem [DEPTH];

  always_ff @(posedge clk_i) begin
    if (we_i) mem[waddr_i] <= wdata_i;
  end

  always_ff @(posedge clk_i) begin
    if (re_i) rdata_o <= mem[raddr_i];
  end
endmodule : memchan_ram_sdp

`default_nettype wire
