// Dual-port RAM for the page control tables: port A read/write (register block),
// port B read only (data path). Both reads registered (infers block RAM).
`default_nettype none

module memchan_ram_tdp #(
  parameter int unsigned WIDTH = 32,
  parameter int unsigned DEPTH = 1024
) (
  input  wire logic             clk_i,
  input  wire logic             a_en_i,
  input  wire logic             a_we_i,
  input  wire logic [$clog2(DEPTH)-1:0]    a_addr_i,
  input  wire logic [WIDTH-1:0] a_wdata_i,
  output logic      [WIDTH-1:0] a_rdata_o,
  input  wire logic             b_en_i,
  input  wire logic [$clog2(DEPTH)-1:0]    b_addr_i,
  output logic      [WIDTH-1:0] b_rdata_o
);
  localparam int unsigned AW = $clog2(DEPTH);

  if (DEPTH < 2 || (1 << AW) != DEPTH) begin : g_check
    $error("memchan_ram_tdp: DEPTH must be a power of two >= 2");
  end

  logic [WIDTH-1:0] mem [DEPTH];

  // PCT entries start disabled (all zero) after configuration, as the register map requires.
  initial begin
    for (int i = 0; i < DEPTH; i++) mem[i] = '0;
  end

  always_ff @(posedge clk_i) begin
    if (a_en_i) begin
      if (a_we_i) mem[a_addr_i] <= a_wdata_i;
      a_rdata_o <= mem[a_addr_i];
    end
  end

  always_ff @(posedge clk_i) begin
    if (b_en_i) b_rdata_o <= mem[b_addr_i];
  end
endmodule : memchan_ram_tdp

`default_nettype wire
