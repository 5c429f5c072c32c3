// One adapter's PCI configuration space as the guest sees it: the IDs of memchan_regs.h, two
// 32-bit memory BARs (BAR0 registers, BAR2 the transmit window), no capabilities, no interrupt
// pin. QEMU forwards every config write, so this copy of the BARs decodes the guest-physical
// address of each BAR access.
#pragma once

#include <cstdint>

constexpr uint32_t kBarRegs = 0;
constexpr uint32_t kBarWindow = 2;

class PciConfig {
 public:
  PciConfig() { reset(); }
  void reset();
  uint32_t read(uint32_t addr, int len) const;
  void write(uint32_t addr, uint32_t val, int len);
  // the BAR and offset of a guest-physical address, false outside both BARs
  bool decode(uint64_t addr, uint32_t *bar, uint64_t *off) const;

 private:
  uint8_t cfg_[256];
};
