// The control directory (--ctl DIR; README.md, "Control channel"): a guest, which cannot reach
// host sockets, writes one request line to DIR/request; we answer in DIR/ack (first line ok or
// error: ..., then any data). Fault injection, the clock's settings and the statistics.
#pragma once

#include <string>
#include <utility>

#include "board.h"
#include "statistics.h"

class ControlDirectory {
 public:
  // dir empty: no control directory
  explicit ControlDirectory(std::string dir) : dir_(std::move(dir)) {}
  // answer the request waiting in the directory, if any
  void poll(Board &board, const ServingTime &t);

 private:
  std::string dir_;
};
