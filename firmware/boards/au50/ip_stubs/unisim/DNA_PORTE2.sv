// PORT-LIST STUB, not the primitive: DNA_PORTE2 of the UltraScale+ library with its ports as
// UG974 lists them, so that lint and yosys (a black box) see it without Vivado's unisim library.
// Vivado uses its own; this file is not part of the Vivado build.
`default_nettype none

module DNA_PORTE2 (
  input  wire logic CLK,
  input  wire logic DIN,
  input  wire logic READ,
  input  wire logic SHIFT,
  output logic      DOUT
);
endmodule : DNA_PORTE2

`default_nettype wire
