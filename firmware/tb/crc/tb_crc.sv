// Unit bench: memchan_crc32 against reference values computed with Python's zlib.crc32 over
// the same little-endian 8-byte words (the frame CRC of the link). Runs on Verilator and
// on Icarus Verilog.
`default_nettype none

module tb_crc;
  logic [31:0] crc, nxt;
  logic [63:0] d;
  int n, errors;

  memchan_crc32 dut (.crc_i(crc), .data_i(d), .crc_o(nxt));

  task automatic step(input logic [63:0] w);
    d = w;
    #1;
    crc = nxt;
    n++;
  endtask

  task automatic check(input logic [31:0] expected, input int idx);
    if (~crc !== expected) begin
      $display("crc: vector %0d (%0d words): got %h, expected %h", idx, n, ~crc, expected);
      errors++;
    end
  endtask

  initial begin
    errors = 0;
    // vector 0: 1 words, zlib.crc32 = 0xAF49FBA4
    n = 0; crc = 32'hFFFFFFFF;
    step(64'h4164D8399F767C45);
    check(32'hAF49FBA4, 0);
    // vector 1: 2 words, zlib.crc32 = 0xB799038E
    n = 0; crc = 32'hFFFFFFFF;
    step(64'h5BC8FBBCBDE5C099);
    step(64'hB0C11FDECB91CE37);
    check(32'hB799038E, 1);
    // vector 2: 3 words, zlib.crc32 = 0x3377D73E
    n = 0; crc = 32'hFFFFFFFF;
    step(64'hD76D4330F1446BEA);
    step(64'hA6EB8C9EBD69FE29);
    step(64'h87B0B125EC1D7DA0);
    check(32'h3377D73E, 2);
    // vector 3: 5 words, zlib.crc32 = 0x7700CAD8
    n = 0; crc = 32'hFFFFFFFF;
    step(64'hD7210DFF076CE2EF);
    step(64'hC6A5387777330BDB);
    step(64'h3FC1EA36F17FD374);
    step(64'h0D464138A6233255);
    step(64'h2827688DE6A16A3B);
    check(32'h7700CAD8, 3);
    // vector 4: 34 words, zlib.crc32 = 0x24551F52
    n = 0; crc = 32'hFFFFFFFF;
    step(64'h5F2DD97F1CFB10F6);
    step(64'hDE5271007814E8A2);
    step(64'h617959CE3F1F65A8);
    step(64'h1A1AFE878B33E968);
    step(64'h3FD4235992EDCF45);
    step(64'hBB2EDB20035B7399);
    step(64'h687C966C377B9AA2);
    step(64'h2E9C82B1478C281D);
    step(64'hDE11CC9DEA959C21);
    step(64'h63B229F1C4069545);
    step(64'hC30D8B7628DBD25E);
    step(64'h126A1E48CC11D357);
    step(64'h9E30691C238642EA);
    step(64'h71E0C07E9E115E4B);
    step(64'h21DA8978206F5C66);
    step(64'hF8EB18B900745130);
    step(64'h015C33B2DF1461AA);
    step(64'hC60A3CAB359EEEFB);
    step(64'hF5CAE3BF3729C619);
    step(64'h2A759159FB7FF337);
    step(64'h2A9EBA0CDF561D80);
    step(64'h504B74BA4A0FE75D);
    step(64'h32EA6928F6236BF2);
    step(64'hE049548E8A0A8C96);
    step(64'hA02FDAA1AD864C44);
    step(64'h2E81D66D346C6E2B);
    step(64'hF7F35634F0E3CD97);
    step(64'h3266AA3BB0CDE917);
    step(64'hF7108E96F770C226);
    step(64'h621AEF57E4CC4132);
    step(64'h0585A01C4C7D6DF0);
    step(64'h6A3753915C76F18A);
    step(64'hEF901B932A7C1880);
    step(64'h43892DFC254CB864);
    check(32'h24551F52, 4);
    // a single flipped bit anywhere in a word changes the CRC
    for (int b = 0; b < 64; b++) begin
      logic [31:0] good;
      crc = 32'hFFFFFFFF; step(64'h0123_4567_89AB_CDEF); good = crc;
      crc = 32'hFFFFFFFF; step(64'h0123_4567_89AB_CDEF ^ (64'd1 << b));
      if (crc === good) begin $display("crc: flip of bit %0d undetected", b); errors++; end
    end
    if (errors != 0) $fatal(1, "crc: %0d errors", errors);
    $display("crc: PASS");
    $finish;
  end
endmodule : tb_crc

`default_nettype wire
