// SIMULATION MODEL piece: one AXI channel (valid, ready, payload) through an asynchronous AXI
// Clock Converter (PG059, asynchronous mode: a clock-domain-crossing FIFO per channel). The
// channel's words cross in a memchan_async_fifo (gray pointers through memchan_sync, so the
// bench's metastability model applies to them). The converter models (au50_*_clkconv) use one
// per channel and direction. Benches only.
//
// The negative control: +au50_plain_crossings makes every converter a plain wire (valid,
// ready and payload passed straight between the clocks), which a bench of the board top must
// catch as lost or duplicated transfers.
`default_nettype none

module au50_sim_chan #(
  parameter int unsigned WIDTH = 8,
  parameter int unsigned DEPTH = 16
) (
  input  wire logic             s_clk,
  input  wire logic             s_rst_n,
  input  wire logic             s_valid,
  output logic                  s_ready,
  input  wire logic [WIDTH-1:0] s_data,
  input  wire logic             m_clk,
  input  wire logic             m_rst_n,
  output logic                  m_valid,
  input  wire logic             m_ready,
  output logic      [WIDTH-1:0] m_data
);
  bit plain;
  initial plain = $test$plusargs("au50_plain_crossings");

  logic             f_ready, f_valid;
  logic [WIDTH-1:0] f_data;

  memchan_async_fifo #(.WIDTH(WIDTH), .DEPTH(DEPTH)) u_fifo (
    .wr_clk_i(s_clk), .wr_rst_ni(s_rst_n), .wr_valid_i(s_valid && !plain), .wr_data_i(s_data),
    .wr_ready_o(f_ready), .wr_free_o(), .rd_clk_i(m_clk), .rd_rst_ni(m_rst_n),
    .rd_valid_o(f_valid), .rd_data_o(f_data), .rd_ready_i(m_ready && !plain));

  assign s_ready = plain ? m_ready : f_ready;
  assign m_valid = plain ? s_valid : f_valid;
  assign m_data  = plain ? s_data : f_data;
endmodule : au50_sim_chan

`default_nettype wire
