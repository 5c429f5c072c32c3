// SIMULATION MODEL of the differential input buffer (UG974): O follows I while IB is its
// complement. Benches only; the board build uses the primitive.
`default_nettype none

// (the port list: the stub's in ip_stubs/, put here by au50_models.py)

  logic unused;
  assign unused = IB;
  assign O = I;
endmodule : IBUFDS

`default_nettype wire
