#include "clock_scheduler.h"

#include <algorithm>

namespace {

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

}  // namespace

void ClockScheduler::configuration() { run_until_ = std::max(run_until_, cycle_ + idle_cycles_); }

void ClockScheduler::data() {
  last_data_ = cycle_;
  data_until_ = std::max(data_until_, cycle_ + link_tail_);
}

void ClockScheduler::bar_write(bool window, uint64_t reg_off) {
  if (window || data_path_reg(reg_off))
    data();
  else
    configuration();
}

bool ClockScheduler::runs(bool rings_empty) {
  if (cycle_ < run_until_) return true;
  if (cycle_ >= data_until_) return false;
  if (cycle_ - last_data_ < kQuietCycles || !rings_empty) return true;
  data_until_ = cycle_;
  quiet_stops_++;
  return false;
}
