#include "driver/runtime/soc/soc_cost_model.h"

namespace nncosim::driver {

CostModel costModelFor(const sim::SocConfig& soc) {
  const sim::SocConfig defaults;
  CostModel cost;
  cost.dramLatency = cost.dramLatency + soc.dramLatencyCycles - defaults.dramLatencyCycles;
  cost.busBytesPerCycle = soc.dramBytesPerCycle;
  cost.fetchFirst = soc.dramReadQos != 0;
  return cost;
}

}  // namespace nncosim::driver
