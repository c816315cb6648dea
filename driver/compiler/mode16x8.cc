// The 16x8 mode's operand handling shared by the convolution and matmul lowerings.
#include "driver/compiler/lowering_internal.h"

namespace nncosim::driver::internal {

bool is16x8(const OpView& v) {
  return v.ctx().quant16x8() && v.inShape(0).type == hal::OperandType::TENSOR_QUANT16_SYMM;
}

std::vector<uint8_t> widenInt8(const uint8_t* src, uint64_t n) {
  std::vector<uint8_t> out(n * 2);
  for (uint64_t i = 0; i < n; ++i) {
    const auto v = static_cast<uint16_t>(static_cast<int16_t>(static_cast<int8_t>(src[i])));
    out[2 * i] = static_cast<uint8_t>(v);
    out[2 * i + 1] = static_cast<uint8_t>(v >> 8);
  }
  return out;
}

}  // namespace nncosim::driver::internal
