// Shape: the runtime description of a tensor or scalar: type, dimensions and
// quantization parameters. Operations read input Shapes and set output Shapes.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "hal/operand.h"

namespace nncosim::ops {

struct Shape {
  hal::OperandType type = hal::OperandType::TENSOR_FLOAT32;
  std::vector<uint32_t> dimensions;
  float scale = 0.0f;
  int32_t zeroPoint = 0;
  std::optional<hal::SymmPerChannelQuantParams> channelQuant = std::nullopt;

  uint32_t rank() const { return static_cast<uint32_t>(dimensions.size()); }
  uint32_t dim(size_t i) const { return dimensions.at(i); }
  // Number of elements (1 for scalars and rank-0 tensors), saturating at 2^40.
  uint64_t elements() const;
  uint64_t bytes() const { return elements() * hal::elementSize(type); }
  static Shape of(const hal::Operand& o);
};

std::string toString(const std::vector<uint32_t>& dims);  // "[1, 2, 3]"
// "TENSOR_FLOAT32, TENSOR_INT32": the accepted types in a signature error.
std::string toString(std::initializer_list<hal::OperandType> types);

}  // namespace nncosim::ops
