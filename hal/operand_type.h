// OperandType: every operand type of the NNAPI AIDL spec, with element sizes and the
// quantization rules the runtime enforces on each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace nncosim::hal {

enum class OperandType : int32_t {
  FLOAT32 = 0,
  INT32 = 1,
  UINT32 = 2,
  TENSOR_FLOAT32 = 3,
  TENSOR_INT32 = 4,
  TENSOR_QUANT8_ASYMM = 5,
  BOOL = 6,
  TENSOR_QUANT16_SYMM = 7,
  TENSOR_FLOAT16 = 8,
  TENSOR_BOOL8 = 9,
  FLOAT16 = 10,
  TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,
  TENSOR_QUANT16_ASYMM = 12,
  TENSOR_QUANT8_SYMM = 13,
  TENSOR_QUANT8_ASYMM_SIGNED = 14,
  SUBGRAPH = 15,
};
inline constexpr int kNumOperandTypes = 16;

std::string_view toString(OperandType t);
std::optional<OperandType> operandTypeFromString(std::string_view name);

// Bytes per element (per value for scalars); SUBGRAPH is 4 (an index).
size_t elementSize(OperandType t);
bool isTensor(OperandType t);
bool isScalar(OperandType t);
bool isQuantized(OperandType t);
bool isFloat(OperandType t);  // FLOAT16/32 scalars and tensors
// Valid zeroPoint range for the type; nullopt when zeroPoint must be 0.
struct ZeroPointRange {
  int32_t lo, hi;
};
ZeroPointRange zeroPointRange(OperandType t);
// True when the type needs scale > 0 (the quantized tensor types, except per-channel).
bool needsPositiveScale(OperandType t);

}  // namespace nncosim::hal
