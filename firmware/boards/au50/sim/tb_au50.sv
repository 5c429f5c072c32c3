// The whole Alveo U50 board top, twice, cabled: two au50_top with the vendor IP replaced by the
// behavioural models of this directory (the XDMA bridge with its host, Aurora 64B/66B over the
// serial pins, the AXI clock and width converters, the MMCM, the DNA port, the buffers). Every
// board runs on its own unrelated clocks: its host's PCIe reference (node A's with a
// spread-spectrum sweep to -5000 ppm), its 100 MHz system clock (the core's 250 MHz through
// the MMCM) and its QSFP reference (161.1328125 MHz), each off nominal by its own ppm, wandering,
// jittered. The bench, as the hosts:
//   - the DNA arrives as the board serial and decides the node IDs the link assigns
//   - the bridge's user-interrupt enable mask is set by the shell after the bridge's reset
//   - BAR0 register traffic, then random stores through both boards' BAR2 at the same time
//     land in the other host's memory, every word at its address and in order (scoreboard)
//   - the far host's memory stops taking writes for stretches while stores stream: the
//     receiver's FIFO fills and NFC pauses the sender (XOFFs counted), no word lost
//   - a BAR2 read completes with zeros
//   - interrupts: each new cause is followed by an MSI-X message, one held cause sends no
//     second, and after the host clears it the next one sends again
//   - the global clock: with MIN the least header latency seen from the master's link port to
//     the slave's, SPREAD the bound docs/board-u50.md computes and a short sync interval, the
//     slave's time stays within master - SPREAD .. master on a quiet link
// Negative controls (plusargs the models read): +aurora_ignore_nfc (the sender's Aurora ignores
// XOFF: the receive FIFO must overflow), +au50_plain_crossings (the clock converters become
// plain wires between the clocks: transfers are lost or doubled).
`default_nettype none

module tb_au50;
  import memchan_regs_pkg::*;

  localparam int      NP    = 16;                  // traffic pages
  localparam int      PS    = MC_BOARD_PAGE_SIZE;
  localparam int      P_IRQ = NP;                  // the page whose receive entry has IRQ_ON_RX
  localparam realtime CABLE_NS = 50.0;             // 10 m
  localparam int      CLOCK_SPREAD = 22;           // the bound docs/board-u50.md computes for the shell
  localparam int      CLOCK_IV     = 1024;         // sync interval the bench sets (4 us)

  // ---------------- clocks ----------------
  logic a_pcie_p, a_pcie_n, b_pcie_p, b_pcie_n, a_sys_p, a_sys_n, b_sys_p, b_sys_n;
  logic a_qsfp_p, a_qsfp_n, b_qsfp_p, b_qsfp_n;
  tb_au50_clock #(.NOMINAL_NS(10.0), .PPM(30.0), .SSC_PPM(5000.0), .SSC_CYCLES(3150), .JITTER_PS(20))
    u_a_pcie (.p(a_pcie_p), .n(a_pcie_n));
  tb_au50_clock #(.NOMINAL_NS(10.0), .PPM(-270.0), .WANDER_PPM(20.0), .WANDER_CYCLES(41000), .JITTER_PS(20))
    u_b_pcie (.p(b_pcie_p), .n(b_pcie_n));
  tb_au50_clock #(.NOMINAL_NS(10.0), .PPM(37.0), .WANDER_PPM(15.0), .WANDER_CYCLES(77000), .JITTER_PS(15))
    u_a_sys (.p(a_sys_p), .n(a_sys_n));
  tb_au50_clock #(.NOMINAL_NS(10.0), .PPM(-61.0), .WANDER_PPM(15.0), .WANDER_CYCLES(53000), .JITTER_PS(15))
    u_b_sys (.p(b_sys_p), .n(b_sys_n));
  tb_au50_clock #(.NOMINAL_NS(1000.0 / 161.1328125), .PPM(48.0), .WANDER_PPM(5.0), .WANDER_CYCLES(90000),
                  .JITTER_PS(10)) u_a_qsfp (.p(a_qsfp_p), .n(a_qsfp_n));
  tb_au50_clock #(.NOMINAL_NS(1000.0 / 161.1328125), .PPM(-47.0), .WANDER_PPM(5.0), .WANDER_CYCLES(60000),
                  .JITTER_PS(10)) u_b_qsfp (.p(b_qsfp_p), .n(b_qsfp_n));

  // ---------------- the boards and the cable ----------------
  logic        perst_n = 1'b0;
  logic        a_txp, a_txn, b_txp, b_txn, a_rxp = 1'b0, b_rxp = 1'b0;
  logic [15:0] a_pcie_txp, a_pcie_txn, b_pcie_txp, b_pcie_txn;
  logic [2:0]  a_led, b_led;
  logic        a_cattrip, b_cattrip;

  au50_top a (
    .pcie_refclk_p(a_pcie_p), .pcie_refclk_n(a_pcie_n), .pcie_perst_n(perst_n), .pcie_rx_p('0),
    .pcie_rx_n('1), .pcie_tx_p(a_pcie_txp), .pcie_tx_n(a_pcie_txn), .qsfp_refclk_p(a_qsfp_p),
    .qsfp_refclk_n(a_qsfp_n), .qsfp_rx_p(a_rxp), .qsfp_rx_n(~a_rxp), .qsfp_tx_p(a_txp), .qsfp_tx_n(a_txn),
    .sys_clk_p(a_sys_p), .sys_clk_n(a_sys_n), .hbm_cattrip(a_cattrip), .led(a_led));
  au50_top b (
    .pcie_refclk_p(b_pcie_p), .pcie_refclk_n(b_pcie_n), .pcie_perst_n(perst_n), .pcie_rx_p('0),
    .pcie_rx_n('1), .pcie_tx_p(b_pcie_txp), .pcie_tx_n(b_pcie_txn), .qsfp_refclk_p(b_qsfp_p),
    .qsfp_refclk_n(b_qsfp_n), .qsfp_rx_p(b_rxp), .qsfp_rx_n(~b_rxp), .qsfp_tx_p(b_txp), .qsfp_tx_n(b_txn),
    .sys_clk_p(b_sys_p), .sys_clk_n(b_sys_n), .hbm_cattrip(b_cattrip), .led(b_led));

  // the cable, 10 m of fibre each way: each 64B/66B block a model sends reaches the other
  // model CABLE_NS after its last bit left, taken in at the receiver's next user_clk edge (the
  // line is modelled by blocks, not bits: the serial pins carry nothing)
  logic [65:0] ab_blk [$], ba_blk [$];
  realtime     ab_t [$], ba_t [$];
  always @(posedge a.user_clk) begin
    while (a.u_aurora.line_q.size() > 0) begin
      ab_blk.push_back(a.u_aurora.line_q.pop_front());
      ab_t.push_back(a.u_aurora.line_t.pop_front() + CABLE_NS);
    end
    while (ba_t.size() > 0 && ba_t[0] <= $realtime) begin
      void'(ba_t.pop_front());
      a.u_aurora.line_in(ba_blk.pop_front());
    end
  end
  always @(posedge b.user_clk) begin
    while (b.u_aurora.line_q.size() > 0) begin
      ba_blk.push_back(b.u_aurora.line_q.pop_front());
      ba_t.push_back(b.u_aurora.line_t.pop_front() + CABLE_NS);
    end
    while (ab_t.size() > 0 && ab_t[0] <= $realtime) begin
      void'(ab_t.pop_front());
      b.u_aurora.line_in(ab_blk.pop_front());
    end
  end

  // ---------------- host access by board (0: A, 1: B) ----------------
  task automatic wr(input int n, input logic [31:0] addr, input logic [31:0] v);
    if (n == 0) a.u_xdma.bar0_write(addr, v); else b.u_xdma.bar0_write(addr, v);
  endtask
  task automatic rd(input int n, input logic [31:0] addr, output logic [31:0] v);
    if (n == 0) a.u_xdma.bar0_read(addr, v); else b.u_xdma.bar0_read(addr, v);
  endtask
  function automatic int msix(input int n);
    return n == 0 ? a.u_xdma.msix_count : b.u_xdma.msix_count;
  endfunction
  task automatic expect_reg(input int n, input logic [31:0] addr, input logic [31:0] v, input string what);
    logic [31:0] r;
    rd(n, addr, r);
    if (r != v) $fatal(1, "tb_au50: board %0d: %s reads %0d (0x%h), expected %0d", n, what, r, r, v);
  endtask

  // ---------------- the DNA ----------------
  localparam logic [95:0] DNA_A = 96'h4002_3456_789A_BCDE_F00D_0003;
  localparam logic [95:0] DNA_B = 96'h4012_3456_789A_BCDE_F00D_0001;
  function automatic logic [31:0] dna_serial(input logic [95:0] dna);
    logic [95:0] r;
    for (int i = 0; i < 96; i++) r[i] = dna[95 - i];     // read LSB first into the register's top
    return r[95:64] ^ r[63:32] ^ r[31:0];
  endfunction
  initial begin
    a.u_dna.u_dna.dna = DNA_A;
    b.u_dna.u_dna.dna = DNA_B;
  end

  // the power-on count starts near its end (655 us of 100 MHz cycles would cost only
  // simulation time): Aurora's pma_init is already released, reset_pb follows 256 cycles later
  initial begin
    #1;
    a.por_q = 16'hFF00;
    b.por_q = 16'hFF00;
  end

  // ---------------- scoreboard ----------------
  longint      rx_base [2];
  longint      exp_addr [2][$];     // [receiver]
  logic [31:0] exp_val [2][$];
  int          serial_no [2];
  int          checked [2];
  int          node_of [2];         // node ID the link gave each board

  task automatic store(input int s, input longint net, input int n32);
    logic [31:0] dw [$];
    dw.delete();          // (Verilator 5.006 keeps a local queue from the last call)
    for (int i = 0; i < n32; i++) begin
      logic [31:0] v;
      v = {4'(s), 28'(serial_no[s])};
      serial_no[s]++;
      dw.push_back(v);
      exp_addr[1 - s].push_back(rx_base[1 - s] + net + 4 * i);
      exp_val[1 - s].push_back(v);
    end
    if (s == 0) a.u_xdma.bar2_store(net, dw, 64 * $urandom_range(1, 4));
    else b.u_xdma.bar2_store(net, dw, 64 * $urandom_range(1, 4));
  endtask

  // compare what reached each host's memory with the expectations, in order
  task automatic check_logs(input bit all);
    for (int r = 0; r < 2; r++) begin
      int n;
      n = (r == 0) ? a.u_xdma.log_addr.size() : b.u_xdma.log_addr.size();
      for (int k = checked[r]; k < n; k++) begin
        longint la; logic [31:0] lv;
        la = (r == 0) ? a.u_xdma.log_addr[k] : b.u_xdma.log_addr[k];
        lv = (r == 0) ? a.u_xdma.log_val[k] : b.u_xdma.log_val[k];
        if (exp_addr[r].size() == 0) $fatal(1, "tb_au50: board %0d: unexpected host write %h = %h", r, la, lv);
        if (exp_addr[r][0] != la || exp_val[r][0] != lv)
          $fatal(1, "tb_au50: board %0d: expected %h = %h, got %h = %h (word %0d)", r, exp_addr[r][0],
                 exp_val[r][0], la, lv, k);
        void'(exp_addr[r].pop_front());
        void'(exp_val[r].pop_front());
      end
      checked[r] = n;
      if (all && exp_addr[r].size() != 0)
        $fatal(1, "tb_au50: board %0d: %0d words never arrived (next %h = %h)", r, exp_addr[r].size(),
               exp_addr[r][0], exp_val[r][0]);
    end
  endtask

  // wait until both hosts' memories have every word expected (bounded)
  task automatic settle(input realtime limit_ns);
    realtime t0;
    t0 = $realtime;
    a.u_xdma.bar2_drain();
    b.u_xdma.bar2_drain();
    while (a.u_xdma.log_addr.size() - checked[0] < exp_addr[0].size() ||
           b.u_xdma.log_addr.size() - checked[1] < exp_addr[1].size()) begin
      #100;
      if ($realtime - t0 > limit_ns) begin
        check_logs(0);
        $fatal(1, "tb_au50: words missing after %0.0f us: %0d at A, %0d at B", limit_ns / 1000.0,
               exp_addr[0].size(), exp_addr[1].size());
      end
    end
    check_logs(1);
  endtask

  // ---------------- interrupts: every new cause followed by a message, no more messages ----
  int      cause_rises [2];
  realtime cause_open [2];          // time of the oldest cause not yet followed by a message (-1: none)
  int      msgs_seen [2];
  logic [MC_IRQ_STATUS_W-1:0] a_irq_q = '0, b_irq_q = '0;
  initial begin cause_rises = '{0, 0}; cause_open = '{-1.0, -1.0}; msgs_seen = '{0, 0}; end
  always @(posedge a.core_clk) begin
    if ((a.irq & ~a_irq_q) != 0) begin cause_rises[0]++; if (cause_open[0] < 0) cause_open[0] = $realtime; end
    a_irq_q <= a.irq;
  end
  always @(posedge b.core_clk) begin
    if ((b.irq & ~b_irq_q) != 0) begin cause_rises[1]++; if (cause_open[1] < 0) cause_open[1] = $realtime; end
    b_irq_q <= b.irq;
  end
  always #50 begin
    for (int n = 0; n < 2; n++) begin
      if (msix(n) != msgs_seen[n]) begin
        msgs_seen[n] = msix(n);
        cause_open[n] = -1.0;
        if (msgs_seen[n] > cause_rises[n])
          $fatal(1, "tb_au50: board %0d: %0d MSI-X messages for %0d new causes", n, msgs_seen[n], cause_rises[n]);
      end
      if (cause_open[n] >= 0 && $realtime - cause_open[n] > 5000.0)
        $fatal(1, "tb_au50: board %0d: a new interrupt cause at %0.0f ns not followed by a message", n,
               cause_open[n]);
    end
  end

  // ---------------- the global clock over the shell ----------------
  // every frame's header from the master's link port (memchan_top's m_link handshake) to the
  // slave's (its s_link handshake), in the slave's core cycles: the least is the shell's MIN,
  // the spread what CLOCK_LINK_DELAY.SPREAD must cover (frames match in order: the shell's link
  // loses and reorders nothing). The master is the board with node ID 0 (mst: 0 A, 1 B).
  int      mst = -1;
  realtime hdr_t [$];
  bit      tx_in_frame = 0, rx_in_frame = 0;
  realtime lat_min = 1.0e9;
  always @(posedge a.core_clk) if (mst == 1) begin
    if (a.core_rx_tvalid && a.core_rx_tready) begin
      if (!rx_in_frame && hdr_t.size() > 0) begin
        realtime l;
        l = $realtime - hdr_t.pop_front();
        if (l < lat_min) lat_min = l;
      end
      rx_in_frame = !a.core_rx_tlast;
    end
  end
  always @(posedge b.core_clk) if (mst == 1) begin
    if (b.core_tx_tvalid && b.core_tx_tready) begin
      if (!tx_in_frame) hdr_t.push_back($realtime);
      tx_in_frame = !b.core_tx_tlast;
    end
  end
  // the slave's GLOBAL_TIME minus the master's at each master edge, while the slave is VALID
  bit     clk_watch = 0;
  longint clk_err_min = 0, clk_err_max = -1000000, clk_samples = 0;
  always @(posedge b.core_clk) if (clk_watch && a.u_core.u_clock.valid_q) begin
    longint e;
    e = longint'(a.u_core.u_clock.gt_q) - longint'(b.u_core.u_clock.gt_q);
    if (e < clk_err_min) clk_err_min = e;
    if (e > clk_err_max) clk_err_max = e;
    clk_samples++;
  end

  // ---------------- flow control: nothing lost ----------------
  always @(posedge a.user_clk) if (a.rx_overflow) $fatal(1, "tb_au50: board A: overflow, a received word was lost");
  always @(posedge b.user_clk) if (b.rx_overflow) $fatal(1, "tb_au50: board B: overflow, a received word was lost");

  // +debug=NS: the links' state every NS
  int debug_ns;
  initial if ($value$plusargs("debug=%d", debug_ns)) forever begin
    #(debug_ns);
    $display("debug %0.0f us: uclk %0.5f %0.5f eb %0d %0d A tx %0d rx %0d xoff_in_force %0d paused %0d fill %0d b2 %0d/%0d log %0d | B tx %0d rx %0d xoff_in_force %0d paused %0d fill %0d b2 %0d/%0d log %0d hold %0d",
             $realtime / 1000.0, a.u_aurora.uclk_period, b.u_aurora.uclk_period, a.u_aurora.eb_q.size(), b.u_aurora.eb_q.size(), a.u_aurora.words_tx, a.u_aurora.words_rx, a.u_aurora.xoff_in_force, a.rx_paused,
             256 - int'(a.u_link_rx_fifo.wr_free), a.u_xdma.b2_acked, a.u_xdma.b2_sent, a.u_xdma.log_addr.size(),
             b.u_aurora.words_tx, b.u_aurora.words_rx, b.u_aurora.xoff_in_force, b.rx_paused,
             256 - int'(b.u_link_rx_fifo.wr_free), b.u_xdma.b2_acked, b.u_xdma.b2_sent, b.u_xdma.log_addr.size(),
             b.u_xdma.hold_writes);
  end

  // ---------------- the run ----------------
  int unsigned seed;
  int          rounds;

  // n stores from each host, alternating, at random offsets and lengths (posted: the bridges
  // queue them, both boards send at once)
  task automatic traffic(input int n);
    for (int i = 0; i < 2 * n; i++) begin
      int page, off, len;
      page = $urandom_range(0, NP - 1);
      off  = 4 * $urandom_range(0, PS / 4 - 1);
      len  = ($urandom_range(0, 3) == 0) ? $urandom_range(40, 300) : $urandom_range(1, 40);
      if (off + 4 * len > PS) len = (PS - off) / 4;
      store(i % 2, longint'(page) * PS + off, len);
      if ($urandom_range(0, 7) == 0) #($urandom_range(10, 400));
    end
  endtask

  // while holding[n], board n's host memory stops taking writes for stretches (each shorter
  // than the link's retry window), so that its receive FIFO fills and NFC pauses the sender
  bit holding [2];
  initial holding = '{0, 0};
  always begin
    wait (holding[0]);
    #($urandom_range(500, 3000));
    a.u_xdma.hold_writes = 1;
    #($urandom_range(4000, 12000));
    a.u_xdma.hold_writes = 0;
  end
  always begin
    wait (holding[1]);
    #($urandom_range(500, 3000));
    b.u_xdma.hold_writes = 1;
    #($urandom_range(4000, 12000));
    b.u_xdma.hold_writes = 0;
  end

  logic [31:0] r;
  logic [511:0] rdata [$];

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("rounds=%d", rounds)) rounds = 2;
    void'($urandom(seed));
    serial_no = '{1, 1}; checked = '{0, 0};
    $display("tb_au50: seed %0d, %0d rounds", seed, rounds);
    #1000 perst_n = 1'b1;

    // the card comes up: the core leaves reset once the DNA is read and the crossings are out of
    // reset (the host's driver probes after that)
    wait (a.core_rst_n && b.core_rst_n);
    $display("tb_au50: both cores out of reset at %0.1f us", $realtime / 1000.0);
    if (a.serial_q != dna_serial(DNA_A) || b.serial_q != dna_serial(DNA_B))
      $fatal(1, "tb_au50: serials %h and %h, expected %h and %h from the DNA", a.serial_q, b.serial_q,
             dna_serial(DNA_A), dna_serial(DNA_B));
    expect_reg(0, MC_REG_VERSION, MC_REG_VERSION_RESET, "VERSION");
    expect_reg(1, MC_REG_PAGE_SIZE, PS, "PAGE_SIZE");
    // the bridge's interrupt enable mask, which reset cleared, is set by the shell
    wait (a.irq_enabled && b.irq_enabled);
    if (a.u_xdma.usr_int_enmask[0] != 1'b1 || b.u_xdma.usr_int_enmask[0] != 1'b1)
      $fatal(1, "tb_au50: the bridges' user-interrupt enable masks are %h and %h", a.u_xdma.usr_int_enmask,
             b.u_xdma.usr_int_enmask);

    // node IDs from the link: the lower serial takes 0
    for (int n = 0; n < 2; n++) begin
      wr(n, MC_REG_HEARTBEAT_PERIOD, 300);
      wr(n, MC_REG_NODE_ID, MC_NODE_ID_AUTO_MASK);
    end
    for (int n = 0; n < 2; n++) begin
      int t;
      t = 0;
      do begin
        rd(n, MC_REG_NODE_ID, r);
        if (++t > 2000) $fatal(1, "tb_au50: board %0d got no node ID from the link (%h; Aurora channel up %0d, lane locked %0d)",
                               n, r, n == 0 ? a.channel_up : b.channel_up, n == 0 ? a.u_aurora.locked : b.u_aurora.locked);
      end while ((r & MC_NODE_ID_VALID_MASK) == 0);
      node_of[n] = int'(r & MC_NODE_ID_ID_MASK);
    end
    if (node_of[0] != (dna_serial(DNA_A) < dna_serial(DNA_B) ? 0 : 1) || node_of[1] != 1 - node_of[0])
      $fatal(1, "tb_au50: node IDs %0d and %0d do not follow the serials %h and %h", node_of[0], node_of[1],
             dna_serial(DNA_A), dna_serial(DNA_B));
    $display("tb_au50: DNA as serial: A %h -> node %0d, B %h -> node %0d", a.serial_q, node_of[0], b.serial_q,
             node_of[1]);
    if (node_of[1] != 0) $fatal(1, "tb_au50: the clock measurement expects board B as node 0 (the master)");
    mst = 1;

    // receive areas, page tables: every page to the other board, P_IRQ with a receive interrupt
    for (int n = 0; n < 2; n++) begin
      rx_base[n] = 64'h20_0000_0000 * (n + 1);
      wr(n, MC_REG_RX_BASE_LO, rx_base[n][31:0]);
      wr(n, MC_REG_RX_BASE_HI, rx_base[n][63:32]);
      for (int pg = 0; pg <= P_IRQ; pg++) begin
        wr(n, MC_TX_PCT_BASE + 4 * pg, MC_TX_PCT_TX_EN_MASK | (MC_DEST_KIND_NODE << MC_TX_PCT_DEST_KIND_SHIFT) |
                                       (32'(node_of[1 - n]) << MC_TX_PCT_DEST_SHIFT));
        wr(n, MC_RX_PCT_BASE + 8 * pg, MC_RX_PCT_RX_EN_MASK | (pg == P_IRQ ? MC_RX_PCT_IRQ_ON_RX_MASK : 0));
        wr(n, MC_RX_PCT_BASE + 8 * pg + 4, 0);
      end
      wr(n, MC_REG_IRQ_STATUS, 32'hFFFF_FFFF);
      wr(n, MC_REG_IRQ_MASK, MC_IRQ_MASK_RX_NOTIFY_MASK | MC_IRQ_MASK_BARRIER_DONE_MASK);
      wr(n, MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK);
    end

    // a BAR2 read completes (zeros)
    a.u_xdma.bar2_read(64'h40, 1, rdata);
    b.u_xdma.bar2_read(64'h1000, 4, rdata);
    foreach (rdata[i]) if (rdata[i] != '0) $fatal(1, "tb_au50: a BAR2 read returned %h", rdata[i]);
    $display("tb_au50: BAR2 reads completed");

    // stores from both hosts at once, the far memories holding their writes for stretches
    for (int round = 0; round < rounds; round++) begin
      holding = '{1, 1};
      traffic(120);
      #20000;
      holding = '{0, 0};
      settle(400000.0);
      $display("tb_au50: round %0d ok at %0.1f us: %0d words at A, %0d at B; XOFF sent by A %0d, by B %0d",
               round, $realtime / 1000.0, checked[0], checked[1], a.u_aurora.xoff_sent, b.u_aurora.xoff_sent);
    end
    if (b.u_aurora.xoff_sent == 0) $fatal(1, "tb_au50: B's receive FIFO never asked for XOFF: NFC untested");

    // the global clock over the shell: MIN the least header latency seen (in the slave's
    // cycles), SPREAD = CLOCK_SPREAD (docs/board-u50.md, the arithmetic), a sync every
    // CLOCK_IV cycles; then the link quiet for 8 intervals: the slave's time must stay within
    // master - SPREAD .. master
    begin
      int min_cyc;
      min_cyc = int'(lat_min / 4.0);        // 4 ns core cycles, rounded down: never above the least
      wr(1, MC_REG_CLOCK_SYNC_INTERVAL, CLOCK_IV);
      wr(0, MC_REG_CLOCK_SYNC_INTERVAL, CLOCK_IV);
      wr(0, MC_REG_CLOCK_LINK_DELAY, (32'(CLOCK_SPREAD) << MC_CLOCK_LINK_DELAY_SPREAD_SHIFT) | 32'(min_cyc));
      #(4.0 * 6 * CLOCK_IV);                // the filter settles on the new MIN
      clk_watch = 1;
      #(4.0 * 8 * CLOCK_IV);
      clk_watch = 0;
      if (clk_samples == 0) $fatal(1, "tb_au50: the slave's global clock never VALID");
      if (clk_err_min < -CLOCK_SPREAD - 1 || clk_err_max > 1)
        $fatal(1, "tb_au50: clock skew: slave minus master %0d..%0d cycles, bound -%0d..0 (MIN %0d)", clk_err_min,
               clk_err_max, CLOCK_SPREAD, min_cyc);
      $display("tb_au50: global clock: MIN %0d cycles (least header latency %0.1f ns), slave minus master %0d..%0d over %0d samples, bound -%0d..0",
               min_cyc, lat_min, clk_err_min, clk_err_max, clk_samples, CLOCK_SPREAD);
    end

    // interrupts at B from A's stores to P_IRQ
    begin
      int m0;
      m0 = msix(1);
      store(0, longint'(P_IRQ) * PS, 2);
      settle(50000.0);
      #3000;
      if (msix(1) != m0 + 1) $fatal(1, "tb_au50: %0d MSI-X messages for one receive notification", msix(1) - m0);
      rd(1, MC_REG_IRQ_STATUS, r);
      if ((r & MC_IRQ_STATUS_RX_NOTIFY_MASK) == 0) $fatal(1, "tb_au50: RX_NOTIFY not set (IRQ_STATUS %h)", r);
      // the cause is still set: a second notification is no new cause and sends nothing
      store(0, longint'(P_IRQ) * PS + 64, 2);
      settle(50000.0);
      #3000;
      if (msix(1) != m0 + 1) $fatal(1, "tb_au50: a message for a cause already set");
      // the host clears it: the next notification sends again
      wr(1, MC_REG_IRQ_STATUS, MC_IRQ_STATUS_RX_NOTIFY_MASK);
      store(0, longint'(P_IRQ) * PS + 128, 2);
      settle(50000.0);
      #3000;
      if (msix(1) != m0 + 2) $fatal(1, "tb_au50: no message after the cause was cleared and raised again");
      // two causes close together (a barrier's completion, a notification): each followed by a message
      wr(1, MC_REG_IRQ_STATUS, MC_IRQ_STATUS_RX_NOTIFY_MASK);
      fork
        wr(1, MC_REG_BARRIER, MC_BARRIER_START_MASK);
        store(0, longint'(P_IRQ) * PS + 192, 2);
      join
      settle(50000.0);
      #5000;
      rd(1, MC_REG_IRQ_STATUS, r);
      if ((r & (MC_IRQ_STATUS_RX_NOTIFY_MASK | MC_IRQ_STATUS_BARRIER_DONE_MASK)) !=
          (MC_IRQ_STATUS_RX_NOTIFY_MASK | MC_IRQ_STATUS_BARRIER_DONE_MASK))
        $fatal(1, "tb_au50: IRQ_STATUS %h after a barrier and a notification", r);
      if (msix(1) < m0 + 3) $fatal(1, "tb_au50: two new causes, %0d messages", msix(1) - m0 - 2);
      $display("tb_au50: interrupts: %0d causes, %0d MSI-X messages at B", cause_rises[1], msix(1));
    end

    for (int n = 0; n < 2; n++) begin
      expect_reg(n, MC_REG_ERROR_COUNT, 0, "ERROR_COUNT");
      expect_reg(n, MC_REG_CRC_ERRORS, 0, "CRC_ERRORS");
    end
    $display("tb_au50: links: A sent %0d words, B %0d; XOFF A %0d, B %0d; clock compensation dropped %0d and %0d idles, %0d and %0d gaps",
             a.u_aurora.words_tx, b.u_aurora.words_tx, a.u_aurora.xoff_sent, b.u_aurora.xoff_sent,
             a.u_aurora.cc_dropped, b.u_aurora.cc_dropped, a.u_aurora.eb_gaps, b.u_aurora.eb_gaps);
    $display("tb_au50: PASS at %0.1f us", $realtime / 1000.0);
    $finish;
  end

  initial begin
    #20000000;
    $fatal(1, "tb_au50: global timeout");
  end
endmodule : tb_au50

`default_nettype wire
