#include "control_dir.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <unistd.h>

#include "cosim_log.h"

namespace {

// the answer to one request line, having acted on it
std::string control_request(Board &board, const ServingTime &t, const std::string &req) {
  char cmd[32] = "";
  unsigned cable = 0, value = 0, count = 0;
  int n = sscanf(req.c_str(), "%31s %u %u %u", cmd, &cable, &value, &count);
  std::string c = cmd;
  int nadapters = board.adapters();
  if (c == "stats" && n == 1) return "ok\n" + statistics_text(board, t);
  if (c == "clock" && n == 1) return "ok\n" + board.clock_text();
  if (c == "idle-cycles" && n == 2) {
    // cable holds the number here (one argument); a run already extended keeps its end
    if (cable < 1) return "error: idle cycles must be at least 1\n";
    board.clock().set_idle_cycles(cable);
    return "ok\n";
  }
  if (c == "latency-reset" && n == 1) {
    board.latency().reset();
    return "ok\n";
  }
  if (c == "window-drop" && n == 4) {
    if (cable >= unsigned(nadapters)) return "error: no adapter " + std::to_string(cable) + "\n";
    if (value >= kPages || count > kPages - value) return "error: pages out of range\n";
    board.adapter(cable).port.drop_window_pages(value, count);
    return "ok\n";
  }
  if (c == "dma-error" && n == 3) {
    if (cable >= unsigned(nadapters)) return "error: no adapter " + std::to_string(cable) + "\n";
    board.adapter(cable).port.fail_dma_bursts(value);
    return "ok\n";
  }
  if ((c == "flip" || c == "stall" || c == "cut") && n == 3) {
    if (!board.has_cable(cable)) return "error: no cable " + std::to_string(cable) + "\n";
    if (c == "flip") {
      if (value > 1000000) return "error: ppm out of range\n";
      board.set_flip_ppm(cable, value);
    } else if (c == "stall") {
      if (value > 99) return "error: percent out of range\n";
      board.set_stall_pct(cable, value);
    } else {
      if (value > 1) return "error: cut is 0 or 1\n";
      board.set_cut(cable, value);
    }
    // let the next cycle carry the new setting into the cable
    board.clock().configuration();
    return "ok\n";
  }
  return "error: unknown request: " + req + "\n";
}

}  // namespace

void ControlDirectory::poll(Board &board, const ServingTime &t) {
  if (dir_.empty()) return;
  std::string rq = dir_ + "/request";
  FILE *f = fopen(rq.c_str(), "r");
  if (!f) return;
  char line[256] = "";
  if (!fgets(line, sizeof(line), f)) line[0] = 0;
  fclose(f);
  unlink(rq.c_str());
  std::string req = line;
  while (!req.empty() && (req.back() == '\n' || req.back() == '\r')) req.pop_back();
  std::string ans = control_request(board, t, req);
  std::string tmp = dir_ + "/ack.tmp";
  FILE *o = fopen(tmp.c_str(), "w");
  if (!o) {
    note("cannot write %s: %s", tmp.c_str(), strerror(errno));
    return;
  }
  fputs(ans.c_str(), o);
  fclose(o);
  rename(tmp.c_str(), (dir_ + "/ack").c_str());
  note("control: %s -> %s", req.c_str(), ans.substr(0, ans.find('\n')).c_str());
}
