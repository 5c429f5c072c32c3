// memchan-cosim: the Verilated adapters of cosim_top.sv as PCI devices of QEMU guests.
//
// One process runs every adapter on one clock (no false link timeouts when the host stalls
// this process; runs are deterministic for a given request order). Each adapter is served
// on one connected UNIX socket speaking QEMU's x-pci-proxy-dev protocol (hw/remote/ in
// QEMU 7.2): config space with the IDs of native/include/memchan_regs.h and two 32-bit
// memory BARs, BAR0 accesses as AXI4-Lite transactions, BAR2 writes as single-beat AXI4
// writes into the transmit window, and the adapter's AXI4 master writes into the guest RAM
// that QEMU shares with us (SYNC_SYSMEM). No interrupt pin, no MSI: the proxy cannot
// deliver interrupts under TCG, so the driver polls (irq_mode=poll).
//
// Usage: memchan-cosim --fd N [--fd N ...] [options]   (one --fd per adapter, in order)
//   --cable A:B        cable adapter A's transmitter to B's receiver and B's to A's
//                      (A:A: a loopback plug, A's transmitter into its own receiver)
//                      Built with the hub (build.sh --hub), adapter k is cabled to hub port k
//                      and --cable is refused.
//   --bad-id A         adapter A answers reads of the ID register with a wrong identity
//   --bad-version A    adapter A answers reads of VERSION with the next major version
//   --ctl DIR          control directory (request/ack files, see README.md)
//   --idle-cycles N    cycles the clock keeps running after a control request or a BAR0 write
//                      that may start slow work (CTRL, NODE_ID, LOOPBACK, the link's settings)
//   --link-tail N      at most this many cycles it keeps running after data (a BAR2 write, a
//                      DMA beat, a frame other than a heartbeat or clock sync on a link, a BAR0
//                      write of the data path's registers); it stops earlier once every replay
//                      ring is empty and nothing moved for kQuietCycles (default 2 x LINK_ACK_TIMEOUT)
//   --seed N           Verilator random seed (cable stalls and bit flips)
//   --speed N          measure: run N cycles with the adapters enabled and cabled, print the
//                      rate in cycles per CPU second and exit (no sockets needed; --fd -1 per
//                      adapter; README.md, "Simulation speed")
// Statistics go to stderr at exit (SIGTERM, SIGINT, or every socket closed).

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "Vcosim_top.h"
#include "verilated.h"

extern "C" {
#include "memchan_regs.h"
}

namespace {

// ---- x-pci-proxy-dev messages (include/hw/remote/mpqemu-link.h) ----
enum MsgCmd : int32_t {
  kSyncSysmem = 0,
  kRet = 1,
  kCfgWrite = 2,
  kCfgRead = 3,
  kBarWrite = 4,
  kBarRead = 5,
  kSetIrqfd = 6,
  kDeviceReset = 7,
};

struct MsgHeader {
  int32_t cmd;
  uint32_t pad;
  uint64_t size;
};

constexpr int kMaxFds = 8;

struct SyncSysmem {
  uint64_t gpas[kMaxFds];
  uint64_t sizes[kMaxFds];
  int64_t offsets[kMaxFds];
};

struct CfgMsg {
  uint32_t addr;
  uint32_t val;
  int32_t len;
};

struct BarMsg {
  uint64_t addr;
  uint64_t val;
  uint32_t size;
  uint8_t memory;
  uint8_t pad[3];
};

constexpr int kAdapters = COSIM_ADAPTERS;
constexpr bool kHub = COSIM_HUB;
// cable k leaves adapter k; with the hub, cable kAdapters + k leaves hub port k for adapter k
constexpr int kCables = kHub ? 2 * kAdapters : kAdapters;
constexpr uint32_t kPages = COSIM_PAGES;
constexpr uint32_t kPageSize = 4096;           // memchan_top's default PAGE_SIZE
constexpr uint64_t kWindowSize = uint64_t(kPages) * kPageSize;
constexpr uint32_t kBarRegs = 0;
constexpr uint32_t kBarWindow = 2;
constexpr uint32_t kNoPeer = 0xff;

// PCI class code: network controller, other (0x0280)
constexpr uint32_t kClassNetOther = 0x028000;

struct Region {
  uint64_t gpa, size;
  uint8_t *host;
};

enum class Op { kNone, kRegRead, kRegWrite, kWinWrite, kReset };

struct Adapter {
  int index = 0;
  int fd = -1;
  bool open = false;
  uint8_t cfg[256] = {};
  std::vector<Region> ram;
  bool bad_id = false, bad_version = false;
  // the request in progress
  Op op = Op::kNone;
  bool aw_done = false, w_done = false;
  bool want_hi = false;         // 8-byte register access: the high word is next
  uint32_t lo_word = 0;
  BarMsg bar = {};
  uint64_t reg_off = 0;          // BAR0 offset of the 32-bit transaction in progress
  uint64_t acc_off = 0;          // BAR0 offset of the guest's access
  uint32_t reset_cycles = 0;
  bool internal = false;        // the register write in progress is the harness's own
  bool link_delay_due = false;  // CLOCK_LINK_DELAY to be (re)written for the cable into us
  // DMA slave: AW addresses waiting for their beats
  struct Burst {
    uint64_t addr;
    uint32_t beats;
    bool fail;                  // answered SLVERR, not written (injected bus error)
  };
  std::deque<Burst> dma_aw;
  uint32_t dma_beat = 0;
  std::deque<uint8_t> dma_bresp;  // responses owed, in order
  uint64_t dma_fail_next = 0;     // bursts still to fail (control request dma-error)
  bool dma_unmapped_burst = false;
  // DMA slave, read side: AR bursts answered in order from guest RAM, one beat a cycle
  struct ReadBurst {
    uint64_t addr;
    uint32_t beats;
  };
  std::deque<ReadBurst> dma_ar;
  uint32_t dma_rbeat = 0;
  uint32_t drop_first = 0, drop_pages = 0;  // window pages whose writes are lost (window-drop)
  // statistics
  uint64_t bar_reads = 0, bar_writes = 0, win_writes = 0, cfg_accesses = 0;
  uint64_t dma_beats = 0, dma_bytes = 0, dma_unmapped = 0, dma_failed = 0, resets = 0;
  uint64_t win_dropped = 0;
  uint64_t dma_read_beats = 0, dma_read_unmapped = 0;
  uint64_t sysmem_syncs = 0;
};

Vcosim_top *top;
Adapter adapters[kAdapters];
int nadapters = 0;
uint64_t cycle = 0;
uint64_t run_until = 0;         // the clock runs free until this cycle
uint64_t idle_cycles = 1 << 16;
// After data the clock runs until data_until, or until the links are quiet: no frame in any
// replay ring (adapters and hub ports) or hub input queue, and no data event for kQuietCycles.
// Every step of a delivery is a data event or a frame in a ring: a store reaches its ring within
// a few cycles (TX_COMBINE_IDLE is 4), a received frame its DMA write; a lost frame stays in its
// ring until the resend is acknowledged. A cluster agent's heartbeat store every 100 ms then
// costs about kQuietCycles plus its delivery, not link_tail.
uint64_t data_until = 0;
uint64_t last_data = 0;
constexpr uint64_t kQuietCycles = 256;
uint64_t quiet_stops = 0;       // runs after data that ended before data_until
// The most a run after data lasts (it ends earlier once the links are quiet, above). Each
// go-back-N resend, LACK or LNAK is itself a frame, so a delivery that cannot finish (the peer
// gone, retries running out) extends it until the retries are exhausted; heartbeats do not. Twice
// the timeout: a resend is due LINK_ACK_TIMEOUT cycles after the last acknowledgement progress
// (itself a frame), and the timer pauses on stalled cycles (up to half of them here).
uint64_t link_tail = 2 * uint64_t(MC_REG_LINK_ACK_TIMEOUT_RESET);
uint64_t busy_cycles = 0, idle_waits = 0;
double busy_s = 0;              // wall time spent with the clock running (ticking, serving)
// While the clock runs free, the loop looks for requests between bursts of cycles. A guest's BAR
// access waits for the burst under way (QEMU's proxy awaits the reply of every read and write),
// so a burst is bounded in wall time, not only in cycles: the 4-adapter hub model runs 2.6
// times fewer cycles per second than the 2-adapter model, fewer still inside a boot, where 32
// of its cycles took almost a millisecond. A look is one poll(2), and a check of
// the control files every 20 ms.
constexpr double kBurstSeconds = 100e-6;
constexpr int kBurstMaxCycles = 32;
int burst_cycles = kBurstMaxCycles;   // cycles per burst, from the measured time of a cycle
// cycles of one kind of event: count, min, mean, max
struct Span {
  uint64_t n = 0, min = 0, max = 0, sum = 0;
  void add(uint64_t d) {
    min = n ? std::min(min, d) : d;
    max = std::max(max, d);
    sum += d;
    n++;
  }
};
// latency: transmit-window data handshake (BAR2 W) -> the next host-memory data beat (any
// adapter); exact while one store at a time is in flight, as in a ping-pong
struct Latency {
  bool pending = false;
  uint64_t since = 0;
  Span span;
} lat;
// remote: per requesting adapter, from the BAR2 W beat of a store to the host-memory beat that
// completes what it launched, classified by what the other adapters do in between (tb/remote's
// figures, measured the same way): a host-memory write at another adapter with no host read
// before it is a one-way write landing; a host read at another adapter (the home serving a
// request), then a host-memory write at the requester, is a read's response landing, or an
// atomic's if the home also wrote (its read-modify-write). Exact while one request at a time
// is in flight and nothing else moves host memory (a store to this adapter itself, the
// loopback, is neither); a new BAR2 W of the requester restarts its timing.
struct RemoteTiming {
  bool pending = false, home_read = false, home_write = false;
  uint64_t since = 0;
};
RemoteTiming remote_timing[kAdapters];
Span remote_write, remote_read, remote_atomic;
double t_start;
volatile sig_atomic_t stop_requested = 0;
std::string ctl_dir;

void vnote(const char *fmt, va_list ap) {
  fprintf(stderr, "memchan-cosim: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
}

void note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vnote(fmt, ap);
  va_end(ap);
}

[[noreturn]] void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vnote(fmt, ap);
  va_end(ap);
  exit(2);
}

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double cpu_s() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// ---- config space ----
void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

uint64_t bar_size(uint32_t bar) { return bar == kBarRegs ? MC_BAR0_SIZE : kWindowSize; }

void cfg_init(Adapter &a) {
  memset(a.cfg, 0, sizeof(a.cfg));
  put16(a.cfg + 0x00, MC_PCI_VENDOR);
  put16(a.cfg + 0x02, MC_PCI_DEVICE);
  put32(a.cfg + 0x08, kClassNetOther << 8);        // revision 0
  put16(a.cfg + 0x2c, MC_PCI_VENDOR);              // subsystem
  put16(a.cfg + 0x2e, MC_PCI_DEVICE);
  // BAR0: 32-bit non-prefetchable memory; BAR2: 32-bit prefetchable (write-combined window)
  put32(a.cfg + 0x10 + 4 * kBarWindow, 0x8);
  // status: no capability list; interrupt pin 0: no INTx, no MSI/MSI-X
}

uint32_t cfg_read(Adapter &a, uint32_t addr, int len) {
  uint32_t v = 0;
  if (addr + len <= sizeof(a.cfg)) memcpy(&v, a.cfg + addr, len);
  return v;
}

void cfg_write(Adapter &a, uint32_t addr, uint32_t val, int len) {
  if (len < 1 || len > 4 || addr + len > sizeof(a.cfg)) return;
  uint32_t dw = addr & ~3u;
  if (dw >= 0x10 && dw < 0x28) {
    // BARs: only the address bits above the size are writable; 1 and 3-5 do not exist
    uint32_t bar = (dw - 0x10) / 4;
    if (bar != kBarRegs && bar != kBarWindow) return;
    uint32_t cur = get32(a.cfg + dw);
    uint32_t shift = 8 * (addr & 3);
    uint32_t bytes = len == 4 ? ~0u : ((1u << (8 * len)) - 1) << shift;
    uint32_t nv = (cur & ~bytes) | ((val << shift) & bytes);
    put32(a.cfg + dw, (nv & ~uint32_t(bar_size(bar) - 1)) | (cur & 0xf));
    return;
  }
  for (int i = 0; i < len; i++) {
    uint32_t r = addr + i;
    if (r == 0x04 || r == 0x05 || r == 0x3c) a.cfg[r] = uint8_t(val >> (8 * i));   // command, line
  }
}

bool bar_decode(const Adapter &a, uint64_t addr, uint32_t *bar, uint64_t *off) {
  for (uint32_t b : {kBarRegs, kBarWindow}) {
    uint64_t base = get32(a.cfg + 0x10 + 4 * b) & ~0xfull;
    if (base && addr >= base && addr < base + bar_size(b)) {
      *bar = b;
      *off = addr - base;
      return true;
    }
  }
  return false;
}

// ---- guest RAM ----
void ram_unmap(Adapter &a) {
  for (auto &r : a.ram) munmap(r.host, r.size);
  a.ram.clear();
}

uint8_t *ram_at(Adapter &a, uint64_t gpa, uint64_t len) {
  for (auto &r : a.ram)
    if (gpa >= r.gpa && gpa + len <= r.gpa + r.size) return r.host + (gpa - r.gpa);
  return nullptr;
}

// ---- socket ----
bool read_full(int fd, void *buf, size_t len) {
  uint8_t *p = static_cast<uint8_t *>(buf);
  while (len) {
    ssize_t n = read(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= n;
  }
  return true;
}

void reply(Adapter &a, uint64_t v) {
  if (a.fd < 0) return;   // --speed: no QEMU
  struct {
    MsgHeader h;
    uint64_t v;
  } m = {{kRet, 0, 8}, v};
  const uint8_t *p = reinterpret_cast<const uint8_t *>(&m);
  size_t len = sizeof(m);
  while (len) {
    ssize_t n = write(a.fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      note("adapter %d: reply failed: %s", a.index, strerror(errno));
      a.open = false;
      return;
    }
    p += n;
    len -= n;
  }
}

// ---- the design's ports, per adapter ----
void drive_idle(int k) {
  top->axil_awvalid[k] = 0;
  top->axil_wvalid[k] = 0;
  top->axil_arvalid[k] = 0;
  top->axil_bready[k] = 1;
  top->axil_rready[k] = 1;
  top->win_awvalid[k] = 0;
  top->win_wvalid[k] = 0;
  top->win_bready[k] = 1;
  top->dma_awready[k] = 1;
  top->dma_wready[k] = 1;
  top->dma_bvalid[k] = 0;
  top->dma_bresp[k] = 0;
  top->dma_arready[k] = 1;
  top->dma_rvalid[k] = 0;
  top->dma_rresp[k] = 0;
  top->dma_rlast[k] = 0;
  top->dma_rdata[k] = 0;
}

// Drive the read data channel from the oldest AR burst: the word of guest RAM at its current
// beat, read again every cycle until taken (the host's memory as of the handshake); outside
// guest RAM, SLVERR (the adapter refuses the request; counted when the beat is taken).
void dma_read_drive(Adapter &a, int k) {
  if (a.dma_ar.empty()) {
    top->dma_rvalid[k] = 0;
    top->dma_rlast[k] = 0;
    return;
  }
  const Adapter::ReadBurst &bu = a.dma_ar.front();
  uint8_t *p = ram_at(a, bu.addr + 8ull * a.dma_rbeat, 8);
  uint64_t v = 0;
  if (p) __atomic_load(reinterpret_cast<uint64_t *>(p), &v, __ATOMIC_ACQUIRE);
  top->dma_rvalid[k] = 1;
  top->dma_rdata[k] = v;
  top->dma_rresp[k] = p ? 0 : 2;
  top->dma_rlast[k] = a.dma_rbeat == bu.beats - 1;
}

// start the AXI transactions of the request in a.bar (decoded to reg_off / window)
void start_reg_read(Adapter &a, uint64_t off) {
  int k = a.index;
  top->axil_araddr[k] = uint32_t(off & ~3ull) & 0x3ffff;
  top->axil_arvalid[k] = 1;
  a.op = Op::kRegRead;
  a.reg_off = off;
}

void start_reg_write(Adapter &a, uint64_t off, uint32_t data, uint32_t strb) {
  int k = a.index;
  top->axil_awaddr[k] = uint32_t(off & ~3ull) & 0x3ffff;
  top->axil_wdata[k] = data;
  top->axil_wstrb[k] = strb;
  top->axil_awvalid[k] = 1;
  top->axil_wvalid[k] = 1;
  a.aw_done = a.w_done = false;
  a.op = Op::kRegWrite;
  a.reg_off = off;
}

void start_win_write(Adapter &a, uint64_t off, uint64_t val, uint32_t size) {
  int k = a.index;
  uint32_t lane = off & 7;
  uint64_t strb = ((1ull << size) - 1) << lane;
  top->win_awaddr[k] = uint32_t(off & ~7ull) & uint32_t(kWindowSize - 1);
  top->win_awlen[k] = 0;
  top->win_wdata[k] = lane ? (val << (8 * lane)) : val;
  top->win_wstrb[k] = uint8_t(strb);
  top->win_wlast[k] = 1;
  top->win_awvalid[k] = 1;
  top->win_wvalid[k] = 1;
  a.aw_done = a.w_done = false;
  a.op = Op::kWinWrite;
}

// Data moved this cycle: the clock runs on until the links are quiet (at most link_tail).
void data_event() {
  last_data = cycle;
  data_until = std::max(data_until, cycle + link_tail);
}

bool clock_runs() {
  if (cycle < run_until) return true;
  if (cycle >= data_until) return false;
  if (cycle - last_data < kQuietCycles || !top->rings_empty_o) return true;
  data_until = cycle;
  quiet_stops++;
  return false;
}

// BAR0 registers of the data path, whose writes start nothing but frames and DMA (each a data
// event): interrupt status and mask, the acknowledge sweep, page counters, the compare-and-swap
// operands, multicast groups, PCT entries. Any other write (CTRL, NODE_ID, LOOPBACK, the link's
// and the clock's settings) may start work that moves no data for a while (link training, the
// node ID handshake) and runs the clock for idle_cycles.
bool data_path_reg(uint64_t off) {
  if (off >= MC_TX_PCT_BASE) return true;   // the transmit and receive PCTs
  if (off >= MC_REG_MCAST_GROUP_BASE && off < MC_REG_GLOBAL_TIME_LO) return true;
  switch (off & ~uint64_t(3)) {
  case MC_REG_IRQ_STATUS: case MC_REG_IRQ_MASK: case MC_REG_BARRIER:
  case MC_REG_PAGE_CNT_SEL: case MC_REG_PAGE_CNT_READS: case MC_REG_PAGE_CNT_ATOMICS:
  case MC_REG_PAGE_CNT_THRESHOLD: case MC_REG_REMOTE_CAS_CMP_LO: case MC_REG_REMOTE_CAS_CMP_HI:
  case MC_REG_REMOTE_CAS_PAGE:
    return true;
  default:
    return false;
  }
}

// A BAR access arrived: start its transactions, or answer at once (outside both BARs).
void start_bar(Adapter &a, const BarMsg &m, bool write) {
  uint32_t bar;
  uint64_t off;
  a.bar = m;
  if (!bar_decode(a, m.addr, &bar, &off) || !m.memory || m.size == 0 || m.size > 8 ||
      (m.size & (m.size - 1)) || (off & (m.size - 1))) {
    note("adapter %d: %s of %u bytes at %#" PRIx64 " outside the BARs", a.index,
         write ? "write" : "read", m.size, m.addr);
    reply(a, write ? 0 : ~0ull);
    return;
  }
  if (write) {
    if (bar == kBarWindow || data_path_reg(off))
      data_event();
    else
      run_until = std::max(run_until, cycle + idle_cycles);
  }
  if (bar == kBarWindow) {
    if (!write) {          // the transmit window is write-only: reads return zero
      a.bar_reads++;
      reply(a, 0);
      return;
    }
    a.win_writes++;
    if (off / kPageSize - a.drop_first < a.drop_pages) {
      // injected: the posted write is lost on its way to the adapter
      a.win_dropped++;
      reply(a, 0);
      return;
    }
    start_win_write(a, off, m.val, m.size);
    return;
  }
  a.want_hi = m.size == 8;
  a.acc_off = off;
  if (write) {
    a.bar_writes++;
    uint32_t lane = off & 3;
    uint32_t strb = m.size >= 4 ? 0xf : ((1u << m.size) - 1) << lane;
    start_reg_write(a, off, uint32_t(m.val << (8 * lane)), strb);
  } else {
    a.bar_reads++;
    start_reg_read(a, off);
  }
}

// the ID and VERSION registers as a wrong device would answer them (--bad-id, --bad-version)
uint32_t read_value(const Adapter &a, uint64_t word_off, uint32_t rdata) {
  if (a.bad_id && word_off == MC_REG_ID) return MC_ID ^ 0x00010000u;
  if (a.bad_version && word_off == MC_REG_VERSION)
    return ((MC_VERSION_MAJOR + 1) << MC_VERSION_MAJOR_SHIFT) | MC_VERSION_MINOR;
  return rdata;
}

// ---- clock ----
struct Fire {
  bool axil_aw, axil_w, axil_b, axil_ar, axil_r, win_aw, win_w, win_b, dma_aw, dma_w, dma_b;
  bool dma_ar, dma_r, link;
};

void dma_beat(Adapter &a, uint64_t data, uint8_t strb, bool last) {
  a.dma_beats++;
  if (a.dma_aw.empty()) {
    note("adapter %d: DMA data beat without an address", a.index);
    return;
  }
  Adapter::Burst &bu = a.dma_aw.front();
  uint64_t gpa = bu.addr + 8ull * a.dma_beat;
  uint8_t *p = bu.fail ? nullptr : ram_at(a, gpa, 8);
  if (bu.fail) {
    // injected: the host bridge refuses the write (completer abort)
  } else if (!p) {
    a.dma_unmapped_burst = true;
    if (a.dma_unmapped++ < 8)
      note("adapter %d: DMA write to %#" PRIx64 " outside guest RAM", a.index, gpa);
  } else if (strb == 0xff) {
    // one 8-byte store: the guest polls RAM and may read whole words
    __atomic_store_n(reinterpret_cast<uint64_t *>(p), data, __ATOMIC_RELEASE);
    a.dma_bytes += 8;
  } else {
    for (int l = 0; l < 2; l++) {
      uint32_t w = uint32_t(data >> (32 * l));
      uint8_t s = (strb >> (4 * l)) & 0xf;
      if (s == 0xf) {
        __atomic_store_n(reinterpret_cast<uint32_t *>(p + 4 * l), w, __ATOMIC_RELEASE);
        a.dma_bytes += 4;
      } else {
        for (int b = 0; b < 4; b++)
          if (s & (1 << b)) {
            __atomic_store_n(p + 4 * l + b, uint8_t(w >> (8 * b)), __ATOMIC_RELEASE);
            a.dma_bytes++;
          }
      }
    }
  }
  bool burst_last = a.dma_beat == bu.beats - 1;
  if (burst_last != last)
    note("adapter %d: WLAST %d at beat %u of %u", a.index, last, a.dma_beat, bu.beats);
  if (burst_last) {
    // SLVERR for a refused burst or one outside guest RAM, OKAY otherwise
    a.dma_bresp.push_back(bu.fail || a.dma_unmapped_burst ? 2 : 0);
    a.dma_unmapped_burst = false;
    a.dma_aw.pop_front();
    a.dma_beat = 0;
  } else {
    a.dma_beat++;
  }
}

// remote_timing's classification of this cycle's handshakes (before the new BAR2 W beats arm it)
void time_remote(const Fire *f) {
  for (int r = 0; r < nadapters; r++) {
    RemoteTiming &t = remote_timing[r];
    if (!t.pending) continue;
    for (int j = 0; j < nadapters && t.pending; j++) {
      if (j == r) {
        if (f[j].dma_w && t.home_read) {
          (t.home_write ? remote_atomic : remote_read).add(cycle - t.since);
          t.pending = false;
        }
      } else if (f[j].dma_ar) {
        t.home_read = true;
      } else if (f[j].dma_w) {
        if (t.home_read) {
          t.home_write = true;
        } else {
          remote_write.add(cycle - t.since);
          t.pending = false;
        }
      }
    }
  }
  for (int k = 0; k < nadapters; k++)
    if (f[k].win_w) remote_timing[k] = {true, false, false, cycle};
}

void tick() {
  Fire f[kAdapters];
  top->clk_i = 0;
  top->eval();
  for (int k = 0; k < nadapters; k++) {
    f[k].axil_aw = top->axil_awvalid[k] && top->axil_awready[k];
    f[k].axil_w = top->axil_wvalid[k] && top->axil_wready[k];
    f[k].axil_b = top->axil_bvalid[k] && top->axil_bready[k];
    f[k].axil_ar = top->axil_arvalid[k] && top->axil_arready[k];
    f[k].axil_r = top->axil_rvalid[k] && top->axil_rready[k];
    f[k].win_aw = top->win_awvalid[k] && top->win_awready[k];
    f[k].win_w = top->win_wvalid[k] && top->win_wready[k];
    f[k].win_b = top->win_bvalid[k] && top->win_bready[k];
    f[k].dma_aw = top->dma_awvalid[k] && top->dma_awready[k];
    f[k].dma_w = top->dma_wvalid[k] && top->dma_wready[k];
    f[k].dma_b = top->dma_bvalid[k] && top->dma_bready[k];
    f[k].dma_ar = top->dma_arvalid[k] && top->dma_arready[k];
    f[k].dma_r = top->dma_rvalid[k] && top->dma_rready[k];
    f[k].link = top->link_busy_o[k];
    if (f[k].dma_ar) {
      if (top->dma_arsize[k] != 3 || top->dma_arburst[k] != 1)
        note("adapter %d: DMA read burst size %d type %d", k, top->dma_arsize[k],
             top->dma_arburst[k]);
      adapters[k].dma_ar.push_back({top->dma_araddr[k], uint32_t(top->dma_arlen[k]) + 1});
    }
    if (f[k].dma_r) {
      Adapter &a = adapters[k];
      a.dma_read_beats++;
      if (top->dma_rresp[k] != 0 && a.dma_read_unmapped++ < 8)
        note("adapter %d: DMA read of %#" PRIx64 " outside guest RAM", k,
             a.dma_ar.front().addr + 8ull * a.dma_rbeat);
    }
    if (f[k].dma_aw) {
      Adapter &a = adapters[k];
      if (top->dma_awsize[k] != 3 || top->dma_awburst[k] != 1)
        note("adapter %d: DMA burst size %d type %d", k, top->dma_awsize[k],
             top->dma_awburst[k]);
      bool fail = a.dma_fail_next > 0;
      if (fail) {
        a.dma_fail_next--;
        a.dma_failed++;
      }
      a.dma_aw.push_back({top->dma_awaddr[k], uint32_t(top->dma_awlen[k]) + 1, fail});
    }
    if (f[k].dma_w) {
      dma_beat(adapters[k], top->dma_wdata[k], top->dma_wstrb[k], top->dma_wlast[k]);
      if (lat.pending) {
        lat.span.add(cycle - lat.since);
        lat.pending = false;
      }
    }
    if (f[k].win_w) {
      lat.pending = true;
      lat.since = cycle;
    }
    if (f[k].win_b && top->win_bresp[k] != 0)
      note("adapter %d: BAR2 write error response %d", k, top->win_bresp[k]);
  }
  time_remote(f);
  // the beats are in guest RAM before the clock edge that follows them
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  top->clk_i = 1;
  top->eval();
  cycle++;

  for (int k = 0; k < nadapters; k++) {
    Adapter &a = adapters[k];
    if (f[k].dma_aw || f[k].dma_w || f[k].dma_ar || f[k].dma_r || f[k].link)
      data_event();
    if (f[k].dma_b) a.dma_bresp.pop_front();
    if (f[k].dma_r && ++a.dma_rbeat == a.dma_ar.front().beats) {
      a.dma_ar.pop_front();
      a.dma_rbeat = 0;
    }
    dma_read_drive(a, k);
    top->dma_bvalid[k] = !a.dma_bresp.empty();
    top->dma_bresp[k] = a.dma_bresp.empty() ? 0 : a.dma_bresp.front();
    switch (a.op) {
    case Op::kNone:
      break;
    case Op::kReset:
      if (--a.reset_cycles == 0) {
        top->rst_ni[k] = 1;
        a.op = Op::kNone;
        a.link_delay_due = true;   // the reset put CLOCK_LINK_DELAY back to its reset value
        reply(a, 0);
      }
      break;
    case Op::kRegRead:
      if (f[k].axil_ar) top->axil_arvalid[k] = 0;
      if (f[k].axil_r) {
        uint32_t v = read_value(a, a.reg_off & ~3ull, top->axil_rdata[k]);
        if (a.want_hi) {
          a.want_hi = false;
          a.lo_word = v;
          start_reg_read(a, a.reg_off + 4);
          break;
        }
        a.op = Op::kNone;
        if (a.bar.size == 8) {
          reply(a, uint64_t(a.lo_word) | uint64_t(v) << 32);
        } else {
          uint32_t lane = a.acc_off & 3;
          uint64_t mask = a.bar.size == 4 ? 0xffffffffull : (1ull << (8 * a.bar.size)) - 1;
          reply(a, (v >> (8 * lane)) & mask);
        }
      }
      break;
    case Op::kRegWrite:
      if (f[k].axil_aw) { top->axil_awvalid[k] = 0; a.aw_done = true; }
      if (f[k].axil_w) { top->axil_wvalid[k] = 0; a.w_done = true; }
      if (f[k].axil_b) {
        if (top->axil_bresp[k] != 0)
          note("adapter %d: BAR0 write at %#" PRIx64 " error response", k, a.reg_off);
        if (a.internal) {     // no guest waits for it
          a.internal = false;
          a.op = Op::kNone;
          break;
        }
        if (a.want_hi) {
          a.want_hi = false;
          start_reg_write(a, a.reg_off + 4, uint32_t(a.bar.val >> 32), 0xf);
          break;
        }
        a.op = Op::kNone;
        reply(a, 0);
      }
      break;
    case Op::kWinWrite:
      if (f[k].win_aw) { top->win_awvalid[k] = 0; a.aw_done = true; }
      if (f[k].win_w) { top->win_wvalid[k] = 0; a.w_done = true; }
      // posted: the write is the adapter's once both handshakes are done
      if (a.aw_done && a.w_done) {
        a.op = Op::kNone;
        reply(a, 0);
      }
      break;
    }
  }
}

void reset_adapter(Adapter &a) {
  int k = a.index;
  a.resets++;
  drive_idle(k);
  a.dma_aw.clear();
  a.dma_beat = 0;
  a.dma_bresp.clear();
  a.dma_unmapped_burst = false;
  a.dma_ar.clear();
  a.dma_rbeat = 0;
  top->rst_ni[k] = 0;
  a.reset_cycles = 16;
  a.op = Op::kReset;
}

// ---- one message from QEMU ----
void handle_message(Adapter &a) {
  MsgHeader h;
  char cbuf[CMSG_SPACE(sizeof(int) * kMaxFds)];
  iovec iov = {&h, sizeof(h)};
  msghdr mh = {};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = cbuf;
  mh.msg_controllen = sizeof(cbuf);
  ssize_t n;
  do {
    n = recvmsg(a.fd, &mh, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    note("adapter %d: QEMU closed the socket", a.index);
    a.open = false;
    return;
  }
  int fds[kMaxFds];
  int nfds = 0;
  for (cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int cnt = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (int i = 0; i < cnt && nfds < kMaxFds; i++)
        memcpy(&fds[nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
    }
  }
  if (n < ssize_t(sizeof(h)) &&
      !read_full(a.fd, reinterpret_cast<uint8_t *>(&h) + n, sizeof(h) - n)) {
    a.open = false;
    return;
  }
  uint8_t payload[256];
  if (h.size > sizeof(payload) || !read_full(a.fd, payload, h.size)) {
    note("adapter %d: bad message %d of %" PRIu64 " bytes", a.index, h.cmd, h.size);
    a.open = false;
    return;
  }
  switch (h.cmd) {
  case kSyncSysmem: {
    SyncSysmem s;
    memcpy(&s, payload, sizeof(s));
    ram_unmap(a);
    a.sysmem_syncs++;
    for (int i = 0; i < nfds; i++) {
      void *p = mmap(nullptr, s.sizes[i], PROT_READ | PROT_WRITE, MAP_SHARED, fds[i],
                     s.offsets[i]);
      if (p == MAP_FAILED)
        note("adapter %d: mmap of guest RAM region %d failed: %s", a.index, i, strerror(errno));
      else
        a.ram.push_back({s.gpas[i], s.sizes[i], static_cast<uint8_t *>(p)});
      close(fds[i]);
    }
    return;
  }
  case kSetIrqfd:
    for (int i = 0; i < nfds; i++) close(fds[i]);   // no interrupts through the proxy
    return;
  default:
    break;
  }
  for (int i = 0; i < nfds; i++) close(fds[i]);
  switch (h.cmd) {
  case kCfgRead:
  case kCfgWrite: {
    CfgMsg c;
    memcpy(&c, payload, sizeof(c));
    a.cfg_accesses++;
    if (h.cmd == kCfgRead) {
      reply(a, cfg_read(a, c.addr, c.len));
    } else {
      cfg_write(a, c.addr, c.val, c.len);
      reply(a, 0);
    }
    return;
  }
  case kBarRead:
  case kBarWrite: {
    BarMsg b;
    memcpy(&b, payload, sizeof(b));
    start_bar(a, b, h.cmd == kBarWrite);
    return;
  }
  case kDeviceReset:
    cfg_init(a);
    reset_adapter(a);
    return;
  default:
    note("adapter %d: unknown message %d", a.index, h.cmd);
    reply(a, ~0ull);
    return;
  }
}

// ---- the global clock's cable: CLOCK_LINK_DELAY (docs/firmware.md, "Global clock") ----
// A sync frame's latency is timed from the sender's link port handshake to the receiver's. The
// cable (tb/common/tb_link_chan.sv) queues a word at the sender's handshake and, at that same
// edge, presents the queue's head unless the cycle is a stall (probability stall_pct %); the
// receiver takes it at the next edge. A sync header that finds the cable's queue empty and the
// receiver ready therefore crosses in MIN = 1 cycle, plus one cycle per stalled presentation:
// P(latency > MIN + j) = s^j. SPREAD is the least j with s^j <= kSpreadTail (at 30 %: 12
// cycles, at 60 %: 28); without stalls every such frame takes exactly MIN, so SPREAD = 0. A
// frame that queued behind data words is later still; the adapter's least-latency filter
// takes a worse sample only after 4 of them in a row, so those are not in the bound.
constexpr uint32_t kCableMinLatency = 1;
constexpr double kSpreadTail = 1e-6;

uint32_t cable_spread(uint32_t stall_pct) {
  if (stall_pct == 0) return 0;
  return uint32_t(std::ceil(std::log(kSpreadTail) / std::log(stall_pct / 100.0)));
}

// the cable whose far end is adapter k's receiver, -1 if none
int cable_into(int k) {
  if (kHub) return kAdapters + k;
  for (int j = 0; j < nadapters; j++)
    if (top->peer_i[j] == k) return j;
  return -1;
}

uint32_t link_delay_for(int k) {
  int c = cable_into(k);
  uint32_t spread = c < 0 ? 0 : cable_spread(top->stall_pct_i[c]);
  return spread << MC_CLOCK_LINK_DELAY_SPREAD_SHIFT | kCableMinLatency;
}

// after a reset, or when its cable's stalls change: the adapter's CLOCK_LINK_DELAY for its cable
void write_link_delay(Adapter &a) {
  a.link_delay_due = false;
  a.internal = true;
  a.want_hi = false;
  start_reg_write(a, MC_REG_CLOCK_LINK_DELAY, link_delay_for(a.index), 0xf);
}

// the global clock as the design holds it in this cycle: the hub's master time and every
// adapter's time, VALID, error against the master (hub only) and the link delay we set
std::string clock_text() {
  char buf[256];
  std::string s;
  if (kHub)
    snprintf(buf, sizeof(buf), "master hub time %" PRIu64 "\n", uint64_t(top->master_time_o));
  else
    snprintf(buf, sizeof(buf), "master adapter (back to back: the lower node ID)\n");
  s += buf;
  for (int k = 0; k < nadapters; k++) {
    uint32_t d = link_delay_for(k);
    std::string err = "n/a", up = "n/a";
    if (kHub) {
      err = std::to_string(int64_t(top->ad_time_o[k]) - int64_t(top->master_time_o));
      up = std::to_string((top->hub_port_up_o >> k) & 1);
    }
    snprintf(buf, sizeof(buf),
             "adapter %d time %" PRIu64 " valid %d error %s min %u spread %u port_up %s\n", k,
             uint64_t(top->ad_time_o[k]), int(top->ad_time_valid_o[k]), err.c_str(),
             d & MC_CLOCK_LINK_DELAY_MIN_MASK, d >> MC_CLOCK_LINK_DELAY_SPREAD_SHIFT, up.c_str());
    s += buf;
  }
  return s;
}

// ---- control directory: DIR/request -> DIR/ack (README.md) ----
// cables in use: one per adapter, and with the hub one back from each hub port as well
int ncables() { return kHub ? kAdapters + nadapters : nadapters; }

std::string stats_text() {
  char buf[512];
  std::string s;
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  snprintf(buf, sizeof(buf), "cycles %" PRIu64 " cpu_seconds %.3f wall_seconds %.3f\n", cycle,
           ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
               (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6,
           now_s() - t_start);
  s += buf;
  // how much of the wall time the clock ran, and for how long a BAR0 write (idle_cycles) and
  // data (link_tail) keep it running (a guest that stores every 100 ms keeps the clock running
  // all the time if that run is longer than 100 ms)
  snprintf(buf, sizeof(buf),
           "running wall_seconds %.3f idle_cycles %" PRIu64 " link_tail %" PRIu64
           " quiet_stops %" PRIu64 " burst_cycles %d\n",
           busy_s, idle_cycles, link_tail, quiet_stops, burst_cycles);
  s += buf;
  for (int k = 0; k < nadapters; k++) {
    const Adapter &a = adapters[k];
    snprintf(buf, sizeof(buf),
             "adapter %d bar_reads %" PRIu64 " bar_writes %" PRIu64 " window_writes %" PRIu64
             " dma_beats %" PRIu64 " dma_bytes %" PRIu64 " dma_unmapped %" PRIu64
             " dma_failed %" PRIu64 " window_dropped %" PRIu64 " resets %" PRIu64
             " dma_read_beats %" PRIu64 " dma_read_unmapped %" PRIu64 "\n",
             k, a.bar_reads, a.bar_writes, a.win_writes, a.dma_beats, a.dma_bytes,
             a.dma_unmapped, a.dma_failed, a.win_dropped, a.resets, a.dma_read_beats,
             a.dma_read_unmapped);
    s += buf;
  }
  auto span = [&](const char *what, const Span &sp) {
    snprintf(buf, sizeof(buf),
             "%s n %" PRIu64 " min %" PRIu64 " mean %.1f max %" PRIu64 " cycles\n", what, sp.n,
             sp.min, sp.n ? double(sp.sum) / sp.n : 0.0, sp.max);
    s += buf;
  };
  span("latency window_write_to_dma", lat.span);
  span("remote write", remote_write);
  span("remote read", remote_read);
  span("remote atomic", remote_atomic);
  for (int k = 0; k < ncables(); k++) {
    std::string ends;
    if (kHub && k < kAdapters)
      ends = "from adapter " + std::to_string(k) + " to hub port " + std::to_string(k);
    else if (kHub)
      ends = "from hub port " + std::to_string(k - kAdapters) + " to adapter " +
             std::to_string(k - kAdapters);
    else
      ends = "peer " + std::to_string(top->peer_i[k] == kNoPeer ? -1 : int(top->peer_i[k]));
    snprintf(buf, sizeof(buf),
             "cable %d %s words %" PRIu64 " flips %" PRIu64 " flip_ppm %u stall_pct %u cut %d\n",
             k, ends.c_str(), uint64_t(top->words_o[k]), uint64_t(top->flips_o[k]),
             top->flip_ppm_i[k], top->stall_pct_i[k], int(top->cut_i[k]));
    s += buf;
  }
  return s;
}

std::string control(const std::string &req) {
  char cmd[32] = "";
  unsigned cable = 0, value = 0, count = 0;
  int n = sscanf(req.c_str(), "%31s %u %u %u", cmd, &cable, &value, &count);
  std::string c = cmd;
  if (c == "stats" && n == 1) return "ok\n" + stats_text();
  if (c == "clock" && n == 1) return "ok\n" + clock_text();
  if (c == "idle-cycles" && n == 2) {
    // cable holds the number here (one argument); a run already extended keeps its end
    if (cable < 1) return "error: idle cycles must be at least 1\n";
    idle_cycles = cable;
    return "ok\n";
  }
  if (c == "latency-reset" && n == 1) {
    lat = Latency();
    for (RemoteTiming &t : remote_timing) t = RemoteTiming();
    remote_write = remote_read = remote_atomic = Span();
    return "ok\n";
  }
  if (c == "window-drop" && n == 4) {
    if (cable >= unsigned(nadapters)) return "error: no adapter " + std::to_string(cable) + "\n";
    if (value >= kPages || count > kPages - value) return "error: pages out of range\n";
    adapters[cable].drop_first = value;
    adapters[cable].drop_pages = count;
    return "ok\n";
  }
  if (c == "dma-error" && n == 3) {
    if (cable >= unsigned(nadapters)) return "error: no adapter " + std::to_string(cable) + "\n";
    adapters[cable].dma_fail_next = value;
    return "ok\n";
  }
  if ((c == "flip" || c == "stall" || c == "cut") && n == 3) {
    if (cable >= unsigned(ncables()) || (kHub && cable < kAdapters && cable >= unsigned(nadapters)))
      return "error: no cable " + std::to_string(cable) + "\n";
    if (c == "flip") {
      if (value > 1000000) return "error: ppm out of range\n";
      top->flip_ppm_i[cable] = value;
    } else if (c == "stall") {
      if (value > 99) return "error: percent out of range\n";
      top->stall_pct_i[cable] = value;
      // the receiving adapter's CLOCK_LINK_DELAY follows its cable (the hub is the master)
      for (int k = 0; k < nadapters; k++)
        if (cable_into(k) == int(cable)) adapters[k].link_delay_due = true;
    } else {
      if (value > 1) return "error: cut is 0 or 1\n";
      top->cut_i[cable] = value;
    }
    // let the next cycle carry the new setting into the cable
    run_until = std::max(run_until, cycle + idle_cycles);
    return "ok\n";
  }
  return "error: unknown request: " + req + "\n";
}

void control_poll() {
  if (ctl_dir.empty()) return;
  std::string rq = ctl_dir + "/request";
  FILE *f = fopen(rq.c_str(), "r");
  if (!f) return;
  char line[256] = "";
  if (!fgets(line, sizeof(line), f)) line[0] = 0;
  fclose(f);
  unlink(rq.c_str());
  std::string req = line;
  while (!req.empty() && (req.back() == '\n' || req.back() == '\r')) req.pop_back();
  std::string ans = control(req);
  std::string tmp = ctl_dir + "/ack.tmp";
  FILE *o = fopen(tmp.c_str(), "w");
  if (!o) {
    note("cannot write %s: %s", tmp.c_str(), strerror(errno));
    return;
  }
  fputs(ans.c_str(), o);
  fclose(o);
  rename(tmp.c_str(), (ctl_dir + "/ack").c_str());
  note("control: %s -> %s", req.c_str(), ans.substr(0, ans.find('\n')).c_str());
}

void on_signal(int) { stop_requested = 1; }

// Simulation speed alone: every adapter enabled (manual node ID k, retry on) and cabled as
// given, heartbeats on the links, no host traffic.
int speed(uint64_t cycles) {
  for (int k = 0; k < nadapters; k++) {
    uint32_t regs[][2] = {{MC_REG_NODE_ID, MC_NODE_ID_VALID_MASK | uint32_t(k)},
                          {MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK}};
    for (auto &r : regs) {
      start_reg_write(adapters[k], r[0], r[1], 0xf);
      while (adapters[k].op != Op::kNone) tick();
    }
    write_link_delay(adapters[k]);
    while (adapters[k].op != Op::kNone) tick();
  }
  double t0 = now_s(), c0 = cpu_s();
  for (uint64_t i = 0; i < cycles; i++) tick();
  double t = now_s() - t0, c = cpu_s() - c0;
  // CPU seconds are the measure on a shared machine; wall time only shows the load
  printf("%d adapters%s: %" PRIu64 " cycles in %.2f CPU s (%.2f s wall): %.0f cycles per CPU "
         "second\n", nadapters, kHub ? " on a hub" : "", cycles, c, t, cycles / c);
  fputs(clock_text().c_str(), stdout);
  return 0;
}

unsigned parse_uint(const char *s, const char *what) {
  char *end;
  unsigned long v = strtoul(s, &end, 0);
  if (*s == 0 || *end) die("bad %s '%s'", what, s);
  return unsigned(v);
}

}  // namespace

int main(int argc, char **argv) {
  Verilated::commandArgs(argc, argv);
  int fds[kAdapters];
  std::vector<std::pair<unsigned, unsigned>> cables;
  std::vector<unsigned> bad_id, bad_version;
  int seed = 1;
  uint64_t speed_cycles = 0;
  for (int i = 1; i < argc; i++) {
    std::string o = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (o.rfind("+verilator", 0) == 0) continue;
    if (!v) die("option %s needs a value", o.c_str());
    i++;
    if (o == "--fd") {
      if (nadapters == kAdapters) die("built for %d adapters (build.sh --adapters)", kAdapters);
      fds[nadapters++] = std::string(v) == "-1" ? -1 : int(parse_uint(v, "fd"));
    } else if (o == "--cable") {
      unsigned x, y;
      if (sscanf(v, "%u:%u", &x, &y) != 2) die("bad --cable '%s' (A:B)", v);
      cables.emplace_back(x, y);
    } else if (o == "--bad-id") {
      bad_id.push_back(parse_uint(v, "adapter"));
    } else if (o == "--bad-version") {
      bad_version.push_back(parse_uint(v, "adapter"));
    } else if (o == "--ctl") {
      ctl_dir = v;
    } else if (o == "--idle-cycles") {
      idle_cycles = parse_uint(v, "cycle count");
    } else if (o == "--link-tail") {
      link_tail = parse_uint(v, "cycle count");
    } else if (o == "--seed") {
      seed = int(parse_uint(v, "seed"));
    } else if (o == "--speed") {
      speed_cycles = parse_uint(v, "cycle count");
    } else {
      die("unknown option %s", o.c_str());
    }
  }
  if (nadapters == 0) die("no adapters: give one --fd per adapter");
  Verilated::randSeed(seed);
  Verilated::randReset(0);
  top = new Vcosim_top;
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  signal(SIGPIPE, SIG_IGN);

  for (int k = 0; k < kCables; k++) {
    top->flip_ppm_i[k] = 0;
    top->stall_pct_i[k] = 0;
    top->cut_i[k] = 0;
  }
  if (kHub && !cables.empty()) die("built with the hub: every adapter is cabled to its port");
  top->hub_rst_ni = 0;
  for (int k = 0; k < kAdapters; k++) {
    top->peer_i[k] = kNoPeer;
    top->serial_i[k] = 0x1000 + k;
    top->rst_ni[k] = 0;
    drive_idle(k);
  }
  for (auto &c : cables) {
    if (c.first >= unsigned(nadapters) || c.second >= unsigned(nadapters))
      die("--cable %u:%u: only %d adapters", c.first, c.second, nadapters);
    if (top->peer_i[c.first] != kNoPeer || top->peer_i[c.second] != kNoPeer)
      die("--cable %u:%u: adapter already cabled", c.first, c.second);
    top->peer_i[c.first] = c.second;
    top->peer_i[c.second] = c.first;
  }
  for (int k = 0; k < nadapters; k++) {
    Adapter &a = adapters[k];
    a.index = k;
    a.fd = fds[k];
    a.open = true;
    cfg_init(a);
  }
  for (unsigned k : bad_id) {
    if (k >= unsigned(nadapters)) die("--bad-id %u: no such adapter", k);
    adapters[k].bad_id = true;
  }
  for (unsigned k : bad_version) {
    if (k >= unsigned(nadapters)) die("--bad-version %u: no such adapter", k);
    adapters[k].bad_version = true;
  }
  // power-on reset of every adapter
  for (int i = 0; i < 16; i++) tick();
  for (int k = 0; k < kAdapters; k++) top->rst_ni[k] = 1;
  top->hub_rst_ni = 1;
  if (speed_cycles) return speed(speed_cycles);
  for (int k = 0; k < nadapters; k++) adapters[k].link_delay_due = true;
  note("%d adapters (%u pages of %u bytes)%s, serving", nadapters, kPages, kPageSize,
       kHub ? " on the ports of a hub" : "");

  t_start = now_s();
  double t_ctl = 0;
  pollfd pfd[kAdapters];
  while (!stop_requested) {
    int open = 0;
    bool pending = false;
    for (int k = 0; k < nadapters; k++) {
      pfd[k].fd = adapters[k].open && adapters[k].op == Op::kNone ? adapters[k].fd : -1;
      pfd[k].events = POLLIN;
      pfd[k].revents = 0;
      open += adapters[k].open;
      pending |= adapters[k].op != Op::kNone;
    }
    if (!open) break;
    for (int k = 0; k < nadapters; k++) {
      Adapter &a = adapters[k];
      if (a.link_delay_due && a.op == Op::kNone) {
        write_link_delay(a);
        pfd[k].fd = -1;      // the guest's next request waits for it
        pending = true;
      }
    }
    bool running = pending || clock_runs();
    double t0 = now_s();
    if (t0 - t_ctl > 0.02) {
      control_poll();
      t_ctl = t0;
    }
    // running: look for requests between bursts of cycles; idle: sleep until one comes
    int r = poll(pfd, nadapters, running ? 0 : 20);
    if (r < 0 && errno != EINTR) die("poll: %s", strerror(errno));
    if (!running) idle_waits++;
    // the clock's running time starts here when it stood still: the sleep in poll() is not it
    // (counting it made every BAR read of the driver's poll look like a running clock)
    double t_run = running ? t0 : now_s();
    for (int k = 0; k < nadapters; k++)
      if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) handle_message(adapters[k]);
    // run until every started request is answered, then on in bursts while free-running
    int burst = 0;
    for (;;) {
      bool busy = false;
      for (int k = 0; k < nadapters; k++) busy |= adapters[k].op != Op::kNone;
      if (!busy && (!clock_runs() || burst >= burst_cycles)) break;
      tick();
      burst++;
      busy_cycles++;
    }
    if (burst) {
      double dt = now_s() - t_run;
      busy_s += dt;
      // the next burst's length: kBurstSeconds at this burst's time per cycle
      burst_cycles = std::clamp(int(kBurstSeconds * burst / std::max(dt, 1e-9)), 1, kBurstMaxCycles);
    }
  }
  double t = now_s() - t_start;
  fprintf(stderr,
          "memchan-cosim: exit after %.1f s, %" PRIu64 " cycles (%.0f cycles/s of wall time "
          "with the clock running, which ran %.1f%% of the time), %" PRIu64 " idle waits\n",
          t, cycle, busy_s > 0 ? busy_cycles / busy_s : 0.0, t > 0 ? 100.0 * busy_s / t : 0.0,
          idle_waits);
  fputs(stats_text().c_str(), stderr);
  for (int k = 0; k < nadapters; k++) ram_unmap(adapters[k]);
  top->final();
  delete top;
  return 0;
}
