// Host memory model: AXI4 write slave with random back-pressure on AW/W and random B delay.
// Checks the protocol the adapter must follow (INCR, 8-byte beats, WLAST, no 4 KiB crossing,
// whole 32-bit lanes) and logs every 32-bit word written, in order, for the scoreboards.
`default_nettype none

module tb_host_mem #(
  parameter int STALL = 30   // percent of cycles a ready is withheld
) (
  input  wire logic        clk,
  input  wire logic        rst_n,
  input  wire logic [63:0] awaddr,
  input  wire logic [7:0]  awlen,
  input  wire logic [2:0]  awsize,
  input  wire logic [1:0]  awburst,
  input  wire logic        awvalid,
  output logic             awready,
  input  wire logic [63:0] wdata,
  input  wire logic [7:0]  wstrb,
  input  wire logic        wlast,
  input  wire logic        wvalid,
  output logic             wready,
  output logic [1:0]       bresp,
  output logic             bvalid,
  input  wire logic        bready
);
  logic [7:0]  mem [longint];
  longint      log_addr [$];
  logic [31:0] log_val [$];
  longint      log_time [$];     // cycle of each logged word
  longint      first_aw_cycle [$];
  longint      cycle;

  longint aw_q_addr [$];
  int     aw_q_len [$];
  int     beat;
  logic [72:0] wbuf [$];  // {last, strb, data} of W beats not yet matched with an AW
  int     bpend;
  int     stall_pct;

  initial stall_pct = STALL;
  assign bresp = 2'b00;

  function automatic logic [31:0] read32(input longint a);
    logic [31:0] v;
    for (int i = 0; i < 4; i++) v[8*i +: 8] = mem.exists(a + i) ? mem[a + i] : 8'h00;
    return v;
  endfunction

  always @(posedge clk) begin
    if (!rst_n) begin
      awready <= 1'b0; wready <= 1'b0; bvalid <= 1'b0; beat = 0; bpend = 0; cycle = 0;
    end else begin
      cycle++;
      if (awvalid && awready) begin
        if (awsize != 3'd3 || awburst != 2'b01)
          $fatal(1, "host: AW size %0d burst %0d not INCR of 8 bytes", awsize, awburst);
        if (awaddr[2:0] != 3'd0) $fatal(1, "host: AW address %h not 8-byte aligned", awaddr);
        if ((awaddr & 64'hFFF) + (64'(awlen) + 1) * 8 > 4096)
          $fatal(1, "host: burst at %h len %0d crosses 4 KiB", awaddr, awlen);
        aw_q_addr.push_back(longint'(awaddr));
        aw_q_len.push_back(int'(awlen));
        first_aw_cycle.push_back(cycle);
      end
      if (wvalid && wready) wbuf.push_back({wlast, wstrb, wdata});
      // W beats may come before their AW (AXI allows it): match them in order
      while (wbuf.size() > 0 && aw_q_addr.size() > 0) begin
        longint a;
        logic [72:0] wb;
        wb = wbuf.pop_front();
        a = aw_q_addr[0] + 8 * beat;
        if (wb[72] != (beat == aw_q_len[0])) $fatal(1, "host: WLAST wrong at beat %0d of %0d", beat, aw_q_len[0]);
        for (int l = 0; l < 2; l++) begin
          if (wb[64 + 4*l +: 4] == 4'hF) begin
            for (int b = 0; b < 4; b++) mem[a + 4*l + b] = wb[32*l + 8*b +: 8];
            log_addr.push_back(a + 4*l);
            log_val.push_back(wb[32*l +: 32]);
            log_time.push_back(cycle);
          end else if (wb[64 + 4*l +: 4] != 4'h0) begin
            $fatal(1, "host: partial 32-bit lane strobe %b", wb[71:64]);
          end
        end
        if (beat == aw_q_len[0]) begin
          beat = 0;
          void'(aw_q_addr.pop_front());
          void'(aw_q_len.pop_front());
          bpend++;
        end else begin
          beat++;
        end
      end
      if (bvalid && bready) bpend--;
      bvalid  <= (bpend > 0) && ($urandom_range(0, 99) >= stall_pct);
      awready <= $urandom_range(0, 99) >= stall_pct;
      wready  <= (wbuf.size() < 64) && ($urandom_range(0, 99) >= stall_pct);
    end
  end
endmodule : tb_host_mem

`default_nettype wire
