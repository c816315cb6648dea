// Typed field access on JSON objects with errors that name the path: every reader of
// model and vector files reports "file: main.operands[3].scale: expected a number".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hal/json_values.h"
#include "hal/model.h"

namespace nncosim::hal {

Result<const Json*> field(const Json& obj, const char* key, const std::string& where);
Result<int64_t> intField(const Json& obj, const char* key, int64_t lo, int64_t hi,
                         const std::string& where);
Result<float> floatField(const Json& obj, const char* key, const std::string& where);
Result<bool> boolField(const Json& obj, const char* key, const std::string& where);
Result<std::string> stringField(const Json& obj, const char* key, const std::string& where);
Result<std::vector<uint32_t>> uintArrayField(const Json& obj, const char* key,
                                             const std::string& where);

// The parts of an operand common to both file formats: type, dimensions, scale,
// zeroPoint, lifetime and channelQuant (location and data are format-specific).
Result<Operand> parseOperandHeader(const Json& obj, const std::string& where);
// Operations: {"type": NAME, "inputs": [...], "outputs": [...]}.
Result<Operation> parseOperation(const Json& obj, const std::string& where);

// A subgraph's "operations", "inputIndexes" and "outputIndexes" into `g` (both file
// formats spell them the same way).
Status parseOperationsAndIndexes(const Json& obj, const std::string& where, Subgraph& g);

// Appends `bytes` to operandValues at an 8-byte aligned offset; returns the location.
DataLocation appendOperandValue(std::vector<uint8_t>& operandValues,
                                const std::vector<uint8_t>& bytes);

}  // namespace nncosim::hal
