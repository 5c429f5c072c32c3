#include "adapter_port.h"

#include <cinttypes>

#include "cosim_geometry.h"
#include "cosim_log.h"
#include "pci_config.h"

void AdapterPort::drive_idle(Vcosim_top &top, int k) {
  top.axil_awvalid[k] = 0;
  top.axil_wvalid[k] = 0;
  top.axil_arvalid[k] = 0;
  top.axil_bready[k] = 1;
  top.axil_rready[k] = 1;
  top.win_awvalid[k] = 0;
  top.win_wvalid[k] = 0;
  top.win_bready[k] = 1;
  top.dma_awready[k] = 1;
  top.dma_wready[k] = 1;
  top.dma_bvalid[k] = 0;
  top.dma_bresp[k] = 0;
  top.dma_arready[k] = 1;
  top.dma_rvalid[k] = 0;
  top.dma_rresp[k] = 0;
  top.dma_rlast[k] = 0;
  top.dma_rdata[k] = 0;
}

void AdapterPort::start_bar(const BarMsg &m, bool write, uint32_t bar, uint64_t off) {
  bar_ = m;
  if (bar == kBarWindow) {
    if (!write) {          // the transmit window is write-only: reads return zero
      counters_.bar_reads++;
      link_.reply(0);
      return;
    }
    counters_.win_writes++;
    if (off / kPageSize - drop_first_ < drop_pages_) {
      // injected: the posted write is lost on its way to the adapter
      counters_.win_dropped++;
      link_.reply(0);
      return;
    }
    start_win_write(off, m.val, m.size);
    return;
  }
  want_hi_ = m.size == 8;
  acc_off_ = off;
  if (write) {
    counters_.bar_writes++;
    uint32_t lane = off & 3;
    uint32_t strb = m.size >= 4 ? 0xf : ((1u << m.size) - 1) << lane;
    start_reg_write(off, uint32_t(m.val << (8 * lane)), strb);
  } else {
    counters_.bar_reads++;
    start_reg_read(off);
  }
}

void AdapterPort::write_link_delay(uint32_t value) {
  link_delay_due_ = false;
  internal_ = true;
  want_hi_ = false;
  start_reg_write(MC_REG_CLOCK_LINK_DELAY, value, 0xf);
}

void AdapterPort::start_reg_read(uint64_t off) {
  top_.axil_araddr[k_] = uint32_t(off & ~3ull) & (MC_BAR0_SIZE - 1);
  top_.axil_arvalid[k_] = 1;
  op_ = Op::kRegRead;
  reg_off_ = off;
}

void AdapterPort::start_reg_write(uint64_t off, uint32_t data, uint32_t strb) {
  top_.axil_awaddr[k_] = uint32_t(off & ~3ull) & (MC_BAR0_SIZE - 1);
  top_.axil_wdata[k_] = data;
  top_.axil_wstrb[k_] = strb;
  top_.axil_awvalid[k_] = 1;
  top_.axil_wvalid[k_] = 1;
  aw_done_ = w_done_ = false;
  op_ = Op::kRegWrite;
  reg_off_ = off;
}

void AdapterPort::start_win_write(uint64_t off, uint64_t val, uint32_t size) {
  uint32_t lane = off & 7;
  uint64_t strb = ((1ull << size) - 1) << lane;
  top_.win_awaddr[k_] = uint32_t(off & ~7ull) & uint32_t(kWindowSize - 1);
  top_.win_awlen[k_] = 0;
  top_.win_wdata[k_] = lane ? (val << (8 * lane)) : val;
  top_.win_wstrb[k_] = uint8_t(strb);
  top_.win_wlast[k_] = 1;
  top_.win_awvalid[k_] = 1;
  top_.win_wvalid[k_] = 1;
  aw_done_ = w_done_ = false;
  op_ = Op::kWinWrite;
}

void AdapterPort::start_reset() {
  counters_.resets++;
  drive_idle(top_, k_);
  dma_aw_.clear();
  dma_beat_ = 0;
  dma_bresp_.clear();
  dma_unmapped_burst_ = false;
  dma_ar_.clear();
  dma_rbeat_ = 0;
  top_.rst_ni[k_] = 0;
  reset_cycles_ = kResetCycles;
  op_ = Op::kReset;
}

// the ID and VERSION registers as a wrong device would answer them (--bad-id, --bad-version)
uint32_t AdapterPort::read_value(uint64_t word_off, uint32_t rdata) const {
  if (bad_id_ && word_off == MC_REG_ID) return MC_ID ^ 0x00010000u;
  if (bad_version_ && word_off == MC_REG_VERSION)
    return ((MC_VERSION_MAJOR + 1) << MC_VERSION_MAJOR_SHIFT) | MC_VERSION_MINOR;
  return rdata;
}

// Drive the read data channel from the oldest AR burst: the word of guest RAM at its current
// beat, read again every cycle until taken (the host's memory as of the handshake); outside
// guest RAM, SLVERR (the adapter refuses the request; counted when the beat is taken).
void AdapterPort::dma_read_drive() {
  if (dma_ar_.empty()) {
    top_.dma_rvalid[k_] = 0;
    top_.dma_rlast[k_] = 0;
    return;
  }
  const ReadBurst &bu = dma_ar_.front();
  uint8_t *p = ram_.at(bu.addr + 8ull * dma_rbeat_, 8);
  uint64_t v = 0;
  if (p) __atomic_load(reinterpret_cast<uint64_t *>(p), &v, __ATOMIC_ACQUIRE);
  top_.dma_rvalid[k_] = 1;
  top_.dma_rdata[k_] = v;
  top_.dma_rresp[k_] = p ? 0 : 2;
  top_.dma_rlast[k_] = dma_rbeat_ == bu.beats - 1;
}

void AdapterPort::dma_beat(uint64_t data, uint8_t strb, bool last) {
  counters_.dma_beats++;
  if (dma_aw_.empty()) {
    note("adapter %d: DMA data beat without an address", k_);
    return;
  }
  Burst &bu = dma_aw_.front();
  uint64_t gpa = bu.addr + 8ull * dma_beat_;
  uint8_t *p = bu.fail ? nullptr : ram_.at(gpa, 8);
  if (bu.fail) {
    // injected: the host bridge refuses the write (completer abort)
  } else if (!p) {
    dma_unmapped_burst_ = true;
    if (counters_.dma_unmapped++ < 8)
      note("adapter %d: DMA write to %#" PRIx64 " outside guest RAM", k_, gpa);
  } else if (strb == 0xff) {
    // one 8-byte store: the guest polls RAM and may read whole words
    __atomic_store_n(reinterpret_cast<uint64_t *>(p), data, __ATOMIC_RELEASE);
    counters_.dma_bytes += 8;
  } else {
    for (int l = 0; l < 2; l++) {
      uint32_t w = uint32_t(data >> (32 * l));
      uint8_t s = (strb >> (4 * l)) & 0xf;
      if (s == 0xf) {
        __atomic_store_n(reinterpret_cast<uint32_t *>(p + 4 * l), w, __ATOMIC_RELEASE);
        counters_.dma_bytes += 4;
      } else {
        for (int b = 0; b < 4; b++)
          if (s & (1 << b)) {
            __atomic_store_n(p + 4 * l + b, uint8_t(w >> (8 * b)), __ATOMIC_RELEASE);
            counters_.dma_bytes++;
          }
      }
    }
  }
  bool burst_last = dma_beat_ == bu.beats - 1;
  if (burst_last != last)
    note("adapter %d: WLAST %d at beat %u of %u", k_, last, dma_beat_, bu.beats);
  if (burst_last) {
    // SLVERR for a refused burst or one outside guest RAM, OKAY otherwise
    dma_bresp_.push_back(bu.fail || dma_unmapped_burst_ ? 2 : 0);
    dma_unmapped_burst_ = false;
    dma_aw_.pop_front();
    dma_beat_ = 0;
  } else {
    dma_beat_++;
  }
}

Fire AdapterPort::before_edge() {
  Fire f;
  // a handshake: VALID and READY of channel ch in this cycle
#define FIRED(ch) (top_.ch##valid[k_] && top_.ch##ready[k_])
  f.axil_aw = FIRED(axil_aw); f.axil_w = FIRED(axil_w); f.axil_b = FIRED(axil_b);
  f.axil_ar = FIRED(axil_ar); f.axil_r = FIRED(axil_r);
  f.win_aw = FIRED(win_aw); f.win_w = FIRED(win_w); f.win_b = FIRED(win_b);
  f.dma_aw = FIRED(dma_aw); f.dma_w = FIRED(dma_w); f.dma_b = FIRED(dma_b);
  f.dma_ar = FIRED(dma_ar); f.dma_r = FIRED(dma_r);
#undef FIRED
  f.link = top_.link_busy_o[k_];
  if (f.dma_ar) {
    if (top_.dma_arsize[k_] != 3 || top_.dma_arburst[k_] != 1)
      note("adapter %d: DMA read burst size %d type %d", k_, top_.dma_arsize[k_],
           top_.dma_arburst[k_]);
    dma_ar_.push_back({top_.dma_araddr[k_], uint32_t(top_.dma_arlen[k_]) + 1});
  }
  if (f.dma_r) {
    counters_.dma_read_beats++;
    if (top_.dma_rresp[k_] != 0 && counters_.dma_read_unmapped++ < 8)
      note("adapter %d: DMA read of %#" PRIx64 " outside guest RAM", k_,
           dma_ar_.front().addr + 8ull * dma_rbeat_);
  }
  if (f.dma_aw) {
    if (top_.dma_awsize[k_] != 3 || top_.dma_awburst[k_] != 1)
      note("adapter %d: DMA burst size %d type %d", k_, top_.dma_awsize[k_],
           top_.dma_awburst[k_]);
    bool fail = dma_fail_next_ > 0;
    if (fail) {
      dma_fail_next_--;
      counters_.dma_failed++;
    }
    dma_aw_.push_back({top_.dma_awaddr[k_], uint32_t(top_.dma_awlen[k_]) + 1, fail});
  }
  if (f.dma_w) dma_beat(top_.dma_wdata[k_], top_.dma_wstrb[k_], top_.dma_wlast[k_]);
  if (f.win_b && top_.win_bresp[k_] != 0)
    note("adapter %d: BAR2 write error response %d", k_, top_.win_bresp[k_]);
  return f;
}

void AdapterPort::after_edge(const Fire &f) {
  if (f.dma_b) dma_bresp_.pop_front();
  if (f.dma_r && ++dma_rbeat_ == dma_ar_.front().beats) {
    dma_ar_.pop_front();
    dma_rbeat_ = 0;
  }
  dma_read_drive();
  top_.dma_bvalid[k_] = !dma_bresp_.empty();
  top_.dma_bresp[k_] = dma_bresp_.empty() ? 0 : dma_bresp_.front();
  switch (op_) {
  case Op::kNone:
    break;
  case Op::kReset:
    if (--reset_cycles_ == 0) {
      top_.rst_ni[k_] = 1;
      op_ = Op::kNone;
      link_delay_due_ = true;   // the reset put CLOCK_LINK_DELAY back to its reset value
      link_.reply(0);
    }
    break;
  case Op::kRegRead:
    if (f.axil_ar) top_.axil_arvalid[k_] = 0;
    if (f.axil_r) {
      uint32_t v = read_value(reg_off_ & ~3ull, top_.axil_rdata[k_]);
      if (want_hi_) {
        want_hi_ = false;
        lo_word_ = v;
        start_reg_read(reg_off_ + 4);
        break;
      }
      op_ = Op::kNone;
      if (bar_.size == 8) {
        link_.reply(uint64_t(lo_word_) | uint64_t(v) << 32);
      } else {
        uint32_t lane = acc_off_ & 3;
        uint64_t mask = bar_.size == 4 ? 0xffffffffull : (1ull << (8 * bar_.size)) - 1;
        link_.reply((v >> (8 * lane)) & mask);
      }
    }
    break;
  case Op::kRegWrite:
    if (f.axil_aw) { top_.axil_awvalid[k_] = 0; aw_done_ = true; }
    if (f.axil_w) { top_.axil_wvalid[k_] = 0; w_done_ = true; }
    if (f.axil_b) {
      if (top_.axil_bresp[k_] != 0)
        note("adapter %d: BAR0 write at %#" PRIx64 " error response", k_, reg_off_);
      if (internal_) {     // no guest waits for it
        internal_ = false;
        op_ = Op::kNone;
        break;
      }
      if (want_hi_) {
        want_hi_ = false;
        start_reg_write(reg_off_ + 4, uint32_t(bar_.val >> 32), 0xf);
        break;
      }
      op_ = Op::kNone;
      link_.reply(0);
    }
    break;
  case Op::kWinWrite:
    if (f.win_aw) { top_.win_awvalid[k_] = 0; aw_done_ = true; }
    if (f.win_w) { top_.win_wvalid[k_] = 0; w_done_ = true; }
    // posted: the write is the adapter's once both handshakes are done
    if (aw_done_ && w_done_) {
      op_ = Op::kNone;
      link_.reply(0);
    }
    break;
  }
}
