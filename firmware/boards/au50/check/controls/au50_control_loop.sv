// Negative control of check/elaborate.sh: a combinational loop (a and b feed each other). The
// elaboration must refuse it; the Makefile's check fails if it does not.
`default_nettype none

module au50_control_loop (
  input  wire logic x,
  output logic      y
);
  logic a, b;
  assign a = x ^ b;
  assign b = ~a;
  assign y = b;
endmodule : au50_control_loop

`default_nettype wire
