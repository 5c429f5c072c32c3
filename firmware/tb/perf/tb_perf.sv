// Performance measurements (no stalls anywhere, two adapters back to back):
//  - cycles from the BAR2 write beat to the first word of its frame on the link,
//  - cycles from the last word of the frame on the link (at the receiver) to the host write,
//  - sustained payload efficiency on the link for 64-byte and 256-byte packets.
// Fails when the 256-byte efficiency is below 90 % or a latency exceeds its bound.
`default_nettype none

module tb_perf;
  import memchan_regs_pkg::*;

  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;

  tb_pair #(.STALL(0)) p (.clk, .rst_n);

  longint cyc = 0;
  always @(posedge clk) cyc++;

  // event monitors
  longint w_first [$], link_sof [$], rx_eof [$], h_aw [$], h_w [$];
  longint tx_first_data, tx_last_data, tx_payload;
  bit     tx_sof = 1, rx_sof = 1, tx_is_data, rx_is_data, measuring = 0;
  logic   wfirst = 1;

  always @(posedge clk) begin
    if (p.a0.w_wvalid && p.a0.w_wready) begin
      if (wfirst) w_first.push_back(cyc);
      wfirst = p.a0.w_wlast;
    end
    if (p.t0v && p.t0r) begin
      if (tx_sof) begin
        tx_is_data = (p.t0d[3:0] == 4'h1);
        if (tx_is_data) begin
          link_sof.push_back(cyc);
          if (measuring) begin
            if (tx_first_data < 0) tx_first_data = cyc;
            tx_payload += 4 * (longint'(p.t0d[37:32]) + 1);
          end
        end
      end
      if (p.t0l && tx_is_data && measuring) tx_last_data = cyc;
      tx_sof = p.t0l;
    end
    if (p.r1v && p.r1r) begin
      if (rx_sof) rx_is_data = (p.r1d[3:0] == 4'h1);
      if (p.r1l && rx_is_data) rx_eof.push_back(cyc);
      rx_sof = p.r1l;
    end
    if (p.a1.h_awvalid && p.a1.h_awready) h_aw.push_back(cyc);
    if (p.a1.h_wvalid && p.a1.h_wready) h_w.push_back(cyc);
  end

  task automatic clear_events();
    w_first.delete(); link_sof.delete(); rx_eof.delete(); h_aw.delete(); h_w.delete();
  endtask

  longint lat_tx [2], lat_rx_aw, lat_rx_w;
  real    eff [2];

  task automatic one_store(input int idle);
    p.wr(0, MC_REG_TX_COMBINE_IDLE, idle);
    clear_events();
    p.store(0, 0, 2);
    p.quiesce(200);
    p.check(0);
    if (w_first.size() != 1 || link_sof.size() != 1 || rx_eof.size() != 1 || h_aw.size() != 1)
      $fatal(1, "perf: unexpected event counts %0d %0d %0d %0d", w_first.size(), link_sof.size(), rx_eof.size(), h_aw.size());
  endtask

  task automatic stream(input int bytes_per_pkt, input int npkt, output real e);
    longint base;
    base = 0;
    tx_first_data = -1; tx_payload = 0;
    measuring = 1;
    for (int i = 0; i < npkt; i++) begin
      if (bytes_per_pkt == 256) p.store(0, base + 256 * i, 64);                 // contiguous
      else                      p.store(0, base + 2 * bytes_per_pkt * i, bytes_per_pkt / 4);  // gaps: no combining
    end
    p.quiesce(300);
    measuring = 0;
    p.check(0);
    e = 100.0 * real'(tx_payload) / (8.0 * real'(tx_last_data - tx_first_data + 1));
    $display("perf: %0d-byte packets: %0d payload bytes in %0d link cycles: %.1f %% of the link data width",
             bytes_per_pkt, tx_payload, tx_last_data - tx_first_data + 1, e);
  endtask

  initial begin
    repeat (5) @(posedge clk);
    rst_n = 1;
    repeat (5) @(posedge clk);
    p.init(1);
    for (int n = 0; n < 2; n++) p.wr(n, MC_REG_HEARTBEAT_PERIOD, 32'h00FF_FFFF);
    for (int pg = 0; pg < 32; pg++) begin
      p.set_tx(0, pg, MC_TX_PCT_TX_EN_MASK | (1 << MC_TX_PCT_DEST_SHIFT));
      p.set_rx(1, pg, MC_RX_PCT_RX_EN_MASK);
    end
    p.a0.max_burst = 32;

    // latency of one 8-byte store
    for (int k = 0; k < 2; k++) begin
      one_store(k == 0 ? 4 : 0);
      lat_tx[k] = link_sof[0] - w_first[0];
      $display("perf: TX_COMBINE_IDLE=%0d: BAR2 write beat -> first word on the link: %0d cycles", k == 0 ? 4 : 0, lat_tx[k]);
    end
    lat_rx_aw = h_aw[0] - rx_eof[0];
    lat_rx_w  = h_w[0] - rx_eof[0];
    $display("perf: last word on the link -> host AW: %0d cycles, -> host write data beat: %0d cycles", lat_rx_aw, lat_rx_w);

    // sustained efficiency
    p.wr(0, MC_REG_TX_COMBINE_IDLE, 4);
    stream(64, 400, eff[0]);
    stream(256, 400, eff[1]);
    if (eff[1] < 90.0) $fatal(1, "perf: 256-byte efficiency %.1f %% below the 90 %% goal", eff[1]);
    if (lat_tx[1] > 20 || lat_rx_w > 20) $fatal(1, "perf: latency out of bounds");
    $display("PERF tx_latency_idle4=%0d tx_latency_idle0=%0d rx_latency_aw=%0d rx_latency_w=%0d eff64=%.1f eff256=%.1f",
             lat_tx[0], lat_tx[1], lat_rx_aw, lat_rx_w, eff[0], eff[1]);
    $display("perf: PASS");
    $finish;
  end

  initial begin
    #100000000;
    $fatal(1, "perf: global timeout");
  end
endmodule : tb_perf

`default_nettype wire
