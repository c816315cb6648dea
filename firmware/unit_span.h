// UnitSpan: one busy interval of an NPU unit, the one type the SoC adapter, the device
// and the driver's runtime share for the units' timeline.
#pragma once

#include <cstdint>

namespace nncosim::firmware {

// Units as the NPU's observation ports number them.
enum UnitIndex : int { kUnitLoad = 0, kUnitCompute = 1, kUnitStore = 2, kUnitDensify = 3 };

struct UnitSpan {
  int unit = kUnitLoad;         // UnitIndex
  uint64_t start = 0, end = 0;  // NPU cycles
};

}  // namespace nncosim::firmware
