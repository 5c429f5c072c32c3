// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) over one 64-bit word per cycle,
// bytes in little-endian order (byte 0 = bits 7:0 first). Purely combinational.
// Frame CRC = ~(crc over all words starting from 32'hFFFFFFFF), i.e. zlib's crc32().
// Written as the XOR matrix of the (linear) bitwise loop: each output bit is the parity of
// a constant selection of the 96 input bits, which maps onto a balanced tree of LUTs
// (3 LUT levels) instead of the 64-step chain the loop describes.
`default_nettype none

module memchan_crc32 (
  input  wire logic [31:0] crc_i,
  input  wire logic [63:0] data_i,
  output logic      [31:0] crc_o
);
  // row j of the matrix: bit k is set when input bit k (0..31 state, 32..95 data) alone
  // gives output bit j, i.e. the bitwise loop run once per input bit
  function automatic logic [95:0] row(input logic [4:0] j);
    logic [31:0] c;
    logic [63:0] d;
    row = '0;
    for (int k = 0; k < 96; k++) begin
      c = '0;
      d = '0;
      if (k < 32) c[k] = 1'b1;
      else        d[k - 32] = 1'b1;
      for (int i = 0; i < 64; i++) begin
        c = (c[0] ^ d[i]) ? ((c >> 1) ^ 32'hEDB88320) : (c >> 1);
      end
      row[k] = c[j];
    end
  endfunction

  logic [95:0] in;
  assign in = {data_i, crc_i};
  for (genvar j = 0; j < 32; j++) begin : g_bit
    localparam logic [95:0] MASK = row(5'(j));
    assign crc_o[j] = ^(in & MASK);
  end
endmodule : memchan_crc32

`default_nettype wire
