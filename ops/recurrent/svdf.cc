// SVDF: singular value decomposition filter, a rank-limited 1-D convolution over time
// with a memory of `memory_size` steps. Inputs input [batch, input], weights_feature
// [filters, input], weights_time [filters, memory], bias [units] (optional), state_in
// [batch, memory * filters], rank, activation; outputs state_out and output [batch, units]
// where filters = units * rank.
#include <algorithm>
#include <vector>

#include "ops/recurrent/operations.h"
#include "ops/recurrent/recurrent_util.h"

namespace nncosim::ops::recurrent {
namespace {

constexpr size_t kInput = 0, kWeightsFeature = 1, kWeightsTime = 2, kBias = 3, kStateIn = 4,
                 kRank = 5, kActivation = 6;
constexpr size_t kStateOut = 0, kOutput = 1;

struct Dims {
  uint32_t batch, input, filters, memory, rank, units;
  int32_t activation;
};

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {7}, {2}));
  auto type = floatInputType(ctx);
  NNC_TRY(type);
  NNC_TRY(checkInputTypes(
      ctx, {*type, *type, *type, *type, *type, OperandType::INT32, OperandType::INT32}));
  return checkOutputTypes(ctx, {*type, *type});
}

Result<Dims> configure(const OperationContext& ctx) {
  NNC_TRY(checkRank(ctx, kInput, "input", 2));
  NNC_TRY(checkRank(ctx, kWeightsFeature, "weights_feature", 2));
  NNC_TRY(checkRank(ctx, kWeightsTime, "weights_time", 2));
  NNC_TRY(checkPresent(ctx, kRank, "rank"));
  NNC_TRY(checkPresent(ctx, kActivation, "activation"));
  Dims d;
  d.batch = ctx.inputShape(kInput).dim(0);
  d.input = ctx.inputShape(kInput).dim(1);
  d.filters = ctx.inputShape(kWeightsFeature).dim(0);
  d.memory = ctx.inputShape(kWeightsTime).dim(1);
  const int32_t rank = ctx.scalar<int32_t>(kRank);
  if (rank <= 0) return hal::fail("input ", kRank, " (rank): expected > 0, got ", rank);
  d.rank = static_cast<uint32_t>(rank);
  if (d.filters % d.rank != 0)
    return hal::fail("input ", kWeightsFeature, " (weights_feature): ", d.filters,
                     " filters is not a multiple of rank ", d.rank);
  d.units = d.filters / d.rank;
  NNC_TRY(checkShape(ctx, kWeightsFeature, "weights_feature", {d.filters, d.input}));
  NNC_TRY(checkShape(ctx, kWeightsTime, "weights_time", {d.filters, d.memory}));
  if (d.memory == 0) return hal::fail("input ", kWeightsTime, " (weights_time): memory size is 0");
  if (present(ctx, kBias)) NNC_TRY(checkShape(ctx, kBias, "bias", {d.units}));
  NNC_TRY(checkShape(ctx, kStateIn, "state_in", {d.batch, d.memory * d.filters}));
  d.activation = ctx.scalar<int32_t>(kActivation);
  NNC_TRY(checkActivation(d.activation, true));
  return d;
}

Status prepare(OperationContext& ctx) {
  auto d = configure(ctx);
  NNC_TRY(d);
  NNC_TRY(setOutputDims(ctx, kStateOut, {d->batch, d->memory * d->filters}));
  return setOutputDims(ctx, kOutput, {d->batch, d->units});
}

Status execute(OperationContext& ctx) {
  auto d = configure(ctx);
  NNC_TRY(d);
  const FloatTensor input(ctx, kInput), feature(ctx, kWeightsFeature), time(ctx, kWeightsTime),
      bias(ctx, kBias), stateIn(ctx, kStateIn);
  const uint32_t M = d->memory, F = d->filters;
  std::vector<float> state(stateIn.data(), stateIn.data() + size_t{d->batch} * M * F);
  std::vector<float> output(size_t{d->batch} * d->units);
  std::vector<float> activation(F);
  for (uint32_t b = 0; b < d->batch; ++b) {
    const float* x = input.data() + size_t{b} * d->input;
    float* s = state.data() + size_t{b} * M * F;
    // The newest feature activation goes into each filter's last memory slot.
    for (uint32_t f = 0; f < F; ++f) {
      const float* wf = feature.data() + size_t{f} * d->input;
      float dot = 0.0f;
      for (uint32_t i = 0; i < d->input; ++i) dot += wf[i] * x[i];
      s[size_t{f} * M + M - 1] = dot;
    }
    for (uint32_t f = 0; f < F; ++f) {
      const float* wt = time.data() + size_t{f} * M;
      const float* sf = s + size_t{f} * M;
      float dot = 0.0f;
      for (uint32_t m = 0; m < M; ++m) dot += wt[m] * sf[m];
      activation[f] = dot;
    }
    for (uint32_t u = 0; u < d->units; ++u) {
      float sum = 0.0f;
      for (uint32_t r = 0; r < d->rank; ++r) sum += activation[size_t{u} * d->rank + r];
      if (bias) sum += bias.data()[u];
      output[size_t{b} * d->units + u] = applyActivation(d->activation, sum);
    }
    // Age the memory by one step.
    for (uint32_t f = 0; f < F; ++f) {
      float* sf = s + size_t{f} * M;
      std::copy(sf + 1, sf + M, sf);
      sf[M - 1] = 0.0f;
    }
  }
  storeFloats(ctx, kStateOut, state.data(), state.size());
  storeFloats(ctx, kOutput, output.data(), output.size());
  return Status::Ok();
}

}  // namespace

OperationDef svdfOperation() {
  return OperationDef{hal::OperationType::SVDF, &validate, &prepare, &execute};
}

}  // namespace nncosim::ops::recurrent
