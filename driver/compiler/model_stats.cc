#include "driver/compiler/model_stats.h"

namespace nncosim::driver {

uint64_t constantBytes(const hal::Model& model) {
  uint64_t n = 0;
  for (int s = -1; s < static_cast<int>(model.referenced.size()); ++s)
    for (const auto& o : model.subgraph(s).operands)
      if (o.lifetime == hal::OperandLifeTime::CONSTANT_COPY ||
          o.lifetime == hal::OperandLifeTime::CONSTANT_POOL)
        n += o.location.length;
  return n;
}

}  // namespace nncosim::driver
