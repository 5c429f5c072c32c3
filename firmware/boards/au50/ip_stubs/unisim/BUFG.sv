// PORT-LIST STUB, not the primitive: BUFG of the UltraScale+ library with its ports as
// UG974 lists them, so that lint and yosys (a black box) see it without Vivado's unisim library.
// Vivado uses its own; this file is not part of the Vivado build.
`default_nettype none

module BUFG (
  input  wire logic I,
  output logic      O
);
endmodule : BUFG

`default_nettype wire
