// BIDIRECTIONAL_SEQUENCE_RNN: forward and backward basic RNN cells over one sequence.
// 15 inputs; the auxiliary input either replaces the input of the backward cell (parallel
// linking) or feeds both cells through aux weights (cross linking). Outputs: fw output
// [, bw output] (merged along the last dimension with merge_outputs), then optionally the
// two final hidden states.
#include <vector>

#include "ops/recurrent/operations.h"
#include "ops/recurrent/rnn_cell.h"

namespace nncosim::ops::recurrent {
namespace {

constexpr size_t kInput = 0, kFwWeights = 1, kFwRecurrent = 2, kFwBias = 3, kFwHidden = 4,
                 kBwWeights = 5, kBwRecurrent = 6, kBwBias = 7, kBwHidden = 8, kAuxInput = 9,
                 kFwAuxWeights = 10, kBwAuxWeights = 11, kActivation = 12, kTimeMajor = 13,
                 kMergeOutputs = 14;

enum class Linking { kNone, kParallel, kCross };

struct Setup {
  RnnCell fw, bw;
  SequenceLayout seq;
  Linking linking = Linking::kNone;
  bool merge = false;
  bool stateOutputs = false;
};

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {15}, {1, 2, 3, 4}));
  auto type = floatInputType(ctx);
  NNC_TRY(type);
  std::vector<OperandType> in(12, *type);
  in.insert(in.end(), {OperandType::INT32, OperandType::BOOL, OperandType::BOOL});
  NNC_TRY(checkInputTypes(ctx, in));
  return checkOutputTypes(ctx, std::vector<OperandType>(ctx.numOutputs(), *type));
}

Status configureCell(const OperationContext& ctx, size_t weights, size_t recurrent, size_t bias,
                     size_t hidden, uint32_t nInput, uint32_t batch, RnnCell* cell) {
  NNC_TRY(checkRank(ctx, weights, "weights", 2));
  cell->nInput = nInput;
  cell->nUnits = ctx.inputShape(weights).dim(0);
  NNC_TRY(checkShape(ctx, weights, "weights", {cell->nUnits, nInput}));
  NNC_TRY(checkShape(ctx, recurrent, "recurrent_weights", {cell->nUnits, cell->nUnits}));
  NNC_TRY(checkShape(ctx, bias, "bias", {cell->nUnits}));
  NNC_TRY(checkShape(ctx, hidden, "hidden_state", {batch, cell->nUnits}));
  return Status::Ok();
}

Result<Setup> configure(const OperationContext& ctx) {
  Setup s;
  NNC_TRY(checkRank(ctx, kInput, "input", 3));
  NNC_TRY(checkPresent(ctx, kActivation, "activation"));
  NNC_TRY(checkPresent(ctx, kTimeMajor, "time_major"));
  NNC_TRY(checkPresent(ctx, kMergeOutputs, "merge_outputs"));
  const Shape& in = ctx.inputShape(kInput);
  s.merge = boolScalar(ctx, kMergeOutputs);
  const size_t outs = ctx.numOutputs();
  if (s.merge ? (outs != 1 && outs != 3) : (outs != 2 && outs != 4))
    return hal::fail("merge_outputs is ", s.merge ? "true" : "false", " but the operation has ",
                     outs, " outputs (expected ", s.merge ? "1 or 3" : "2 or 4", ")");
  s.stateOutputs = outs >= 3;
  s.seq.timeMajor = boolScalar(ctx, kTimeMajor);
  s.seq.maxTime = in.dim(s.seq.timeMajor ? 0 : 1);
  s.seq.batch = in.dim(s.seq.timeMajor ? 1 : 0);

  const bool aux = present(ctx, kAuxInput), fwAux = present(ctx, kFwAuxWeights),
             bwAux = present(ctx, kBwAuxWeights);
  if (!aux && !fwAux && !bwAux) {
    s.linking = Linking::kNone;
  } else if (aux && !fwAux && !bwAux) {
    s.linking = Linking::kParallel;
  } else if (aux && fwAux && bwAux) {
    s.linking = Linking::kCross;
  } else {
    return hal::fail("inputs ", kAuxInput, "-", kBwAuxWeights,
                     " (aux_input, fw_aux_weights, bw_aux_weights): expected none, aux_input "
                     "alone, or all three");
  }
  uint32_t nAux = 0;
  if (aux) {
    NNC_TRY(checkRank(ctx, kAuxInput, "aux_input", 3));
    const Shape& a = ctx.inputShape(kAuxInput);
    if (a.dim(0) != in.dim(0) || a.dim(1) != in.dim(1))
      return hal::fail("input ", kAuxInput, " (aux_input): shape ", toString(a.dimensions),
                       " does not match the input's first two dimensions ",
                       toString(in.dimensions));
    nAux = a.dim(2);
  }
  const uint32_t batch = s.seq.batch;
  NNC_TRY(
      configureCell(ctx, kFwWeights, kFwRecurrent, kFwBias, kFwHidden, in.dim(2), batch, &s.fw));
  NNC_TRY(configureCell(ctx, kBwWeights, kBwRecurrent, kBwBias, kBwHidden,
                        s.linking == Linking::kParallel ? nAux : in.dim(2), batch, &s.bw));
  if (s.linking == Linking::kCross) {
    s.fw.nAuxInput = s.bw.nAuxInput = nAux;
    NNC_TRY(checkShape(ctx, kFwAuxWeights, "fw_aux_weights", {s.fw.nUnits, nAux}));
    NNC_TRY(checkShape(ctx, kBwAuxWeights, "bw_aux_weights", {s.bw.nUnits, nAux}));
  }
  s.fw.activation = s.bw.activation = ctx.scalar<int32_t>(kActivation);
  NNC_TRY(checkActivation(s.fw.activation, true));
  return s;
}

Status prepare(OperationContext& ctx) {
  auto s = configure(ctx);
  NNC_TRY(s);
  std::vector<uint32_t> dims = ctx.inputShape(kInput).dimensions;
  dims[2] = s->merge ? s->fw.nUnits + s->bw.nUnits : s->fw.nUnits;
  NNC_TRY(setOutputDims(ctx, 0, dims));
  if (!s->merge) {
    dims[2] = s->bw.nUnits;
    NNC_TRY(setOutputDims(ctx, 1, dims));
  }
  if (s->stateOutputs) {
    const size_t first = s->merge ? 1 : 2;
    NNC_TRY(setOutputDims(ctx, first, ctx.inputShape(kFwHidden).dimensions));
    NNC_TRY(setOutputDims(ctx, first + 1, ctx.inputShape(kBwHidden).dimensions));
  }
  return Status::Ok();
}

Status execute(OperationContext& ctx) {
  auto s = configure(ctx);
  NNC_TRY(s);
  const FloatTensor input(ctx, kInput), aux(ctx, kAuxInput);
  const FloatTensor fwW(ctx, kFwWeights), fwR(ctx, kFwRecurrent), fwB(ctx, kFwBias),
      fwH(ctx, kFwHidden), fwA(ctx, kFwAuxWeights);
  const FloatTensor bwW(ctx, kBwWeights), bwR(ctx, kBwRecurrent), bwB(ctx, kBwBias),
      bwH(ctx, kBwHidden), bwA(ctx, kBwAuxWeights);
  s->fw.weights = fwW.data();
  s->fw.recurrentWeights = fwR.data();
  s->fw.bias = fwB.data();
  s->fw.auxWeights = fwA.data();
  s->bw.weights = bwW.data();
  s->bw.recurrentWeights = bwR.data();
  s->bw.bias = bwB.data();
  s->bw.auxWeights = bwA.data();

  const uint32_t batch = s->seq.batch;
  std::vector<float> fwHidden(fwH.data(), fwH.data() + size_t{batch} * s->fw.nUnits);
  std::vector<float> bwHidden(bwH.data(), bwH.data() + size_t{batch} * s->bw.nUnits);
  const bool half = ctx.inputType(kInput) == OperandType::TENSOR_FLOAT16;
  const float* crossAux = s->linking == Linking::kCross ? aux.data() : nullptr;
  const float* bwInput = s->linking == Linking::kParallel ? aux.data() : input.data();
  const size_t rows = size_t{s->seq.maxTime} * batch;
  std::vector<float> fwOut, bwOut;
  if (s->merge) {
    const uint32_t stride = s->fw.nUnits + s->bw.nUnits;
    fwOut.resize(rows * stride);
    rnnSequence(s->fw, s->seq, true, input.data(), crossAux, fwHidden.data(), fwOut.data(), stride,
                0, half);
    rnnSequence(s->bw, s->seq, false, bwInput, crossAux, bwHidden.data(), fwOut.data(), stride,
                s->fw.nUnits, half);
  } else {
    fwOut.resize(rows * s->fw.nUnits);
    bwOut.resize(rows * s->bw.nUnits);
    rnnSequence(s->fw, s->seq, true, input.data(), crossAux, fwHidden.data(), fwOut.data(),
                s->fw.nUnits, 0, half);
    rnnSequence(s->bw, s->seq, false, bwInput, crossAux, bwHidden.data(), bwOut.data(),
                s->bw.nUnits, 0, half);
  }
  storeFloats(ctx, 0, fwOut.data(), fwOut.size());
  if (!s->merge) storeFloats(ctx, 1, bwOut.data(), bwOut.size());
  if (s->stateOutputs) {
    const size_t first = s->merge ? 1 : 2;
    storeFloats(ctx, first, fwHidden.data(), fwHidden.size());
    storeFloats(ctx, first + 1, bwHidden.data(), bwHidden.size());
  }
  return Status::Ok();
}

}  // namespace

OperationDef bidirectionalSequenceRnnOperation() {
  return OperationDef{hal::OperationType::BIDIRECTIONAL_SEQUENCE_RNN, &validate, &prepare,
                      &execute};
}

}  // namespace nncosim::ops::recurrent
