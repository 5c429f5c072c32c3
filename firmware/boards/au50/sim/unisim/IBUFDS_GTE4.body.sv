// SIMULATION MODEL of the GT reference clock buffer (UG974): O and ODIV2 follow I while CEB
// is low (ODIV2 at the reference's own rate, REFCLK_HROW_CK_SEL = 0, as the PCIe bridge's
// sys_clk takes it). Benches only; the board build uses the primitive.
`default_nettype none

// (the port list: the stub's in ip_stubs/, put here by au50_models.py)

  logic unused;
  assign unused = IB;
  assign O     = I && !CEB;
  assign ODIV2 = I && !CEB;
endmodule : IBUFDS_GTE4

`default_nettype wire
