// Unit bench of the global clock's two ends, for both simulators (Icarus cannot run tb/clock):
// a master memchan_global_clock (its memchan_clock_sync_tx) sends sync frames over a modelled
// link to a slave memchan_global_clock. The transmitter takes a requested frame after a random
// wait (a frame in progress) and offers its words with random TREADY stalls; the cable delays
// each word by MIN + 0..JITTER cycles in order; 1 frame in 64 fails its CRC at the receiver
// (no sync_i; two bad frames one apart cost 4 samples, the VALID window). Every cycle once the slave is VALID, its time minus the master's must lie in
// -(worst sync header latency - MIN)..0 and within SPREAD. Built with SYNC = 0 (the master
// sends nothing; the slave leaves reset 500 cycles late) it must FAIL with "clock skew".
`default_nettype none

module tb_clock_unit #(
  parameter bit SYNC = 1'b1
);
  import memchan_pkt_pkg::*;

  localparam int IV     = 300;     // sync interval
  localparam int MIN    = 3;       // the cable's least latency
  localparam int JITTER = 6;       // the cable adds 0..JITTER
  localparam int SPREAD = 8;       // the bound we state (>= JITTER, the cable's spread)

  logic clk = 0, rst_n = 0, srst_n = 0;
  always #2 clk = ~clk;

  // master: its transmit port
  logic        m_req, tv, tr, tl;
  logic [63:0] m_hdr, td;
  logic [55:0] m_time, s_time;
  logic        m_valid, s_valid, s_req;
  logic [31:0] m_bound, s_bound, m_off, s_off;
  logic [15:0] m_syncs, s_syncs;
  logic [63:0] s_hdr;
  // slave: its receive port and the link receiver's verdict
  logic        rv, rl, sync_good;
  logic [63:0] rd, good_hdr;

  memchan_global_clock #(.SYNC(SYNC)) master (
    .clk_i(clk), .rst_ni(rst_n), .master_i(1'b1), .send_i(1'b1), .interval_i(IV),
    .link_delay_i({16'(SPREAD), 16'(MIN)}), .sync_i(1'b0), .sync_hdr_i(64'h0),
    .rx_tvalid_i(1'b0), .rx_tready_i(1'b0), .rx_tlast_i(1'b0), .rx_tdata_i(7'h0),
    .tx_tvalid_i(tv), .tx_tready_i(tr), .tx_tlast_i(tl), .tx_tdata_i(td[6:0]),
    .sync_req_o(m_req), .sync_hdr_o(m_hdr), .time_o(m_time), .valid_o(m_valid),
    .bound_o(m_bound), .offset_o(m_off), .syncs_o(m_syncs));

  memchan_global_clock #(.SYNC(SYNC)) slave (
    .clk_i(clk), .rst_ni(srst_n), .master_i(1'b0), .send_i(1'b0), .interval_i(IV),
    .link_delay_i({16'(SPREAD), 16'(MIN)}), .sync_i(sync_good), .sync_hdr_i(good_hdr),
    .rx_tvalid_i(rv), .rx_tready_i(1'b1), .rx_tlast_i(rl), .rx_tdata_i(rd[6:0]),
    .tx_tvalid_i(1'b0), .tx_tready_i(1'b0), .tx_tlast_i(1'b0), .tx_tdata_i(7'h0),
    .sync_req_o(s_req), .sync_hdr_o(s_hdr), .time_o(s_time), .valid_o(s_valid),
    .bound_o(s_bound), .offset_o(s_off), .syncs_o(s_syncs));

  integer cyc = 0;
  always @(posedge clk) cyc <= cyc + 1;

  // transmitter model: a pending request is taken after 0..40 cycles (the header is read
  // then, as memchan_link_tx reads it), then header and CRC word with random TREADY
  integer wait_left = -1, word = 0;
  reg     pend = 0;
  always @(posedge clk) begin
    if (!rst_n) begin
      tv <= 0; tl <= 0; td <= 0; tr <= 0; pend <= 0; wait_left <= -1; word <= 0;
    end else begin
      tr <= ($urandom % 100) >= 40;
      if (m_req) pend <= 1;
      if (tv && tr) begin
        if (tl) begin tv <= 0; tl <= 0; end
        else begin tl <= 1; td <= 64'h0; end
      end else if (!tv && pend) begin
        if (wait_left < 0) wait_left <= $urandom % 41;
        else if (wait_left == 0) begin
          tv <= 1; tl <= 0; td <= m_hdr; pend <= 0; wait_left <= -1;
        end else wait_left <= wait_left - 1;
      end
    end
  end

  // the cable: every word taken at the master's port comes out MIN + 0..JITTER cycles later,
  // in order; the receiver's verdict (sync_good) with the CRC word, 1 in 64 frames bad
  reg [63:0] q_d [0:63];
  reg        q_l [0:63];
  integer    q_t [0:63];
  integer    q_head = 0, q_tail = 0, last_out = 0, max_lat = 0, in_hdr_t = 0;
  reg [63:0] hdr_seen;
  reg        in_frame_i = 0, in_frame_o = 0;
  integer    hdr_in_t [0:63];
  integer    f_head = 0, f_tail = 0;
  always @(posedge clk) begin
    rv <= 0; rl <= 0; sync_good <= 0;
    if (rst_n) begin
      if (tv && tr) begin
        q_d[q_tail % 64] = td;
        q_l[q_tail % 64] = tl;
        q_t[q_tail % 64] = cyc + MIN + ($urandom % (JITTER + 1));
        q_tail = q_tail + 1;
        if (!in_frame_i) begin hdr_in_t[f_tail % 64] = cyc; f_tail = f_tail + 1; end
        in_frame_i = !tl;
      end
      // a word is taken at the slave's port one cycle after rv is set here: deliver at t - 1
      if (q_head != q_tail && q_t[q_head % 64] - 1 <= cyc && last_out < cyc) begin
        rv <= 1; rd <= q_d[q_head % 64]; rl <= q_l[q_head % 64];
        if (!in_frame_o) begin
          hdr_seen = q_d[q_head % 64];
          if (cyc + 1 - hdr_in_t[f_head % 64] > max_lat) max_lat = cyc + 1 - hdr_in_t[f_head % 64];
          f_head = f_head + 1;
        end else if (($urandom % 64) != 0) begin
          sync_good <= 1;       // with the CRC word, as memchan_link_rx's sync_o
          good_hdr <= hdr_seen;
        end
        in_frame_o = !q_l[q_head % 64];
        q_head = q_head + 1;
        last_out = cyc;
      end
    end
  end

  // checks
  integer e, max_err = 0, checks = 0;
  reg watch = 0;
  always @(posedge clk) if (watch) begin
    e = s_time - m_time;
    if (!s_valid) begin $display("FAIL: slave lost VALID"); $fatal(1); end
    if (e > 0 || -e > max_lat - MIN) begin
      $display("FAIL: slave error %0d outside -(%0d - %0d)..0", e, max_lat, MIN); $fatal(1);
    end
    if (-e > SPREAD) begin $display("FAIL: slave error %0d beyond the bound %0d", e, SPREAD); $fatal(1); end
    if (-e > max_err) max_err = -e;
    checks = checks + 1;
  end

  initial begin
    repeat (5) @(posedge clk);
    rst_n = 1;
    repeat (500) @(posedge clk);
    srst_n = 1;
    repeat (10 * IV) @(posedge clk);
    e = s_time - m_time;
    if (e < -SPREAD || e > SPREAD) begin
      $display("FAIL: clock skew %0d cycles exceeds the bound %0d", e, SPREAD); $fatal(1);
    end
    if (!s_valid || s_bound != SPREAD || m_bound != 0 || !m_valid) begin
      $display("FAIL: slave VALID %0b bound %0d, master VALID %0b bound %0d", s_valid, s_bound,
               m_valid, m_bound);
      $fatal(1);
    end
    watch = 1;
    repeat (200 * IV) @(posedge clk);
    if (s_syncs < 150) begin $display("FAIL: only %0d sync samples in 210 intervals", s_syncs); $fatal(1); end
    $display("CLOCK unit: max error %0d cycles over %0d cycles checked, worst sync latency beyond MIN %0d, bound %0d, %0d samples",
             max_err, checks, max_lat - MIN, SPREAD, s_syncs);
    $display("clock_unit: PASS");
    $finish;
  end
endmodule : tb_clock_unit

`default_nettype wire
