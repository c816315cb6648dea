// UNIDIRECTIONAL_SEQUENCE_RNN: the basic RNN cell over a sequence. Inputs input
// [time, batch, input] (or batch-major), weights, recurrent weights, bias, hidden state,
// activation, time_major (INT32 0/1); outputs the sequence output and, from 1.3, the
// final hidden state.
#include <vector>

#include "ops/recurrent/operations.h"
#include "ops/recurrent/rnn_cell.h"

namespace nncosim::ops::recurrent {
namespace {

constexpr size_t kInput = 0, kWeights = 1, kRecurrentWeights = 2, kBias = 3, kHiddenIn = 4,
                 kActivation = 5, kTimeMajor = 6;
constexpr size_t kOutput = 0, kStateOut = 1;

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {7}, {1, 2}));
  auto type = floatInputType(ctx);
  NNC_TRY(type);
  NNC_TRY(checkInputTypes(
      ctx, {*type, *type, *type, *type, *type, OperandType::INT32, OperandType::INT32}));
  return checkOutputTypes(ctx, std::vector<OperandType>(ctx.numOutputs(), *type));
}

Result<RnnCell> configure(const OperationContext& ctx, SequenceLayout* seq) {
  NNC_TRY(checkRank(ctx, kInput, "input", 3));
  NNC_TRY(checkRank(ctx, kWeights, "weights", 2));
  NNC_TRY(checkPresent(ctx, kActivation, "activation"));
  NNC_TRY(checkPresent(ctx, kTimeMajor, "time_major"));
  const int32_t timeMajor = ctx.scalar<int32_t>(kTimeMajor);
  if (timeMajor != 0 && timeMajor != 1)
    return hal::fail("input ", kTimeMajor, " (time_major): expected 0 or 1, got ", timeMajor);
  const Shape& in = ctx.inputShape(kInput);
  seq->timeMajor = timeMajor == 1;
  seq->maxTime = in.dim(seq->timeMajor ? 0 : 1);
  seq->batch = in.dim(seq->timeMajor ? 1 : 0);
  RnnCell cell;
  cell.nInput = in.dim(2);
  cell.nUnits = ctx.inputShape(kWeights).dim(0);
  NNC_TRY(checkShape(ctx, kWeights, "weights", {cell.nUnits, cell.nInput}));
  NNC_TRY(checkShape(ctx, kRecurrentWeights, "recurrent_weights", {cell.nUnits, cell.nUnits}));
  NNC_TRY(checkShape(ctx, kBias, "bias", {cell.nUnits}));
  NNC_TRY(checkShape(ctx, kHiddenIn, "hidden_state", {seq->batch, cell.nUnits}));
  cell.activation = ctx.scalar<int32_t>(kActivation);
  NNC_TRY(checkActivation(cell.activation, true));
  return cell;
}

Status prepare(OperationContext& ctx) {
  SequenceLayout seq;
  auto cell = configure(ctx, &seq);
  NNC_TRY(cell);
  std::vector<uint32_t> dims = ctx.inputShape(kInput).dimensions;
  dims[2] = cell->nUnits;
  NNC_TRY(setOutputDims(ctx, kOutput, dims));
  if (ctx.numOutputs() == 2) NNC_TRY(setOutputDims(ctx, kStateOut, {seq.batch, cell->nUnits}));
  return Status::Ok();
}

Status execute(OperationContext& ctx) {
  SequenceLayout seq;
  auto cell = configure(ctx, &seq);
  NNC_TRY(cell);
  const FloatTensor input(ctx, kInput), weights(ctx, kWeights), rec(ctx, kRecurrentWeights),
      bias(ctx, kBias), hiddenIn(ctx, kHiddenIn);
  cell->weights = weights.data();
  cell->recurrentWeights = rec.data();
  cell->bias = bias.data();
  const size_t stateSize = size_t{seq.batch} * cell->nUnits;
  std::vector<float> hidden(hiddenIn.data(), hiddenIn.data() + stateSize);
  std::vector<float> out(size_t{seq.maxTime} * stateSize);
  const bool half = ctx.inputType(kInput) == OperandType::TENSOR_FLOAT16;
  rnnSequence(*cell, seq, true, input.data(), nullptr, hidden.data(), out.data(), cell->nUnits, 0,
              half);
  storeFloats(ctx, kOutput, out.data(), out.size());
  if (ctx.numOutputs() == 2) storeFloats(ctx, kStateOut, hidden.data(), hidden.size());
  return Status::Ok();
}

}  // namespace

OperationDef unidirectionalSequenceRnnOperation() {
  return OperationDef{hal::OperationType::UNIDIRECTIONAL_SEQUENCE_RNN, &validate, &prepare,
                      &execute};
}

}  // namespace nncosim::ops::recurrent
