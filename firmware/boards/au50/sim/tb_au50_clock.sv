// A bench clock with a differential output: NOMINAL_NS period, PPM off nominal, a slow wander
// of +-WANDER_PPM (a sine over WANDER_CYCLES), a spread-spectrum sweep down to -SSC_PPM (a
// triangle over SSC_CYCLES, as a PCIe reference clock may carry), and each edge jittered by up
// to JITTER_PS without the jitter building up. Edges are scheduled at exact times, so no
// rounding to the time step becomes a frequency error. Needs a time unit of 1 ns.
`default_nettype none

module tb_au50_clock #(
  parameter real NOMINAL_NS    = 10.0,
  parameter real PPM           = 0.0,
  parameter real WANDER_PPM    = 0.0,
  parameter int  WANDER_CYCLES = 100000,
  parameter real SSC_PPM       = 0.0,
  parameter int  SSC_CYCLES    = 3150,
  parameter int  JITTER_PS     = 0
) (
  output logic p,
  output logic n
);
  localparam real PI = 3.14159265358979;
  realtime base = 0.0;
  longint  k = 0;
  logic    c = 1'b0;

  function automatic real ppm_now(input longint cyc);
    real ssc, w;
    int  ph;
    ph  = int'(cyc % SSC_CYCLES);
    ssc = (ph < SSC_CYCLES / 2) ? real'(ph) / (SSC_CYCLES / 2) : real'(SSC_CYCLES - ph) / (SSC_CYCLES / 2);
    w   = $sin(2.0 * PI * real'(cyc % WANDER_CYCLES) / WANDER_CYCLES);
    return PPM + WANDER_PPM * w - SSC_PPM * ssc;
  endfunction

  always begin
    realtime t;
    int      j;
    base = base + NOMINAL_NS / 2.0 * (1.0 + 1.0e-6 * ppm_now(k / 2));
    k++;
    j = $urandom_range(0, 2 * JITTER_PS);
    j = j - JITTER_PS;
    t = base + 0.001 * j;
    if (t > $realtime) #(t - $realtime);
    c = ~c;
  end
  assign p = c;
  assign n = ~c;
endmodule : tb_au50_clock

`default_nettype wire
