// Host-side layouts of tensors in device DRAM: how the runtime turns a model operand's
// bytes (NNAPI layout, row-major) into a device buffer's bytes and back.
//
// The NPU reads activations k-major (docs/isa.md: A[i][t] at (t*R + i)), so for each
// reduction step t the R lanes i must be adjacent. Lanes are output pixels (convolutions)
// or matrix rows (FULLY_CONNECTED, BATCH_MATMUL); the layouts below make those lanes
// contiguous in DRAM so that DMA_LOAD moves whole rows instead of single bytes.
//
// kConvInput: planar, zero-point padded, and split into W phases by the stride.
//   For each image b and channel c, a plane of Hp rows; each row holds `phases` (= stride
//   w) runs of Wq bytes, run p holding padded columns p, p + sw, p + 2sw, ...:
//
//     padded column x:  0 1 2 3 4 5 6 7          (sw = 2, Wp = 8, Wq = 4)
//     row in DRAM:     [0 2 4 6 | 1 3 5 7]
//
//   Output pixel ox reads padded column ox*sw + fx*dw = (ox + q)*sw + p with
//   p = (fx*dw) mod sw, q = (fx*dw) div sw: for a fixed tap, consecutive output pixels
//   are consecutive bytes of run p, whatever the stride. Padding bytes hold the input
//   zero point, so they contribute (zp - zp) * w = 0 to every sum, exactly as the
//   reference skips them.
//
// kMatrixImage: a batch of matrices as GEMM operand images: lanes (matrix rows or
//   columns) in tiles of L, each tile K rows of L bytes (k-major), lanes past the matrix
//   filled with `fill`:
//
//     tile 0: [t=0: lane0 lane1 .. lane L-1][t=1: ...] ... [t=K-1: ...]   tile 1: ...
//
//   `lanesMajor` says how the source is stored: [lanes][K] (true) or [K][lanes].
//
// kNchwFromNhwc: the device holds NHWC, the operand is NCHW (outputs of NCHW layers).
// kRaw: byte for byte.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hal/result.h"

namespace nncosim::driver {

struct TensorLayout {
  enum class Kind { kRaw, kConvInput, kMatrixImage, kNchwFromNhwc };
  Kind kind = Kind::kRaw;

  // kConvInput (dimensions of the unpadded NHWC tensor) and kNchwFromNhwc (the device's
  // NHWC dimensions).
  uint32_t batches = 0, height = 0, width = 0, channels = 0;
  bool sourceNchw = false;  // kConvInput: the operand is NCHW
  uint32_t padTop = 0, padLeft = 0;
  uint32_t paddedHeight = 0, paddedWidth = 0;
  uint32_t phases = 1;      // stride w
  uint32_t phaseWidth = 0;  // Wq = ceil(paddedWidth / phases)
  uint8_t fill = 0;         // zero point byte

  // kMatrixImage
  uint32_t matrices = 0, lanes = 0, depth = 0, laneTile = 16;
  bool lanesMajor = true;

  uint32_t elementBytes = 1;

  // Derived sizes.
  uint64_t rowBytes() const { return uint64_t{phases} * phaseWidth; }  // kConvInput
  uint64_t planeBytes() const { return rowBytes() * paddedHeight; }
  uint64_t imageBytes() const { return planeBytes() * channels; }
  uint64_t laneTiles() const { return (lanes + laneTile - 1) / laneTile; }
  uint64_t matrixImageBytes() const { return laneTiles() * depth * laneTile; }
  // Bytes of the device buffer.
  uint64_t deviceBytes(uint64_t operandBytes) const;
  std::string describe() const;
};

// Operand bytes -> device bytes (size deviceBytes()).
hal::Result<std::vector<uint8_t>> packTensor(const TensorLayout& layout,
                                             const std::vector<uint8_t>& operand);
// Device bytes -> operand bytes (`operandBytes` long). Only kRaw and kNchwFromNhwc are
// output layouts.
hal::Result<std::vector<uint8_t>> unpackTensor(const TensorLayout& layout,
                                               const std::vector<uint8_t>& device,
                                               uint64_t operandBytes);

}  // namespace nncosim::driver
