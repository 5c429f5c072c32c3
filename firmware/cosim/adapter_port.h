// One adapter's host side on the model's ports: the AXI4-Lite master that turns BAR0 accesses
// into register transactions, the AXI4 master that turns BAR2 writes into single-beat window
// writes, and the AXI4 slave through which the adapter's DMA writes and reads guest RAM. It
// answers the guest (ProxyLink::reply) when a transaction it started completes.
#pragma once

#include <cstdint>
#include <deque>

#include "Vcosim_top.h"
#include "guest_ram.h"
#include "proxy_link.h"

// the handshakes of one adapter's ports in one cycle, sampled before the clock edge
struct Fire {
  bool axil_aw, axil_w, axil_b, axil_ar, axil_r, win_aw, win_w, win_b, dma_aw, dma_w, dma_b;
  bool dma_ar, dma_r, link;
  // what keeps the clock running after data (ClockScheduler::data)
  bool moves_data() const { return dma_aw || dma_w || dma_ar || dma_r || link; }
};

// per adapter, for the statistics
struct AdapterCounters {
  uint64_t bar_reads = 0, bar_writes = 0, win_writes = 0;
  uint64_t dma_beats = 0, dma_bytes = 0, dma_unmapped = 0, dma_failed = 0, resets = 0;
  uint64_t win_dropped = 0;
  uint64_t dma_read_beats = 0, dma_read_unmapped = 0;
};

class AdapterPort {
 public:
  // how long a reset holds an adapter (power-on, DEVICE_RESET)
  static constexpr uint32_t kResetCycles = 16;

  AdapterPort(Vcosim_top &top, int index, ProxyLink &link, GuestRam &ram)
      : top_(top), k_(index), link_(link), ram_(ram) {}

  // every input of adapter k's ports at rest (ready to accept, nothing offered)
  static void drive_idle(Vcosim_top &top, int k);
  // a BAR access the guest made, decoded to its BAR and offset
  void start_bar(const BarMsg &m, bool write, uint32_t bar, uint64_t off);
  // CLOCK_LINK_DELAY for the cable into this adapter: a register write of our own (no guest
  // waits for it)
  void write_link_delay(uint32_t value);
  // a register write whose completion is answered like a guest's (--speed's set-up)
  void start_reg_write(uint64_t off, uint32_t data, uint32_t strb);
  // DEVICE_RESET: hold the adapter in reset for kResetCycles, then answer
  void start_reset();
  // a request (the guest's or our own) is in progress
  bool busy() const { return op_ != Op::kNone; }

  // the cycle's handshakes before the clock edge, taking DMA addresses and data beats
  Fire before_edge();
  // after the clock edge: advance the request in progress and drive the next cycle's inputs
  void after_edge(const Fire &f);

  // --bad-id, --bad-version: answer reads of ID / VERSION as a wrong device would
  void answer_bad_id() { bad_id_ = true; }
  void answer_bad_version() { bad_version_ = true; }
  // control request dma-error: the next n DMA write bursts are refused (SLVERR, not written)
  void fail_dma_bursts(uint64_t n) { dma_fail_next_ = n; }
  // control request window-drop: writes to window pages first..first+count-1 are lost
  void drop_window_pages(uint32_t first, uint32_t count) {
    drop_first_ = first;
    drop_pages_ = count;
  }
  // CLOCK_LINK_DELAY is to be (re)written for the cable into this adapter
  bool link_delay_due() const { return link_delay_due_; }
  void set_link_delay_due() { link_delay_due_ = true; }

  const AdapterCounters &counters() const { return counters_; }

 private:
  enum class Op { kNone, kRegRead, kRegWrite, kWinWrite, kReset };
  // DMA slave, write side: AW addresses waiting for their beats
  struct Burst {
    uint64_t addr;
    uint32_t beats;
    bool fail;                  // answered SLVERR, not written (injected bus error)
  };
  // DMA slave, read side: AR bursts answered in order from guest RAM, one beat a cycle
  struct ReadBurst {
    uint64_t addr;
    uint32_t beats;
  };

  void start_reg_read(uint64_t off);
  void start_win_write(uint64_t off, uint64_t val, uint32_t size);
  void dma_beat(uint64_t data, uint8_t strb, bool last);
  void dma_read_drive();
  uint32_t read_value(uint64_t word_off, uint32_t rdata) const;

  Vcosim_top &top_;
  int k_;
  ProxyLink &link_;
  GuestRam &ram_;
  bool bad_id_ = false, bad_version_ = false;
  // the request in progress
  Op op_ = Op::kNone;
  bool aw_done_ = false, w_done_ = false;
  bool want_hi_ = false;         // 8-byte register access: the high word is next
  uint32_t lo_word_ = 0;
  BarMsg bar_ = {};
  uint64_t reg_off_ = 0;          // BAR0 offset of the 32-bit transaction in progress
  uint64_t acc_off_ = 0;          // BAR0 offset of the guest's access
  uint32_t reset_cycles_ = 0;
  bool internal_ = false;         // the register write in progress is the harness's own
  bool link_delay_due_ = false;
  std::deque<Burst> dma_aw_;
  uint32_t dma_beat_ = 0;
  std::deque<uint8_t> dma_bresp_;  // responses owed, in order
  uint64_t dma_fail_next_ = 0;     // bursts still to fail
  bool dma_unmapped_burst_ = false;
  std::deque<ReadBurst> dma_ar_;
  uint32_t dma_rbeat_ = 0;
  uint32_t drop_first_ = 0, drop_pages_ = 0;
  AdapterCounters counters_;
};
