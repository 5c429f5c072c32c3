// What the device process says on stderr ("memchan-cosim: ..." lines, which launch.py copies
// to the boot's log) and the clocks it measures itself by.
#pragma once

#include <ctime>

void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

inline double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

inline double cpu_s() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
