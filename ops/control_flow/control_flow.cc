#include "ops/control_flow/control_flow.h"

#include <cstring>

namespace nncosim::ops {

Status executeControlFlow(OperationContext& ctx) { return Status::Ok(); }

namespace control_flow {

Result<uint32_t> subgraphIndex(const OperationContext& ctx, size_t i, const char* role) {
  NNC_CHECK(!ctx.isOmitted(i), "input ", i, " (", role, ") must not be omitted");
  NNC_CHECK_EQ(ctx.inputType(i), OperandType::SUBGRAPH, "input ", i, " (", role,
               "): expected a SUBGRAPH operand, found ", hal::toString(ctx.inputType(i)));
  NNC_CHECK(ctx.hasInputValue(i), "input ", i, " (", role,
            "): the subgraph reference has no value");
  const uint32_t index = ctx.scalar<uint32_t>(i);
  const size_t count = ctx.model().referenced.size();
  NNC_CHECK_LT(index, count, "input ", i, " (", role, "): subgraph ", index,
               " does not exist (the model references ", count, ")");
  return index;
}

Status checkCompatible(const Shape& outer, const Shape& inner, const std::string& what) {
  NNC_CHECK_EQ(outer.type, inner.type, what, ": type ", hal::toString(outer.type),
               " but the subgraph declares ", hal::toString(inner.type));
  if (!outer.dimensions.empty() && !inner.dimensions.empty()) {
    NNC_CHECK_EQ(outer.rank(), inner.rank(), what, ": dimensions ", toString(outer.dimensions),
                 " but the subgraph declares ", toString(inner.dimensions));
    for (size_t d = 0; d < outer.rank(); ++d)
      NNC_CHECK(outer.dim(d) == 0 || inner.dim(d) == 0 || outer.dim(d) == inner.dim(d), what,
                ": dimensions ", toString(outer.dimensions), " but the subgraph declares ",
                toString(inner.dimensions));
  }
  NNC_CHECK_EQ(outer.scale, inner.scale, what, ": scale ", outer.scale,
               " but the subgraph declares ", inner.scale);
  NNC_CHECK_EQ(outer.zeroPoint, inner.zeroPoint, what, ": zero point ", outer.zeroPoint,
               " but the subgraph declares ", inner.zeroPoint);
  NNC_CHECK(outer.channelQuant == inner.channelQuant, what,
            ": per-channel quantization differs from the subgraph's");
  return Status::Ok();
}

Status checkCondition(const Shape& s, const std::string& what) {
  NNC_CHECK_EQ(s.type, OperandType::TENSOR_BOOL8, what, ": expected TENSOR_BOOL8, found ",
               hal::toString(s.type));
  NNC_CHECK(s.rank() == 1 && s.dim(0) == 1, what, ": expected dimensions [1], found ",
            toString(s.dimensions));
  return Status::Ok();
}

hal::TensorValue inputValue(const OperationContext& ctx, size_t i) {
  hal::TensorValue v;
  const Shape& s = ctx.inputShape(i);
  v.type = s.type;
  v.dimensions = s.dimensions;
  if (ctx.isOmitted(i)) {
    v.omitted = true;
    return v;
  }
  const uint8_t* data = ctx.inputBytes(i);
  if (data) v.bytes.assign(data, data + s.bytes());
  return v;
}

Status storeOutput(OperationContext& ctx, size_t i, const hal::TensorValue& v,
                   const std::string& what) {
  Shape s = ctx.outputShape(i);
  NNC_CHECK_EQ(v.type, s.type, what, ": the subgraph produced ", hal::toString(v.type),
               " for output ", i, " of type ", hal::toString(s.type));
  s.dimensions = v.dimensions;
  if (Status st = ctx.setOutputShape(i, s); !st.ok()) return hal::fail(what, ": ", st.error());
  const uint64_t bytes = ctx.outputShape(i).bytes();
  NNC_CHECK_EQ(v.bytes.size(), bytes, what, ": output ", i, " has ", v.bytes.size(),
               " bytes, its shape ", toString(s.dimensions), " needs ", bytes);
  if (!ctx.executing()) return Status::Ok();  // only the shape is wanted
  if (bytes) std::memcpy(ctx.outputBytes(i), v.bytes.data(), bytes);
  return Status::Ok();
}

}  // namespace control_flow
}  // namespace nncosim::ops
