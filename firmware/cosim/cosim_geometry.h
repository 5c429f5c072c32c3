// The shape of the Verilated model (cosim_top.sv): how many adapters and cables, the transmit
// window. COSIM_ADAPTERS, COSIM_HUB and COSIM_PAGES come from build.sh, which passes the same
// values to the model as its parameters (PAGES: the board's MC_BOARD_PAGES).
#pragma once

#include <cstdint>

extern "C" {
#include "memchan_regs.h"
}

constexpr int kAdapters = COSIM_ADAPTERS;
constexpr bool kHub = COSIM_HUB;
// cable k leaves adapter k; with the hub, cable kAdapters + k leaves hub port k for adapter k
constexpr int kCables = kHub ? 2 * kAdapters : kAdapters;
constexpr uint32_t kPages = COSIM_PAGES;
constexpr uint32_t kPageSize = MC_BOARD_PAGE_SIZE;
constexpr uint64_t kWindowSize = uint64_t(kPages) * kPageSize;
// cosim_top's peer_i for a transmitter with no cable (any value of ADAPTERS or more)
constexpr uint32_t kNoPeer = 0xff;
