#include "pci_config.h"

#include <cstring>
#include <initializer_list>

#include "cosim_geometry.h"

namespace {

// PCI class code: network controller, other (0x0280)
constexpr uint32_t kClassNetOther = 0x028000;

void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

uint64_t bar_size(uint32_t bar) { return bar == kBarRegs ? MC_BAR0_SIZE : kWindowSize; }

}  // namespace

void PciConfig::reset() {
  memset(cfg_, 0, sizeof(cfg_));
  put16(cfg_ + 0x00, MC_PCI_VENDOR);
  put16(cfg_ + 0x02, MC_PCI_DEVICE);
  put32(cfg_ + 0x08, kClassNetOther << 8);        // revision 0
  put16(cfg_ + 0x2c, MC_PCI_VENDOR);              // subsystem
  put16(cfg_ + 0x2e, MC_PCI_DEVICE);
  // BAR0: 32-bit non-prefetchable memory; BAR2: 32-bit prefetchable (write-combined window)
  put32(cfg_ + 0x10 + 4 * kBarWindow, 0x8);
  // status: no capability list; interrupt pin 0: no INTx, no MSI/MSI-X
}

uint32_t PciConfig::read(uint32_t addr, int len) const {
  uint32_t v = 0;
  if (addr + len <= sizeof(cfg_)) memcpy(&v, cfg_ + addr, len);
  return v;
}

void PciConfig::write(uint32_t addr, uint32_t val, int len) {
  if (len < 1 || len > 4 || addr + len > sizeof(cfg_)) return;
  uint32_t dw = addr & ~3u;
  if (dw >= 0x10 && dw < 0x28) {
    // BARs: only the address bits above the size are writable; 1 and 3-5 do not exist
    uint32_t bar = (dw - 0x10) / 4;
    if (bar != kBarRegs && bar != kBarWindow) return;
    uint32_t cur = get32(cfg_ + dw);
    uint32_t shift = 8 * (addr & 3);
    uint32_t bytes = len == 4 ? ~0u : ((1u << (8 * len)) - 1) << shift;
    uint32_t nv = (cur & ~bytes) | ((val << shift) & bytes);
    put32(cfg_ + dw, (nv & ~uint32_t(bar_size(bar) - 1)) | (cur & 0xf));
    return;
  }
  for (int i = 0; i < len; i++) {
    uint32_t r = addr + i;
    if (r == 0x04 || r == 0x05 || r == 0x3c) cfg_[r] = uint8_t(val >> (8 * i));   // command, line
  }
}

bool PciConfig::decode(uint64_t addr, uint32_t *bar, uint64_t *off) const {
  for (uint32_t b : {kBarRegs, kBarWindow}) {
    uint64_t base = get32(cfg_ + 0x10 + 4 * b) & ~0xfull;
    if (base && addr >= base && addr < base + bar_size(b)) {
      *bar = b;
      *off = addr - base;
      return true;
    }
  }
  return false;
}
