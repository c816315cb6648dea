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
//
// kIm2col: the convolution's A operand gathered by the host, per A group (input channels
//   [icLo, icLo + icCount)) a matrix image of lanes = output pixels (raster order over
//   batch, row, column; tiles of laneTile) and depth icCount*fh*fw, t = (ic, fy, fx)
//   channel-major; taps in the padding and lanes past the last pixel hold `fill`:
//
//     group 0: tile 0 [t=0: px0 .. px15][t=1: ...] ... tile 1 ...     group 1: ...
//
//   A step's row tiles are then one contiguous DMA (no short rows: the RTL's DMA pays a
//   bus round trip per row). With upsampleH/upsampleW > 1 (transpose convolutions) the
//   taps read the input zero-inserted first: row y of the upsampled image is input row
//   y / upsampleH when upsampleH divides y and `fill` otherwise (the same for columns).
//   Sizes and pads are then the upsampled image's, height/width the input's.
// kBlockInput: a depthwise convolution's A operand for "output blocks" (conv_lowering.cc):
//   per input channel c and batch b, tiles of laneTile blocks (raster order over the
//   ceil(outH / blockH) x ceil(outW / blockW) blocks of blockH x blockW output pixels), each
//   tile windowH x windowW rows of laneTile bytes: row (v, u), lane i = the input at
//   (by*blockH*sh + v - padTop, bx*blockW*sw + u - padLeft) of block i = (by, bx).
// kChannelTiles: per matrix, per tile of laneTile channels, rows x laneTile bytes
//   (row r, channel c at [c / L][r][c % L]); the operand is [matrix][row][channel], or
//   NCHW [batches][channels][height][width] with rows = batches*height*width when
//   sourceNchw. A step stores each channel tile's rows as one contiguous run. As an input
//   it is the window mapping's (conv_lowering.cc): pixel vectors of a channel tile, the
//   channels past the last (in its last tile) zero when the host packs them, whatever a
//   producer's REQUANT_STORE left when it stays on the device (their weights are the
//   filter zero point, so they add exactly 0).
// kBlockOutput (output): per output channel and batch, per block (raster order) its
//   laneTile positions (dy, dx) of blockH x blockW output pixels: the ACC order of the
//   output-blocks mapping; operand NHWC (or NCHW when sourceNchw).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hal/result.h"

namespace nncosim::driver {

struct TensorLayout {
  enum class Kind {
    kRaw,
    kConvInput,
    kMatrixImage,
    kNchwFromNhwc,
    kIm2col,
    kBlockInput,
    kChannelTiles,
    kBlockOutput
  };
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

  // kMatrixImage (kChannelTiles: matrices, lanes = rows per matrix, laneTile)
  uint32_t matrices = 0, lanes = 0, depth = 0, laneTile = 16;
  bool lanesMajor = true;

  // kIm2col, kBlockInput, kBlockOutput: the convolution (batches, height, width, channels,
  // pads and fill as kConvInput; outHeight/outWidth the output's).
  uint32_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1, filterH = 1, filterW = 1;
  uint32_t outHeight = 0, outWidth = 0;
  std::vector<std::pair<uint32_t, uint32_t>> groups;  // kIm2col: (icLo, icCount) per A group
  uint32_t upsampleH = 1, upsampleW = 1;              // kIm2col: zero insertion (see above)
  uint32_t blockH = 1, blockW = 1, windowH = 1, windowW = 1;  // kBlockInput / kBlockOutput

  // Bytes per element (kNchwFromNhwc, kMatrixImage, kIm2col, kBlockInput, kChannelTiles,
  // kBlockOutput): 2 for the
  // 16x8 mode's int16 activations and outputs. Sizes and offsets below are in bytes.
  uint32_t elementBytes = 1;

  // Derived sizes.
  uint64_t rowBytes() const { return uint64_t{phases} * phaseWidth; }  // kConvInput
  uint64_t planeBytes() const { return rowBytes() * paddedHeight; }
  uint64_t imageBytes() const { return planeBytes() * channels; }
  uint64_t laneTiles() const { return (lanes + laneTile - 1) / laneTile; }
  uint64_t matrixImageBytes() const { return laneTiles() * depth * laneTile * elementBytes; }
  // kIm2col: row tiles over all output pixels, and the byte offset of group g's image.
  uint64_t im2colTiles() const {
    return (uint64_t{batches} * outHeight * outWidth + laneTile - 1) / laneTile;
  }
  uint64_t im2colGroupOffset(size_t g) const;
  // kBlockInput / kBlockOutput: blocks and tiles of blocks per image.
  uint64_t blocksPerImage() const {
    return uint64_t{(outHeight + blockH - 1) / blockH} * ((outWidth + blockW - 1) / blockW);
  }
  uint64_t blockTiles() const { return (blocksPerImage() + laneTile - 1) / laneTile; }
  // Bytes of the device buffer.
  uint64_t deviceBytes(uint64_t operandBytes) const;
  std::string describe() const;
  // The same device bytes for the same operand: every field equal. A consumer whose input
  // layout equals its producer's output layout reads the producer's buffer as it is.
  bool operator==(const TensorLayout& o) const;
  bool operator!=(const TensorLayout& o) const { return !(*this == o); }
};

// Operand bytes -> device bytes (size deviceBytes()).
hal::Result<std::vector<uint8_t>> packTensor(const TensorLayout& layout,
                                             const std::vector<uint8_t>& operand);
// Device bytes -> operand bytes (`operandBytes` long; kChannelTiles and kBlockOutput know
// the operand's size and also accept the device buffer's). Output layouts: kRaw,
// kNchwFromNhwc, kChannelTiles, kBlockOutput.
hal::Result<std::vector<uint8_t>> unpackTensor(const TensorLayout& layout,
                                               const std::vector<uint8_t>& device,
                                               uint64_t operandBytes);

}  // namespace nncosim::driver
