#include "board.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace {

// adapter k's serial number (cosim_top's serial_i): kSerialBase + k
constexpr uint32_t kSerialBase = 0x1000;

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

}  // namespace

Board::Board(const std::vector<int> &fds, ClockScheduler clock)
    : top_(new Vcosim_top), clock_(clock) {
  for (int k = 0; k < kCables; k++) {
    top_->flip_ppm_i[k] = 0;
    top_->stall_pct_i[k] = 0;
    top_->cut_i[k] = 0;
  }
  top_->hub_rst_ni = 0;
  // every adapter the model has, the ones without a socket included, held in reset
  for (int k = 0; k < kAdapters; k++) {
    top_->peer_i[k] = kNoPeer;
    top_->serial_i[k] = kSerialBase + k;
    top_->rst_ni[k] = 0;
    AdapterPort::drive_idle(*top_, k);
  }
  for (int k = 0; k < int(fds.size()); k++) adapters_.emplace_back(new Adapter(*top_, k, fds[k]));
}

Board::~Board() = default;

bool Board::plug(unsigned a, unsigned b) {
  if (top_->peer_i[a] != kNoPeer || top_->peer_i[b] != kNoPeer) return false;
  top_->peer_i[a] = b;
  top_->peer_i[b] = a;
  return true;
}

void Board::power_on_reset() {
  for (uint32_t i = 0; i < AdapterPort::kResetCycles; i++) tick();
  for (int k = 0; k < kAdapters; k++) top_->rst_ni[k] = 1;
  top_->hub_rst_ni = 1;
}

bool Board::busy() const {
  bool busy = false;
  for (const auto &a : adapters_) busy |= a->port.busy();
  return busy;
}

void Board::tick() {
  Fire f[kAdapters];
  int n = adapters();
  top_->clk_i = 0;
  top_->eval();
  for (int k = 0; k < n; k++) f[k] = adapters_[k]->port.before_edge();
  latency_.on_cycle(f, n, clock_.cycle());
  // the beats are in guest RAM before the clock edge that follows them
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  top_->clk_i = 1;
  top_->eval();
  clock_.advance();
  for (int k = 0; k < n; k++) {
    if (f[k].moves_data()) clock_.data();
    adapters_[k]->port.after_edge(f[k]);
  }
}

bool Board::has_cable(unsigned c) const {
  return c < unsigned(cables()) && !(kHub && c < kAdapters && c >= unsigned(adapters()));
}

void Board::set_stall_pct(unsigned c, uint32_t pct) {
  top_->stall_pct_i[c] = pct;
  // the receiving adapter's CLOCK_LINK_DELAY follows its cable (the hub is the master)
  for (int k = 0; k < adapters(); k++)
    if (cable_into(k) == int(c)) adapters_[k]->port.set_link_delay_due();
}

// the cable whose far end is adapter k's receiver, -1 if none
int Board::cable_into(int k) const {
  if (kHub) return kAdapters + k;
  for (int j = 0; j < adapters(); j++)
    if (top_->peer_i[j] == k) return j;
  return -1;
}

uint32_t Board::link_delay_for(int k) const {
  int c = cable_into(k);
  uint32_t spread = c < 0 ? 0 : cable_spread(top_->stall_pct_i[c]);
  return spread << MC_CLOCK_LINK_DELAY_SPREAD_SHIFT | kCableMinLatency;
}

void Board::write_link_delay(int k) { adapters_[k]->port.write_link_delay(link_delay_for(k)); }

// the hub's master time and every adapter's time, VALID, error against the master (hub only)
// and the link delay we set
std::string Board::clock_text() const {
  char buf[256];
  std::string s;
  if (kHub)
    snprintf(buf, sizeof(buf), "master hub time %" PRIu64 "\n", uint64_t(top_->master_time_o));
  else
    snprintf(buf, sizeof(buf), "master adapter (back to back: the lower node ID)\n");
  s += buf;
  for (int k = 0; k < adapters(); k++) {
    uint32_t d = link_delay_for(k);
    std::string err = "n/a", up = "n/a";
    if (kHub) {
      err = std::to_string(int64_t(top_->ad_time_o[k]) - int64_t(top_->master_time_o));
      up = std::to_string((top_->hub_port_up_o >> k) & 1);
    }
    snprintf(buf, sizeof(buf),
             "adapter %d time %" PRIu64 " valid %d error %s min %u spread %u port_up %s\n", k,
             uint64_t(top_->ad_time_o[k]), int(top_->ad_time_valid_o[k]), err.c_str(),
             d & MC_CLOCK_LINK_DELAY_MIN_MASK, d >> MC_CLOCK_LINK_DELAY_SPREAD_SHIFT, up.c_str());
    s += buf;
  }
  return s;
}
