// When the model's clock runs (README.md, "Clocking"). It runs while a request is in progress
// (the caller's part), and on after two kinds of event:
// - configuration (a control request, a BAR0 write outside the data path): idle_cycles cycles,
//   for what follows (link training, the node ID handshake) moves no data for a while;
// - data: until the links are quiet, at most link_tail cycles. Quiet: no frame in any replay
//   ring (adapters and hub ports) or hub input queue, and no data event for kQuietCycles. Every
//   step of a delivery is a data event or a frame in a ring: a store reaches its ring within a
//   few cycles (TX_COMBINE_IDLE is 4), a received frame its DMA write; a lost frame stays in its
//   ring until the resend is acknowledged. A cluster agent's heartbeat store every 100 ms then
//   costs about kQuietCycles plus its delivery, not link_tail.
#pragma once

#include <cstdint>

#include "cosim_geometry.h"

class ClockScheduler {
 public:
  static constexpr uint64_t kDefaultIdleCycles = 1 << 16;
  // The most a run after data lasts. Each go-back-N resend, LACK or LNAK is itself a frame, so
  // a delivery that cannot finish (the peer gone, retries running out) extends it until the
  // retries are exhausted; heartbeats do not. Twice the timeout: a resend is due
  // LINK_ACK_TIMEOUT cycles after the last acknowledgement progress (itself a frame), and the
  // timer pauses on stalled cycles (up to half of them here).
  static constexpr uint64_t kDefaultLinkTail = 2 * uint64_t(MC_REG_LINK_ACK_TIMEOUT_RESET);
  static constexpr uint64_t kQuietCycles = 256;

  ClockScheduler(uint64_t idle_cycles, uint64_t link_tail)
      : idle_cycles_(idle_cycles), link_tail_(link_tail) {}

  uint64_t cycle() const { return cycle_; }
  void advance() { cycle_++; }
  // a configuration event: run on for idle_cycles (a run already longer keeps its end)
  void configuration();
  // data moved this cycle: run on until the links are quiet, at most link_tail
  void data();
  // a BAR write: data (the transmit window, the data path's registers) or configuration
  void bar_write(bool window, uint64_t reg_off);
  // whether the clock runs on now (no request in progress); rings_empty: cosim_top's
  // rings_empty_o. A data run found quiet ends here and counts in quiet_stops.
  bool runs(bool rings_empty);

  uint64_t idle_cycles() const { return idle_cycles_; }
  void set_idle_cycles(uint64_t n) { idle_cycles_ = n; }
  uint64_t link_tail() const { return link_tail_; }
  uint64_t quiet_stops() const { return quiet_stops_; }

 private:
  uint64_t cycle_ = 0;
  uint64_t run_until_ = 0;      // a configuration run ends here
  uint64_t data_until_ = 0;     // a data run ends here at the latest
  uint64_t last_data_ = 0;
  uint64_t idle_cycles_;
  uint64_t link_tail_;
  uint64_t quiet_stops_ = 0;    // data runs that ended before data_until_
};
