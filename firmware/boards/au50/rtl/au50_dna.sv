// The board serial from the device DNA (DNA_PORTE2, UG570): one READ loads the 96-bit DNA into
// the port's shift register, 95 SHIFTs bring the other bits to DOUT. The 96 bits folded to 32
// (every bit counts) are memchan_top's serial_i, the node-ID autoconfiguration's tie break.
// Read once after reset in the DNA port's clock (at most 200 MHz: the 100 MHz system clock);
// serial_o and done_o hold still afterwards, so the core's side takes serial_o once it sees
// done_o through a synchronizer.
`default_nettype none

module au50_dna (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  output logic [31:0]      serial_o,
  output logic             done_o
);
  logic [95:0] dna_q;
  logic [6:0]  bit_q;      // bits taken so far
  logic        read_q, loaded_q, dout;

  DNA_PORTE2 u_dna (.CLK(clk_i), .DIN(1'b0), .READ(read_q), .SHIFT(loaded_q && !done_o), .DOUT(dout));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      read_q   <= 1'b1;
      loaded_q <= 1'b0;
      bit_q    <= '0;
      dna_q    <= '0;
      done_o   <= 1'b0;
    end else if (read_q) begin
      read_q   <= 1'b0;      // DOUT now shows the first bit
      loaded_q <= 1'b1;
    end else if (loaded_q && !done_o) begin
      dna_q <= {dna_q[94:0], dout};
      bit_q <= bit_q + 7'd1;
      if (bit_q == 7'd95) done_o <= 1'b1;
    end
  end
  assign serial_o = dna_q[95:64] ^ dna_q[63:32] ^ dna_q[31:0];
endmodule : au50_dna

`default_nettype wire
