#include "driver/compiler/layout.h"

#include <cstring>
#include <sstream>

namespace nncosim::driver {

uint64_t TensorLayout::deviceBytes(uint64_t operandBytes) const {
  switch (kind) {
    case Kind::kRaw:
    case Kind::kNchwFromNhwc:
      return operandBytes;
    case Kind::kConvInput:
      return imageBytes() * batches;
    case Kind::kMatrixImage:
      return matrixImageBytes() * matrices;
  }
  return operandBytes;
}

std::string TensorLayout::describe() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::kRaw: os << "raw"; break;
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
      os << "matrix image " << matrices << "x" << lanes << " lanes x " << depth << " deep, tiles of "
         << laneTile << (lanesMajor ? " (source [lanes][K])" : " (source [K][lanes])");
      break;
  }
  return os.str();
}

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
    case TensorLayout::Kind::kMatrixImage: {
      const uint64_t eb = l.elementBytes;
      const uint64_t matrix = uint64_t{l.lanes} * l.depth * eb;
      if (src.size() != matrix * l.matrices)
        return hal::fail("matrix image: ", src.size(), " bytes, expected ", matrix * l.matrices);
      if (eb != 1) return hal::fail("matrix image: only 1-byte elements");
      std::vector<uint8_t> dst(l.deviceBytes(src.size()), l.fill);
      const uint64_t tileBytes = uint64_t{l.depth} * l.laneTile;
      for (uint32_t m = 0; m < l.matrices; ++m) {
        const uint8_t* s = src.data() + m * matrix;
        uint8_t* d = dst.data() + m * l.matrixImageBytes();
        for (uint32_t lane = 0; lane < l.lanes; ++lane)
          for (uint32_t t = 0; t < l.depth; ++t) {
            const uint64_t from = l.lanesMajor ? uint64_t{lane} * l.depth + t
                                               : uint64_t{t} * l.lanes + lane;
            d[(lane / l.laneTile) * tileBytes + uint64_t{t} * l.laneTile + lane % l.laneTile] =
                s[from];
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
              const uint64_t from = (((uint64_t{b} * l.height + y) * l.width + x) * l.channels + c) * eb;
              const uint64_t to = (((uint64_t{b} * l.channels + c) * l.height + y) * l.width + x) * eb;
              std::memcpy(out.data() + to, device.data() + from, eb);
            }
      return out;
    }
    default:
      return hal::fail("layout ", l.describe(), " is not an output layout");
  }
}

}  // namespace nncosim::driver
