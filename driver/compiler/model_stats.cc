#include "driver/compiler/model_stats.h"

#include <cstring>

namespace nncosim::driver {
namespace {

uint64_t product(const std::vector<uint32_t>& d) {
  uint64_t n = 1;
  for (uint32_t x : d) n *= x;
  return n;
}

}  // namespace

uint64_t macCount(const hal::Model& model, const hal::Subgraph& g, const hal::Operation& op) {
  using T = hal::OperationType;
  if (op.inputs.size() < 2 || op.outputs.empty()) return 0;
  // Callers validate first; an index out of range still gives 0, never a wild read.
  for (uint32_t i : op.inputs)
    if (i >= g.operands.size()) return 0;
  if (op.outputs[0] >= g.operands.size()) return 0;
  const auto& out = g.operands[op.outputs[0]].dimensions;
  const auto& filter = g.operands[op.inputs[1]].dimensions;
  if (!hal::elementCount(out) || filter.empty()) return 0;
  const uint64_t outElems = product(out);
  switch (op.type) {
    case T::CONV_2D:  // filter [O, H, W, I]: each output needs H*W*I MACs
      return filter.size() == 4 ? outElems * filter[1] * filter[2] * filter[3] : 0;
    case T::GROUPED_CONV_2D:  // filter [O, H, W, I/groups]
      return filter.size() == 4 ? outElems * filter[1] * filter[2] * filter[3] : 0;
    case T::DEPTHWISE_CONV_2D:  // filter [1, H, W, O]
      return filter.size() == 4 ? outElems * filter[1] * filter[2] : 0;
    case T::TRANSPOSE_CONV_2D: {  // every input element scatters H*W*O products
      const auto& in = g.operands[op.inputs[0]].dimensions;
      return filter.size() == 4 && hal::elementCount(in) ? product(in) * filter[0] * filter[1] * filter[2] : 0;
    }
    case T::FULLY_CONNECTED:  // weights [units, depth]
      return filter.size() == 2 ? outElems * filter[1] : 0;
    case T::BATCH_MATMUL: {
      const auto& a = g.operands[op.inputs[0]].dimensions;
      if (a.size() < 2) return 0;
      bool adjX = false;
      if (op.inputs.size() > 2) {
        const auto& o = g.operands[op.inputs[2]];
        if (const uint8_t* p = model.constantData(o)) adjX = *p != 0;
      }
      return outElems * (adjX ? a[a.size() - 2] : a.back());
    }
    case T::QUANTIZED_16BIT_LSTM: {  // one [B, I + N] x [4N, I + N]^T gate product
      const auto& in = g.operands[op.inputs[0]].dimensions;
      return in.size() == 2 && filter.size() == 2 ? uint64_t{in[0]} * 4 * filter[0] * (in[1] + filter[0]) : 0;
    }
    case T::QUANTIZED_LSTM: {  // per gate [B, I] x [U, I]^T + [B, O] x [U, O]^T, projection [B, U] x [O, U]^T
      if (op.inputs.size() < 17) return 0;
      const auto& in = g.operands[op.inputs[0]].dimensions;
      const auto& w = g.operands[op.inputs[4]].dimensions;  // input-to-output [U, I]
      const auto& r = g.operands[op.inputs[8]].dimensions;  // recurrent-to-output [U, O]
      if (in.size() != 2 || w.size() != 2 || r.size() != 2) return 0;
      const bool cifg = g.operands[op.inputs[1]].lifetime == hal::OperandLifeTime::NO_VALUE;
      uint64_t macs = uint64_t{in[0]} * (cifg ? 3 : 4) * w[0] * (w[1] + r[1]);
      if (g.operands[op.inputs[16]].lifetime != hal::OperandLifeTime::NO_VALUE) macs += uint64_t{in[0]} * r[1] * w[0];
      return macs;
    }
    default:
      return 0;
  }
}

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
