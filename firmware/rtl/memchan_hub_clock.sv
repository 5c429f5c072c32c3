// The hub's global clock (seed 000: "the hub implements this global clock by periodically
// sending synchronization packets to all nodes"): the master time, a cycle counter from the
// hub's reset, and on every port that is up a sync frame every SYNC_INTERVAL cycles,
// stamped two-step at that port's link handshake (memchan_clock_sync_tx).
// SYNC = 0 sends none: only for the negative control of the clock bench, never on a board.
`default_nettype none

module memchan_hub_clock
#(
  parameter int unsigned PORTS         = 8,
  parameter int unsigned SYNC_INTERVAL = 65536,
  parameter bit          SYNC          = 1'b1
) (
  input  wire logic                   clk_i,
  input  wire logic                   rst_ni,
  input  wire logic [PORTS-1:0]       port_up_i,
  // the hub's transmit link ports (observed)
  input  wire logic [PORTS-1:0]       tvalid_i,
  input  wire logic [PORTS-1:0]       tready_i,
  input  wire logic [PORTS-1:0]       tlast_i,
  input  wire logic [PORTS*64-1:0]    tdata_i,      // port p: [64*p +: 64]; bits 6:0 used
                                                    // (type, sync index)
  // toward each port's memchan_link_tx
  output logic      [PORTS-1:0]       sync_req_o,
  output logic      [PORTS*64-1:0]    sync_hdr_o    // port p: [64*p +: 64]
);
  // flat per-port vectors, as the hub's (yosys 0.23 cannot parse packed 2-D ports)
  if (SYNC_INTERVAL < 64) begin : g_check
    $error("memchan_hub_clock: SYNC_INTERVAL must be at least 64 cycles");
  end

  logic [memchan_pkt_pkg::GTIME_W-1:0] time_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) time_q <= '0;
    else         time_q <= time_q + 1'b1;
  end

  // only each port's bits 6:0 (type, sync index) are observed
  logic unused_tdata;
  assign unused_tdata = ^tdata_i;

  for (genvar p = 0; p < PORTS; p++) begin : g_port
    memchan_clock_sync_tx u_sync_tx (
      .clk_i, .rst_ni, .en_i(SYNC && port_up_i[p]), .time_i(time_q),
      .interval_i(32'(SYNC_INTERVAL)), .sync_req_o(sync_req_o[p]), .sync_hdr_o(sync_hdr_o[64*p +: 64]),
      .tvalid_i(tvalid_i[p]), .tready_i(tready_i[p]), .tlast_i(tlast_i[p]),
      .tdata_i(tdata_i[64*p +: 7]));
  end
endmodule : memchan_hub_clock

`default_nettype wire
