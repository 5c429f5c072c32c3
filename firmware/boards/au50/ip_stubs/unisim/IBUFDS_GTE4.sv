// PORT-LIST STUB, not the primitive: IBUFDS_GTE4 of the UltraScale+ library with its ports as
// UG974 lists them, so that lint and yosys (a black box) see it without Vivado's unisim library.
// Vivado uses its own; this file is not part of the Vivado build.
`default_nettype none

module IBUFDS_GTE4 (
  input  wire logic I,
  input  wire logic IB,
  input  wire logic CEB,
  output logic      O,
  output logic      ODIV2
);
endmodule : IBUFDS_GTE4

`default_nettype wire
