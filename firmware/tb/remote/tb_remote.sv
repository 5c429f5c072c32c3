// Bench 6: remote read, remote atomics and page access counters (docs/firmware.md "Remote
// read and atomics"), two adapters back to back with random stalls on every AXI port and
// both cables (and bit flips with retry for the atomics), plus one adapter in internal
// loopback. Node 0 is the home of every page; node 0's own requests go through its adapter.
//   a) remote read returns exactly the home's current host memory, several ranges, after a
//      change of that memory, and after the requester's own earlier store (rule 1);
//   b) both nodes hammer one word with fetch-and-add (random addends): the sum is exact, the
//      page counter counts every atomic and PAGE_HOT fires at the threshold;
//   c) a CAS lock taken from both sides guards a plain read-modify-write counter: the
//      counter ends exact and no two holders are ever seen; node 0 sends each CAS as one
//      16-byte store, node 1 as one 8-byte store with the compare operand staged in
//      REMOTE_CAS_CMP (its lock page armed in REMOTE_CAS_PAGE): both operand paths contend
//      on one word; a failing staged CAS, a 16-byte CAS on another page while one is armed,
//      and (negative control) one 8-byte store with the page disarmed: refused as malformed;
//      swap returns the old word;
//   d) refusals: read of a page without READ_EN, fetch-and-add on a page without ATOMIC_EN,
//      a misaligned and a malformed atomic, a request that names no single node, a host read
//      that the home's memory answers with SLVERR, a store of a partial word (one byte) to an
//      atomic and to a read request page (refused by the requester): each is
//      answered (REMOTE_DONE), counted (REMOTE_ERRORS, REMOTE_REFUSED at the home), nothing
//      is written on either side and the home word is unchanged;
//   e) loopback: node 0 alone in internal loopback reads and adds through its own link.
// a) to d) run on two pairs: manual node IDs, and autoconfigured IDs (the virtual hub: node
// 1's requests and node 0's responses pass node 0's merge and echo ordering).
// The negative control (tb_remote_run with SERIALIZE = 0: a request does not wait for the
// earlier host writes' responses) must lose fetch-and-add updates, or this bench fails.
`default_nettype none

module tb_remote_run #(
  parameter bit SERIALIZE = 1'b1,
  parameter bit FULL      = 1'b1,  // all parts; 0: only the fetch-and-add hammer
  parameter bit AUTO      = 1'b0   // autoconfigured node IDs: the virtual hub orders
) (
  input  wire logic clk,
  input  wire logic rst_n,
  input  wire int   n_fadd,
  output bit        done,
  output longint    fadd_got,
  output longint    fadd_want,
  output longint    cyc_write,      // latency: one-way 8-byte write, store to host write
  output longint    cyc_read,       // remote read of 8 bytes, store to response in memory
  output longint    cyc_atomic      // fetch-and-add, store to response in memory
);
  import memchan_regs_pkg::*;

  tb_pair #(.STALL(30), .VHUB(1'b1), .SERIALIZE(SERIALIZE)) p (.clk, .rst_n);

  localparam int PS = 4096;
  localparam int P_RD = 4, P_WR = 5, P_FA = 6, P_CAS = 7, P_SW = 8, P_CNTW = 9, P_CNTR = 10;
  localparam int P_NORD = 11, P_NOAT = 12, P_BCAST = 13, P_LAT = 14, P_RDERR = 15;
  localparam int P_CAS2 = 16;         // a second CAS page: the 16-byte form beside an armed one
  localparam int H_CNT = 20;          // node 0 host page behind P_CNTW / P_CNTR (remapped)
  localparam logic [31:0] DEST0 = 32'h0;
  string MODE;
  initial MODE = AUTO ? " vhub" : "";

  logic [31:0] r;
  longint      cycle;
  initial cycle = 0;
  always @(posedge clk) cycle++;

  function automatic logic [31:0] tx_entry(input int op, input bit cas, input int kind);
    return MC_TX_PCT_TX_EN_MASK | (32'(op) << MC_TX_PCT_OP_SHIFT) |
           (cas ? MC_TX_PCT_CAS_MASK : 32'h0) | (32'(kind) << MC_TX_PCT_DEST_KIND_SHIFT) | DEST0;
  endfunction

  // ---------------- host memory as the home's CPU sees it ----------------
  function automatic longint home_addr(input int page, input longint off);
    return p.rx_base[0] + longint'(page) * PS + off;
  endfunction
  task automatic poke64(input int n, input longint a, input logic [63:0] v);
    for (int b = 0; b < 8; b++) begin
      if (n == 0) p.a0.host.mem[a + b] = v[8*b +: 8]; else p.a1.host.mem[a + b] = v[8*b +: 8];
    end
  endtask
  function automatic logic [63:0] peek64(input int n, input longint a);
    return (n == 0) ? {p.a0.host.read32(a + 4), p.a0.host.read32(a)}
                    : {p.a1.host.read32(a + 4), p.a1.host.read32(a)};
  endfunction

  // ---------------- requests ----------------
  task automatic store_dw(input int n, input longint net, input logic [31:0] dw [$]);
    if (n == 0) p.a0.win_store(net, dw); else p.a1.win_store(net, dw);
  endtask
  task automatic store64(input int n, input longint net, input logic [63:0] v);
    logic [31:0] dw [$];
    dw.delete();
    dw.push_back(v[31:0]); dw.push_back(v[63:32]);
    store_dw(n, net, dw);
  endtask
  task automatic store128(input int n, input longint net, input logic [63:0] v0,
                          input logic [63:0] v1);
    logic [31:0] dw [$];
    dw.delete();
    dw.push_back(v0[31:0]); dw.push_back(v0[63:32]); dw.push_back(v1[31:0]);
    dw.push_back(v1[63:32]);
    store_dw(n, net, dw);
  endtask
  task automatic read_range(input int n, input longint net, input int n32);
    logic [31:0] dw [$];
    dw.delete();
    for (int i = 0; i < n32; i++) dw.push_back(32'hDEAD0000 | 32'(i));   // not sent
    store_dw(n, net, dw);
  endtask

  task automatic expect_reg(input int n, input int addr, input logic [31:0] v, input string w);
    p.rd(n, addr, r);
    if (r != v) $fatal(1, "node %0d: %s reads %0d (%h), expected %0d", n, w, r, r, v);
  endtask

  // ---------------- per node: tasks that wait, and the CAS-lock worker ----------------
  // Both nodes run at the same time; Verilator shares the frames of one automatic task
  // between concurrent calls, so everything a node's thread waits in lives in its own
  // generate scope.
  int  holder;          // node holding the lock (-1: none), as the bench sees it
  int  lock_rounds;
  for (genvar N = 0; N < 2; N++) begin : g_node
    int done_seen;
    bit cas_go, cas_done;
    int cas_rounds;
    initial begin done_seen = 0; cas_go = 0; cas_done = 0; end

    task automatic rd(input int addr, output logic [31:0] v);
      if (N == 0) p.a0.reg_read(addr, v); else p.a1.reg_read(addr, v);
    endtask
    task automatic wr(input int addr, input logic [31:0] v);
      if (N == 0) p.a0.reg_write(addr, v); else p.a1.reg_write(addr, v);
    endtask
    // one CAS: node 0 as one 16-byte store, node 1 as one 8-byte store, compare staged
    task automatic cas(input longint net, input logic [63:0] cmp, input logic [63:0] nv);
      if (N == 0) begin
        store128(N, net, cmp, nv);
      end else begin
        wr(MC_REG_REMOTE_CAS_CMP_LO, cmp[31:0]);
        wr(MC_REG_REMOTE_CAS_CMP_HI, cmp[63:32]);
        store64(N, net, nv);
      end
    endtask
    // wait until this node completed k more requests; then nothing may be outstanding
    task automatic wait_done(input int k, input string what);
      int t;
      logic [31:0] v;
      t = 0;
      done_seen += k;
      do begin
        rd(MC_REG_REMOTE_DONE, v);
        t++;
        if (t > 20000) $fatal(1, "node %0d: %s never completed (REMOTE_DONE %0d, want %0d)",
                              N, what, v, done_seen);
      end while (int'(v) < done_seen);
      if (int'(v) != done_seen)
        $fatal(1, "node %0d: %s: %0d completions, want %0d", N, what, v, done_seen);
      rd(MC_REG_REMOTE_OUTSTANDING, v);
      if (v != 0) $fatal(1, "node %0d: %s: REMOTE_OUTSTANDING %0d after completion", N, what, v);
    endtask
    task automatic last_value(output logic [63:0] lv);
      logic [31:0] lo, hi;
      rd(MC_REG_REMOTE_LAST_LO, lo);
      rd(MC_REG_REMOTE_LAST_HI, hi);
      lv = {hi, lo};
    endtask

    // c) take the CAS lock cas_rounds times; under it, a plain read-modify-write of the
    // counter (node 0, the home: local load and store; node 1: remote read, remote write)
    initial begin
      logic [63:0] old, cnt;
      longint lock_net, cnt_net;
      lock_net = longint'(P_CAS) * PS + 128;
      cnt_net  = longint'(P_CNTR) * PS;
      wait (cas_go);
      for (int k = 0; k < cas_rounds; k++) begin
        do begin
          cas(lock_net, 64'h0, 64'(N + 1));                  // compare 0, new = ID + 1
          wait_done(1, "acquire");
          last_value(old);
          if (N == 1 && peek64(1, p.rx_base[1] + lock_net) != old)
            $fatal(1, "CAS response in node 1's page %h differs from REMOTE_LAST %h",
                   peek64(1, p.rx_base[1] + lock_net), old);
          if (old != 0 && old != 1 && old != 2) $fatal(1, "lock word reads %h", old);
        end while (old != 0);
        if (holder != -1) $fatal(1, "node %0d took the lock held by node %0d", N, holder);
        holder = N;
        if (N == 0) begin
          cnt = peek64(0, home_addr(H_CNT, 0));
          repeat ($urandom_range(0, 40)) @(posedge clk);
          poke64(0, home_addr(H_CNT, 0), cnt + 1);
        end else begin
          read_range(1, cnt_net, 2);
          wait_done(1, "counter read");
          cnt = peek64(1, p.rx_base[1] + cnt_net);
          repeat ($urandom_range(0, 40)) @(posedge clk);
          store64(1, longint'(P_CNTW) * PS, cnt + 1);        // posted, before the release
        end
        holder = -1;
        cas(lock_net, 64'(N + 1), 64'h0);                    // release
        wait_done(1, "release");
        last_value(old);
        if (old != 64'(N + 1)) $fatal(1, "release by node %0d found %h", N, old);
        lock_rounds++;
      end
      cas_done = 1;
    end
  end

  // sequential callers (never two at once) name the node by number
  task automatic wait_done(input int n, input int k, input string what);
    if (n == 0) g_node[0].wait_done(k, what); else g_node[1].wait_done(k, what);
  endtask
  task automatic last_value(input int n, output logic [63:0] v);
    if (n == 0) g_node[0].last_value(v); else g_node[1].last_value(v);
  endtask

  // ---------------- a) remote read ----------------
  int reads_served;
  task automatic part_read();
    reads_served = 0;
    for (int w = 0; w < PS / 8; w++) poke64(0, home_addr(P_RD, 8 * w), {$urandom, $urandom});
    for (int round = 0; round < 3; round++) begin
      for (int k = 0; k < 6; k++) begin
        int off, n32;
        // one request is one packet: a range inside one 256-byte block (docs/firmware.md)
        n32 = $urandom_range(1, 64);
        off = 256 * $urandom_range(0, PS / 256 - 1) + 4 * $urandom_range(0, 64 - n32);
        if (k == 0) begin off = 0; n32 = 64; end
        read_range(1, longint'(P_RD) * PS + off, n32);
        wait_done(1, 1, "read");
        reads_served++;
        for (int i = 0; i < n32; i++) begin
          logic [31:0] want, got;
          want = p.a0.host.read32(home_addr(P_RD, off + 4 * i));
          got  = p.a1.host.read32(p.rx_base[1] + longint'(P_RD) * PS + off + 4 * i);
          if (got != want)
            $fatal(1, "read round %0d: word %0d of %0d at %h: got %h, home has %h", round, i,
                   n32, off + 4 * i, got, want);
        end
      end
      // the home's CPU changes its memory: the next reads must return the new data
      for (int w = 0; w < PS / 8; w++) poke64(0, home_addr(P_RD, 8 * w), {$urandom, $urandom});
    end
    // rule 1: the requester's store (through P_WR, remapped onto the same home page) is in
    // the home's memory before the read that follows it is served
    for (int k = 0; k < 8; k++) begin
      int off;
      logic [63:0] v;
      off = 8 * $urandom_range(0, PS / 8 - 1);
      v = {$urandom, $urandom};
      store64(1, longint'(P_WR) * PS + off, v);
      read_range(1, longint'(P_RD) * PS + off, 2);
      wait_done(1, 1, "read after write");
      reads_served++;
      if (peek64(1, p.rx_base[1] + longint'(P_RD) * PS + off) != v)
        $fatal(1, "rule 1: read after own store at %h returned %h, stored %h", off,
               peek64(1, p.rx_base[1] + longint'(P_RD) * PS + off), v);
    end
    expect_reg(1, MC_REG_REMOTE_ERRORS, 0, "REMOTE_ERRORS after reads");
    p.wr(0, MC_REG_PAGE_CNT_SEL, P_RD);
    expect_reg(0, MC_REG_PAGE_CNT_READS, reads_served, "PAGE_CNT_READS of the read page");
    expect_reg(0, MC_REG_PAGE_CNT_ATOMICS, 0, "PAGE_CNT_ATOMICS of the read page");
    $display("remote%0d%s: a) %0d remote reads exact (ranges of 4..256 bytes, rule 1)",
             SERIALIZE, MODE, reads_served);
  endtask

  // ---------------- b) fetch-and-add from both nodes on one word ----------------
  task automatic fadd_node(input int n, input int count, inout longint sum);
    for (int k = 0; k < count; k++) begin
      logic [63:0] add;
      add = 64'($urandom_range(1, 1000));
      sum += longint'(add);
      store64(n, longint'(P_FA) * PS + 64, add);
    end
  endtask

  task automatic part_fadd();
    longint sum0, sum1, start;
    logic [63:0] last;
    sum0 = 0; sum1 = 0;
    start = 64'h0123_4567_0000_0000;
    poke64(0, home_addr(P_FA, 64), start);
    p.wr(0, MC_REG_PAGE_CNT_THRESHOLD, 32'(n_fadd));
    p.wr(0, MC_REG_IRQ_MASK, MC_IRQ_STATUS_PAGE_HOT_MASK);
    if (FULL) begin
      p.c01.flip_ppm = 20000;
      p.c10.flip_ppm = 20000;
    end
    // both nodes' stores are queued at once (the masters then run side by side)
    fadd_node(0, n_fadd, sum0);
    fadd_node(1, n_fadd, sum1);
    wait_done(0, n_fadd, "fetch-and-add");
    wait_done(1, n_fadd, "fetch-and-add");
    p.c01.flip_ppm = 0;
    p.c10.flip_ppm = 0;
    fadd_got  = longint'(peek64(0, home_addr(P_FA, 64)));
    fadd_want = start + sum0 + sum1;
    if (!SERIALIZE) return;
    if (fadd_got != fadd_want)
      $fatal(1, "fetch-and-add: word is %h, want %h", fadd_got, fadd_want);
    // the last response either node got is an old value: below the final sum
    last_value(1, last);
    if (longint'(last) < start || longint'(last) >= fadd_want)
      $fatal(1, "fetch-and-add: node 1's last old value %h out of range", last);
    p.wr(0, MC_REG_PAGE_CNT_SEL, P_FA);
    expect_reg(0, MC_REG_PAGE_CNT_ATOMICS, 2 * n_fadd, "PAGE_CNT_ATOMICS of the add page");
    expect_reg(0, MC_REG_PAGE_HOT, P_FA, "PAGE_HOT");
    p.rd(0, MC_REG_IRQ_STATUS, r);
    if ((r & MC_IRQ_STATUS_PAGE_HOT_MASK) == 0 || p.irq0[MC_IRQ_STATUS_PAGE_HOT_SHIFT] != 1)
      $fatal(1, "PAGE_HOT not raised (IRQ_STATUS %h)", r);
    p.wr(0, MC_REG_IRQ_STATUS, MC_IRQ_STATUS_PAGE_HOT_MASK);
    // a write sets a count (software clears it)
    p.wr(0, MC_REG_PAGE_CNT_ATOMICS, 0);
    expect_reg(0, MC_REG_PAGE_CNT_ATOMICS, 0, "PAGE_CNT_ATOMICS after clearing");
    for (int n = 0; n < 2; n++) expect_reg(n, MC_REG_REMOTE_ERRORS, 0, "REMOTE_ERRORS");
    if (FULL) begin
      logic [31:0] crc0, crc1, rt0, rt1;
      p.rd(0, MC_REG_CRC_ERRORS, crc0);
      p.rd(1, MC_REG_CRC_ERRORS, crc1);
      p.rd(0, MC_REG_LINK_RETRIES, rt0);
      p.rd(1, MC_REG_LINK_RETRIES, rt1);
      if (crc0 + crc1 == 0 || rt0 + rt1 == 0)
        $fatal(1, "bit flips: %0d + %0d flipped words, CRC errors %0d + %0d, retries %0d + %0d",
               p.c01.flips, p.c10.flips, crc0, crc1, rt0, rt1);
      $display("remote%0d%s: b) 2 x %0d fetch-and-add exact (%h), page counter and PAGE_HOT; %0d CRC errors, %0d go-back-N retries",
               SERIALIZE, MODE, n_fadd, fadd_got, crc0 + crc1, rt0 + rt1);
    end
  endtask

  // ---------------- c) CAS lock from both sides (g_node), swap ----------------
  task automatic part_cas();
    logic [63:0] old;
    int rounds_n;
    rounds_n = 12;
    holder = -1;
    lock_rounds = 0;
    poke64(0, home_addr(P_CAS, 128), 0);
    poke64(0, home_addr(H_CNT, 0), 0);
    g_node[0].cas_rounds = rounds_n;
    g_node[1].cas_rounds = rounds_n;
    g_node[0].cas_go = 1;
    g_node[1].cas_go = 1;
    wait (g_node[0].cas_done && g_node[1].cas_done);
    if (peek64(0, home_addr(H_CNT, 0)) != 64'(2 * rounds_n))
      $fatal(1, "CAS-lock counter is %0d, want %0d", peek64(0, home_addr(H_CNT, 0)),
             2 * rounds_n);
    // a staged CAS whose compare fails: the old word back, nothing changed
    poke64(0, home_addr(P_CAS, 128), 64'h0BAD_F00D_0000_0009);
    g_node[1].cas(longint'(P_CAS) * PS + 128, 64'h8, 64'h77);
    wait_done(1, 1, "failing staged CAS");
    last_value(1, old);
    if (old != 64'h0BAD_F00D_0000_0009 || peek64(0, home_addr(P_CAS, 128)) != old)
      $fatal(1, "failing staged CAS: old %h, word %h", old, peek64(0, home_addr(P_CAS, 128)));
    // the 16-byte form on another page while P_CAS is armed: its own compare operand
    poke64(0, home_addr(P_CAS2, 16), 64'h5);
    store128(1, longint'(P_CAS2) * PS + 16, 64'h5, 64'h6);
    wait_done(1, 1, "16-byte CAS beside an armed page");
    last_value(1, old);
    if (old != 64'h5 || peek64(0, home_addr(P_CAS2, 16)) != 64'h6)
      $fatal(1, "16-byte CAS beside an armed page: old %h, word %h", old,
             peek64(0, home_addr(P_CAS2, 16)));
    // swap returns the old word and stores the new one
    poke64(0, home_addr(P_SW, 8), 64'h1111_2222_3333_4444);
    store64(1, longint'(P_SW) * PS + 8, 64'h5555_6666_7777_8888);
    wait_done(1, 1, "swap");
    last_value(1, old);
    if (old != 64'h1111_2222_3333_4444 || peek64(0, home_addr(P_SW, 8)) != 64'h5555_6666_7777_8888)
      $fatal(1, "swap: old %h, word %h", old, peek64(0, home_addr(P_SW, 8)));
    for (int n = 0; n < 2; n++) expect_reg(n, MC_REG_REMOTE_ERRORS, 0, "REMOTE_ERRORS");
    $display("remote%0d%s: c) CAS lock from both sides (16-byte and staged operand), %0d acquisitions, counter exact; failing staged CAS; swap",
             SERIALIZE, MODE, lock_rounds);
  endtask

  // ---------------- d) refusals ----------------
  task automatic refused(input string what, input int page, input longint off, input bit home,
                         input int kind);
    logic [31:0] err0, ref0, ref1;
    int log1, log0;
    logic [63:0] home_word;
    home_word = peek64(0, home_addr(page, off & ~longint'(7)));
    p.rd(1, MC_REG_REMOTE_ERRORS, err0);
    p.rd(0, MC_REG_REMOTE_REFUSED, ref0);
    log0 = p.a0.host.log_addr.size();
    log1 = p.a1.host.log_addr.size();
    unique case (kind)
      0: read_range(1, longint'(page) * PS + off, 4);
      1: store64(1, longint'(page) * PS + off, 64'd5);
      2: begin   // one 32-bit word only
        logic [31:0] dw [$];
        dw.delete();
        dw.push_back(32'd7);
        store_dw(1, longint'(page) * PS + off, dw);
      end
      3: begin   // one byte: a partial 32-bit word (how QEMU's TCG splits a misaligned store)
        if (home) $fatal(1, "%s: a partial store is refused by the requester", what);
        p.a1.win_beat(longint'(page) * PS + off, 64'h5 << (8 * (off & 7)), 8'h1 << (off & 7));
      end
      default: ;
    endcase
    wait_done(1, 1, what);
    expect_reg(1, MC_REG_REMOTE_ERRORS, err0 + 1, {what, ": REMOTE_ERRORS"});
    // the address of the (first) 32-bit word the request names
    expect_reg(1, MC_REG_REMOTE_ERR_ADDR, 32'(longint'(page) * PS + (off & ~longint'(3))),
               {what, ": REMOTE_ERR_ADDR"});
    p.rd(0, MC_REG_REMOTE_REFUSED, ref1);
    if (ref1 != ref0 + 32'(home)) $fatal(1, "%s: REMOTE_REFUSED %0d -> %0d", what, ref0, ref1);
    if (p.a0.host.log_addr.size() != log0 || p.a1.host.log_addr.size() != log1)
      $fatal(1, "%s: something was written", what);
    if (peek64(0, home_addr(page, off & ~longint'(7))) != home_word)
      $fatal(1, "%s: the home word changed", what);
  endtask

  task automatic part_refusals();
    poke64(0, home_addr(P_NOAT, 0), 64'h42);
    refused("read without READ_EN", P_NORD, 16, 1, 0);
    refused("fetch-and-add without ATOMIC_EN", P_NOAT, 0, 1, 1);
    refused("misaligned fetch-and-add", P_FA, 64 + 4, 1, 2);
    refused("malformed fetch-and-add (4 bytes)", P_FA, 64, 1, 2);
    refused("broadcast read request", P_BCAST, 0, 0, 0);
    // negative control of the staged operand: with the page disarmed, one 8-byte store to a
    // CAS page is a malformed CAS (refused by the home)
    p.wr(1, MC_REG_REMOTE_CAS_PAGE, P_CAS);
    refused("CAS of one 8-byte word, operand not armed", P_CAS, 128, 1, 1);
    p.wr(1, MC_REG_REMOTE_CAS_PAGE, MC_REMOTE_CAS_PAGE_ARM_MASK | P_CAS);
    // a request page takes whole 32-bit words: a partial one is refused here, not dropped
    // (dropped, nothing would be sent and the request would never complete)
    refused("fetch-and-add of one byte", P_FA, 64, 0, 3);
    refused("fetch-and-add of one misaligned byte", P_FA, 64 + 5, 0, 3);
    refused("read of one byte", P_RD, 16 + 2, 0, 3);
    // a host read answered with SLVERR: refused by the home, nothing sent back but the error
    p.a0.host.rd_err_page = home_addr(P_RDERR, 0) >> 12;
    refused("host read error", P_RDERR, 32, 1, 0);
    p.a0.host.rd_err_page = -1;
    for (int n = 0; n < 2; n++) expect_reg(n, MC_REG_REMOTE_OUTSTANDING, 0, "REMOTE_OUTSTANDING");
    $display("remote%0d%s: d) 10 refused requests answered, counted, nothing written", SERIALIZE,
             MODE);
  endtask

  // ---------------- latency: one-way write, remote read, fetch-and-add ----------------
  // cycles from the first BAR2 W beat of the store to the host write that completes it
  task automatic measure(input int kind, output longint cyc);
    longint t0;
    int log1;
    repeat (200) @(posedge clk);
    p.a1.stall_pct = 0; p.a0.stall_pct = 0;
    p.a0.host.stall_pct = 0; p.a1.host.stall_pct = 0;
    p.c01.stall_pct = 0; p.c10.stall_pct = 0;
    p.a0.host.b_lat = 0; p.a1.host.b_lat = 0;
    // the default store-combining wait (the bench otherwise waits 64 cycles for a CAS's
    // second beat): what a write or a read request waits before its packet closes
    for (int n = 0; n < 2; n++) p.wr(n, MC_REG_TX_COMBINE_IDLE, MC_REG_TX_COMBINE_IDLE_RESET);
    repeat (50) @(posedge clk);
    log1 = p.a1.host.log_addr.size();
    t0 = cycle;
    unique case (kind)
      0: store64(0, longint'(P_LAT) * PS, 64'h77);           // node 0 -> node 1 write
      1: read_range(1, longint'(P_RD) * PS, 2);              // node 1 reads node 0
      default: store64(1, longint'(P_FA) * PS + 256, 64'd1); // node 1 adds at node 0
    endcase
    while (p.a1.host.log_addr.size() < log1 + 2) @(posedge clk);
    cyc = p.a1.host.log_time[log1 + 1] - p.a1.first_w_cycle[p.a1.first_w_cycle.size() - 1];
    if (kind == 0) cyc = p.a1.host.log_time[log1 + 1] -
                         p.a0.first_w_cycle[p.a0.first_w_cycle.size() - 1];
    if (kind != 0) wait_done(1, 1, "latency request");
    p.a1.stall_pct = 30; p.a0.stall_pct = 30;
    p.a0.host.stall_pct = 30; p.a1.host.stall_pct = 30;
    p.c01.stall_pct = 30; p.c10.stall_pct = 30;
    p.a0.host.b_lat = 24; p.a1.host.b_lat = 24;
    for (int n = 0; n < 2; n++) p.wr(n, MC_REG_TX_COMBINE_IDLE, 64);
  endtask

  initial begin
    done = 0;
    @(posedge rst_n);
    repeat (5) @(posedge clk);
    p.init(1'b1);
    if (AUTO) begin
      // two-node direct mode with the virtual hub: node 0 (serial 11) orders for both
      logic [31:0] v;
      for (int n = 0; n < 2; n++) begin
        p.wr(n, MC_REG_HEARTBEAT_PERIOD, 300);
        p.wr(n, MC_REG_NODE_ID, MC_NODE_ID_AUTO_MASK);
      end
      for (int n = 0; n < 2; n++) begin
        int t;
        t = 0;
        do begin
          p.rd(n, MC_REG_LINK_STATUS, v);
          p.rd(n, MC_REG_NODE_ID, r);
          t++;
          if (t > 5000) $fatal(1, "node %0d: no autoconfigured ID / link (%h, %h)", n, r, v);
        end while ((v & MC_LINK_STATUS_UP_MASK) == 0 || r != (MC_NODE_ID_AUTO_MASK |
                   MC_NODE_ID_VALID_MASK | 32'(n)));
      end
    end
    // host write responses come late: a read that does not wait for them sees old data
    p.a0.host.b_lat = 24; p.a1.host.b_lat = 24;
    for (int n = 0; n < 2; n++) p.wr(n, MC_REG_TX_COMBINE_IDLE, 64);  // a CAS is 2 beats
    // node 0 is home: what it serves (READ_EN and ATOMIC_EN independent of RX_EN)
    p.set_rx(0, P_RD, MC_RX_PCT_READ_EN_MASK);
    p.set_rx(0, P_WR, MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_REMAP_EN_MASK |
                      64'(home_addr(P_RD, 0)));
    p.set_rx(0, P_FA, MC_RX_PCT_ATOMIC_EN_MASK | MC_RX_PCT_COUNT_IRQ_MASK);
    p.set_rx(0, P_CAS, MC_RX_PCT_ATOMIC_EN_MASK);
    p.set_rx(0, P_SW, MC_RX_PCT_ATOMIC_EN_MASK);
    p.set_rx(0, P_CAS2, MC_RX_PCT_ATOMIC_EN_MASK);
    p.set_rx(0, P_CNTW, MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_REMAP_EN_MASK | 64'(home_addr(H_CNT, 0)));
    p.set_rx(0, P_CNTR, MC_RX_PCT_READ_EN_MASK | MC_RX_PCT_REMAP_EN_MASK | 64'(home_addr(H_CNT, 0)));
    p.set_rx(0, P_NORD, MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_ATOMIC_EN_MASK);
    p.set_rx(0, P_NOAT, MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_READ_EN_MASK);
    p.set_rx(0, P_RDERR, MC_RX_PCT_READ_EN_MASK);
    // requesters: transmit pages toward node 0, receive pages where the responses land
    for (int n = 0; n < 2; n++) begin
      p.set_tx(n, P_FA, tx_entry(MC_OP_FETCH_ADD, 0, 0));
      p.set_tx(n, P_CAS, tx_entry(MC_OP_SWAP, 1, 0));
    end
    p.set_tx(1, P_RD, tx_entry(MC_OP_READ, 0, 0));
    p.set_tx(1, P_WR, tx_entry(MC_OP_WRITE, 0, 0));
    p.set_tx(1, P_SW, tx_entry(MC_OP_SWAP, 0, 0));
    p.set_tx(1, P_CAS2, tx_entry(MC_OP_SWAP, 1, 0));
    p.wr(1, MC_REG_REMOTE_CAS_PAGE, MC_REMOTE_CAS_PAGE_ARM_MASK | P_CAS);
    p.set_tx(1, P_CNTW, tx_entry(MC_OP_WRITE, 0, 0));
    p.set_tx(1, P_CNTR, tx_entry(MC_OP_READ, 0, 0));
    p.set_tx(1, P_NORD, tx_entry(MC_OP_READ, 0, 0));
    p.set_tx(1, P_NOAT, tx_entry(MC_OP_FETCH_ADD, 0, 0));
    p.set_tx(1, P_BCAST, tx_entry(MC_OP_READ, 0, 1));
    p.set_tx(1, P_RDERR, tx_entry(MC_OP_READ, 0, 0));
    p.set_tx(0, P_LAT, MC_TX_PCT_TX_EN_MASK | (32'd1 << MC_TX_PCT_DEST_SHIFT));
    p.set_rx(1, P_LAT, MC_RX_PCT_RX_EN_MASK);
    for (int pg = P_RD; pg <= P_CAS2; pg++) if (pg != P_LAT) p.set_rx(1, pg, MC_RX_PCT_RX_EN_MASK);
    if (FULL) begin
      part_read();
      part_fadd();
      part_cas();
      part_refusals();
      measure(0, cyc_write);
      measure(1, cyc_read);
      measure(2, cyc_atomic);
      p.rd(0, MC_REG_ERROR_COUNT, r);
      if (r != 0) $fatal(1, "node 0: ERROR_COUNT %0d", r);
      p.rd(1, MC_REG_ERROR_COUNT, r);
      if (r != 0) $fatal(1, "node 1: ERROR_COUNT %0d", r);
    end else begin
      part_fadd();
    end
    done = 1;
  end
endmodule : tb_remote_run

// internal loopback: node 0 reads and adds at itself through its own link
module tb_remote_loop (
  input  wire logic clk,
  input  wire logic rst_n,
  output bit        done
);
  import memchan_regs_pkg::*;
  localparam longint RX_BASE = 64'h0000_0002_0000_0000;
  localparam int PS = 4096;

  logic        tvalid, tlast, rready_x;
  logic [63:0] tdata;
  logic [4:0]  irq;
  tb_adapter #(.SERIAL(5), .STALL(30)) a (
    .clk, .rst_n,
    .m_link_tvalid(tvalid), .m_link_tdata(tdata), .m_link_tlast(tlast), .m_link_tready(1'b1),
    .s_link_tvalid(1'b0), .s_link_tdata(64'h0), .s_link_tlast(1'b0), .s_link_tready(rready_x),
    .irq);

  logic [31:0] r;
  task automatic wait_done(input int want);
    int t;
    t = 0;
    do begin
      a.reg_read(MC_REG_REMOTE_DONE, r);
      t++;
      if (t > 20000) $fatal(1, "loopback: requests never completed (%0d of %0d)", r, want);
    end while (int'(r) < want);
  endtask

  initial begin
    logic [31:0] dw [$];
    logic [31:0] lo, hi;
    longint base;
    int log0;
    done = 0;
    @(posedge rst_n);
    repeat (5) @(posedge clk);
    a.reg_write(MC_REG_NODE_ID, MC_NODE_ID_VALID_MASK | 32'd3);
    a.reg_write(MC_REG_RX_BASE_LO, RX_BASE[31:0]);
    a.reg_write(MC_REG_RX_BASE_HI, RX_BASE[63:32]);
    a.reg_write(MC_REG_LOOPBACK, 32'd1);
    a.reg_write(MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK);
    a.reg_write(MC_TX_PCT_BASE + 4 * 2, MC_TX_PCT_TX_EN_MASK | (MC_OP_READ << MC_TX_PCT_OP_SHIFT) |
                (32'd3 << MC_TX_PCT_DEST_SHIFT));
    a.reg_write(MC_TX_PCT_BASE + 4 * 3, MC_TX_PCT_TX_EN_MASK |
                (MC_OP_FETCH_ADD << MC_TX_PCT_OP_SHIFT) | (32'd3 << MC_TX_PCT_DEST_SHIFT));
    a.reg_write(MC_RX_PCT_BASE + 8 * 2, MC_RX_PCT_READ_EN_MASK | MC_RX_PCT_RX_EN_MASK);
    a.reg_write(MC_RX_PCT_BASE + 8 * 3, MC_RX_PCT_ATOMIC_EN_MASK | MC_RX_PCT_RX_EN_MASK);
    base = RX_BASE + 2 * PS;
    for (int b = 0; b < 8; b++) a.host.mem[base + 40 + b] = 8'(8'h10 + b);
    for (int b = 0; b < 8; b++) a.host.mem[RX_BASE + 3 * PS + b] = (b == 0) ? 8'd100 : 8'd0;
    log0 = a.host.log_addr.size();
    dw.delete(); dw.push_back(0); dw.push_back(0);
    a.win_store(2 * PS + 40, dw);                     // read 8 bytes of page 2
    wait_done(1);
    a.reg_read(MC_REG_REMOTE_LAST_LO, lo);
    a.reg_read(MC_REG_REMOTE_LAST_HI, hi);
    if ({hi, lo} != 64'h1716151413121110) $fatal(1, "loopback read returned %h", {hi, lo});
    dw.delete(); dw.push_back(32'd23); dw.push_back(0);
    a.win_store(3 * PS, dw);                          // fetch-and-add 23
    wait_done(2);
    a.reg_read(MC_REG_REMOTE_LAST_LO, lo);
    if (lo != 32'd100) $fatal(1, "loopback fetch-and-add returned %0d, want 100", lo);
    if (a.host.read32(RX_BASE + 3 * PS) != 32'd123)
      $fatal(1, "loopback fetch-and-add left %0d, want 123", a.host.read32(RX_BASE + 3 * PS));
    // the results of requests to itself are not written into its own (home) pages
    if (a.host.log_addr.size() != log0 + 2)
      $fatal(1, "loopback: %0d words written, want 2 (the add)", a.host.log_addr.size() - log0);
    a.reg_read(MC_REG_REMOTE_ERRORS, r);
    if (r != 0) $fatal(1, "loopback: REMOTE_ERRORS %0d", r);
    $display("remote: e) internal loopback: read and fetch-and-add through the own link");
    done = 1;
  end
endmodule : tb_remote_loop

module tb_remote;
  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;

  int unsigned seed;
  int n_fadd;
  bit done_ok, done_hub, done_neg, done_loop;
  longint got_ok, want_ok, got_hub, want_hub, got_neg, want_neg, cw, cr, ca, hw, hr, ha, x0, x1,
          x2;

  tb_remote_run #(.SERIALIZE(1'b1), .FULL(1'b1)) ok (
    .clk, .rst_n, .n_fadd, .done(done_ok), .fadd_got(got_ok), .fadd_want(want_ok),
    .cyc_write(cw), .cyc_read(cr), .cyc_atomic(ca));
  tb_remote_run #(.SERIALIZE(1'b1), .FULL(1'b1), .AUTO(1'b1)) hub (
    .clk, .rst_n, .n_fadd, .done(done_hub), .fadd_got(got_hub), .fadd_want(want_hub),
    .cyc_write(hw), .cyc_read(hr), .cyc_atomic(ha));
  tb_remote_run #(.SERIALIZE(1'b0), .FULL(1'b0)) neg (
    .clk, .rst_n, .n_fadd, .done(done_neg), .fadd_got(got_neg), .fadd_want(want_neg),
    .cyc_write(x0), .cyc_read(x1), .cyc_atomic(x2));
  tb_remote_loop loopb (.clk, .rst_n, .done(done_loop));

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("fadd=%d", n_fadd)) n_fadd = 100;
    void'($urandom(seed));
    $display("remote: seed %0d, %0d fetch-and-add per node", seed, n_fadd);
    repeat (10) @(posedge clk);
    rst_n = 1;
    fork
      begin repeat (4000000) @(posedge clk); $fatal(1, "remote: bench timeout"); end
      wait (done_ok && done_hub && done_neg && done_loop);
    join_any
    // the negative control: without serialization updates must get lost
    if (got_neg == want_neg)
      $fatal(1, "negative control: without SERIALIZE the fetch-and-add word is exact (%h); the bench does not show what serialization prevents", got_neg);
    $display("remote: negative control (SERIALIZE = 0): word %h, want %h: %0d lost to unserialized atomics",
             got_neg, want_neg, want_neg - got_neg);
    $display("PERF remote latency cycles: write %0d, read %0d (%.2fx), fetch-and-add %0d (%.2fx)",
             cw, cr, real'(cr) / real'(cw), ca, real'(ca) / real'(cw));
    $display("PERF remote latency cycles, virtual hub (node 1 -> node 0 through the merge): write %0d, read %0d (%.2fx), fetch-and-add %0d (%.2fx)",
             hw, hr, real'(hr) / real'(hw), ha, real'(ha) / real'(hw));
    $display("PASS tb_remote");
    $finish;
  end
endmodule : tb_remote

`default_nettype wire
