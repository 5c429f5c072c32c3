#include "proxy_link.h"

#include <cerrno>
#include <cinttypes>
#include <cstring>

#include <sys/socket.h>
#include <unistd.h>

#include "cosim_log.h"

namespace {

bool read_full(int fd, void *buf, size_t len) {
  uint8_t *p = static_cast<uint8_t *>(buf);
  while (len) {
    ssize_t n = read(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= n;
  }
  return true;
}

}  // namespace

bool ProxyLink::receive(ProxyMessage &m) {
  MsgHeader h;
  char cbuf[CMSG_SPACE(sizeof(int) * kMaxFds)];
  iovec iov = {&h, sizeof(h)};
  msghdr mh = {};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = cbuf;
  mh.msg_controllen = sizeof(cbuf);
  ssize_t n;
  do {
    n = recvmsg(fd_, &mh, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    note("adapter %d: QEMU closed the socket", adapter_);
    open_ = false;
    return false;
  }
  // the descriptors travel with the header's first bytes
  m.nfds = 0;
  for (cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int cnt = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (int i = 0; i < cnt && m.nfds < kMaxFds; i++)
        memcpy(&m.fds[m.nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
    }
  }
  if (n < ssize_t(sizeof(h)) &&
      !read_full(fd_, reinterpret_cast<uint8_t *>(&h) + n, sizeof(h) - n)) {
    open_ = false;
    return false;
  }
  if (h.size > sizeof(m.payload) || !read_full(fd_, m.payload, h.size)) {
    note("adapter %d: bad message %d of %" PRIu64 " bytes", adapter_, h.cmd, h.size);
    open_ = false;
    return false;
  }
  m.cmd = h.cmd;
  m.size = h.size;
  return true;
}

void ProxyLink::reply(uint64_t v) {
  if (fd_ < 0) return;
  struct {
    MsgHeader h;
    uint64_t v;
  } m = {{kRet, 0, 8}, v};
  const uint8_t *p = reinterpret_cast<const uint8_t *>(&m);
  size_t len = sizeof(m);
  while (len) {
    ssize_t n = write(fd_, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      note("adapter %d: reply failed: %s", adapter_, strerror(errno));
      open_ = false;
      return;
    }
    p += n;
    len -= n;
  }
}
