// Sets the PCIe bridge's user-interrupt enable mask, which resets to 0 with every reset of the
// bridge: while it is 0 the bridge sends no MSI-X message for usr_irq_req. After each reset this
// writes MASK to ADDR once through the bridge's AXI4-Lite register slave (XDMA: the IRQ block's
// User Interrupt Enable Mask, write-one-to-set, at 0x2008 of its register space, PG195). A
// response other than OKAY is retried after RETRY_WAIT cycles (RETRY=0: the write is tried once).
// Runs in the bridge's clock and reset, so a hot reset that clears the mask also restarts this.
`default_nettype none

module memchan_irq_enable #(
  parameter logic [31:0] ADDR       = 32'h0000_2008,
  parameter logic [31:0] MASK       = 32'h0000_0001,
  parameter int unsigned RETRY_WAIT = 256,
  parameter bit          RETRY      = 1'b1
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  output logic      [31:0] m_axil_awaddr,
  output logic             m_axil_awvalid,
  input  wire logic        m_axil_awready,
  output logic      [31:0] m_axil_wdata,
  output logic      [3:0]  m_axil_wstrb,
  output logic             m_axil_wvalid,
  input  wire logic        m_axil_wready,
  input  wire logic [1:0]  m_axil_bresp,
  input  wire logic        m_axil_bvalid,
  output logic             m_axil_bready,
  output logic             done_o        // the mask is set (an OKAY response came back)
);
  typedef enum logic [2:0] {S_WRITE, S_RESP, S_PAUSE, S_DONE, S_REFUSED} state_e;
  state_e state_q;
  logic aw_pend_q, w_pend_q;
  logic [$clog2(RETRY_WAIT + 1)-1:0] wait_q;

  assign m_axil_awaddr  = ADDR;
  assign m_axil_wdata   = MASK;
  assign m_axil_wstrb   = 4'hF;
  assign m_axil_awvalid = aw_pend_q;
  assign m_axil_wvalid  = w_pend_q;
  assign m_axil_bready  = (state_q == S_RESP);
  assign done_o         = (state_q == S_DONE);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= S_WRITE;
      aw_pend_q <= 1'b1;
      w_pend_q  <= 1'b1;
      wait_q    <= '0;
    end else begin
      // each channel's valid stays up until its ready, independent of the other channel
      if (aw_pend_q && m_axil_awready) aw_pend_q <= 1'b0;
      if (w_pend_q && m_axil_wready) w_pend_q <= 1'b0;
      unique case (state_q)
        S_WRITE: if ((!aw_pend_q || m_axil_awready) && (!w_pend_q || m_axil_wready)) state_q <= S_RESP;
        S_RESP: if (m_axil_bvalid) begin
          if (m_axil_bresp == 2'b00) state_q <= S_DONE;
          else if (RETRY) begin
            state_q <= S_PAUSE;
            wait_q  <= RETRY_WAIT[$bits(wait_q)-1:0];
          end else state_q <= S_REFUSED;
        end
        S_PAUSE: if (wait_q != '0) wait_q <= wait_q - 1'b1;
                 else begin
                   state_q   <= S_WRITE;
                   aw_pend_q <= 1'b1;
                   w_pend_q  <= 1'b1;
                 end
        S_DONE, S_REFUSED: ;
      endcase
    end
  end
endmodule : memchan_irq_enable

`default_nettype wire
