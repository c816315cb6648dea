// Static figures of a model: multiply-accumulates per operation and weight bytes.
#pragma once

#include <cstdint>

#include "hal/model.h"

namespace nncosim::driver {

// MACs of one operation of `g` from its declared shapes (0 for operations that are
// not multiply-accumulate heavy or whose shapes are unknown).
uint64_t macCount(const hal::Model& model, const hal::Subgraph& g, const hal::Operation& op);
// Bytes of every constant operand (CONSTANT_COPY and CONSTANT_REFERENCE).
uint64_t constantBytes(const hal::Model& model);

}  // namespace nncosim::driver
