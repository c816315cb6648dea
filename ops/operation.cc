#include "ops/operation.h"

namespace nncosim::ops {

Status OperationContext::setOutputShape(size_t i, const Shape& s) {
  RuntimeOperand& o = out(i);
  const auto& declared = o.shape.dimensions;
  if (!declared.empty()) {
    if (declared.size() != s.dimensions.size())
      return hal::fail("output ", i, ": computed shape ", toString(s.dimensions), " has rank ",
                       s.dimensions.size(), " but the model declares ", toString(declared));
    for (size_t d = 0; d < declared.size(); ++d)
      if (declared[d] != 0 && declared[d] != s.dimensions[d])
        return hal::fail("output ", i, ": computed shape ", toString(s.dimensions),
                         " disagrees with the declared ", toString(declared), " in dimension ", d);
  }
  if (s.type != o.shape.type)
    return hal::fail("output ", i, ": computed type ", hal::toString(s.type), " but declared ",
                     hal::toString(o.shape.type));
  // Quantization parameters stay as declared in the model; only dimensions change.
  o.shape.dimensions = s.dimensions;
  if (executing_) {
    const uint64_t bytes = o.shape.bytes();
    if (bytes > (uint64_t{1} << 31))
      return hal::fail("output ", i, ": ", bytes, " bytes is more than the 2 GiB limit");
    o.storage.assign(static_cast<size_t>(bytes), 0);
    o.data = o.storage.data();
  }
  return Status::Ok();
}

}  // namespace nncosim::ops
