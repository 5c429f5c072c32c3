// Register slice (skid buffer) for a valid/ready stream: breaks the combinational path in
// both directions. The output (m_valid_o, m_data_o) comes from a register, and so does the
// input's ready (s_ready_o): a word that arrives while the output is stalled goes into the
// skid register. Full throughput (one word per cycle), one cycle of latency.
`default_nettype none

module memchan_skid #(
  parameter int unsigned WIDTH = 65
) (
  input  wire logic             clk_i,
  input  wire logic             rst_ni,
  input  wire logic             s_valid_i,
  input  wire logic [WIDTH-1:0] s_data_i,
  output logic                  s_ready_o,
  output logic                  m_valid_o,
  output logic      [WIDTH-1:0] m_data_o,
  input  wire logic             m_ready_i
);
  if (WIDTH < 1) begin : g_check
    $error("memchan_skid: WIDTH must be at least 1");
  end

  logic             valid_q, skid_q;
  logic [WIDTH-1:0] data_q, skid_data_q;

  assign s_ready_o = !skid_q;
  assign m_valid_o = valid_q;
  assign m_data_o  = data_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
      skid_q  <= 1'b0;
    end else if (!valid_q || m_ready_i) begin
      // output register free (or emptied this cycle): skid word first, else the input
      valid_q <= skid_q || s_valid_i;
      skid_q  <= 1'b0;
    end else if (s_valid_i && !skid_q) begin
      skid_q  <= 1'b1;    // output stalled: keep the word that arrived this cycle
    end
  end

  // data (no reset needed)
  always_ff @(posedge clk_i) begin
    if (!valid_q || m_ready_i) data_q <= skid_q ? skid_data_q : s_data_i;
    if (!skid_q) skid_data_q <= s_data_i;
  end
endmodule : memchan_skid

`default_nettype wire
