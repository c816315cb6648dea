// A 16x16 NpuConfig (the contract's buffers and depths) for the driver tests whose counts
// of tiles, slots, phases and footprints are written for a 16x16 array: they plan for and
// run on a model of one whatever the build's size (NNCOSIM_ARRAY_SIZE; a model of an array
// up to the build's is valid), so they need a build of at least 16x16.
#pragma once

#include "driver/isa_model/npu_config.h"

namespace nncosim::driver::test {

inline NpuConfig array16() {
  NpuConfig c;
  c.rows = c.cols = 16;
  return c;
}

}  // namespace nncosim::driver::test
