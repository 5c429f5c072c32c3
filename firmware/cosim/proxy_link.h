// QEMU's x-pci-proxy-dev protocol (include/hw/remote/mpqemu-link.h in QEMU 7.2): the wire format
// and one adapter's connected UNIX socket. QEMU asks, we answer; SYNC_SYSMEM and SET_IRQFD carry
// file descriptors and get no answer, every other message gets one RET.
#pragma once

#include <cstdint>

enum MsgCmd : int32_t {
  kSyncSysmem = 0,
  kRet = 1,
  kCfgWrite = 2,
  kCfgRead = 3,
  kBarWrite = 4,
  kBarRead = 5,
  kSetIrqfd = 6,
  kDeviceReset = 7,
};

struct MsgHeader {
  int32_t cmd;
  uint32_t pad;
  uint64_t size;
};

constexpr int kMaxFds = 8;

struct SyncSysmem {
  uint64_t gpas[kMaxFds];
  uint64_t sizes[kMaxFds];
  int64_t offsets[kMaxFds];
};

struct CfgMsg {
  uint32_t addr;
  uint32_t val;
  int32_t len;
};

struct BarMsg {
  uint64_t addr;
  uint64_t val;
  uint32_t size;
  uint8_t memory;
  uint8_t pad[3];
};

// one message as received: its command, payload and the descriptors that came with it
struct ProxyMessage {
  int32_t cmd = 0;
  uint64_t size = 0;
  uint8_t payload[256];
  int fds[kMaxFds];
  int nfds = 0;
};

class ProxyLink {
 public:
  // fd -1: no QEMU (--speed); replies go nowhere
  ProxyLink(int adapter, int fd) : adapter_(adapter), fd_(fd), open_(true) {}
  int fd() const { return fd_; }
  bool open() const { return open_; }
  // the next message; false when the socket closed or the message was malformed (then closed)
  bool receive(ProxyMessage &m);
  void reply(uint64_t v);

 private:
  int adapter_;   // for messages
  int fd_;
  bool open_;
};
