#include "latency.h"

#include <algorithm>

void Span::add(uint64_t d) {
  min = n ? std::min(min, d) : d;
  max = std::max(max, d);
  sum += d;
  n++;
}

void LatencyStats::on_cycle(const Fire *f, int nadapters, uint64_t cycle) {
  // in adapter order: a host-memory beat at a later adapter in the cycle of a window write
  // counts as 0 cycles
  for (int k = 0; k < nadapters; k++) {
    if (f[k].dma_w && window_pending_) {
      window_to_dma_.add(cycle - window_since_);
      window_pending_ = false;
    }
    if (f[k].win_w) {
      window_pending_ = true;
      window_since_ = cycle;
    }
  }
  time_remote(f, nadapters, cycle);
}

// the classification of this cycle's handshakes (before the new BAR2 W beats arm it)
void LatencyStats::time_remote(const Fire *f, int nadapters, uint64_t cycle) {
  for (int r = 0; r < nadapters; r++) {
    RemoteTiming &t = remote_timing_[r];
    if (!t.pending) continue;
    for (int j = 0; j < nadapters && t.pending; j++) {
      if (j == r) {
        if (f[j].dma_w && t.home_read) {
          (t.home_write ? remote_atomic_ : remote_read_).add(cycle - t.since);
          t.pending = false;
        }
      } else if (f[j].dma_ar) {
        t.home_read = true;
      } else if (f[j].dma_w) {
        if (t.home_read) {
          t.home_write = true;
        } else {
          remote_write_.add(cycle - t.since);
          t.pending = false;
        }
      }
    }
  }
  for (int k = 0; k < nadapters; k++)
    if (f[k].win_w) remote_timing_[k] = {true, false, false, cycle};
}
