// OperationType: every NNAPI operation through AIDL V3, by name and code, plus DENSIFY.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace nncosim::hal {

enum class OperationType : int32_t {
#define NNC_OPERATION(name, code) name = code,
#include "hal/operation_list.def"
};

// Dense index 0..kNumOperationTypes-1 over the list (DENSIFY's code is 20000).
inline constexpr size_t kNumOperationTypes = 0
#define NNC_OPERATION(name, code) +1
#include "hal/operation_list.def"
    ;

std::string_view toString(OperationType t);
std::optional<OperationType> operationTypeFromString(std::string_view name);
std::optional<OperationType> operationTypeFromCode(int32_t code);
// Position of the type in the list, for tables indexed by operation.
size_t operationIndex(OperationType t);
OperationType operationAt(size_t index);

}  // namespace nncosim::hal
