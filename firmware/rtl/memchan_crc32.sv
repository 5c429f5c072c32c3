// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) over one 64-bit word per cycle,
// bytes in little-endian order (byte 0 = bits 7:0 first). Purely combinational.
// Frame CRC = ~(crc over all words starting from 32'hFFFFFFFF), i.e. zlib's crc32().
`default_nettype none

module memchan_crc32 (
  input  wire logic [31:0] crc_i,
  input  wire logic [63:0] data_i,
  output logic      [31:0] crc_o
);
  always_comb begin
    logic [31:0] c;
    c = crc_i;
    for (int i = 0; i < 64; i++) begin
      c = (c[0] ^ data_i[i]) ? ((c >> 1) ^ 32'hEDB88320) : (c >> 1);
    end
    crc_o = c;
  end
endmodule : memchan_crc32

`default_nettype wire
