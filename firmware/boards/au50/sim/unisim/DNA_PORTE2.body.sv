// SIMULATION MODEL of the device DNA access port (UG570, UG974): READ high at a CLK edge loads
// the 96-bit DNA into the shift register and DOUT shows bit 0; SHIFT high (READ low) shifts DIN
// into bit 95 and the register toward DOUT, so the DNA comes out LSB first. `dna` is the DNA
// (AMD's model takes it from SIM_DNA_VALUE, all zeros by default): a bench sets it in each
// instance to tell boards apart (the board top instantiates the port without parameters).
// Benches only.
`default_nettype none

// (the port list: the stub's in ip_stubs/, put here by au50_models.py)

  logic [95:0] dna = '0;
  logic [95:0] sr = '0;

  always @(posedge CLK) begin
    if (READ) sr <= dna;
    else if (SHIFT) sr <= {DIN, sr[95:1]};
  end
  assign DOUT = sr[0];
endmodule : DNA_PORTE2

`default_nettype wire
