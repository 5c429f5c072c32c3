// SIMULATION MODEL of the UltraScale+ global clock buffer (UG974): O follows I. Benches only
// (sim/README in docs/board-u50.md); the board build uses the primitive.
`default_nettype none

// (the port list: the stub's in ip_stubs/, put here by au50_models.py)

  assign O = I;
endmodule : BUFG

`default_nettype wire
