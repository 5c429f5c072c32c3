// SIMULATION MODEL of the UltraScale+ MMCM (UG572, UG974), the one output the board uses:
// CLKOUT0 runs at CLKIN1 * CLKFBOUT_MULT_F / (DIVCLK_DIVIDE * CLKOUT0_DIVIDE_F), its period
// recomputed from every input period so that it follows the input's drift (the loop's
// filtering is not modelled: the output tracks faster than a real MMCM, never slower). LOCKED
// rises after LOCK_CYCLES input periods and falls with RST. CLKFBOUT mirrors the input (the
// feedback path). Needs a bench with a time unit of 1 ns (CLKIN1_PERIOD is in ns).
`default_nettype none

// (the port list: the stub's in ip_stubs/, put here by au50_models.py)
  localparam int LOCK_CYCLES = 64;


  realtime last_edge = -1.0, in_period = CLKIN1_PERIOD, t_out = 0.0;
  int      seen = 0;
  logic    out0 = 1'b0;

  always @(posedge CLKIN1) begin
    if (last_edge >= 0) in_period = $realtime - last_edge;
    last_edge = $realtime;
    if (RST || PWRDWN) seen = 0;
    else if (seen < LOCK_CYCLES) seen++;
  end
  // edges at exact times: no rounding to the time step builds up into a frequency error
  always begin
    t_out = t_out + in_period * DIVCLK_DIVIDE * CLKOUT0_DIVIDE_F / CLKFBOUT_MULT_F / 2.0;
    #(t_out - $realtime) out0 = ~out0;
  end

  assign LOCKED    = (seen >= LOCK_CYCLES) && !RST && !PWRDWN;
  assign CLKOUT0   = out0;
  assign CLKOUT0B  = ~out0;
  assign CLKFBOUT  = CLKIN1;
  assign CLKFBOUTB = ~CLKIN1;
  assign {CLKOUT1, CLKOUT1B, CLKOUT2, CLKOUT2B, CLKOUT3, CLKOUT3B, CLKOUT4, CLKOUT5, CLKOUT6} = '0;

  logic unused;
  assign unused = CLKFBIN;
endmodule : MMCME4_BASE

`default_nettype wire
