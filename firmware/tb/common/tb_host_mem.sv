// Host memory model: AXI4 write slave with random back-pressure on AW/W and random B delay.
// Checks the protocol the adapter must follow (INCR, 8-byte beats, WLAST, no 4 KiB crossing,
// whole 32-bit lanes) and logs every 32-bit word written, in order, for the scoreboards.
// Read channels (remote read and atomics served by the adapter): INCR bursts of 8-byte
// beats with random AR/R stalls. As AXI allows, a read may pass a write whose response has
// not been given yet: a byte written by a burst still waiting for its B reads as the value
// it had before (so an adapter that reads before its earlier writes are acknowledged sees
// stale data, which the atomics bench's negative control relies on).
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
  input  wire logic        bready,
  input  wire logic [63:0] araddr,
  input  wire logic [7:0]  arlen,
  input  wire logic [2:0]  arsize,
  input  wire logic [1:0]  arburst,
  input  wire logic        arvalid,
  output logic             arready,
  output logic [63:0]      rdata,
  output logic [1:0]       rresp,
  output logic             rlast,
  output logic             rvalid,
  input  wire logic        rready
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

  int     b_lat;          // cycles at least between a burst's last beat and its B
  longint b_ready_at [$]; // per burst waiting for B: the cycle its B may come
  initial begin stall_pct = STALL; b_lat = 0; end

  // bytes written by bursts not yet acknowledged: their value before (oldest write wins)
  logic [7:0] old_val [longint];
  int         old_burst [longint];
  longint     pw_addr [$];
  int         pw_burst [$];
  int         bursts_applied, bursts_acked;
  initial begin bursts_applied = 0; bursts_acked = 0; end

  function automatic logic [7:0] visible(input longint a);
    if (old_val.exists(a)) return old_val[a];
    return mem.exists(a) ? mem[a] : 8'h00;
  endfunction
  assign bresp = 2'b00;

  // the bursts the adapter may issue: INCR of 8-byte beats, aligned, within one 4 KiB page
  function automatic void check_burst(input string ch, input logic [63:0] addr,
                                      input logic [7:0] len, input logic [2:0] size,
                                      input logic [1:0] burst);
    if (size != 3'd3 || burst != 2'b01)
      $fatal(1, "host: %s size %0d burst %0d not INCR of 8 bytes", ch, size, burst);
    if (addr[2:0] != 3'd0) $fatal(1, "host: %s address %h not 8-byte aligned", ch, addr);
    if ((addr & 64'hFFF) + (64'(len) + 1) * 8 > 4096)
      $fatal(1, "host: %s burst at %h len %0d crosses 4 KiB", ch, addr, len);
  endfunction

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
        check_burst("AW", awaddr, awlen, awsize, awburst);
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
            for (int b = 0; b < 4; b++) begin
              longint ba;
              ba = a + 4*l + b;
              if (!old_val.exists(ba)) begin
                old_val[ba] = mem.exists(ba) ? mem[ba] : 8'h00;
                old_burst[ba] = bursts_applied;
              end
              pw_addr.push_back(ba);
              pw_burst.push_back(bursts_applied);
              mem[ba] = wb[32*l + 8*b +: 8];
            end
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
          bursts_applied++;
          b_ready_at.push_back(cycle + b_lat);
        end else begin
          beat++;
        end
      end
      if (bvalid && bready) begin
        bpend--;
        void'(b_ready_at.pop_front());
        // the acknowledged burst's writes are now visible to reads
        while (pw_burst.size() > 0 && pw_burst[0] == bursts_acked) begin
          longint ba;
          ba = pw_addr.pop_front();
          void'(pw_burst.pop_front());
          if (old_val.exists(ba) && old_burst[ba] == bursts_acked) begin
            old_val.delete(ba);
            old_burst.delete(ba);
          end
        end
        bursts_acked++;
      end
      bvalid  <= (bpend > 0) && (b_ready_at[0] <= cycle) && ($urandom_range(0, 99) >= stall_pct);
      awready <= $urandom_range(0, 99) >= stall_pct;
      wready  <= (wbuf.size() < 64) && ($urandom_range(0, 99) >= stall_pct);
    end
  end
  // ---------------- read channels ----------------
  longint ar_q_addr [$];
  int     ar_q_len [$];
  int     rbeat;
  int     reads;          // read bursts served (the benches check that requests read)
  longint rd_err_page;    // reads of this 4 KiB page get SLVERR (-1: none)
  initial begin reads = 0; rd_err_page = -1; end
  always @(posedge clk) begin
    if (!rst_n) begin
      arready <= 1'b0; rvalid <= 1'b0; rlast <= 1'b0; rdata <= '0; rresp <= 2'b00; rbeat = 0;
    end else begin
      if (arvalid && arready) begin
        check_burst("AR", araddr, arlen, arsize, arburst);
        ar_q_addr.push_back(longint'(araddr));
        ar_q_len.push_back(int'(arlen));
      end
      if (rvalid && rready) begin
        if (rlast) begin
          void'(ar_q_addr.pop_front());
          void'(ar_q_len.pop_front());
          rbeat = 0;
          reads++;
        end else rbeat++;
      end
      if ((!rvalid || rready) && ar_q_addr.size() > 0 && !(rvalid && rready && rlast &&
          ar_q_addr.size() == 0) && $urandom_range(0, 99) >= stall_pct) begin
        for (int b = 0; b < 8; b++) rdata[8*b +: 8] <= visible(ar_q_addr[0] + 8 * rbeat + b);
        rlast  <= (rbeat == ar_q_len[0]);
        rresp  <= ((ar_q_addr[0] >> 12) == rd_err_page) ? 2'b10 : 2'b00;
        rvalid <= 1'b1;
      end else if (rready) begin
        rvalid <= 1'b0;
      end
      arready <= $urandom_range(0, 99) >= stall_pct;
    end
  end
endmodule : tb_host_mem

`default_nettype wire
