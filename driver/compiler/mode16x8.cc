// The 16x8 mode's test shared by the convolution and matmul lowerings.
#include "driver/compiler/lowering_internal.h"

namespace nncosim::driver::internal {

bool is16x8(const OpView& v) {
  return v.ctx().quant16x8() && v.inShape(0).type == hal::OperandType::TENSOR_QUANT16_SYMM;
}

}  // namespace nncosim::driver::internal
