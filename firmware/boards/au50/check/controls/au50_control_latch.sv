// Negative control of check/elaborate.sh: a latch (q follows d while en is high). The
// elaboration must refuse it; the Makefile's check fails if it does not.
`default_nettype none

module au50_control_latch (
  input  wire logic en,
  input  wire logic d,
  output logic      q
);
  always_latch begin
    if (en) q = d;
  end
endmodule : au50_control_latch

`default_nettype wire
