// Operand, its lifetime and location, and per-channel quantization parameters,
// as in the NNAPI HAL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hal/operand_type.h"

namespace nncosim::hal {

enum class OperandLifeTime : int32_t {
  TEMPORARY_VARIABLE = 0,
  SUBGRAPH_INPUT = 1,
  SUBGRAPH_OUTPUT = 2,
  CONSTANT_COPY = 3,
  CONSTANT_POOL = 4,  // "CONSTANT_REFERENCE" in files
  NO_VALUE = 5,
  SUBGRAPH = 6,
};
std::string_view toString(OperandLifeTime l);
std::optional<OperandLifeTime> lifetimeFromString(std::string_view name);

// Where an operand's value lives: operandValues (CONSTANT_COPY), a pool
// (CONSTANT_POOL) or, for SUBGRAPH operands, offset = index of the referenced subgraph.
struct DataLocation {
  uint32_t poolIndex = 0;
  uint32_t offset = 0;
  uint32_t length = 0;
  bool operator==(const DataLocation& o) const {
    return poolIndex == o.poolIndex && offset == o.offset && length == o.length;
  }
};

struct SymmPerChannelQuantParams {
  std::vector<float> scales;
  uint32_t channelDim = 0;
  bool operator==(const SymmPerChannelQuantParams& o) const {
    return scales == o.scales && channelDim == o.channelDim;
  }
};

struct Operand {
  OperandType type = OperandType::TENSOR_FLOAT32;
  std::vector<uint32_t> dimensions;  // 0 = unknown; empty = unknown rank (tensors)
  float scale = 0.0f;
  int32_t zeroPoint = 0;
  OperandLifeTime lifetime = OperandLifeTime::TEMPORARY_VARIABLE;
  DataLocation location;
  std::optional<SymmPerChannelQuantParams> channelQuant;
  std::string name;  // informative only
  bool operator==(const Operand& o) const {
    return type == o.type && dimensions == o.dimensions && scale == o.scale &&
           zeroPoint == o.zeroPoint && lifetime == o.lifetime && location == o.location &&
           channelQuant == o.channelQuant && name == o.name;
  }
};

// Product of the dimensions, or nullopt if it overflows 2^31 elements or any is unknown.
std::optional<uint64_t> elementCount(const std::vector<uint32_t>& dims);
bool fullySpecified(const Operand& o);

}  // namespace nncosim::hal
