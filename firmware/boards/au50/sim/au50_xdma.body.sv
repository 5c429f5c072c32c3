// SIMULATION MODEL of au50_xdma, the DMA/Bridge Subsystem for PCI Express (PG195) in AXI Bridge
// mode as tcl/ip_xdma.tcl configures it, seen from the FPGA side, with the host behind it as a
// bench model. Same ports as ip_stubs/; benches only.
//
//   clock    axi_aclk at 2.5 times sys_clk (250 MHz from the 100 MHz PCIe reference), its period
//            recomputed from every reference period: a spread-spectrum sweep of the reference
//            reaches axi_aclk as it does through the IP's PLL
//   reset    axi_aresetn low while PERST# (sys_rst_n) is low and RESET_CYCLES after; user_lnk_up
//            and msix_enable (the host's driver enables MSI-X) follow it
//   BAR0     host register reads and writes (bar0_write, bar0_read) on the AXI4-Lite master, one
//            at a time as a CPU's uncached accesses; no answer within COMPLETION_TIMEOUT is the
//            host's completion timeout (a failure)
//   BAR2     host stores (bar2_store: 32-bit words as a CPU's write-combining emits them, one
//            AXI4 burst per TLP of up to MAX_TLP bytes, never across 4 KiB, posted, in order) and
//            reads (bar2_read) on the AXI4 master at 512 bits
//   memory   the AXI4 slave toward host memory at 512 bits: writes applied by strobes and logged
//            as 32-bit words in order (the benches' scoreboard), reads answered from the memory;
//            ready withheld stall_pct % of cycles, or entirely while hold_writes is set
//   IRQ      the IRQ block's User Interrupt Enable Mask (0x2004 RW, 0x2008 W1S, 0x200C W1C) on
//            the AXI4-Lite register slave, reset 0 with the bridge. A rising edge of
//            usr_irq_req[0] & mask (a request already high when the mask is set counts, PG195)
//            sends an MSI-X message (counted in msix_count) and pulses usr_irq_ack[0] one cycle;
//            usr_irq_req falling before its acknowledgement breaks PG195's rule (a failure)
`default_nettype none

// (the port list: the stub's in ip_stubs/, put here by au50_models.py)


  localparam realtime COMPLETION_TIMEOUT = 50000.0;   // ns (PCIe's default range starts at 50 us)
  localparam int      RESET_CYCLES       = 64;
  localparam int      MAX_TLP            = 256;       // bytes, the host's maximum payload size

  // ---------------- clock and reset ----------------
  // edges at exact times (no rounding to the time step builds up)
  realtime ref_last = -1.0, ref_period = 10.0, t_aclk = 0.0;
  logic    aclk = 1'b0;
  always @(posedge sys_clk) begin
    if (ref_last >= 0) ref_period = $realtime - ref_last;
    ref_last = $realtime;
  end
  always begin
    t_aclk = t_aclk + ref_period / 5.0;
    #(t_aclk - $realtime) aclk = ~aclk;
  end
  assign axi_aclk = aclk;

  int   rst_cnt = 0;
  logic aresetn_q = 1'b0;
  always @(posedge aclk or negedge sys_rst_n) begin
    if (!sys_rst_n) begin
      rst_cnt <= 0; aresetn_q <= 1'b0;
    end else if (rst_cnt < RESET_CYCLES) rst_cnt <= rst_cnt + 1;
    else aresetn_q <= 1'b1;
  end
  assign axi_aresetn = aresetn_q;
  assign user_lnk_up = aresetn_q;
  assign msix_enable = aresetn_q;
  assign pci_exp_txp = '0;
  assign pci_exp_txn = '1;
  longint cycle = 0;
  always @(posedge aclk) cycle <= cycle + 1;

  // ---------------- IRQ block: enable mask on the register slave ----------------
  logic [31:0] usr_int_enmask;
  logic        ie_aw_q, ie_w_q, ie_b_q;
  logic [31:0] ie_addr_q, ie_data_q;
  assign s_axil_awready = aresetn_q && !ie_aw_q && !ie_b_q;
  assign s_axil_wready  = aresetn_q && !ie_w_q && !ie_b_q;
  assign s_axil_bvalid  = ie_b_q;
  assign s_axil_bresp   = 2'b00;
  assign s_axil_arready = 1'b0;
  assign s_axil_rvalid  = 1'b0;
  assign s_axil_rdata   = '0;
  assign s_axil_rresp   = 2'b00;
  int ie_writes = 0;
  always @(posedge aclk) begin
    if (!aresetn_q) begin
      usr_int_enmask <= '0; ie_aw_q <= 1'b0; ie_w_q <= 1'b0; ie_b_q <= 1'b0;
    end else begin
      if (s_axil_arvalid) $fatal(1, "au50_xdma model: a read of the IP's registers is not modelled");
      if (s_axil_awvalid && s_axil_awready) begin ie_aw_q <= 1'b1; ie_addr_q <= s_axil_awaddr; end
      if (s_axil_wvalid && s_axil_wready) begin
        ie_w_q <= 1'b1; ie_data_q <= s_axil_wdata;
        if (s_axil_wstrb != 4'hF) $fatal(1, "au50_xdma model: IRQ block write with strobes %b", s_axil_wstrb);
      end
      if (ie_aw_q && ie_w_q) begin
        ie_aw_q <= 1'b0; ie_w_q <= 1'b0; ie_b_q <= 1'b1; ie_writes++;
        unique case (ie_addr_q)
          32'h2004: usr_int_enmask <= ie_data_q;
          32'h2008: usr_int_enmask <= usr_int_enmask | ie_data_q;
          32'h200C: usr_int_enmask <= usr_int_enmask & ~ie_data_q;
          default: $fatal(1, "au50_xdma model: write of %h to %h, not an IRQ block mask register", ie_data_q,
                          ie_addr_q);
        endcase
      end
      if (s_axil_bvalid && s_axil_bready) ie_b_q <= 1'b0;
    end
  end

  // ---------------- user interrupt -> MSI-X ----------------
  int      msix_count = 0;
  realtime msix_time [$];
  logic    irq_armed_q, irq_wait_q;
  int      irq_delay;
  always @(posedge aclk) begin
    if (!aresetn_q) begin
      irq_armed_q <= 1'b0; irq_wait_q <= 1'b0; usr_irq_ack <= '0; irq_delay = 0;
    end else begin
      usr_irq_ack <= '0;
      // a rising edge of request AND mask starts a message (held request when the mask is set too)
      irq_armed_q <= usr_irq_req[0] && usr_int_enmask[0];
      if (irq_wait_q && !usr_irq_req[0])
        $fatal(1, "au50_xdma model: usr_irq_req[0] fell before usr_irq_ack[0] (PG195: held until the ack)");
      if (!irq_wait_q && usr_irq_req[0] && usr_int_enmask[0] && !irq_armed_q) begin
        irq_wait_q <= 1'b1;
        irq_delay = $urandom_range(4, 60);     // the message's way out through the PCIe block
      end else if (irq_wait_q) begin
        if (irq_delay > 0) irq_delay--;
        else begin
          irq_wait_q <= 1'b0;
          usr_irq_ack[0] <= 1'b1;
          msix_count++;
          msix_time.push_back($realtime);
        end
      end
    end
  end

  // ---------------- host: BAR0 through the AXI4-Lite master ----------------
  logic [31:0] l_rdata;
  bit          l_go, l_wr, l_done;
  logic [31:0] l_addr, l_data;
  initial begin l_go = 0; l_done = 0; end
  assign m_axil_awprot = 3'b000;
  assign m_axil_arprot = 3'b000;
  assign m_axil_wstrb  = 4'hF;
  always @(posedge aclk) begin
    if (!aresetn_q) begin
      m_axil_awvalid <= 1'b0; m_axil_wvalid <= 1'b0; m_axil_arvalid <= 1'b0; m_axil_bready <= 1'b0;
      m_axil_rready <= 1'b0;
    end else begin
      if (m_axil_awvalid && m_axil_awready) m_axil_awvalid <= 1'b0;
      if (m_axil_wvalid && m_axil_wready) m_axil_wvalid <= 1'b0;
      if (m_axil_arvalid && m_axil_arready) m_axil_arvalid <= 1'b0;
      if (m_axil_bvalid && m_axil_bready) begin
        if (m_axil_bresp != 2'b00) $fatal(1, "au50_xdma model: BAR0 write of %h got response %0d", l_addr, m_axil_bresp);
        m_axil_bready <= 1'b0; l_done = 1;
      end
      if (m_axil_rvalid && m_axil_rready) begin
        if (m_axil_rresp != 2'b00) $fatal(1, "au50_xdma model: BAR0 read of %h got response %0d", l_addr, m_axil_rresp);
        l_rdata = m_axil_rdata; m_axil_rready <= 1'b0; l_done = 1;
      end
      if (l_go) begin
        l_go = 0;
        if (l_wr) begin
          m_axil_awaddr <= l_addr; m_axil_wdata <= l_data; m_axil_awvalid <= 1'b1; m_axil_wvalid <= 1'b1;
          m_axil_bready <= 1'b1;
        end else begin
          m_axil_araddr <= l_addr; m_axil_arvalid <= 1'b1; m_axil_rready <= 1'b1;
        end
      end
    end
  end

  task automatic bar0_access(input bit wr, input logic [31:0] addr, input logic [31:0] data);
    realtime t0;
    wait (aresetn_q);
    l_addr = addr; l_data = data; l_wr = wr; l_done = 0; l_go = 1;
    t0 = $realtime;
    while (!l_done) begin
      @(posedge aclk);
      if ($realtime - t0 > COMPLETION_TIMEOUT)
        $fatal(1, "au50_xdma model: BAR0 %s of %h: completion timeout", wr ? "write" : "read", addr);
    end
  endtask
  task automatic bar0_write(input logic [31:0] addr, input logic [31:0] data);
    bar0_access(1, addr, data);
  endtask
  task automatic bar0_read(input logic [31:0] addr, output logic [31:0] data);
    bar0_access(0, addr, 0);
    data = l_rdata;
  endtask

  // ---------------- host: BAR2 through the AXI4 master ----------------
  // a burst: {address, beats}; its beats {last, strobes, data}
  logic [63:0]  b2_aw_addr [$];
  int           b2_aw_len [$];
  logic [576:0] b2_w [$];
  int           b2_sent = 0, b2_acked = 0;
  int           b2_stall_pct = 20;
  assign m_axib_awsize  = 3'd6;
  assign m_axib_awburst = 2'b01;
  assign m_axib_awprot  = 3'b000;
  assign m_axib_awlock  = 1'b0;
  assign m_axib_awcache = 4'b0011;
  assign m_axib_arsize  = 3'd6;
  assign m_axib_arburst = 2'b01;
  assign m_axib_arprot  = 3'b000;
  assign m_axib_arlock  = 1'b0;
  assign m_axib_arcache = 4'b0011;
  always @(posedge aclk) begin
    if (!aresetn_q) begin
      m_axib_awvalid <= 1'b0; m_axib_wvalid <= 1'b0; m_axib_bready <= 1'b0; m_axib_awid <= '0;
    end else begin
      if (!m_axib_awvalid || m_axib_awready) begin
        if (b2_aw_addr.size() > 0 && $urandom_range(0, 99) >= b2_stall_pct) begin
          logic [63:0] na;
          int nl;
          na = b2_aw_addr.pop_front();
          nl = b2_aw_len.pop_front();
          m_axib_awvalid <= 1'b1;
          m_axib_awaddr  <= na;
          m_axib_awlen   <= 8'(nl - 1);
          m_axib_awid    <= m_axib_awid + 4'd1;
        end else m_axib_awvalid <= 1'b0;
      end
      if (!m_axib_wvalid || m_axib_wready) begin
        if (b2_w.size() > 0 && $urandom_range(0, 99) >= b2_stall_pct) begin
          logic [576:0] nw;
          nw = b2_w.pop_front();
          m_axib_wvalid <= 1'b1;
          {m_axib_wlast, m_axib_wstrb, m_axib_wdata} <= nw;
        end else m_axib_wvalid <= 1'b0;
      end
      if (m_axib_bvalid && m_axib_bready) begin
        if (m_axib_bresp != 2'b00) $fatal(1, "au50_xdma model: BAR2 write response %0d", m_axib_bresp);
        b2_acked++;
      end
      m_axib_bready <= 1'b1;
    end
  end

  // 32-bit words dw at BAR2 offset addr (4-byte aligned), as TLPs of at most MAX_TLP bytes
  // (max_tlp: this store's, a multiple of 64) that never cross 4 KiB
  task automatic bar2_store(input longint addr, input logic [31:0] dw [$], input int max_tlp);
    longint a, stop;
    a = addr;
    stop = addr + 4 * dw.size();
    while (a < stop) begin
      longint e, line;
      e = (a / max_tlp + 1) * max_tlp;       // the TLP ends at a max_tlp boundary (or the data's end)
      if (e > stop) e = stop;
      b2_aw_addr.push_back(64'(a));
      b2_aw_len.push_back(int'((e - 1) / 64 - a / 64 + 1));
      for (line = a / 64; line <= (e - 1) / 64; line++) begin
        logic [511:0] d; logic [63:0] s;
        d = '0; s = '0;
        for (int k = 0; k < 16; k++) begin
          longint wa;
          wa = line * 64 + 4 * k;
          if (wa >= a && wa < e) begin
            int idx;
            logic [31:0] v;
            idx = int'((wa - addr) / 4);
            v = dw[idx];
            d[32*k +: 32] = v;
            s[4*k +: 4] = 4'hF;
          end
        end
        b2_w.push_back({line == (e - 1) / 64, s, d});
      end
      b2_sent++;
      a = e;
    end
  endtask

  task automatic bar2_drain();
    realtime t0;
    t0 = $realtime;
    while (b2_acked != b2_sent) begin
      @(posedge aclk);
      if ($realtime - t0 > 20.0 * COMPLETION_TIMEOUT)
        $fatal(1, "au50_xdma model: BAR2 writes not acknowledged (%0d of %0d)", b2_acked, b2_sent);
    end
  endtask

  // a host read of BAR2: lines 64-byte beats from addr (64-byte aligned); every beat must come
  // back, OKAY, in time
  bit          r_go;
  logic [63:0] r_addr;
  int          r_lines, r_beats;
  logic [511:0] r_data [$];
  initial r_go = 0;
  always @(posedge aclk) begin
    if (!aresetn_q) begin
      m_axib_arvalid <= 1'b0; m_axib_rready <= 1'b0; m_axib_arid <= '0;
    end else begin
      if (m_axib_arvalid && m_axib_arready) m_axib_arvalid <= 1'b0;
      if (r_go) begin
        r_go = 0;
        m_axib_arvalid <= 1'b1; m_axib_araddr <= r_addr; m_axib_arlen <= 8'(r_lines - 1);
        m_axib_arid <= m_axib_arid + 4'd1;
      end
      if (m_axib_rvalid && m_axib_rready) begin
        if (m_axib_rresp != 2'b00) $fatal(1, "au50_xdma model: BAR2 read response %0d", m_axib_rresp);
        if (m_axib_rid != m_axib_arid) $fatal(1, "au50_xdma model: BAR2 read ID %0d, sent %0d", m_axib_rid, m_axib_arid);
        if (m_axib_rlast != (r_beats + 1 == r_lines))
          $fatal(1, "au50_xdma model: BAR2 read RLAST at beat %0d of %0d", r_beats + 1, r_lines);
        r_data.push_back(m_axib_rdata);
        r_beats++;
      end
      m_axib_rready <= $urandom_range(0, 99) >= b2_stall_pct;
    end
  end
  task automatic bar2_read(input longint addr, input int lines, output logic [511:0] data [$]);
    realtime t0;
    r_data.delete();
    r_addr = 64'(addr); r_lines = lines; r_beats = 0; r_go = 1;
    t0 = $realtime;
    while (r_beats < lines) begin
      @(posedge aclk);
      if ($realtime - t0 > COMPLETION_TIMEOUT)
        $fatal(1, "au50_xdma model: BAR2 read at %h: completion timeout (%0d of %0d beats)", addr, r_beats, lines);
    end
    data = r_data;
  endtask

  // ---------------- host memory behind the AXI4 slave ----------------
  logic [7:0]  mem [longint];
  longint      log_addr [$];
  logic [31:0] log_val [$];
  int          stall_pct = 20;
  bit          hold_writes = 0;
  longint      hm_aw_addr [$];
  int          hm_aw_len [$], hm_aw_size [$];
  int          hm_beat = 0, hm_bpend = 0;
  logic [576:0] hm_wbuf [$];
  longint      hm_ar_addr [$];
  int          hm_ar_len [$], hm_ar_size [$];
  int          hm_rbeat = 0;

  function automatic void check_burst(input string ch, input logic [63:0] addr, input logic [7:0] len,
                                      input logic [2:0] size, input logic [1:0] burst);
    if (burst != 2'b01) $fatal(1, "au50_xdma model: host memory %s burst type %0d", ch, burst);
    if (addr % (64'd1 << size) != 0) $fatal(1, "au50_xdma model: host memory %s at %h unaligned", ch, addr);
    if ((addr & 64'hFFF) + (64'(len) + 1) * (64'd1 << size) > 4096)
      $fatal(1, "au50_xdma model: host memory %s at %h len %0d crosses 4 KiB", ch, addr, len);
  endfunction

  assign s_axib_bid = '0;
  assign s_axib_rid = '0;
  always @(posedge aclk) begin
    if (!aresetn_q) begin
      s_axib_awready <= 1'b0; s_axib_wready <= 1'b0; s_axib_bvalid <= 1'b0; s_axib_bresp <= 2'b00;
      s_axib_arready <= 1'b0; s_axib_rvalid <= 1'b0; s_axib_rresp <= 2'b00;
    end else begin
      if (s_axib_awvalid && s_axib_awready) begin
        check_burst("write", s_axib_awaddr, s_axib_awlen, s_axib_awsize, s_axib_awburst);
        hm_aw_addr.push_back(longint'(s_axib_awaddr));
        hm_aw_len.push_back(int'(s_axib_awlen));
        hm_aw_size.push_back(int'(s_axib_awsize));
      end
      if (s_axib_wvalid && s_axib_wready) hm_wbuf.push_back({s_axib_wlast, s_axib_wstrb, s_axib_wdata});
      while (hm_wbuf.size() > 0 && hm_aw_addr.size() > 0) begin
        logic [576:0] wb;
        longint a, line;
        wb = hm_wbuf.pop_front();
        a = hm_aw_addr[0] + longint'(hm_beat) * (longint'(1) << hm_aw_size[0]);
        line = a & ~longint'(63);
        if (wb[576] != (hm_beat == hm_aw_len[0]))
          $fatal(1, "au50_xdma model: host memory WLAST wrong at beat %0d of %0d", hm_beat, hm_aw_len[0]);
        for (int k = 0; k < 16; k++) begin
          logic [3:0] s;
          s = wb[512 + 4*k +: 4];
          if (s == 4'hF) begin
            for (int b = 0; b < 4; b++) mem[line + 4*k + b] = wb[32*k + 8*b +: 8];
            log_addr.push_back(line + 4*k);
            log_val.push_back(wb[32*k +: 32]);
          end else if (s != 4'h0) $fatal(1, "au50_xdma model: host memory write with a partial 32-bit lane");
        end
        if (hm_beat == hm_aw_len[0]) begin
          hm_beat = 0;
          void'(hm_aw_addr.pop_front()); void'(hm_aw_len.pop_front()); void'(hm_aw_size.pop_front());
          hm_bpend++;
        end else hm_beat++;
      end
      if (s_axib_bvalid && s_axib_bready) s_axib_bvalid <= 1'b0;
      else if (!s_axib_bvalid && hm_bpend > 0 && $urandom_range(0, 99) >= stall_pct) begin
        s_axib_bvalid <= 1'b1; hm_bpend--;
      end
      s_axib_awready <= !hold_writes && $urandom_range(0, 99) >= stall_pct;
      s_axib_wready  <= !hold_writes && $urandom_range(0, 99) >= stall_pct;

      // reads, in order
      if (s_axib_arvalid && s_axib_arready) begin
        check_burst("read", s_axib_araddr, s_axib_arlen, s_axib_arsize, s_axib_arburst);
        hm_ar_addr.push_back(longint'(s_axib_araddr));
        hm_ar_len.push_back(int'(s_axib_arlen));
        hm_ar_size.push_back(int'(s_axib_arsize));
      end
      s_axib_arready <= $urandom_range(0, 99) >= stall_pct;
      if (!s_axib_rvalid || s_axib_rready) begin
        if (hm_ar_addr.size() > 0 && $urandom_range(0, 99) >= stall_pct) begin
          longint a, line;
          a = hm_ar_addr[0] + longint'(hm_rbeat) * (longint'(1) << hm_ar_size[0]);
          line = a & ~longint'(63);
          for (int b = 0; b < 64; b++) s_axib_rdata[8*b +: 8] <= mem.exists(line + b) ? mem[line + b] : 8'h00;
          s_axib_rvalid <= 1'b1;
          s_axib_rlast <= (hm_rbeat == hm_ar_len[0]);
          if (hm_rbeat == hm_ar_len[0]) begin
            hm_rbeat = 0;
            void'(hm_ar_addr.pop_front()); void'(hm_ar_len.pop_front()); void'(hm_ar_size.pop_front());
          end else hm_rbeat++;
        end else s_axib_rvalid <= 1'b0;
      end
    end
  end

  logic unused;
  assign unused = ^{sys_clk_gt, pci_exp_rxp, pci_exp_rxn, s_axil_awprot, s_axil_araddr, s_axil_arprot,
                    s_axil_rready, s_axib_awid, s_axib_awregion, s_axib_arid, s_axib_arregion, m_axib_bid};
endmodule : au50_xdma

`default_nettype wire
