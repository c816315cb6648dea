// Static figures of a model: its constant (weight) bytes. MACs per operation come from
// the operation table (ops/mac_count.h).
#pragma once

#include <cstdint>

#include "hal/model.h"

namespace nncosim::driver {

// Bytes of every constant operand (CONSTANT_COPY and CONSTANT_REFERENCE).
uint64_t constantBytes(const hal::Model& model);

}  // namespace nncosim::driver
