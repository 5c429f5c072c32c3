// Bench 1: the `mcctl selftest` sequence of docs/selftest.md, replayed through the AXI ports
// of one adapter in internal loopback (LOOPBACK.MODE = 1), with random stalls on every port.
// Stages 8 and 9 (remote read, atomics) send their requests to this node itself, through the
// loopback: the adapter is requester and home, as the home's own CPU is (docs/firmware.md).
`default_nettype none

module tb_selftest;
  import memchan_regs_pkg::*;

  localparam int NTEST = 4;
  localparam longint RX_BASE = 64'h0000_0001_0000_0000;

  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;

  logic        tvalid, tlast, tready, rvalid_x, rlast_x, rready_x;
  logic [63:0] tdata, rdata_x;
  logic [4:0]  irq;
  assign tready = 1'b1;
  assign rvalid_x = 1'b0; assign rdata_x = '0; assign rlast_x = 1'b0;

  // a build stamp as the board's build would set it: BUILD_GIT and BUILD_TIME must read it
  tb_adapter #(.SERIAL(7), .STALL(25), .BUILD_GIT(32'h0a2b3c4d), .BUILD_TIME(1795842367)) a (
    .clk, .rst_n,
    .m_link_tvalid(tvalid), .m_link_tdata(tdata), .m_link_tlast(tlast), .m_link_tready(tready),
    .s_link_tvalid(rvalid_x), .s_link_tdata(rdata_x), .s_link_tlast(rlast_x), .s_link_tready(rready_x),
    .irq);

  // the transceiver port must stay silent in internal loopback
  bit lb_on = 0;
  always @(posedge clk) if (lb_on && tvalid) $fatal(1, "link transmit active in internal loopback");

  int unsigned page_count, page_size, node, first;
  longint unsigned seed;

  function automatic longint unsigned xs(inout longint unsigned x);
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    return x * 64'h2545F4914F6CDD1D;
  endfunction

  function automatic longint rx_addr(input longint net);   // identity-mapped receive area
    return RX_BASE + net;
  endfunction

  task automatic store64(input longint net, input logic [63:0] v);
    logic [31:0] dw [$];
    dw.delete();     // (Verilator keeps locals of automatic tasks between calls)
    dw.push_back(v[31:0]); dw.push_back(v[63:32]);
    a.win_store(net, dw);
  endtask

  function automatic logic [63:0] host64(input longint net);
    return {a.host.read32(rx_addr(net) + 4), a.host.read32(rx_addr(net))};
  endfunction

  // the runner reads the receive page until the expected value shows (or times out)
  task automatic expect64(input string stage, input longint net, input logic [63:0] v);
    int t;
    t = 0;
    while (host64(net) != v) begin
      @(posedge clk);
      t++;
      if (t > 50000) $fatal(1, "%s: word at %h reads %h, expected %h", stage, net, host64(net), v);
    end
  endtask


  // ---- stages 8 and 9: requests to this node itself (result in REMOTE_LAST, never written) ----
  int remote_done;     // REMOTE_DONE once every request sent so far has completed
  logic [31:0] combine_idle;

  // one test page's transmit entry: a request page (OP) to this node, or the stage-2 write entry
  task automatic set_tx(input int i, input int op, input bit cas);
    logic [31:0] tx;
    tx = MC_TX_PCT_TX_EN_MASK | (32'(op) << MC_TX_PCT_OP_SHIFT) | (cas ? MC_TX_PCT_CAS_MASK : 32'h0) |
         (MC_DEST_KIND_NODE << MC_TX_PCT_DEST_KIND_SHIFT) | (node << MC_TX_PCT_DEST_SHIFT);
    if (op == MC_OP_WRITE)
      tx |= MC_TX_PCT_LOCAL_COPY_MASK | ((i % 2 == 1) ? MC_TX_PCT_ACK_REQ_MASK : 32'h0);
    a.win_drain();
    a.reg_write(MC_TX_PCT_BASE + 4 * (first + i), tx);
  endtask

  // wait until k more requests completed, none beyond, nothing outstanding
  task automatic remote_wait(input string stage, input int k);
    int t;
    logic [31:0] v;
    remote_done += k;
    a.win_drain();
    t = 0;
    do begin
      a.reg_read(MC_REG_REMOTE_DONE, v);
      t++;
      if (t > 20000) $fatal(1, "%s: REMOTE_DONE %0d, want %0d", stage, v, remote_done);
    end while (int'(v) < remote_done);
    if (int'(v) != remote_done) $fatal(1, "%s: %0d requests completed, want %0d", stage, v, remote_done);
    a.reg_read(MC_REG_REMOTE_OUTSTANDING, v);
    if (v != 0) $fatal(1, "%s: REMOTE_OUTSTANDING %0d after completion", stage, v);
  endtask

  task automatic remote_last(output logic [63:0] v);
    logic [31:0] lo, hi;
    a.reg_read(MC_REG_REMOTE_LAST_LO, lo);
    a.reg_read(MC_REG_REMOTE_LAST_HI, hi);
    v = {hi, lo};
  endtask

  // one request whose result is REMOTE_LAST: a read (the stored data are not sent) or an atomic
  task automatic request(input string stage, input longint net, input logic [63:0] v,
                         output logic [63:0] last);
    store64(net, v);
    remote_wait(stage, 1);
    remote_last(last);
  endtask

  // a request the home must refuse: answered, REMOTE_ERRORS and REMOTE_REFUSED + 1, nothing written
  task automatic refused(input string stage, input longint net, input logic [31:0] dw [$]);
    logic [31:0] err, refd, v;
    int log0;
    logic [63:0] word;
    word = host64(net & ~longint'(7));
    a.reg_read(MC_REG_REMOTE_ERRORS, err);
    a.reg_read(MC_REG_REMOTE_REFUSED, refd);
    log0 = a.host.log_addr.size();
    a.win_store(net, dw);
    remote_wait(stage, 1);
    a.reg_read(MC_REG_REMOTE_ERRORS, v);
    if (v != err + 1) $fatal(1, "%s: REMOTE_ERRORS %0d -> %0d", stage, err, v);
    a.reg_read(MC_REG_REMOTE_REFUSED, v);
    if (v != refd + 1) $fatal(1, "%s: REMOTE_REFUSED %0d -> %0d", stage, refd, v);
    a.reg_read(MC_REG_REMOTE_ERR_ADDR, v);
    if (v != 32'(net)) $fatal(1, "%s: REMOTE_ERR_ADDR %h, want %h", stage, v, 32'(net));
    if (a.host.log_addr.size() != log0) $fatal(1, "%s: the refused request wrote host memory", stage);
    if (host64(net & ~longint'(7)) != word) $fatal(1, "%s: the word changed", stage);
  endtask

  task automatic page_counts(input int page, output logic [31:0] reads, output logic [31:0] atomics);
    a.reg_write(MC_REG_PAGE_CNT_SEL, 32'(page));
    a.reg_read(MC_REG_PAGE_CNT_READS, reads);
    a.reg_read(MC_REG_PAGE_CNT_ATOMICS, atomics);
  endtask

  logic [31:0] r, cnt_before [4], save_tx [NTEST], save_rxl [NTEST], save_rxh [NTEST];
  int stage_ok;
  int counters [4];
  initial begin
    counters[0] = MC_REG_ERROR_COUNT; counters[1] = MC_REG_CRC_ERRORS;
    counters[2] = MC_REG_TX_DROP_DISABLED; counters[3] = MC_REG_RX_DROP_DISABLED;
  end

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 64'd20261121;
    void'($urandom(int'(seed)));
    repeat (5) @(posedge clk);
    rst_n = 1;
    repeat (5) @(posedge clk);
    // driver initialization (what the kernel driver does at probe)
    a.reg_write(MC_REG_NODE_ID, MC_NODE_ID_VALID_MASK | 32'd5);
    a.reg_write(MC_REG_RX_BASE_LO, RX_BASE[31:0]);
    a.reg_write(MC_REG_RX_BASE_HI, RX_BASE[63:32]);
    a.reg_write(MC_REG_LOOPBACK, 32'd1);
    lb_on = 1;
    a.reg_write(MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK);
    stage_ok = 0;

    // 1 identity
    a.reg_read(MC_REG_ID, r);
    if (r != 32'h4D454D43) $fatal(1, "stage 1: ID %h", r);
    a.reg_read(MC_REG_VERSION, r);
    if ((r & MC_VERSION_MAJOR_MASK) >> MC_VERSION_MAJOR_SHIFT != 1) $fatal(1, "stage 1: VERSION %h", r);
    a.reg_read(MC_REG_BUILD_GIT, r);
    if (r != 32'h0a2b3c4d) $fatal(1, "stage 1: BUILD_GIT %h, the bench's stamp is 0a2b3c4d", r);
    a.reg_read(MC_REG_BUILD_TIME, r);
    if (r != 32'd1795842367) $fatal(1, "stage 1: BUILD_TIME %0d, the bench's stamp is 1795842367", r);
    a.reg_read(MC_REG_PAGE_COUNT, page_count);
    a.reg_read(MC_REG_PAGE_SIZE, page_size);
    if (page_size != 4096 && page_size != 8192) $fatal(1, "stage 1: PAGE_SIZE %0d", page_size);
    if (page_count <= NTEST) $fatal(1, "stage 1: PAGE_COUNT %0d", page_count);
    a.reg_read(MC_REG_MAX_NODES, r);
    a.reg_read(MC_REG_NODE_ID, r);
    if ((r & MC_NODE_ID_VALID_MASK) == 0) $fatal(1, "stage 1: NODE_ID not valid");
    node = r & MC_NODE_ID_ID_MASK;
    first = page_count - NTEST;
    $display("selftest: stage 1 identity ok (pages %0d, page size %0d, node %0d)", page_count, page_size, node);
    foreach (counters[i]) a.reg_read(counters[i], cnt_before[i]);

    // 2 pct
    for (int i = 0; i < NTEST; i++) begin
      a.reg_read(MC_TX_PCT_BASE + 4 * (first + i), save_tx[i]);
      a.reg_read(MC_RX_PCT_BASE + 8 * (first + i), save_rxl[i]);
      a.reg_read(MC_RX_PCT_BASE + 8 * (first + i) + 4, save_rxh[i]);
    end
    for (int i = 0; i < NTEST; i++) begin
      logic [31:0] tx;
      tx = MC_TX_PCT_TX_EN_MASK | MC_TX_PCT_LOCAL_COPY_MASK |
           (MC_DEST_KIND_NODE << MC_TX_PCT_DEST_KIND_SHIFT) | (node << MC_TX_PCT_DEST_SHIFT) |
           ((i % 2 == 1) ? MC_TX_PCT_ACK_REQ_MASK : 32'h0);
      a.reg_write(MC_TX_PCT_BASE + 4 * (first + i), tx);
      a.reg_write(MC_RX_PCT_BASE + 8 * (first + i), MC_RX_PCT_RX_EN_MASK[31:0]);
      a.reg_write(MC_RX_PCT_BASE + 8 * (first + i) + 4, 32'h0);
      a.reg_read(MC_TX_PCT_BASE + 4 * (first + i), r);
      if (r != tx) $fatal(1, "stage 2: TX PCT %0d reads %h, wrote %h", first + i, r, tx);
      a.reg_read(MC_RX_PCT_BASE + 8 * (first + i), r);
      if (r != MC_RX_PCT_RX_EN_MASK[31:0]) $fatal(1, "stage 2: RX PCT %0d reads %h", first + i, r);
      a.reg_read(MC_RX_PCT_BASE + 8 * (first + i) + 4, r);
      if (r != 0) $fatal(1, "stage 2: RX PCT hi %0d reads %h", first + i, r);
    end
    $display("selftest: stage 2 pct ok");

    // 3 walking ones
    for (int b = 0; b < 64; b++) store64(longint'(first) * page_size + 8 * b, 64'd1 << b);
    for (int b = 0; b < 64; b++) expect64("stage 3", longint'(first) * page_size + 8 * b, 64'd1 << b);
    $display("selftest: stage 3 walking-ones ok");

    // 4 address in data
    begin
      logic [31:0] dw [$];
      for (longint w = 0; w < NTEST * page_size / 8; w++) begin
        longint na;
        na = longint'(first) * page_size + 8 * w;
        dw.push_back(na[31:0]); dw.push_back(na[63:32]);
      end
      a.win_store(longint'(first) * page_size, dw);
      for (longint w = 0; w < NTEST * page_size / 8; w++) begin
        longint na;
        na = longint'(first) * page_size + 8 * w;
        expect64("stage 4", na, na);
      end
    end
    $display("selftest: stage 4 address-in-data ok");

    // 5 random
    begin
      logic [31:0] dw [$];
      longint unsigned x;
      $display("selftest: stage 5 seed %0d", seed);
      x = seed;
      for (longint w = 0; w < NTEST * page_size / 8; w++) begin
        logic [63:0] v;
        v = xs(x);
        dw.push_back(v[31:0]); dw.push_back(v[63:32]);
      end
      a.win_store(longint'(first) * page_size, dw);
      x = seed;
      for (longint w = 0; w < NTEST * page_size / 8; w++)
        expect64("stage 5", longint'(first) * page_size + 8 * w, xs(x));
    end
    $display("selftest: stage 5 random ok");

    // 6 ordering: 10,000 rounds of data word then flag word
    begin
      int start, checked;
      longint data_page, flag_page;
      logic [63:0] img [256];
      data_page = longint'(first + 1) * page_size;
      flag_page = longint'(first + 2) * page_size;
      for (int i = 0; i < 256; i++) img[i] = host64(data_page + 8 * i);
      start = a.host.log_addr.size();
      for (int rr = 1; rr <= 10000; rr++) begin
        store64(data_page + 8 * (rr % 256), 64'(rr));
        store64(flag_page, 64'(rr));
        if (rr % 500 == 0) a.win_drain();
      end
      expect64("stage 6", flag_page, 64'd10000);
      // the checker: whenever the flag reads r, data word (r mod 256) holds r or newer
      checked = 0;
      for (int k = start; k < a.host.log_addr.size(); k++) begin
        longint ha;
        ha = a.host.log_addr[k];
        if (ha >= rx_addr(data_page) && ha < rx_addr(data_page) + 2048 && ha[2] == 1'b0)
          img[(ha - rx_addr(data_page)) / 8] = 64'(a.host.log_val[k]);
        if (ha == rx_addr(flag_page)) begin
          logic [63:0] fl;
          fl = 64'(a.host.log_val[k]);
          if (img[fl % 256] < fl) $fatal(1, "stage 6: flag %0d but data word %0d reads %0d", fl, fl % 256, img[fl % 256]);
          checked++;
        end
      end
      if (checked < 10000) $fatal(1, "stage 6: only %0d flag writes seen", checked);
    end
    $display("selftest: stage 6 ordering ok");

    // 7 barrier
    a.reg_write(MC_REG_BARRIER, MC_BARRIER_START_MASK);
    begin
      int t;
      t = 0;
      do begin
        a.reg_read(MC_REG_BARRIER, r);
        t++;
        if (t > 20000) $fatal(1, "stage 7: barrier timeout, BARRIER %h", r);
      end while ((r & MC_BARRIER_DONE_MASK) == 0);
      a.reg_read(MC_REG_ACK_OUTSTANDING, r);
      if (r != 0) $fatal(1, "stage 7: ACK_OUTSTANDING %0d", r);
      a.reg_read(MC_REG_ACKS_RECEIVED, r);
      if (r == 0) $fatal(1, "stage 7: no acknowledgement received");
    end
    $display("selftest: stage 7 barrier ok (%0d acknowledgements)", r);

    // 8 remote-read (needs CAPS.REMOTE_READ and CAPS.ATOMICS: this RTL has both)
    a.reg_read(MC_REG_CAPS, r);
    if ((r & MC_CAPS_REMOTE_READ_MASK) == 0 || (r & MC_CAPS_ATOMICS_MASK) == 0)
      $fatal(1, "stage 8: CAPS %h lacks REMOTE_READ or ATOMICS", r);
    a.reg_read(MC_REG_REMOTE_DONE, r);
    remote_done = int'(r);
    // a request is one packet: a 256-byte read's 32 beats, a compare-and-swap's 2, under the
    // bench's random stalls, must not be cut by the store-combining wait (restored after stage 9)
    a.reg_read(MC_REG_TX_COMBINE_IDLE, combine_idle);
    a.reg_write(MC_REG_TX_COMBINE_IDLE, 64);
    begin
      logic [31:0] dw [$], reads [NTEST], atomics, n;
      logic [63:0] last;
      int log0;
      // refused first: the test pages' receive entries (stage 2) lack READ_EN
      for (int i = 0; i < NTEST; i++) set_tx(i, MC_OP_READ, 1'b0);
      dw.delete(); dw.push_back(32'h0); dw.push_back(32'h0);
      refused("stage 8: read without READ_EN", longint'(first) * page_size + 8, dw);
      for (int i = 0; i < NTEST; i++) begin
        a.reg_write(MC_RX_PCT_BASE + 8 * (first + i),
                    MC_RX_PCT_RX_EN_MASK[31:0] | MC_RX_PCT_READ_EN_MASK[31:0] | MC_RX_PCT_ATOMIC_EN_MASK[31:0]);
        set_tx(i, MC_OP_WRITE, 1'b0);
      end
      // the complement of every word's network byte address, through the transmit window
      dw.delete();
      for (longint w = 0; w < NTEST * page_size / 8; w++) begin
        logic [63:0] na;
        na = ~(64'(first) * 64'(page_size) + 64'(8 * w));
        dw.push_back(na[31:0]); dw.push_back(na[63:32]);
      end
      a.win_store(longint'(first) * page_size, dw);
      for (longint w = 0; w < NTEST * page_size / 8; w++)
        expect64("stage 8", longint'(first) * page_size + 8 * w, ~(64'(first) * 64'(page_size) + 64'(8 * w)));
      for (int i = 0; i < NTEST; i++) begin
        page_counts(first + i, reads[i], atomics);
        set_tx(i, MC_OP_READ, 1'b0);
      end
      // remote loads of every 64th word and one 256-byte read of each page (its first word in
      // REMOTE_LAST); a response to this node itself is never written
      log0 = a.host.log_addr.size();
      n = 0;
      for (longint w = 0; w < NTEST * page_size / 8; w += 64) begin
        longint na;
        na = longint'(first) * page_size + 8 * w;
        request("stage 8: remote load", na, 64'h0, last);
        if (last != ~64'(na)) $fatal(1, "stage 8: remote load at %h returned %h, want %h", na, last, ~64'(na));
        n++;
      end
      for (int i = 0; i < NTEST; i++) begin
        longint na;
        na = longint'(first + i) * page_size + 256;
        dw.delete();
        for (int k = 0; k < 64; k++) dw.push_back(32'hDEAD0000 | 32'(k));   // not sent
        a.win_store(na, dw);
        remote_wait("stage 8: remote read of 256 bytes", 1);
        remote_last(last);
        if (last != ~64'(na)) $fatal(1, "stage 8: 256-byte read at %h returned %h first, want %h", na, last, ~64'(na));
      end
      if (a.host.log_addr.size() != log0) $fatal(1, "stage 8: a response to this node itself was written");
      for (int i = 0; i < NTEST; i++) begin
        logic [31:0] now;
        page_counts(first + i, now, atomics);
        if (now != reads[i] + 32'(page_size / 8 / 64) + 1)
          $fatal(1, "stage 8: page %0d READS %0d -> %0d, want + %0d", first + i, reads[i], now, page_size / 8 / 64 + 1);
      end
      a.reg_read(MC_REG_REMOTE_ERRORS, r);
      $display("selftest: stage 8 remote-read ok (%0d loads, %0d reads of 256 bytes, 1 refused; REMOTE_ERRORS %0d)", n, NTEST, r);
    end

    // 9 atomics on word 0 of the last test page
    begin
      logic [31:0] dw [$], reads, atomics, now;
      logic [63:0] last, orig;
      longint na;
      na = longint'(first + NTEST - 1) * page_size;
      orig = host64(na);
      page_counts(first + NTEST - 1, reads, atomics);
      set_tx(NTEST - 1, MC_OP_SWAP, 1'b0);
      request("stage 9: swap", na, 64'h1000, last);
      if (last != orig || host64(na) != 64'h1000) $fatal(1, "stage 9: swap returned %h (want %h), word %h", last, orig, host64(na));
      set_tx(NTEST - 1, MC_OP_FETCH_ADD, 1'b0);
      for (int i = 0; i < 1000; i++) begin
        request("stage 9: fetch-and-add", na, 64'd1, last);
        if (last != 64'h1000 + 64'(i)) $fatal(1, "stage 9: fetch-and-add %0d returned %h, want %h", i, last, 64'h1000 + 64'(i));
      end
      set_tx(NTEST - 1, MC_OP_SWAP, 1'b1);
      dw.delete(); dw.push_back(32'h1000); dw.push_back(32'h0); dw.push_back(32'd7); dw.push_back(32'h0);
      a.win_store(na, dw);                        // wrong expected value: no swap
      remote_wait("stage 9: compare-and-swap", 1);
      remote_last(last);
      if (last != 64'h1000 + 64'd1000 || host64(na) != 64'h1000 + 64'd1000)
        $fatal(1, "stage 9: failing compare-and-swap returned %h, word %h", last, host64(na));
      dw.delete(); dw.push_back(32'h1000 + 32'd1000); dw.push_back(32'h0); dw.push_back(32'd7); dw.push_back(32'h0);
      a.win_store(na, dw);
      remote_wait("stage 9: compare-and-swap", 1);
      remote_last(last);
      if (last != 64'h1000 + 64'd1000 || host64(na) != 64'd7)
        $fatal(1, "stage 9: compare-and-swap returned %h, word %h (want 7)", last, host64(na));
      set_tx(NTEST - 1, MC_OP_SWAP, 1'b0);
      request("stage 9: swap back", na, orig, last);
      if (last != 64'd7 || host64(na) != orig) $fatal(1, "stage 9: swap back returned %h, word %h", last, host64(na));
      set_tx(NTEST - 1, MC_OP_FETCH_ADD, 1'b0);
      dw.delete(); dw.push_back(32'd1);             // 4 bytes at a misaligned word
      refused("stage 9: misaligned fetch-and-add", na + 4, dw);
      page_counts(first + NTEST - 1, now, r);
      if (r != atomics + 32'd1004) $fatal(1, "stage 9: ATOMICS %0d -> %0d, want + 1004", atomics, r);
      if (now != reads) $fatal(1, "stage 9: READS changed %0d -> %0d", reads, now);
      set_tx(NTEST - 1, MC_OP_WRITE, 1'b0);
      a.reg_write(MC_REG_TX_COMBINE_IDLE, combine_idle);
    end
    $display("selftest: stage 9 atomics ok (swap, 1000 fetch-and-add, 2 compare-and-swap, swap back, 1 refused; ATOMICS + 1004)");

    // 10 counters
    foreach (counters[i]) begin
      a.reg_read(counters[i], r);
      if (r != cnt_before[i]) $fatal(1, "stage 10: counter at %h changed %0d -> %0d", counters[i], cnt_before[i], r);
    end
    $display("selftest: stage 10 counters ok");

    // restore the PCT entries
    for (int i = 0; i < NTEST; i++) begin
      a.reg_write(MC_TX_PCT_BASE + 4 * (first + i), save_tx[i]);
      a.reg_write(MC_RX_PCT_BASE + 8 * (first + i), save_rxl[i]);
      a.reg_write(MC_RX_PCT_BASE + 8 * (first + i) + 4, save_rxh[i]);
    end
    a.reg_read(MC_REG_TX_PACKETS, r);
    $display("selftest: PASS (%0d packets, %0d cycles)", r, a.cycle);
    $finish;
  end

  initial begin
    #40000000;
    $fatal(1, "selftest: global timeout");
  end
endmodule : tb_selftest

`default_nettype wire
