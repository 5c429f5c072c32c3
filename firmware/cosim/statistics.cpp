#include "statistics.h"

#include <cinttypes>
#include <cstdio>

#include <sys/resource.h>

#include "cosim_log.h"

std::string statistics_text(const Board &board, const ServingTime &t) {
  const ClockScheduler &clock = board.clock();
  const Vcosim_top &top = board.model();
  char buf[512];
  std::string s;
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  snprintf(buf, sizeof(buf), "cycles %" PRIu64 " cpu_seconds %.3f wall_seconds %.3f\n",
           clock.cycle(),
           ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
               (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6,
           now_s() - t.start_s);
  s += buf;
  // how much of the wall time the clock ran, and for how long a BAR0 write (idle_cycles) and
  // data (link_tail) keep it running (a guest that stores every 100 ms keeps the clock running
  // all the time if that run is longer than 100 ms)
  snprintf(buf, sizeof(buf),
           "running wall_seconds %.3f idle_cycles %" PRIu64 " link_tail %" PRIu64
           " quiet_stops %" PRIu64 " burst_cycles %d\n",
           t.running_s, clock.idle_cycles(), clock.link_tail(), clock.quiet_stops(),
           t.burst_cycles);
  s += buf;
  for (int k = 0; k < board.adapters(); k++) {
    const AdapterCounters &a = board.adapter(k).port.counters();
    snprintf(buf, sizeof(buf),
             "adapter %d bar_reads %" PRIu64 " bar_writes %" PRIu64 " window_writes %" PRIu64
             " dma_beats %" PRIu64 " dma_bytes %" PRIu64 " dma_unmapped %" PRIu64
             " dma_failed %" PRIu64 " window_dropped %" PRIu64 " resets %" PRIu64
             " dma_read_beats %" PRIu64 " dma_read_unmapped %" PRIu64 "\n",
             k, a.bar_reads, a.bar_writes, a.win_writes, a.dma_beats, a.dma_bytes,
             a.dma_unmapped, a.dma_failed, a.win_dropped, a.resets, a.dma_read_beats,
             a.dma_read_unmapped);
    s += buf;
  }
  auto span = [&](const char *what, const Span &sp) {
    snprintf(buf, sizeof(buf),
             "%s n %" PRIu64 " min %" PRIu64 " mean %.1f max %" PRIu64 " cycles\n", what, sp.n,
             sp.min, sp.n ? double(sp.sum) / sp.n : 0.0, sp.max);
    s += buf;
  };
  const LatencyStats &lat = board.latency();
  span("latency window_write_to_dma", lat.window_write_to_dma());
  span("remote write", lat.remote_write());
  span("remote read", lat.remote_read());
  span("remote atomic", lat.remote_atomic());
  for (int k = 0; k < board.cables(); k++) {
    std::string ends;
    if (kHub && k < kAdapters)
      ends = "from adapter " + std::to_string(k) + " to hub port " + std::to_string(k);
    else if (kHub)
      ends = "from hub port " + std::to_string(k - kAdapters) + " to adapter " +
             std::to_string(k - kAdapters);
    else
      ends = "peer " + std::to_string(top.peer_i[k] == kNoPeer ? -1 : int(top.peer_i[k]));
    snprintf(buf, sizeof(buf),
             "cable %d %s words %" PRIu64 " flips %" PRIu64 " flip_ppm %u stall_pct %u cut %d\n",
             k, ends.c_str(), uint64_t(top.words_o[k]), uint64_t(top.flips_o[k]),
             top.flip_ppm_i[k], top.stall_pct_i[k], int(top.cut_i[k]));
    s += buf;
  }
  return s;
}

std::string exit_text(const Board &board, const ServingTime &t) {
  double wall = now_s() - t.start_s;
  char buf[256];
  snprintf(buf, sizeof(buf),
           "memchan-cosim: exit after %.1f s, %" PRIu64 " cycles (%.0f cycles/s of wall time "
           "with the clock running, which ran %.1f%% of the time), %" PRIu64 " idle waits\n",
           wall, board.clock().cycle(), t.running_s > 0 ? t.running_cycles / t.running_s : 0.0,
           wall > 0 ? 100.0 * t.running_s / wall : 0.0, t.idle_waits);
  return buf;
}
