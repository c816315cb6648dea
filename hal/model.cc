#include "hal/model.h"

namespace nncosim::hal {

const uint8_t* Model::constantData(const Operand& o) const {
  switch (o.lifetime) {
    case OperandLifeTime::CONSTANT_COPY:
      return o.location.length == 0 ? nullptr : operandValues.data() + o.location.offset;
    case OperandLifeTime::CONSTANT_POOL:
      return pools.at(o.location.poolIndex).data() + o.location.offset;
    default:
      return nullptr;
  }
}

}  // namespace nncosim::hal
