// The guest RAM of the QEMU that owns an adapter, as QEMU shares it (SYNC_SYSMEM: memfd regions
// by guest-physical address, sent again at every change of the guest's memory layout). The
// adapter's DMA reads and writes it; bus address = guest-physical address (no IOMMU).
#pragma once

#include <cstdint>
#include <vector>

#include "proxy_link.h"

class GuestRam {
 public:
  explicit GuestRam(int adapter) : adapter_(adapter) {}
  GuestRam(const GuestRam &) = delete;
  GuestRam &operator=(const GuestRam &) = delete;
  ~GuestRam() { unmap(); }
  // drop the old mappings and map the regions of a SYNC_SYSMEM message; closes fds
  void remap(const SyncSysmem &s, const int *fds, int nfds);
  void unmap();
  // host address of [gpa, gpa + len) if it lies in one region, else nullptr
  uint8_t *at(uint64_t gpa, uint64_t len) const;

 private:
  struct Region {
    uint64_t gpa, size;
    uint8_t *host;
  };
  int adapter_;   // for messages
  std::vector<Region> regions_;
};
