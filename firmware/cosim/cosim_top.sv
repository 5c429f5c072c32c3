// Co-simulated board: ADAPTERS memchan_top adapters on one clock, each with its own reset,
// and one cable (tb/common/tb_link_chan.sv, with its fault injection) per adapter transmitter.
// The C++ harness (cosim_main.cpp) drives the host side of every adapter (BAR0 AXI4-Lite,
// BAR2 AXI4 writes, the host-memory AXI4 slave, writes and reads) and chooses at run time where each cable
// ends (peer_i), so that adapters can be cabled in pairs or left unplugged.
`default_nettype none

module cosim_top #(
  parameter int unsigned ADAPTERS = 2,
  parameter int unsigned PAGES    = 1024,
  localparam int unsigned WIN_AW  = $clog2(PAGES) + 12
) (
  input  wire logic              clk_i,
  input  wire logic              rst_ni        [ADAPTERS],
  input  wire logic [31:0]       serial_i      [ADAPTERS],
  // BAR0: AXI4-Lite
  input  wire logic [17:0]       axil_awaddr   [ADAPTERS],
  input  wire logic              axil_awvalid  [ADAPTERS],
  output logic                   axil_awready  [ADAPTERS],
  input  wire logic [31:0]       axil_wdata    [ADAPTERS],
  input  wire logic [3:0]        axil_wstrb    [ADAPTERS],
  input  wire logic              axil_wvalid   [ADAPTERS],
  output logic                   axil_wready   [ADAPTERS],
  output logic [1:0]             axil_bresp    [ADAPTERS],
  output logic                   axil_bvalid   [ADAPTERS],
  input  wire logic              axil_bready   [ADAPTERS],
  input  wire logic [17:0]       axil_araddr   [ADAPTERS],
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
  // cabling and the cable fault knobs, per transmitting adapter (cable k starts at adapter k)
  input  wire logic [7:0]        peer_i        [ADAPTERS],   // ADAPTERS or more: unplugged
  input  wire logic [31:0]       flip_ppm_i    [ADAPTERS],
  input  wire logic [31:0]       stall_pct_i   [ADAPTERS],
  input  wire logic              cut_i         [ADAPTERS],
  output logic [63:0]            flips_o       [ADAPTERS],
  output logic [63:0]            words_o       [ADAPTERS]
);
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

  end

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
endmodule : cosim_top

`default_nettype wire
