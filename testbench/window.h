// GEMM window mode's window as the window_seq and window_fetch harnesses drive it: the
// fields of nnc_window_seq's start port, the address formula both check against (computed
// with multiplications; the RTL uses running sums), and the port assignments.
#pragma once

#include <cstdint>

#include "firmware/isa_generated.h"

namespace nncosim::testbench {

inline constexpr uint32_t kWindowAddrMask = (1u << firmware::kBufAddrBits) - 1;

struct Window {
  bool wide = false;  // 16-bit elements (wide_i)
  uint32_t base, m, vec, taps, k, laneStride, tapStride, tileStride;
};

// Vector i of block j: base + i*lane_stride + (j % taps)*tap_stride + (j / taps)*tile_stride,
// wrapping at the buffer address width as the sequencer's sums do.
inline uint32_t windowVectorAddress(const Window& w, uint32_t i, uint32_t j) {
  const uint64_t a = uint64_t{w.base} + uint64_t{i} * w.laneStride +
                     uint64_t{j % w.taps} * w.tapStride + uint64_t{j / w.taps} * w.tileStride;
  return static_cast<uint32_t>(a) & kWindowAddrMask;
}

// Whether one INP read serves lanes i and i + 1 (ISA 1.10): both vectors within the 2R
// bytes a read returns.
inline bool windowPairs(const Window& w) {
  return uint64_t{w.laneStride} + uint64_t{w.vec} * (w.wide ? 2 : 1) <=
         2 * uint64_t{firmware::kArrayRows};
}

// The window's fields on a top's start port (nnc_window_seq's names).
template <typename Top>
void driveWindow(Top& dut, const Window& w) {
  dut->wide_i = w.wide;
  dut->base_i = w.base;
  dut->m_i = static_cast<uint8_t>(w.m);
  dut->vec_i = static_cast<uint8_t>(w.vec);
  dut->taps_i = static_cast<uint8_t>(w.taps);
  dut->k_i = static_cast<uint16_t>(w.k);
  dut->lane_stride_i = w.laneStride;
  dut->tap_stride_i = static_cast<uint16_t>(w.tapStride);
  dut->tile_stride_i = w.tileStride;
}

}  // namespace nncosim::testbench
