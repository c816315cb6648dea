#include "hal/operand_type.h"

#include <array>

namespace nncosim::hal {
namespace {

struct TypeInfo {
  std::string_view name;
  size_t size;
  bool tensor;
  bool quantized;
  bool floating;
  ZeroPointRange zp;
  bool positiveScale;
};

// Indexed by the enum value; the static_assert below keeps it complete.
constexpr std::array<TypeInfo, kNumOperandTypes> kTypes = {{
    {"FLOAT32", 4, false, false, true, {0, 0}, false},
    {"INT32", 4, false, false, false, {0, 0}, false},
    {"UINT32", 4, false, false, false, {0, 0}, false},
    {"TENSOR_FLOAT32", 4, true, false, true, {0, 0}, false},
    {"TENSOR_INT32", 4, true, false, false, {0, 0}, false},
    {"TENSOR_QUANT8_ASYMM", 1, true, true, false, {0, 255}, true},
    {"BOOL", 1, false, false, false, {0, 0}, false},
    {"TENSOR_QUANT16_SYMM", 2, true, true, false, {0, 0}, true},
    {"TENSOR_FLOAT16", 2, true, false, true, {0, 0}, false},
    {"TENSOR_BOOL8", 1, true, false, false, {0, 0}, false},
    {"FLOAT16", 2, false, false, true, {0, 0}, false},
    {"TENSOR_QUANT8_SYMM_PER_CHANNEL", 1, true, true, false, {0, 0}, false},
    {"TENSOR_QUANT16_ASYMM", 2, true, true, false, {0, 65535}, true},
    {"TENSOR_QUANT8_SYMM", 1, true, true, false, {0, 0}, true},
    {"TENSOR_QUANT8_ASYMM_SIGNED", 1, true, true, false, {-128, 127}, true},
    {"SUBGRAPH", 4, false, false, false, {0, 0}, false},
}};
static_assert(kTypes.size() == kNumOperandTypes);

const TypeInfo& info(OperandType t) { return kTypes.at(static_cast<size_t>(t)); }

}  // namespace

std::string_view toString(OperandType t) {
  auto i = static_cast<size_t>(t);
  return i < kTypes.size() ? kTypes[i].name : std::string_view("<bad OperandType>");
}

std::optional<OperandType> operandTypeFromString(std::string_view name) {
  for (size_t i = 0; i < kTypes.size(); ++i)
    if (kTypes[i].name == name) return static_cast<OperandType>(i);
  return std::nullopt;
}

size_t elementSize(OperandType t) { return info(t).size; }
bool isTensor(OperandType t) { return info(t).tensor; }
bool isScalar(OperandType t) { return !info(t).tensor && t != OperandType::SUBGRAPH; }
bool isQuantized(OperandType t) { return info(t).quantized; }
bool isFloat(OperandType t) { return info(t).floating; }
ZeroPointRange zeroPointRange(OperandType t) { return info(t).zp; }
bool needsPositiveScale(OperandType t) { return info(t).positiveScale; }

}  // namespace nncosim::hal
