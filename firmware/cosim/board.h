// The co-simulated board: the Verilated model (cosim_top.sv), every adapter on it with its
// proxy socket, config space, guest RAM and ports, the cables and their fault knobs, and the one
// clock that runs them all.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Vcosim_top.h"
#include "adapter_port.h"
#include "clock_scheduler.h"
#include "cosim_geometry.h"
#include "guest_ram.h"
#include "latency.h"
#include "pci_config.h"
#include "proxy_link.h"

// one adapter as its guest sees it
struct Adapter {
  Adapter(Vcosim_top &top, int index, int fd)
      : index(index), link(index, fd), ram(index), port(top, index, link, ram) {}
  const int index;
  ProxyLink link;
  PciConfig cfg;
  GuestRam ram;
  AdapterPort port;
};

class Board {
 public:
  // one adapter per fd (-1: no QEMU), every one in reset and uncabled
  Board(const std::vector<int> &fds, ClockScheduler clock);
  ~Board();
  Board(const Board &) = delete;
  Board &operator=(const Board &) = delete;

  int adapters() const { return int(adapters_.size()); }
  Adapter &adapter(int k) { return *adapters_[k]; }
  const Adapter &adapter(int k) const { return *adapters_[k]; }
  ClockScheduler &clock() { return clock_; }
  const ClockScheduler &clock() const { return clock_; }
  LatencyStats &latency() { return latency_; }
  const LatencyStats &latency() const { return latency_; }
  const Vcosim_top &model() const { return *top_; }

  // a cable between adapters a and b, both ways (a == b: a loopback plug); false if either
  // end is already cabled
  bool plug(unsigned a, unsigned b);
  // kResetCycles of reset, then every adapter and the hub out of it
  void power_on_reset();
  // one clock cycle
  void tick();
  // any request in progress
  bool busy() const;
  // whether the clock runs on with no request in progress (ClockScheduler::runs)
  bool clock_runs() { return clock_.runs(top_->rings_empty_o); }

  // cables in use: one per adapter, and with the hub one back from each hub port as well
  int cables() const { return kHub ? kAdapters + adapters() : adapters(); }
  // a cable the control requests may set (with the hub, not the ones of absent adapters)
  bool has_cable(unsigned c) const;
  void set_flip_ppm(unsigned c, uint32_t ppm) { top_->flip_ppm_i[c] = ppm; }
  void set_stall_pct(unsigned c, uint32_t pct);
  void set_cut(unsigned c, bool cut) { top_->cut_i[c] = cut; }
  // CLOCK_LINK_DELAY of adapter k for its cable, written between the guest's requests
  void write_link_delay(int k);
  // the global clock as the design holds it in this cycle (the control request clock)
  std::string clock_text() const;
  // the end of the run: the model's final blocks
  void finish() { top_->final(); }

 private:
  int cable_into(int k) const;
  uint32_t link_delay_for(int k) const;

  std::unique_ptr<Vcosim_top> top_;
  std::vector<std::unique_ptr<Adapter>> adapters_;
  ClockScheduler clock_;
  LatencyStats latency_;
};
