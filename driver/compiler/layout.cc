#include "driver/compiler/layout.h"

#include <cstring>
#include <sstream>
#include <tuple>

namespace nncosim::driver {

uint64_t TensorLayout::im2colGroupOffset(size_t g) const {
  uint64_t at = 0;
  for (size_t i = 0; i < g && i < groups.size(); ++i)
    at += im2colTiles() * groups[i].second * filterH * filterW * laneTile * elementBytes;
  return at;
}

uint64_t TensorLayout::deviceBytes(uint64_t operandBytes) const {
  switch (kind) {
    case Kind::kRaw:
    case Kind::kNchwFromNhwc:
      return operandBytes;
    case Kind::kConvInput:
      return imageBytes() * batches;
    case Kind::kMatrixImage:
      return matrixImageBytes() * matrices;
    case Kind::kIm2col:
      return im2colGroupOffset(groups.size());
    case Kind::kBlockInput:
      return uint64_t{channels} * batches * blockTiles() * windowH * windowW * laneTile *
             elementBytes;
    case Kind::kChannelTiles:
      return uint64_t{matrices} * ((channels + laneTile - 1) / laneTile) * lanes * laneTile *
             elementBytes;
    case Kind::kBlockOutput:
      return uint64_t{channels} * batches * blocksPerImage() * laneTile * elementBytes;
  }
  return operandBytes;
}

bool TensorLayout::operator==(const TensorLayout& o) const {
  auto fields = [](const TensorLayout& l) {
    return std::tie(l.kind, l.batches, l.height, l.width, l.channels, l.sourceNchw, l.padTop,
                    l.padLeft, l.paddedHeight, l.paddedWidth, l.phases, l.phaseWidth, l.fill,
                    l.matrices, l.lanes, l.depth, l.laneTile, l.lanesMajor, l.strideH, l.strideW,
                    l.dilationH, l.dilationW, l.filterH, l.filterW, l.outHeight, l.outWidth,
                    l.groups, l.upsampleH, l.upsampleW, l.blockH, l.blockW, l.windowH, l.windowW,
                    l.elementBytes);
  };
  return fields(*this) == fields(o);
}

std::string TensorLayout::describe() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::kRaw:
      os << "raw";
      break;
    case Kind::kNchwFromNhwc:
      os << "NHWC on the device, NCHW operand [" << batches << "," << channels << "," << height
         << "," << width << "]";
      break;
    case Kind::kConvInput:
      os << "planar padded " << batches << "x" << channels << "x" << paddedHeight << "x"
         << paddedWidth << " (pad top " << padTop << ", left " << padLeft << ", " << phases
         << " W phase(s) of " << phaseWidth << ", fill " << int{fill} << ")"
         << (sourceNchw ? " from NCHW" : " from NHWC");
      break;
    case Kind::kMatrixImage:
      os << "matrix image " << matrices << "x" << lanes << " lanes x " << depth
         << " deep, tiles of " << laneTile
         << (lanesMajor ? " (source [lanes][K])" : " (source [K][lanes])");
      break;
    case Kind::kIm2col:
      os << "im2col image of " << groups.size() << " group(s), " << im2colTiles() << " tiles of "
         << laneTile << " output pixels, filter " << filterH << "x" << filterW << " (fill "
         << int{fill} << ")" << (sourceNchw ? " from NCHW" : " from NHWC");
      if (upsampleH > 1 || upsampleW > 1)
        os << ", input zero-inserted " << upsampleH << "x" << upsampleW;
      break;
    case Kind::kBlockInput:
      os << "output-block windows " << windowH << "x" << windowW << " of " << blockH << "x"
         << blockW << " blocks, " << channels << " channels x " << batches << " x " << blockTiles()
         << " tiles of " << laneTile << " (fill " << int{fill} << ")"
         << (sourceNchw ? " from NCHW" : " from NHWC");
      break;
    case Kind::kChannelTiles:
      os << "channel tiles of " << laneTile << ", " << matrices << "x" << lanes << " rows x "
         << channels << " channels" << (sourceNchw ? " (NCHW operand)" : "");
      break;
    case Kind::kBlockOutput:
      os << "output blocks " << blockH << "x" << blockW << ", " << channels << " channels x "
         << batches << " x " << blockTiles() << " tiles" << (sourceNchw ? " (NCHW operand)" : "");
      break;
  }
  return os.str();
}

namespace {

// Index of element (b, y, x, c) of a conv operand stored NHWC or NCHW.
inline uint64_t convIndex(const TensorLayout& l, uint32_t b, uint32_t y, uint32_t x, uint32_t c) {
  return l.sourceNchw ? ((uint64_t{b} * l.channels + c) * l.height + y) * l.width + x
                      : ((uint64_t{b} * l.height + y) * l.width + x) * l.channels + c;
}

}  // namespace

hal::Result<std::vector<uint8_t>> packTensor(const TensorLayout& l,
                                             const std::vector<uint8_t>& src) {
  switch (l.kind) {
    case TensorLayout::Kind::kRaw:
      return src;
    case TensorLayout::Kind::kNchwFromNhwc:
      return hal::fail("NCHW-from-NHWC is an output layout");
    case TensorLayout::Kind::kConvInput: {
      const uint64_t want = uint64_t{l.batches} * l.height * l.width * l.channels;
      if (src.size() != want)
        return hal::fail("conv input: ", src.size(), " bytes, expected ", want);
      std::vector<uint8_t> dst(l.deviceBytes(src.size()), l.fill);
      const uint64_t row = l.rowBytes(), plane = l.planeBytes(), image = l.imageBytes();
      for (uint32_t b = 0; b < l.batches; ++b)
        for (uint32_t y = 0; y < l.height; ++y)
          for (uint32_t x = 0; x < l.width; ++x) {
            const uint32_t px = x + l.padLeft;
            const uint64_t col = uint64_t{px % l.phases} * l.phaseWidth + px / l.phases;
            const uint64_t base = b * image + uint64_t{y + l.padTop} * row + col;
            for (uint32_t c = 0; c < l.channels; ++c) {
              const uint64_t s =
                  l.sourceNchw ? ((uint64_t{b} * l.channels + c) * l.height + y) * l.width + x
                               : ((uint64_t{b} * l.height + y) * l.width + x) * l.channels + c;
              dst[base + c * plane] = src[s];
            }
          }
      return dst;
    }
    case TensorLayout::Kind::kIm2col: {
      const uint64_t eb = l.elementBytes;
      const uint64_t want = uint64_t{l.batches} * l.height * l.width * l.channels * eb;
      if (src.size() != want)
        return hal::fail("im2col input: ", src.size(), " bytes, expected ", want);
      // Wider elements are symmetric (16x8 mode): the padding value is 0 in every byte.
      if (eb != 1 && l.fill != 0)
        return hal::fail("im2col input: ", eb, "-byte elements need fill 0");
      std::vector<uint8_t> dst(l.deviceBytes(src.size()), l.fill);
      const uint64_t pixels = uint64_t{l.batches} * l.outHeight * l.outWidth, L = l.laneTile;
      const uint32_t taps = l.filterH * l.filterW;
      for (size_t g = 0; g < l.groups.size(); ++g) {
        const uint32_t icLo = l.groups[g].first, icCount = l.groups[g].second;
        const uint64_t depth = uint64_t{icCount} * taps;
        uint8_t* image = dst.data() + l.im2colGroupOffset(g);
        for (uint64_t px = 0; px < pixels; ++px) {
          const uint32_t b = static_cast<uint32_t>(px / (uint64_t{l.outHeight} * l.outWidth));
          const uint32_t oy = static_cast<uint32_t>(px / l.outWidth % l.outHeight);
          const uint32_t ox = static_cast<uint32_t>(px % l.outWidth);
          uint8_t* lane = image + ((px / L) * depth * L + px % L) * eb;
          for (uint32_t fy = 0; fy < l.filterH; ++fy) {
            // Position in the (upsampled) padded image, then the input row it holds.
            const int64_t uy = int64_t{oy} * l.strideH + int64_t{fy} * l.dilationH - l.padTop;
            if (uy < 0 || uy % l.upsampleH != 0) continue;
            const int64_t iy = uy / l.upsampleH;
            if (iy >= l.height) continue;
            for (uint32_t fx = 0; fx < l.filterW; ++fx) {
              const int64_t ux = int64_t{ox} * l.strideW + int64_t{fx} * l.dilationW - l.padLeft;
              if (ux < 0 || ux % l.upsampleW != 0) continue;
              const int64_t ix = ux / l.upsampleW;
              if (ix >= l.width) continue;
              for (uint32_t ic = 0; ic < icCount; ++ic) {
                const uint64_t t = (uint64_t{ic} * l.filterH + fy) * l.filterW + fx;
                std::memcpy(lane + t * L * eb,
                            &src[convIndex(l, b, static_cast<uint32_t>(iy),
                                           static_cast<uint32_t>(ix), icLo + ic) *
                                 eb],
                            eb);
              }
            }
          }
        }
      }
      return dst;
    }
    case TensorLayout::Kind::kBlockInput: {
      const uint64_t eb = l.elementBytes;
      const uint64_t want = uint64_t{l.batches} * l.height * l.width * l.channels * eb;
      if (src.size() != want)
        return hal::fail("block input: ", src.size(), " bytes, expected ", want);
      if (eb != 1 && l.fill != 0)
        return hal::fail("block input: ", eb, "-byte elements need fill 0");
      std::vector<uint8_t> dst(l.deviceBytes(src.size()), l.fill);
      const uint64_t L = l.laneTile, nbx = (l.outWidth + l.blockW - 1) / l.blockW;
      const uint64_t blocks = l.blocksPerImage(), tiles = l.blockTiles();
      const uint64_t window = uint64_t{l.windowH} * l.windowW;
      for (uint32_t c = 0; c < l.channels; ++c)
        for (uint32_t b = 0; b < l.batches; ++b) {
          uint8_t* image = dst.data() + (uint64_t{c} * l.batches + b) * tiles * window * L * eb;
          for (uint64_t blk = 0; blk < blocks; ++blk) {
            const int64_t y0 = int64_t(blk / nbx) * l.blockH * l.strideH - l.padTop;
            const int64_t x0 = int64_t(blk % nbx) * l.blockW * l.strideW - l.padLeft;
            uint8_t* lane = image + ((blk / L) * window * L + blk % L) * eb;
            for (uint32_t v = 0; v < l.windowH; ++v) {
              const int64_t iy = y0 + v;
              if (iy < 0 || iy >= l.height) continue;
              for (uint32_t u = 0; u < l.windowW; ++u) {
                const int64_t ix = x0 + u;
                if (ix < 0 || ix >= l.width) continue;
                std::memcpy(
                    lane + (uint64_t{v} * l.windowW + u) * L * eb,
                    &src[convIndex(l, b, static_cast<uint32_t>(iy), static_cast<uint32_t>(ix), c) *
                         eb],
                    eb);
              }
            }
          }
        }
      return dst;
    }
    case TensorLayout::Kind::kChannelTiles: {
      // The inverse of unpackTensor's: channel c of row r of matrix m to [m][c / L][r][c % L].
      const uint64_t L = l.laneTile, rows = l.lanes, tiles = (l.channels + L - 1) / L;
      const uint64_t eb = l.elementBytes;
      const uint64_t n = uint64_t{l.matrices} * rows * l.channels * eb;
      if (src.size() != n) return hal::fail("channel tiles: ", src.size(), " bytes, expected ", n);
      if (l.sourceNchw && uint64_t{l.batches} * l.height * l.width != rows * l.matrices)
        return hal::fail("channel tiles: NCHW dimensions disagree with the rows");
      std::vector<uint8_t> dst(l.deviceBytes(n), 0);
      for (uint64_t m = 0; m < l.matrices; ++m)
        for (uint64_t c = 0; c < l.channels; ++c) {
          uint8_t* to = dst.data() + (((m * tiles + c / L) * rows) * L + c % L) * eb;
          for (uint64_t r = 0; r < rows; ++r) {
            uint64_t from;
            if (l.sourceNchw) {
              const uint64_t hw = uint64_t{l.height} * l.width, px = m * rows + r;
              from = ((px / hw) * l.channels + c) * hw + px % hw;
            } else {
              from = (m * rows + r) * l.channels + c;
            }
            std::memcpy(to + r * L * eb, &src[from * eb], eb);
          }
        }
      return dst;
    }
    case TensorLayout::Kind::kBlockOutput:
      return hal::fail(l.describe(), " is an output layout");
    case TensorLayout::Kind::kMatrixImage: {
      const uint64_t eb = l.elementBytes;
      const uint64_t matrix = uint64_t{l.lanes} * l.depth * eb;
      if (src.size() != matrix * l.matrices)
        return hal::fail("matrix image: ", src.size(), " bytes, expected ", matrix * l.matrices);
      if (eb != 1 && l.fill != 0)
        return hal::fail("matrix image: ", eb, "-byte elements need fill 0");
      std::vector<uint8_t> dst(l.deviceBytes(src.size()), l.fill);
      const uint64_t tileElems = uint64_t{l.depth} * l.laneTile;
      for (uint32_t m = 0; m < l.matrices; ++m) {
        const uint8_t* s = src.data() + m * matrix;
        uint8_t* d = dst.data() + m * l.matrixImageBytes();
        for (uint32_t lane = 0; lane < l.lanes; ++lane)
          for (uint32_t t = 0; t < l.depth; ++t) {
            const uint64_t from =
                l.lanesMajor ? uint64_t{lane} * l.depth + t : uint64_t{t} * l.lanes + lane;
            std::memcpy(d + ((lane / l.laneTile) * tileElems + uint64_t{t} * l.laneTile +
                             lane % l.laneTile) *
                                eb,
                        s + from * eb, eb);
          }
      }
      return dst;
    }
  }
  return hal::fail("unknown layout");
}

hal::Result<std::vector<uint8_t>> unpackTensor(const TensorLayout& l,
                                               const std::vector<uint8_t>& device,
                                               uint64_t operandBytes) {
  switch (l.kind) {
    case TensorLayout::Kind::kRaw:
      if (device.size() < operandBytes)
        return hal::fail("raw output: ", device.size(), " device bytes for ", operandBytes);
      return std::vector<uint8_t>(device.begin(), device.begin() + operandBytes);
    case TensorLayout::Kind::kNchwFromNhwc: {
      const uint64_t eb = l.elementBytes;
      const uint64_t n = uint64_t{l.batches} * l.height * l.width * l.channels * eb;
      if (device.size() < n || operandBytes != n)
        return hal::fail("NCHW output: ", device.size(), " device bytes, ", operandBytes,
                         " operand bytes, expected ", n);
      std::vector<uint8_t> out(n);
      for (uint32_t b = 0; b < l.batches; ++b)
        for (uint32_t y = 0; y < l.height; ++y)
          for (uint32_t x = 0; x < l.width; ++x)
            for (uint32_t c = 0; c < l.channels; ++c) {
              const uint64_t from =
                  (((uint64_t{b} * l.height + y) * l.width + x) * l.channels + c) * eb;
              const uint64_t to =
                  (((uint64_t{b} * l.channels + c) * l.height + y) * l.width + x) * eb;
              std::memcpy(out.data() + to, device.data() + from, eb);
            }
      return out;
    }
    case TensorLayout::Kind::kChannelTiles: {
      const uint64_t L = l.laneTile, rows = l.lanes, tiles = (l.channels + L - 1) / L;
      const uint64_t eb = l.elementBytes;
      const uint64_t n = uint64_t{l.matrices} * rows * l.channels * eb;
      // operandBytes may be the device buffer's size: the layout knows the operand's.
      if ((operandBytes != n && operandBytes != device.size()) || device.size() < l.deviceBytes(n))
        return hal::fail("channel-tile output: ", device.size(), " device bytes, ", operandBytes,
                         " operand bytes, expected ", n);
      if (l.sourceNchw && uint64_t{l.batches} * l.height * l.width != rows * l.matrices)
        return hal::fail("channel-tile output: NCHW dimensions disagree with the rows");
      std::vector<uint8_t> out(n);
      for (uint64_t m = 0; m < l.matrices; ++m)
        for (uint64_t c = 0; c < l.channels; ++c) {
          const uint8_t* from = device.data() + (((m * tiles + c / L) * rows) * L + c % L) * eb;
          for (uint64_t r = 0; r < rows; ++r) {
            uint64_t to;
            if (l.sourceNchw) {
              const uint64_t hw = uint64_t{l.height} * l.width, px = m * rows + r;
              to = ((px / hw) * l.channels + c) * hw + px % hw;
            } else {
              to = (m * rows + r) * l.channels + c;
            }
            std::memcpy(&out[to * eb], from + r * L * eb, eb);
          }
        }
      return out;
    }
    case TensorLayout::Kind::kBlockOutput: {
      const uint64_t L = l.laneTile, eb = l.elementBytes;
      const uint64_t n = uint64_t{l.batches} * l.outHeight * l.outWidth * l.channels * eb;
      if ((operandBytes != n && operandBytes != device.size()) || device.size() < l.deviceBytes(n))
        return hal::fail("block output: ", device.size(), " device bytes, ", operandBytes,
                         " operand bytes, expected ", n);
      std::vector<uint8_t> out(n);
      const uint64_t nbx = (l.outWidth + l.blockW - 1) / l.blockW, blocks = l.blocksPerImage();
      for (uint32_t c = 0; c < l.channels; ++c)
        for (uint32_t b = 0; b < l.batches; ++b) {
          const uint8_t* image = device.data() + (uint64_t{c} * l.batches + b) * blocks * L * eb;
          for (uint64_t blk = 0; blk < blocks; ++blk) {
            const uint64_t by = blk / nbx, bx = blk % nbx;
            for (uint32_t dy = 0; dy < l.blockH; ++dy) {
              const uint64_t oy = by * l.blockH + dy;
              if (oy >= l.outHeight) break;
              for (uint32_t dx = 0; dx < l.blockW; ++dx) {
                const uint64_t ox = bx * l.blockW + dx;
                if (ox >= l.outWidth) break;
                const uint64_t to =
                    l.sourceNchw
                        ? ((uint64_t{b} * l.channels + c) * l.outHeight + oy) * l.outWidth + ox
                        : ((uint64_t{b} * l.outHeight + oy) * l.outWidth + ox) * l.channels + c;
                std::memcpy(&out[to * eb], image + (blk * L + uint64_t{dy} * l.blockW + dx) * eb,
                            eb);
              }
            }
          }
        }
      return out;
    }
    default:
      return hal::fail("layout ", l.describe(), " is not an output layout");
  }
}

}  // namespace nncosim::driver
