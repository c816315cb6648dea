// MAC counts of the conv family (ops/mac_count.h).
#include "ops/conv/conv_ops.h"
#include "ops/mac_count.h"

namespace nncosim::ops::conv {

// CONV_2D and GROUPED_CONV_2D: filter [O, H, W, I/groups], each output needs H*W*I/groups.
uint64_t macsConv2D(const MacQuery& q) {
  const auto& f = q.input(1);
  return f.size() == 4 ? q.outputElements() * f[1] * f[2] * f[3] : 0;
}

// DEPTHWISE_CONV_2D: filter [1, H, W, O], each output needs H*W.
uint64_t macsDepthwiseConv2D(const MacQuery& q) {
  const auto& f = q.input(1);
  return f.size() == 4 ? q.outputElements() * f[1] * f[2] : 0;
}

// TRANSPOSE_CONV_2D: every input element scatters H*W*O products (filter [O, H, W, I]).
uint64_t macsTransposeConv2D(const MacQuery& q) {
  const auto& f = q.input(1);
  const auto& in = q.input(0);
  if (f.size() != 4 || !hal::elementCount(in)) return 0;
  uint64_t n = 1;
  for (uint32_t d : in) n *= d;
  return n * f[0] * f[1] * f[2];
}

// FULLY_CONNECTED: weights [units, depth].
uint64_t macsFullyConnected(const MacQuery& q) {
  const auto& w = q.input(1);
  return w.size() == 2 ? q.outputElements() * w[1] : 0;
}

// BATCH_MATMUL: each output element sums over the shared dimension of A (its last, or
// with adj_x its second to last).
uint64_t macsBatchMatmul(const MacQuery& q) {
  const auto& a = q.input(0);
  if (a.size() < 2) return 0;
  bool adjX = false;
  if (q.op.inputs.size() > 2)
    if (const uint8_t* p = q.model.constantData(q.g.operands[q.op.inputs[2]])) adjX = *p != 0;
  return q.outputElements() * (adjX ? a[a.size() - 2] : a.back());
}

}  // namespace nncosim::ops::conv
