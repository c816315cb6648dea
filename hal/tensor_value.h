// TensorValue: the bytes and shape of one input or output value.
#pragma once

#include <cstdint>
#include <vector>

#include "hal/operand_type.h"

namespace nncosim::hal {

struct TensorValue {
  OperandType type = OperandType::TENSOR_FLOAT32;
  std::vector<uint32_t> dimensions;
  std::vector<uint8_t> bytes;
  bool omitted = false;  // an omitted optional input (no value)
};

}  // namespace nncosim::hal
