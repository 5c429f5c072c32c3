// Multi-flop synchronizer for a signal from another clock domain: STAGES flops in the
// destination clock (ASYNC_REG, so that Vivado keeps them together and out of retiming).
// Each bit is synchronized alone: a vector must change one bit at a time (gray code, a
// level, a handshake) for the destination to see only values the source held.
//
// MEMCHAN_CDC_MODEL (benches only): the first flop models metastability. A bit that changed
// less than CDC_WINDOW_PS before the destination edge resolves to its old or its new value at
// random, so that a crossing that is only right when every bit is caught together fails.
`default_nettype none

module memchan_sync #(
  parameter int unsigned WIDTH  = 1,
  parameter int unsigned STAGES = 2
) (
  input  wire logic             clk_i,
  input  wire logic             rst_ni,
  input  wire logic [WIDTH-1:0] d_i,
  output logic      [WIDTH-1:0] q_o
);
  if (STAGES < 2) begin : g_check
    $error("memchan_sync: STAGES must be at least 2");
  end

  (* ASYNC_REG = "TRUE" *) logic [WIDTH-1:0] sync_q [STAGES];

`ifdef MEMCHAN_CDC_MODEL
  // the window in time units of the build: 200 ps with --timescale 1ps/1ps; a bench in
  // nanoseconds defines MEMCHAN_CDC_WINDOW=0.2
`ifndef MEMCHAN_CDC_WINDOW
`define MEMCHAN_CDC_WINDOW 200.0
`endif
  localparam realtime CDC_WINDOW = `MEMCHAN_CDC_WINDOW;
  logic [WIDTH-1:0] d_before, d_last;
  realtime          t_change;
  initial begin
    d_before = '0; d_last = '0; t_change = -1.0e9;
  end
  always @(d_i) begin
    d_before = d_last;
    d_last   = d_i;
    t_change = $realtime;
  end
  // evaluated at the destination edge: the bits in flight take a random value
  function automatic logic [WIDTH-1:0] captured();
    logic [WIDTH-1:0] v = d_i;
    if ($realtime - t_change < CDC_WINDOW) begin
      for (int b = 0; b < WIDTH; b++) begin
        if (d_i[b] != d_before[b]) v[b] = 1'($urandom);
      end
    end
    return v;
  endfunction
`define MEMCHAN_SYNC_FIRST captured()
`else
`define MEMCHAN_SYNC_FIRST d_i
`endif

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int s = 0; s < STAGES; s++) sync_q[s] <= '0;
    end else begin
      sync_q[0] <= `MEMCHAN_SYNC_FIRST;
      for (int s = 1; s < STAGES; s++) sync_q[s] <= sync_q[s-1];
    end
  end
  assign q_o = sync_q[STAGES-1];
`undef MEMCHAN_SYNC_FIRST
endmodule : memchan_sync

`default_nettype wire
