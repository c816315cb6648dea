// RNN: one step of a basic RNN cell. Inputs input [batch, input], weights, recurrent
// weights, bias, hidden state in, activation; outputs hidden state out and output
// (equal values).
#include <vector>

#include "ops/recurrent/operations.h"
#include "ops/recurrent/rnn_cell.h"

namespace nncosim::ops::recurrent {
namespace {

constexpr size_t kInput = 0, kWeights = 1, kRecurrentWeights = 2, kBias = 3, kHiddenIn = 4,
                 kActivation = 5;
constexpr size_t kHiddenOut = 0, kOutput = 1;

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {6}, {2}));
  auto type = floatInputType(ctx);
  NNC_TRY(type);
  NNC_TRY(checkInputTypes(ctx, {*type, *type, *type, *type, *type, OperandType::INT32}));
  return checkOutputTypes(ctx, {*type, *type});
}

Result<RnnCell> configure(const OperationContext& ctx) {
  NNC_TRY(checkRank(ctx, kInput, "input", 2));
  NNC_TRY(checkRank(ctx, kWeights, "weights", 2));
  NNC_TRY(checkPresent(ctx, kActivation, "activation"));
  RnnCell cell;
  const uint32_t batch = ctx.inputShape(kInput).dim(0);
  cell.nInput = ctx.inputShape(kInput).dim(1);
  cell.nUnits = ctx.inputShape(kWeights).dim(0);
  NNC_TRY(checkShape(ctx, kWeights, "weights", {cell.nUnits, cell.nInput}));
  NNC_TRY(checkShape(ctx, kRecurrentWeights, "recurrent_weights", {cell.nUnits, cell.nUnits}));
  NNC_TRY(checkShape(ctx, kBias, "bias", {cell.nUnits}));
  NNC_TRY(checkShape(ctx, kHiddenIn, "hidden_state_in", {batch, cell.nUnits}));
  cell.activation = ctx.scalar<int32_t>(kActivation);
  NNC_TRY(checkActivation(cell.activation, true));
  return cell;
}

Status prepare(OperationContext& ctx) {
  auto cell = configure(ctx);
  NNC_TRY(cell);
  const uint32_t batch = ctx.inputShape(kInput).dim(0);
  NNC_TRY(setOutputDims(ctx, kHiddenOut, {batch, cell->nUnits}));
  return setOutputDims(ctx, kOutput, {batch, cell->nUnits});
}

Status execute(OperationContext& ctx) {
  auto cell = configure(ctx);
  NNC_TRY(cell);
  const uint32_t batch = ctx.inputShape(kInput).dim(0);
  const FloatTensor input(ctx, kInput), weights(ctx, kWeights), rec(ctx, kRecurrentWeights),
      bias(ctx, kBias), hidden(ctx, kHiddenIn);
  cell->weights = weights.data();
  cell->recurrentWeights = rec.data();
  cell->bias = bias.data();
  std::vector<float> out(size_t{batch} * cell->nUnits);
  rnnStep(*cell, batch, input.data(), nullptr, hidden.data(), out.data(), cell->nUnits);
  storeFloats(ctx, kHiddenOut, out.data(), out.size());
  storeFloats(ctx, kOutput, out.data(), out.size());
  return Status::Ok();
}

}  // namespace

OperationDef rnnOperation() {
  return OperationDef{hal::OperationType::RNN, &validate, &prepare, &execute};
}

}  // namespace nncosim::ops::recurrent
