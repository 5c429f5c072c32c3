#include "guest_ram.h"

#include <cerrno>
#include <cstring>

#include <sys/mman.h>
#include <unistd.h>

#include "cosim_log.h"

void GuestRam::remap(const SyncSysmem &s, const int *fds, int nfds) {
  unmap();
  for (int i = 0; i < nfds; i++) {
    void *p = mmap(nullptr, s.sizes[i], PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], s.offsets[i]);
    if (p == MAP_FAILED)
      note("adapter %d: mmap of guest RAM region %d failed: %s", adapter_, i, strerror(errno));
    else
      regions_.push_back({s.gpas[i], s.sizes[i], static_cast<uint8_t *>(p)});
    close(fds[i]);
  }
}

void GuestRam::unmap() {
  for (auto &r : regions_) munmap(r.host, r.size);
  regions_.clear();
}

uint8_t *GuestRam::at(uint64_t gpa, uint64_t len) const {
  for (auto &r : regions_)
    if (gpa >= r.gpa && gpa + len <= r.gpa + r.size) return r.host + (gpa - r.gpa);
  return nullptr;
}
