// Co-simulated board: ADAPTERS memchan_top adapters on one clock, each with its own reset,
// and one cable (tb/common/tb_link_chan.sv, with its fault injection) per adapter transmitter.
// The C++ harness (memchan-cosim: adapter_port.cpp, board.cpp) drives the host side of every
// adapter (BAR0 AXI4-Lite, BAR2 AXI4 writes, the host-memory AXI4 slave, writes and reads) and
// chooses at run time where each cable ends (peer_i), so that adapters can be cabled in pairs or
// left unplugged.
// HUB = 1: adapter k is cabled to port k of a memchan_hub (PORTS = ADAPTERS) instead: cable k
// runs from adapter k to the hub, cable ADAPTERS + k from the hub back to adapter k, both
// with the same fault knobs; peer_i is not used.
`default_nettype none

module cosim_top #(
  parameter int unsigned ADAPTERS = 2,
  parameter int unsigned PAGES    = memchan_regs_pkg::MC_BOARD_PAGES,
  parameter bit          HUB      = 1'b0,
  localparam int unsigned WIN_AW  = $clog2(PAGES) + $clog2(memchan_regs_pkg::MC_BOARD_PAGE_SIZE),
  localparam int unsigned CABLES  = HUB ? 2 * ADAPTERS : ADAPTERS
) (
  input  wire logic              clk_i,
  input  wire logic              rst_ni        [ADAPTERS],
  input  wire logic              hub_rst_ni,                 // the hub's own reset (HUB = 1)
  input  wire logic [31:0]       serial_i      [ADAPTERS],
  // BAR0: AXI4-Lite
  input  wire logic [memchan_regs_pkg::MC_BAR0_AW-1:0] axil_awaddr [ADAPTERS],
  input  wire logic              axil_awvalid  [ADAPTERS],
  output logic                   axil_awready  [ADAPTERS],
  input  wire logic [31:0]       axil_wdata    [ADAPTERS],
  input  wire logic [3:0]        axil_wstrb    [ADAPTERS],
  input  wire logic              axil_wvalid   [ADAPTERS],
  output logic                   axil_wready   [ADAPTERS],
  output logic [1:0]             axil_bresp    [ADAPTERS],
  output logic                   axil_bvalid   [ADAPTERS],
  input  wire logic              axil_bready   [ADAPTERS],
  input  wire logic [memchan_regs_pkg::MC_BAR0_AW-1:0] axil_araddr [ADAPTERS],
  input  wire logic              axil_arvalid  [ADAPTERS],
  output logic                   axil_arready  [ADAPTERS],
  output logic [31:0]            axil_rdata    [ADAPTERS],
  output logic [1:0]             axil_rresp    [ADAPTERS],
  output logic                   axil_rvalid   [ADAPTERS],
  input  wire logic              axil_rready   [ADAPTERS],
  // BAR2: AXI4 writes into the transmit window
  input  wire logic [WIN_AW-1:0] win_awaddr    [ADAPTERS],
  input  wire logic [7:0]        win_awlen     [ADAPTERS],
  input  wire logic              win_awvalid   [ADAPTERS],
  output logic                   win_awready   [ADAPTERS],
  input  wire logic [63:0]       win_wdata     [ADAPTERS],
  input  wire logic [7:0]        win_wstrb     [ADAPTERS],
  input  wire logic              win_wlast     [ADAPTERS],
  input  wire logic              win_wvalid    [ADAPTERS],
  output logic                   win_wready    [ADAPTERS],
  output logic [1:0]             win_bresp     [ADAPTERS],
  output logic                   win_bvalid    [ADAPTERS],
  input  wire logic              win_bready    [ADAPTERS],
  // host memory: the adapters' AXI4 write masters
  output logic [63:0]            dma_awaddr    [ADAPTERS],
  output logic [7:0]             dma_awlen     [ADAPTERS],
  output logic [2:0]             dma_awsize    [ADAPTERS],
  output logic [1:0]             dma_awburst   [ADAPTERS],
  output logic                   dma_awvalid   [ADAPTERS],
  input  wire logic              dma_awready   [ADAPTERS],
  output logic [63:0]            dma_wdata     [ADAPTERS],
  output logic [7:0]             dma_wstrb     [ADAPTERS],
  output logic                   dma_wlast     [ADAPTERS],
  output logic                   dma_wvalid    [ADAPTERS],
  input  wire logic              dma_wready    [ADAPTERS],
  input  wire logic [1:0]        dma_bresp     [ADAPTERS],
  input  wire logic              dma_bvalid    [ADAPTERS],
  output logic                   dma_bready    [ADAPTERS],
  // host memory: the adapters' AXI4 read masters (remote reads and atomics served at a home)
  output logic [63:0]            dma_araddr    [ADAPTERS],
  output logic [7:0]             dma_arlen     [ADAPTERS],
  output logic [2:0]             dma_arsize    [ADAPTERS],
  output logic [1:0]             dma_arburst   [ADAPTERS],
  output logic                   dma_arvalid   [ADAPTERS],
  input  wire logic              dma_arready   [ADAPTERS],
  input  wire logic [63:0]       dma_rdata     [ADAPTERS],
  input  wire logic [1:0]        dma_rresp     [ADAPTERS],
  input  wire logic              dma_rlast     [ADAPTERS],
  input  wire logic              dma_rvalid    [ADAPTERS],
  output logic                   dma_rready    [ADAPTERS],
  output logic [4:0]             irq_o         [ADAPTERS],
  // cabling and the cable fault knobs, per cable (cable k starts at adapter k; with the hub,
  // cable ADAPTERS + k starts at hub port k)
  input  wire logic [7:0]        peer_i        [ADAPTERS],   // ADAPTERS or more: unplugged
  input  wire logic [31:0]       flip_ppm_i    [CABLES],
  input  wire logic [31:0]       stall_pct_i   [CABLES],
  input  wire logic              cut_i         [CABLES],
  output logic [63:0]            flips_o       [CABLES],
  output logic [63:0]            words_o       [CABLES],
  // the global clock as the design holds it, all in one cycle (the harness's "clock" request):
  // the hub's master time (0 without the hub), each adapter's global time and VALID
  output logic [63:0]            master_time_o,
  output logic [63:0]            ad_time_o     [ADAPTERS],
  output logic                   ad_time_valid_o [ADAPTERS],
  output logic [ADAPTERS-1:0]    hub_port_up_o,
  // a frame that is not a heartbeat or a clock sync starts on adapter k's link transmitter or
  // receiver this cycle (the device process keeps its clock running after one: clock_scheduler.h)
  output logic                   link_busy_o   [ADAPTERS],
  // no frame waits for an acknowledgement anywhere: every adapter's and hub port's replay ring
  // is empty and no frame waits in a hub input queue (the device process stops its clock early
  // after data once this has held for a while: clock_scheduler.h)
  output logic                   rings_empty_o
);
  import memchan_pkt_pkg::*;
  // cable k: adapter k's transmitter -> c_o* -> the receiver of adapter peer_i[k]
  logic        tx_tvalid [ADAPTERS], tx_tlast [ADAPTERS], tx_tready [ADAPTERS];
  logic [63:0] tx_tdata  [ADAPTERS];
  logic        rx_tvalid [ADAPTERS], rx_tlast [ADAPTERS], rx_tready [ADAPTERS];
  logic [63:0] rx_tdata  [ADAPTERS];
  logic        c_tvalid  [ADAPTERS], c_tlast  [ADAPTERS], c_tready  [ADAPTERS];
  logic [63:0] c_tdata   [ADAPTERS];
  // one window write at a time: the response ID is not needed
  /* verilator lint_off UNUSEDSIGNAL */
  logic [3:0]  win_bid   [ADAPTERS];
  /* verilator lint_on UNUSEDSIGNAL */

  logic [ADAPTERS-1:0] ad_rings_empty;
  logic                hub_rings_empty;

  for (genvar k = 0; k < ADAPTERS; k++) begin : g_adapter
    memchan_top #(.PAGES(PAGES)) u_adapter (
      .clk_i, .rst_ni(rst_ni[k]), .serial_i(serial_i[k]),
      .s_axil_awaddr(axil_awaddr[k]), .s_axil_awvalid(axil_awvalid[k]),
      .s_axil_awready(axil_awready[k]), .s_axil_wdata(axil_wdata[k]),
      .s_axil_wstrb(axil_wstrb[k]), .s_axil_wvalid(axil_wvalid[k]),
      .s_axil_wready(axil_wready[k]), .s_axil_bresp(axil_bresp[k]),
      .s_axil_bvalid(axil_bvalid[k]), .s_axil_bready(axil_bready[k]),
      .s_axil_araddr(axil_araddr[k]), .s_axil_arvalid(axil_arvalid[k]),
      .s_axil_arready(axil_arready[k]), .s_axil_rdata(axil_rdata[k]),
      .s_axil_rresp(axil_rresp[k]), .s_axil_rvalid(axil_rvalid[k]),
      .s_axil_rready(axil_rready[k]),
      .s_axi_awid('0), .s_axi_awaddr(win_awaddr[k]), .s_axi_awlen(win_awlen[k]),
      .s_axi_awvalid(win_awvalid[k]), .s_axi_awready(win_awready[k]),
      .s_axi_wdata(win_wdata[k]), .s_axi_wstrb(win_wstrb[k]), .s_axi_wlast(win_wlast[k]),
      .s_axi_wvalid(win_wvalid[k]), .s_axi_wready(win_wready[k]), .s_axi_bid(win_bid[k]),
      .s_axi_bresp(win_bresp[k]), .s_axi_bvalid(win_bvalid[k]), .s_axi_bready(win_bready[k]),
      .m_axi_awaddr(dma_awaddr[k]), .m_axi_awlen(dma_awlen[k]), .m_axi_awsize(dma_awsize[k]),
      .m_axi_awburst(dma_awburst[k]), .m_axi_awvalid(dma_awvalid[k]),
      .m_axi_awready(dma_awready[k]), .m_axi_wdata(dma_wdata[k]), .m_axi_wstrb(dma_wstrb[k]),
      .m_axi_wlast(dma_wlast[k]), .m_axi_wvalid(dma_wvalid[k]), .m_axi_wready(dma_wready[k]),
      .m_axi_bresp(dma_bresp[k]), .m_axi_bvalid(dma_bvalid[k]), .m_axi_bready(dma_bready[k]),
      .m_axi_araddr(dma_araddr[k]), .m_axi_arlen(dma_arlen[k]), .m_axi_arsize(dma_arsize[k]),
      .m_axi_arburst(dma_arburst[k]), .m_axi_arvalid(dma_arvalid[k]),
      .m_axi_arready(dma_arready[k]), .m_axi_rdata(dma_rdata[k]), .m_axi_rresp(dma_rresp[k]),
      .m_axi_rlast(dma_rlast[k]), .m_axi_rvalid(dma_rvalid[k]), .m_axi_rready(dma_rready[k]),
      .irq_o(irq_o[k]),
      .m_link_tvalid(tx_tvalid[k]), .m_link_tdata(tx_tdata[k]), .m_link_tlast(tx_tlast[k]),
      .m_link_tready(tx_tready[k]),
      .s_link_tvalid(rx_tvalid[k]), .s_link_tdata(rx_tdata[k]), .s_link_tlast(rx_tlast[k]),
      .s_link_tready(rx_tready[k]));

    // the benches' cable; no stalls unless the harness asks for them
    tb_link_chan #(.STALL(0)) u_cable (
      .clk(clk_i), .rst_n(rst_ni[k]),
      .i_tvalid(tx_tvalid[k]), .i_tdata(tx_tdata[k]), .i_tlast(tx_tlast[k]),
      .i_tready(tx_tready[k]),
      .o_tvalid(c_tvalid[k]), .o_tdata(c_tdata[k]), .o_tlast(c_tlast[k]),
      .o_tready(c_tready[k]));

    // the fault knobs are the cable's own variables (as the benches set them)
    always @(posedge clk_i) begin
      u_cable.flip_ppm  <= int'(flip_ppm_i[k]);
      u_cable.stall_pct <= int'(stall_pct_i[k]);
      u_cable.cut       <= cut_i[k];
    end
    assign flips_o[k] = 64'(u_cable.flips);
    assign words_o[k] = 64'(u_cable.words);
    assign ad_time_o[k] = 64'(u_adapter.u_clock.gt_q);
    assign ad_time_valid_o[k] = u_adapter.u_clock.valid_q;

    // link activity: the first word of a frame is its header; heartbeats (TP_CTRL) and clock
    // syncs (TP_SYNC) come periodically and say nothing is in flight, every other type (the
    // sequenced frames, LACK, LNAK) does. Any mistake here (e.g. after a reset mid-frame) only
    // runs the clock longer or shorter once; tlast resynchronizes it.
    logic tx_sof_q = 1'b1, rx_sof_q = 1'b1;
    logic tx_fire, rx_fire;
    assign tx_fire = tx_tvalid[k] && tx_tready[k];
    assign rx_fire = rx_tvalid[k] && rx_tready[k];
    always @(posedge clk_i) begin
      if (tx_fire) tx_sof_q <= tx_tlast[k];
      if (rx_fire) rx_sof_q <= rx_tlast[k];
    end
    assign link_busy_o[k] =
        (tx_fire && tx_sof_q && !(tx_tdata[k][H_TP_LSB +: 4] inside {TP_CTRL, TP_SYNC})) ||
        (rx_fire && rx_sof_q && !(rx_tdata[k][H_TP_LSB +: 4] inside {TP_CTRL, TP_SYNC}));
    assign ad_rings_empty[k] = u_adapter.tx_empty;
  end
  assign rings_empty_o = &ad_rings_empty && hub_rings_empty;

  if (HUB) begin : g_hub
    logic [ADAPTERS-1:0]    h_tv, h_tl, h_tr, h_rv, h_rl, h_rr;
    logic [ADAPTERS*64-1:0] h_td, h_rd;      // port p: [64*p +: 64]
    /* verilator lint_off UNUSEDSIGNAL */
    logic [ADAPTERS-1:0]    port_disc;       // the hub's own view; the adapters report theirs
    /* verilator lint_on UNUSEDSIGNAL */

    memchan_hub #(.PORTS(ADAPTERS)) u_hub (
      .clk_i, .rst_ni(hub_rst_ni), .serial_i(32'h4855_4230),
      .m_link_tvalid(h_tv), .m_link_tdata(h_td), .m_link_tlast(h_tl), .m_link_tready(h_tr),
      .s_link_tvalid(h_rv), .s_link_tdata(h_rd), .s_link_tlast(h_rl), .s_link_tready(h_rr),
      .port_up_o(hub_port_up_o), .port_discarding_o(port_disc));
    assign master_time_o = 64'(u_hub.u_clock.time_q);
    logic [ADAPTERS-1:0] port_rings_empty;
    assign hub_rings_empty = &port_rings_empty && (u_hub.qframes == '0);

    for (genvar k = 0; k < ADAPTERS; k++) begin : g_port
      // cable k (from adapter k) into hub port k
      assign h_rv[k] = c_tvalid[k];
      assign h_rd[64*k +: 64] = c_tdata[k];
      assign h_rl[k] = c_tlast[k];
      assign c_tready[k] = h_rr[k];

      // cable ADAPTERS + k: hub port k back to adapter k
      tb_link_chan #(.STALL(0)) u_down (
        .clk(clk_i), .rst_n(rst_ni[k]),
        .i_tvalid(h_tv[k]), .i_tdata(h_td[64*k +: 64]), .i_tlast(h_tl[k]), .i_tready(h_tr[k]),
        .o_tvalid(rx_tvalid[k]), .o_tdata(rx_tdata[k]), .o_tlast(rx_tlast[k]),
        .o_tready(rx_tready[k]));
      always @(posedge clk_i) begin
        u_down.flip_ppm  <= int'(flip_ppm_i[ADAPTERS + k]);
        u_down.stall_pct <= int'(stall_pct_i[ADAPTERS + k]);
        u_down.cut       <= cut_i[ADAPTERS + k];
      end
      assign flips_o[ADAPTERS + k] = 64'(u_down.flips);
      assign words_o[ADAPTERS + k] = 64'(u_down.words);
      assign port_rings_empty[k] = u_hub.g_port[k].tx_empty;
    end
  end else begin : g_cables
    assign master_time_o = '0;
    assign hub_rings_empty = 1'b1;
    assign hub_port_up_o = '0;

    // an unplugged cable end drops what arrives (a transceiver without a partner)
    always_comb begin
      for (int k = 0; k < ADAPTERS; k++) begin
        c_tready[k] = 1'b1;
        for (int j = 0; j < ADAPTERS; j++) begin
          if (32'(peer_i[k]) == j) c_tready[k] = rx_tready[j];
        end
      end
    end

    // each receiver takes the cable whose far end is plugged into it (at most one: the
    // harness never plugs two cables into one receiver)
    always_comb begin
      for (int j = 0; j < ADAPTERS; j++) begin
        rx_tvalid[j] = 1'b0;
        rx_tdata[j]  = '0;
        rx_tlast[j]  = 1'b0;
        for (int k = 0; k < ADAPTERS; k++) begin
          if (32'(peer_i[k]) == j) begin
            rx_tvalid[j] = c_tvalid[k];
            rx_tdata[j]  = c_tdata[k];
            rx_tlast[j]  = c_tlast[k];
          end
        end
      end
    end
  end
endmodule : cosim_top

`default_nettype wire
