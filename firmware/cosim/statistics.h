// The statistics the device process prints at exit and answers the control request stats with
// (README.md, "Control channel"; the harness and native/tests/guest.sh parse them).
#pragma once

#include <cstdint>
#include <string>

#include "board.h"

// how the serving loop spent its wall time
struct ServingTime {
  double start_s = 0;            // serving began
  double running_s = 0;          // wall time with the clock running (ticking, serving)
  uint64_t running_cycles = 0;   // cycles run in that time
  uint64_t idle_waits = 0;       // sleeps in poll() with the clock standing still
  int burst_cycles = 0;          // the current burst length (ServingLoop)
};

std::string statistics_text(const Board &board, const ServingTime &t);
// the line before them at exit
std::string exit_text(const Board &board, const ServingTime &t);
