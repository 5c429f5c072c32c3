// Latencies in cycles measured on the model's ports (the statistics' latency and remote lines).
#pragma once

#include <cstdint>

#include "adapter_port.h"
#include "cosim_geometry.h"

// cycles of one kind of event: count, min, mean, max
struct Span {
  uint64_t n = 0, min = 0, max = 0, sum = 0;
  void add(uint64_t d);
};

class LatencyStats {
 public:
  // the handshakes of every adapter in the cycle about to end (before its clock edge)
  void on_cycle(const Fire *f, int nadapters, uint64_t cycle);
  void reset() { *this = LatencyStats(); }

  // transmit-window data handshake (BAR2 W) -> the next host-memory data beat (any adapter);
  // exact while one store at a time is in flight, as in a ping-pong
  const Span &window_write_to_dma() const { return window_to_dma_; }
  const Span &remote_write() const { return remote_write_; }
  const Span &remote_read() const { return remote_read_; }
  const Span &remote_atomic() const { return remote_atomic_; }

 private:
  // remote: per requesting adapter, from the BAR2 W beat of a store to the host-memory beat
  // that completes what it launched, classified by what the other adapters do in between
  // (tb/remote's figures, measured the same way): a host-memory write at another adapter with
  // no host read before it is a one-way write landing; a host read at another adapter (the home
  // serving a request), then a host-memory write at the requester, is a read's response
  // landing, or an atomic's if the home also wrote (its read-modify-write). Exact while one
  // request at a time is in flight and nothing else moves host memory (a store to this adapter
  // itself, the loopback, is neither); a new BAR2 W of the requester restarts its timing.
  struct RemoteTiming {
    bool pending = false, home_read = false, home_write = false;
    uint64_t since = 0;
  };
  void time_remote(const Fire *f, int nadapters, uint64_t cycle);

  bool window_pending_ = false;
  uint64_t window_since_ = 0;
  Span window_to_dma_;
  RemoteTiming remote_timing_[kAdapters];
  Span remote_write_, remote_read_, remote_atomic_;
};
