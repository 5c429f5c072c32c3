// memchan-cosim: the Verilated adapters of cosim_top.sv as PCI devices of QEMU guests.
//
// One process runs every adapter on one clock (no false link timeouts when the host stalls
// this process; runs are deterministic for a given request order). Each adapter is served
// on one connected UNIX socket speaking QEMU's x-pci-proxy-dev protocol (hw/remote/ in
// QEMU 7.2): config space with the IDs of memchan_regs.h and two 32-bit memory BARs, BAR0
// accesses as AXI4-Lite transactions, BAR2 writes as single-beat AXI4 writes into the transmit
// window, and the adapter's AXI4 master writes into the guest RAM that QEMU shares with us
// (SYNC_SYSMEM). No interrupt pin, no MSI: the proxy cannot deliver interrupts under TCG, so
// the driver polls (irq_mode=poll). README.md says which file does what.
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

#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "board.h"
#include "clock_scheduler.h"
#include "control_dir.h"
#include "cosim_log.h"
#include "serving_loop.h"
#include "statistics.h"
#include "verilated.h"

namespace {

// Simulation speed alone: every adapter enabled (manual node ID k, retry on) and cabled as
// given, heartbeats on the links, no host traffic.
int speed(Board &board, uint64_t cycles) {
  int n = board.adapters();
  for (int k = 0; k < n; k++) {
    AdapterPort &port = board.adapter(k).port;
    uint32_t regs[][2] = {{MC_REG_NODE_ID, MC_NODE_ID_VALID_MASK | uint32_t(k)},
                          {MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK}};
    for (auto &r : regs) {
      port.start_reg_write(r[0], r[1], 0xf);
      while (port.busy()) board.tick();
    }
    board.write_link_delay(k);
    while (port.busy()) board.tick();
  }
  double t0 = now_s(), c0 = cpu_s();
  for (uint64_t i = 0; i < cycles; i++) board.tick();
  double t = now_s() - t0, c = cpu_s() - c0;
  // CPU seconds are the measure on a shared machine; wall time only shows the load
  printf("%d adapters%s: %" PRIu64 " cycles in %.2f CPU s (%.2f s wall): %.0f cycles per CPU "
         "second\n", n, kHub ? " on a hub" : "", cycles, c, t, cycles / c);
  fputs(board.clock_text().c_str(), stdout);
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
  std::vector<int> fds;
  std::vector<std::pair<unsigned, unsigned>> cables;
  std::vector<unsigned> bad_id, bad_version;
  std::string ctl_dir;
  uint64_t idle_cycles = ClockScheduler::kDefaultIdleCycles;
  uint64_t link_tail = ClockScheduler::kDefaultLinkTail;
  int seed = 1;
  uint64_t speed_cycles = 0;
  for (int i = 1; i < argc; i++) {
    std::string o = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (o.rfind("+verilator", 0) == 0) continue;
    if (!v) die("option %s needs a value", o.c_str());
    i++;
    if (o == "--fd") {
      if (int(fds.size()) == kAdapters)
        die("built for %d adapters (build.sh --adapters)", kAdapters);
      fds.push_back(std::string(v) == "-1" ? -1 : int(parse_uint(v, "fd")));
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
  if (fds.empty()) die("no adapters: give one --fd per adapter");
  int nadapters = int(fds.size());
  // before the model, whose threads inherit the mask
  sigset_t stop_signals = ServingLoop::block_stop_signals();
  signal(SIGPIPE, SIG_IGN);
  Verilated::randSeed(seed);
  Verilated::randReset(0);
  Board board(fds, ClockScheduler(idle_cycles, link_tail));

  if (kHub && !cables.empty()) die("built with the hub: every adapter is cabled to its port");
  for (auto &c : cables) {
    if (c.first >= unsigned(nadapters) || c.second >= unsigned(nadapters))
      die("--cable %u:%u: only %d adapters", c.first, c.second, nadapters);
    if (!board.plug(c.first, c.second))
      die("--cable %u:%u: adapter already cabled", c.first, c.second);
  }
  for (unsigned k : bad_id) {
    if (k >= unsigned(nadapters)) die("--bad-id %u: no such adapter", k);
    board.adapter(k).port.answer_bad_id();
  }
  for (unsigned k : bad_version) {
    if (k >= unsigned(nadapters)) die("--bad-version %u: no such adapter", k);
    board.adapter(k).port.answer_bad_version();
  }
  board.power_on_reset();
  if (speed_cycles) return speed(board, speed_cycles);
  for (int k = 0; k < nadapters; k++) board.adapter(k).port.set_link_delay_due();
  note("%d adapters (%u pages of %u bytes)%s, serving", nadapters, kPages, kPageSize,
       kHub ? " on the ports of a hub" : "");

  ServingLoop loop(board, ControlDirectory(ctl_dir), stop_signals);
  loop.run();
  fputs(exit_text(board, loop.time()).c_str(), stderr);
  fputs(statistics_text(board, loop.time()).c_str(), stderr);
  board.finish();
  return 0;
}
