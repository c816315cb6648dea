// Conversion between JSON arrays of numbers and the packed bytes of an operand's values.
// Shared by the model-file and conformance-vector readers and writers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hal/operand_type.h"
#include "hal/result.h"

namespace nncosim::hal {

// Floats parse straight to float (strtof), never through double, so a decimal
// literal gives the same float as a C compiler would.
using Json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t,
                                  std::uint64_t, float>;

// Packs `values` as elements of `type` (FLOAT16 rounds to half; "inf"/"-inf"/"nan"
// strings are accepted for floats). `where` prefixes error messages.
Result<std::vector<uint8_t>> valuesToBytes(const Json& values, OperandType type,
                                           const std::string& where);
// The inverse: one JSON value per element.
Json bytesToValues(const uint8_t* data, size_t bytes, OperandType type);

// Reads a whole JSON file; errors carry the file name and the parser's position.
Result<Json> readJsonFile(const std::string& path);
// Parses JSON text; errors read "<name>: malformed JSON: <position and reason>". Parses
// without throwing: an exception unwinding after the simulated SoC has switched stacks
// (SystemC coroutines) gives AddressSanitizer false reports, so bad input takes no
// exceptional path.
Result<Json> parseJsonText(const std::string& text, const std::string& name);

}  // namespace nncosim::hal
