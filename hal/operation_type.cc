#include "hal/operation_type.h"

#include <array>

namespace nncosim::hal {
namespace {

struct OpInfo {
  std::string_view name;
  OperationType type;
};

constexpr std::array<OpInfo, kNumOperationTypes> kOps = {{
#define NNC_OPERATION(name, code) {#name, OperationType::name},
#include "hal/operation_list.def"
}};

}  // namespace

std::string_view toString(OperationType t) {
  for (const auto& o : kOps)
    if (o.type == t) return o.name;
  return "<bad OperationType>";
}

std::optional<OperationType> operationTypeFromString(std::string_view name) {
  for (const auto& o : kOps)
    if (o.name == name) return o.type;
  return std::nullopt;
}

std::optional<OperationType> operationTypeFromCode(int32_t code) {
  for (const auto& o : kOps)
    if (static_cast<int32_t>(o.type) == code) return o.type;
  return std::nullopt;
}

size_t operationIndex(OperationType t) {
  // Codes 0..105 are dense; DENSIFY (20000) sits at the end of the list.
  auto code = static_cast<int64_t>(t);
  if (t == OperationType::DENSIFY) return kNumOperationTypes - 1;
  if (code >= 0 && code < static_cast<int64_t>(kNumOperationTypes) - 1) return code;
  return kNumOperationTypes;  // not an operation: callers treat as out of range
}

OperationType operationAt(size_t index) { return kOps.at(index).type; }

}  // namespace nncosim::hal
