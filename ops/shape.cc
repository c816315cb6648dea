#include "ops/shape.h"

#include <sstream>

namespace nncosim::ops {

uint64_t Shape::elements() const {
  // Saturates instead of wrapping, so size checks downstream cannot be fooled by a
  // huge computed shape.
  constexpr uint64_t kCap = uint64_t{1} << 40;
  uint64_t n = 1;
  for (uint32_t d : dimensions) {
    if (d == 0) return 0;
    if (n > kCap / d) return kCap;
    n *= d;
  }
  return n;
}

Shape Shape::of(const hal::Operand& o) {
  return Shape{o.type, o.dimensions, o.scale, o.zeroPoint, o.channelQuant};
}

std::string toString(const std::vector<uint32_t>& dims) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? ", " : "") << dims[i];
  os << "]";
  return os.str();
}

std::string toString(std::initializer_list<hal::OperandType> types) {
  std::ostringstream os;
  bool first = true;
  for (hal::OperandType t : types) {
    os << (first ? "" : ", ") << hal::toString(t);
    first = false;
  }
  return os.str();
}

}  // namespace nncosim::ops
