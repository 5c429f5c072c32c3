// Hub measurements (docs/performance.md "Hub"): 8 adapters on an 8-port hub, no stalls on
// the cables or host ports, so that the links are the limit. Every number is a same-run
// ratio against a reference measured in the same run:
//   * bisection: 4 disjoint pairs (0->1, 2->3, 4->5, 6->7) streaming at once, each pair's
//     delivered rate against the rate of pair 0->1 streaming alone (the rate of one link
//     through the hub); each must reach 90 %;
//   * broadcast against point-to-point: node 0 stores the same amount to node 1 alone and
//     then as a broadcast to all 7 others; the time until the last receiver has the last word;
//   * hub latency (a probe on the hub's ports, during the reference stream): from the last
//     word (CRC) of a DATA frame accepted at input 0 to the first word of that frame leaving
//     output 1 on its link (an absolute number of cycles, reported only).
// The scoreboard of tb_hub_net checks every word of every phase.
`default_nettype none

module tb_hub_perf;
  import memchan_regs_pkg::*;

  localparam int NN = 8;
  localparam int PS = 4096;
  localparam int BURST = 64;          // 32-bit words per store (one full 256-byte frame)
  localparam int BURSTS = 48;         // per sender and phase

  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;
  longint cycle = 0;
  always @(posedge clk) cycle++;

  tb_hub_net #(.NN(NN), .PORTS(NN), .STALL(0)) net (.clk, .rst_n);

  // hub latency probe: input 0's DATA frame ends (queued), output 1's DATA frame starts
  bit     probe = 0;
  longint in_end [$];
  longint lat_min = -1, lat_sum = 0, lat_n = 0;
  bit     out_mid = 0;       // output 1 is inside a frame
  always @(posedge clk) begin
    if (probe && net.hub.g_port[0].u_lrx.q_commit_o &&
        net.hub.g_port[0].u_lrx.hdr_q[3:0] == 4'h1)
      in_end.push_back(cycle);
    if (net.h_tv[1] && net.h_tr[1]) begin
      if (probe && !out_mid && net.h_td[64 + 0 +: 4] == 4'h1 && in_end.size() > 0) begin
        longint l;
        l = cycle - in_end.pop_front();
        if (lat_min < 0 || l < lat_min) lat_min = l;
        lat_sum += l;
        lat_n++;
      end
      out_mid = !net.h_tl[1];
    end
  end

  // page d of every node: point-to-point to node d; page NN: broadcast
  task automatic setup();
    for (int n = 0; n < NN; n++) begin
      for (int d = 0; d < NN; d++)
        net.set_page(n, d, MC_TX_PCT_TX_EN_MASK | (32'(d) << MC_TX_PCT_DEST_SHIFT),
                     MC_RX_PCT_RX_EN_MASK);
      net.set_page(n, NN, MC_TX_PCT_TX_EN_MASK | (32'd1 << MC_TX_PCT_DEST_KIND_SHIFT),
                   MC_RX_PCT_RX_EN_MASK);
    end
  endtask

  // senders s stream BURSTS bursts each to page[s] at once; returns the cycle of the start
  task automatic stream(input bit [NN-1:0] senders, input int page [NN], output longint t0);
    int k [NN];
    int left;
    left = 0;
    for (int s = 0; s < NN; s++) begin k[s] = 0; if (senders[s]) left += BURSTS; end
    t0 = cycle;
    while (left > 0) begin
      for (int s = 0; s < NN; s++) begin
        if (senders[s] && k[s] < BURSTS && net.op_done[s] == net.op_req[s]) begin
          net.store_post(s, longint'(page[s] * PS + 4 * BURST * (k[s] % 16)), BURST);
          k[s]++;
          left--;
        end
      end
      @(posedge clk);
    end
    for (int s = 0; s < NN; s++) wait (net.op_done[s] == net.op_req[s]);
  endtask

  // words from s logged at r since log index from: count, first and last cycle
  function automatic void span(input int s, input int r, input int from, output int n,
                               output longint first, output longint last);
    n = 0; first = -1; last = -1;
    for (int k = from; k < net.log_v[r].size(); k++) begin
      if (int'(net.log_v[r][k][31:28]) == s) begin
        if (n == 0) first = net.log_t[r][k];
        last = net.log_t[r][k];
        n++;
      end
    end
  endfunction

  initial begin
    int from [NN], page [NN], n;
    longint t0, first, last, t_p2p, t_bc;
    real ref_rate, rate, worst;
    repeat (5) @(posedge clk);
    rst_n = 1;
    repeat (5) @(posedge clk);
    net.init(32'b0);
    setup();

    // reference: pair 0 -> 1 alone
    for (int r = 0; r < NN; r++) from[r] = net.log_v[r].size();
    for (int s = 0; s < NN; s++) page[s] = (s + 1) % NN;
    probe = 1;
    stream(8'b0000_0001, page, t0);
    net.quiesce(200);
    probe = 0;
    if (lat_n != BURSTS * BURST / 64 || in_end.size() != 0)
      $fatal(1, "hub_perf: latency probe matched %0d frames, %0d left", lat_n, in_end.size());
    span(0, 1, from[1], n, first, last);
    if (n != BURSTS * BURST) $fatal(1, "hub_perf: reference pair got %0d words", n);
    ref_rate = real'(n) / real'(last - first + 1);
    t_p2p = last - t0;
    net.check();

    // bisection: 0->1, 2->3, 4->5, 6->7 at once
    for (int r = 0; r < NN; r++) from[r] = net.log_v[r].size();
    stream(8'b0101_0101, page, t0);
    net.quiesce(200);
    worst = 2.0;
    for (int s = 0; s < NN; s += 2) begin
      span(s, s + 1, from[s + 1], n, first, last);
      if (n != BURSTS * BURST) $fatal(1, "hub_perf: pair %0d->%0d got %0d words", s, s + 1, n);
      rate = real'(n) / real'(last - first + 1);
      $display("PERF hub bisection pair %0d->%0d: %0.3f words/cycle, %0.3f of the pair alone",
               s, s + 1, rate, rate / ref_rate);
      if (rate / ref_rate < worst) worst = rate / ref_rate;
    end
    net.check();

    // broadcast from node 0: until the last of the 7 receivers has the last word
    for (int r = 0; r < NN; r++) from[r] = net.log_v[r].size();
    page[0] = NN;
    stream(8'b0000_0001, page, t0);
    net.quiesce(200);
    t_bc = 0;
    for (int r = 1; r < NN; r++) begin
      span(0, r, from[r], n, first, last);
      if (n != BURSTS * BURST) $fatal(1, "hub_perf: broadcast receiver %0d got %0d words", r, n);
      if (last - t0 > t_bc) t_bc = last - t0;
    end
    net.check();

    $display("PERF hub reference pair alone: %0.3f 32-bit words/cycle (%0.2f bytes/cycle of 8 on the link)",
             ref_rate, 4.0 * ref_rate);
    $display("PERF hub bisection: worst pair %0.3f of the pair alone (4 disjoint pairs on 8 ports)",
             worst);
    $display("PERF hub broadcast to 7 vs point-to-point to 1, %0d words: %0d vs %0d cycles, ratio %0.3f",
             BURSTS * BURST, t_bc, t_p2p, real'(t_bc) / real'(t_p2p));
    $display("PERF hub latency, input last word to output first word: min %0d, mean %0.1f cycles (%0d frames, streaming)",
             lat_min, real'(lat_sum) / real'(lat_n), lat_n);
    if (worst < 0.9) $fatal(1, "hub_perf: a pair below 90 %% of a link in the bisection");
    $display("hub_perf: PASS");
    $finish;
  end

  initial begin
    #400000000;
    $fatal(1, "hub_perf: global timeout");
  end
endmodule : tb_hub_perf

`default_nettype wire
