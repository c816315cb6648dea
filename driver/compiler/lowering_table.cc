#include "driver/compiler/lowering_table.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace nncosim::driver {

const char* toString(NpuUnit unit) {
  switch (unit) {
    case NpuUnit::kMacArray:
      return "MAC array";
    case NpuUnit::kDepthwiseUnit:
      return "depthwise unit";
    case NpuUnit::kArrayOrDepthwise:
      return "MAC array or the depthwise unit (by mapping)";
    case NpuUnit::kDensifyUnit:
      return "densify unit";
    case NpuUnit::kEltwiseUnit:
      return "elementwise unit";
    case NpuUnit::kPoolingUnit:
      return "pooling unit";
    case NpuUnit::kDepthwiseOrPooling:
      return "depthwise unit or the pooling unit (by window)";
    case NpuUnit::kHybrid:
      return "MAC array; cell on the CPU";
  }
  return "?";
}

void NpuLoweringTable::add(const NpuLowering& lowering) {
  const size_t i = hal::operationIndex(lowering.type);
  if (i >= entries_.size() || present_[i] || !lowering.support || !lowering.lower) {
    std::fprintf(stderr, "NPU lowering table: bad or duplicate entry for %s\n",
                 std::string(hal::toString(lowering.type)).c_str());
    std::abort();
  }
  entries_[i] = lowering;
  present_[i] = true;
}

const NpuLowering* NpuLoweringTable::find(hal::OperationType type) const {
  const size_t i = hal::operationIndex(type);
  return i < entries_.size() && present_[i] ? &entries_[i] : nullptr;
}

const NpuLoweringTable& npuLoweringTable() {
  static const NpuLoweringTable table = [] {
    NpuLoweringTable t;
    registerConvLowerings(t);
    registerMatmulLowerings(t);
    registerDensifyLowerings(t);
    registerLstmLowerings(t);
    registerEltwiseLowerings(t);
    registerPoolLowerings(t);
    return t;
  }();
  return table;
}

}  // namespace nncosim::driver
