// Serving the guests: waits for proxy messages and control requests, answers them, and runs the
// board's clock while a request is in progress or ClockScheduler says it runs on. Until every
// socket is closed or SIGTERM / SIGINT arrives.
#pragma once

#include <csignal>

#include "board.h"
#include "control_dir.h"
#include "statistics.h"

class ServingLoop {
 public:
  // SIGTERM and SIGINT, blocked from start-up on in every thread (called before any other
  // thread starts): one sent at any time ends the serving loop through a signalfd, not the
  // process
  static sigset_t block_stop_signals();

  ServingLoop(Board &board, ControlDirectory control, const sigset_t &stop_signals);
  ~ServingLoop();
  ServingLoop(const ServingLoop &) = delete;
  ServingLoop &operator=(const ServingLoop &) = delete;

  void run();
  const ServingTime &time() const { return time_; }

 private:
  void serve_message(Adapter &a);
  void start_bar(Adapter &a, const BarMsg &m, bool write);

  Board &board_;
  ControlDirectory control_;
  int signal_fd_;
  ServingTime time_;
};
