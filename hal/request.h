// Request: the inputs and outputs of one execution, as buffers with their shapes.
#pragma once

#include <cstdint>
#include <vector>

#include "hal/capabilities.h"
#include "hal/operand.h"

namespace nncosim::hal {

// One input or output value. An input with hasNoValue is an omitted optional input.
// dimensions, when non-empty, override the operand's (needed where they are unknown).
struct RequestArgument {
  bool hasNoValue = false;
  std::vector<uint32_t> dimensions;
  std::vector<uint8_t> data;
};

struct Request {
  std::vector<RequestArgument> inputs;   // one per main.inputIndexes
  std::vector<RequestArgument> outputs;  // filled by the execution
};

}  // namespace nncosim::hal
