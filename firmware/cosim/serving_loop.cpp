#include "serving_loop.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <utility>

#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cosim_log.h"

namespace {

// While the clock runs free, the loop looks for requests between bursts of cycles. A guest's BAR
// access waits for the burst under way (QEMU's proxy awaits the reply of every read and write),
// so a burst is bounded in wall time, not only in cycles: the 4-adapter hub model runs 2.6
// times fewer cycles per second than the 2-adapter model, fewer still inside a boot, where 32
// of its cycles took almost a millisecond. A look is one poll(2), and a check of
// the control files every 20 ms.
constexpr double kBurstSeconds = 100e-6;
constexpr int kBurstMaxCycles = 32;
constexpr double kControlPollSeconds = 0.02;
constexpr int kIdlePollMs = 20;

}  // namespace

sigset_t ServingLoop::block_stop_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGINT);
  if (sigprocmask(SIG_BLOCK, &s, nullptr) != 0) die("sigprocmask: %s", strerror(errno));
  return s;
}

ServingLoop::ServingLoop(Board &board, ControlDirectory control, const sigset_t &stop_signals)
    : board_(board), control_(std::move(control)),
      signal_fd_(signalfd(-1, &stop_signals, SFD_CLOEXEC)) {
  if (signal_fd_ < 0) die("signalfd: %s", strerror(errno));
  time_.burst_cycles = kBurstMaxCycles;
}

ServingLoop::~ServingLoop() { close(signal_fd_); }

// A BAR access arrived: start its transactions, or answer at once (outside both BARs).
void ServingLoop::start_bar(Adapter &a, const BarMsg &m, bool write) {
  uint32_t bar;
  uint64_t off;
  if (!a.cfg.decode(m.addr, &bar, &off) || !m.memory || m.size == 0 || m.size > 8 ||
      (m.size & (m.size - 1)) || (off & (m.size - 1))) {
    note("adapter %d: %s of %u bytes at %#" PRIx64 " outside the BARs", a.index,
         write ? "write" : "read", m.size, m.addr);
    a.link.reply(write ? 0 : ~0ull);
    return;
  }
  if (write) board_.clock().bar_write(bar == kBarWindow, off);
  a.port.start_bar(m, write, bar, off);
}

// one message from QEMU
void ServingLoop::serve_message(Adapter &a) {
  ProxyMessage m;
  if (!a.link.receive(m)) return;
  switch (m.cmd) {
  case kSyncSysmem: {
    SyncSysmem s;
    memcpy(&s, m.payload, sizeof(s));
    a.ram.remap(s, m.fds, m.nfds);
    return;
  }
  case kSetIrqfd:
    for (int i = 0; i < m.nfds; i++) close(m.fds[i]);   // no interrupts through the proxy
    return;
  default:
    break;
  }
  for (int i = 0; i < m.nfds; i++) close(m.fds[i]);
  switch (m.cmd) {
  case kCfgRead:
  case kCfgWrite: {
    CfgMsg c;
    memcpy(&c, m.payload, sizeof(c));
    if (m.cmd == kCfgRead) {
      a.link.reply(a.cfg.read(c.addr, c.len));
    } else {
      a.cfg.write(c.addr, c.val, c.len);
      a.link.reply(0);
    }
    return;
  }
  case kBarRead:
  case kBarWrite: {
    BarMsg b;
    memcpy(&b, m.payload, sizeof(b));
    start_bar(a, b, m.cmd == kBarWrite);
    return;
  }
  case kDeviceReset:
    a.cfg.reset();
    a.port.start_reset();
    return;
  default:
    note("adapter %d: unknown message %d", a.index, m.cmd);
    a.link.reply(~0ull);
    return;
  }
}

void ServingLoop::run() {
  int n = board_.adapters();
  time_.start_s = now_s();
  double t_ctl = 0;
  bool stopping = false;
  pollfd pfd[kAdapters + 1];   // the adapters' sockets, then the signalfd
  while (!stopping) {
    int open = 0;
    bool pending = false;
    for (int k = 0; k < n; k++) {
      Adapter &a = board_.adapter(k);
      pfd[k].fd = a.link.open() && !a.port.busy() ? a.link.fd() : -1;
      pfd[k].events = POLLIN;
      pfd[k].revents = 0;
      open += a.link.open();
      pending |= a.port.busy();
    }
    pfd[n] = {signal_fd_, POLLIN, 0};
    if (!open) break;
    for (int k = 0; k < n; k++) {
      Adapter &a = board_.adapter(k);
      if (a.port.link_delay_due() && !a.port.busy()) {
        board_.write_link_delay(k);
        pfd[k].fd = -1;      // the guest's next request waits for it
        pending = true;
      }
    }
    bool running = pending || board_.clock_runs();
    double t0 = now_s();
    if (t0 - t_ctl > kControlPollSeconds) {
      control_.poll(board_, time_);
      t_ctl = t0;
    }
    // running: look for requests between bursts of cycles; idle: sleep until one comes
    int r = poll(pfd, n + 1, running ? 0 : kIdlePollMs);
    if (r < 0 && errno != EINTR) die("poll: %s", strerror(errno));
    if (!running) time_.idle_waits++;
    // the clock's running time starts here when it stood still: the sleep in poll() is not it
    // (counted, every BAR read of the driver's poll would look like a running clock)
    double t_run = running ? t0 : now_s();
    // a stop signal: no new request; the one in progress and this burst end the loop
    stopping = r > 0 && (pfd[n].revents & POLLIN);
    for (int k = 0; k < n && !stopping; k++)
      if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) serve_message(board_.adapter(k));
    // run until every started request is answered, then on in bursts while free-running
    int burst = 0;
    for (;;) {
      if (!board_.busy() && (!board_.clock_runs() || burst >= time_.burst_cycles)) break;
      board_.tick();
      burst++;
      time_.running_cycles++;
    }
    if (burst) {
      double dt = now_s() - t_run;
      time_.running_s += dt;
      // the next burst's length: kBurstSeconds at this burst's time per cycle
      time_.burst_cycles =
          std::clamp(int(kBurstSeconds * burst / std::max(dt, 1e-9)), 1, kBurstMaxCycles);
    }
  }
}
