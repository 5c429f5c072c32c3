// PORT-LIST STUB, not the primitive: MMCME4_BASE of the UltraScale+ library with its ports and
// the parameters au50_top sets as UG974 lists them, so that lint and yosys (a black box) see it
// without Vivado's unisim library. Vivado uses its own; this file is not part of the Vivado build.
`default_nettype none

module MMCME4_BASE #(
  parameter         CLKIN1_PERIOD    = 0.0,
  parameter         DIVCLK_DIVIDE    = 1,
  parameter         CLKFBOUT_MULT_F  = 5.0,
  parameter         CLKOUT0_DIVIDE_F = 1.0,
  parameter         BANDWIDTH        = "OPTIMIZED"
) (
  input  wire logic CLKIN1,
  input  wire logic CLKFBIN,
  input  wire logic RST,
  input  wire logic PWRDWN,
  output logic      CLKFBOUT,
  output logic      CLKFBOUTB,
  output logic      CLKOUT0,
  output logic      CLKOUT0B,
  output logic      CLKOUT1,
  output logic      CLKOUT1B,
  output logic      CLKOUT2,
  output logic      CLKOUT2B,
  output logic      CLKOUT3,
  output logic      CLKOUT3B,
  output logic      CLKOUT4,
  output logic      CLKOUT5,
  output logic      CLKOUT6,
  output logic      LOCKED
);
endmodule : MMCME4_BASE

`default_nettype wire
