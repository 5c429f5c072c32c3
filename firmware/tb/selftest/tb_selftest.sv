// Bench 1: the `mcctl selftest` sequence of docs/selftest.md, replayed through the AXI ports
// of one adapter in internal loopback (LOOPBACK.MODE = 1), with random stalls on every port.
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

  tb_adapter #(.SERIAL(7), .STALL(25)) a (
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

    // 8 counters
    foreach (counters[i]) begin
      a.reg_read(counters[i], r);
      if (r != cnt_before[i]) $fatal(1, "stage 8: counter at %h changed %0d -> %0d", counters[i], cnt_before[i], r);
    end
    $display("selftest: stage 8 counters ok");

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
