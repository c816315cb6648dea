// BIDIRECTIONAL_SEQUENCE_LSTM: a forward and a backward LSTM cell over one sequence.
// 61 inputs. An auxiliary input either feeds the backward cell instead of the input
// (parallel linking, no aux weights) or is multiplied by aux weights in both cells
// (cross linking). Outputs: fw output [, bw output] (merged along the last dimension when
// merge_outputs), then optionally the four final states.
#include <vector>

#include "ops/recurrent/lstm_cell.h"
#include "ops/recurrent/operations.h"

namespace nncosim::ops::recurrent {
namespace {

constexpr size_t kInput = 0;
constexpr size_t kFwOutputStateIn = 35;
constexpr size_t kFwCellStateIn = 36;
constexpr size_t kBwOutputStateIn = 37;
constexpr size_t kBwCellStateIn = 38;
constexpr size_t kAuxInput = 39;
constexpr size_t kActivation = 48;
constexpr size_t kCellClip = 49;
constexpr size_t kProjClip = 50;
constexpr size_t kMergeOutputs = 51;
constexpr size_t kTimeMajor = 52;

constexpr LstmLayout kFwLayout{1, 53, 40};
constexpr LstmLayout kBwLayout{18, 57, 44};

enum class Linking { kNone, kParallel, kCross };

struct Setup {
  LstmConfig fw, bw;
  SequenceLayout seq;
  Linking linking = Linking::kNone;
  bool merge = false;
  bool stateOutputs = false;
};

Result<Setup> configure(const OperationContext& ctx) {
  Setup s;
  const std::pair<size_t, const char*> required[] = {{kFwOutputStateIn, "fw_output_state_in"},
                                                     {kFwCellStateIn, "fw_cell_state_in"},
                                                     {kBwOutputStateIn, "bw_output_state_in"},
                                                     {kBwCellStateIn, "bw_cell_state_in"},
                                                     {kActivation, "activation"},
                                                     {kCellClip, "cell_clip"},
                                                     {kProjClip, "proj_clip"},
                                                     {kMergeOutputs, "merge_outputs"},
                                                     {kTimeMajor, "time_major"}};
  for (const auto& [i, name] : required) NNC_TRY(checkPresent(ctx, i, name));
  NNC_TRY(checkRank(ctx, kInput, "input", 3));
  const Shape& in = ctx.inputShape(kInput);
  s.merge = boolScalar(ctx, kMergeOutputs);
  s.seq.timeMajor = boolScalar(ctx, kTimeMajor);
  s.seq.maxTime = in.dim(s.seq.timeMajor ? 0 : 1);
  s.seq.batch = in.dim(s.seq.timeMajor ? 1 : 0);
  const size_t outs = ctx.numOutputs();
  if (s.merge ? (outs != 1 && outs != 5) : (outs != 2 && outs != 6))
    return hal::fail("merge_outputs is ", s.merge ? "true" : "false", " but the operation has ",
                     outs, " outputs (expected ", s.merge ? "1 or 5" : "2 or 6", ")");
  s.stateOutputs = outs >= 5;

  const bool hasAux = present(ctx, kAuxInput);
  const bool fwAuxWeights = present(ctx, kFwLayout.index(kAuxToForget));
  const bool bwAuxWeights = present(ctx, kBwLayout.index(kAuxToForget));
  if (fwAuxWeights != bwAuxWeights)
    return hal::fail(
        "forward and backward auxiliary weights must be both present or both "
        "omitted");
  if (!hasAux && fwAuxWeights)
    return hal::fail("auxiliary weights are present without aux_input (input ", kAuxInput, ")");
  s.linking = !hasAux ? Linking::kNone : fwAuxWeights ? Linking::kCross : Linking::kParallel;
  uint32_t nAux = 0;
  if (hasAux) {
    NNC_TRY(checkRank(ctx, kAuxInput, "aux_input", 3));
    const Shape& aux = ctx.inputShape(kAuxInput);
    if (aux.dim(0) != in.dim(0) || aux.dim(1) != in.dim(1))
      return hal::fail("input ", kAuxInput, " (aux_input): shape ", toString(aux.dimensions),
                       " does not match the input's first two dimensions ",
                       toString(in.dimensions));
    nAux = aux.dim(2);
  }

  for (LstmConfig* cfg : {&s.fw, &s.bw}) {
    cfg->activation = ctx.scalar<int32_t>(kActivation);
    cfg->cellClip = floatScalar(ctx, kCellClip);
    cfg->projClip = floatScalar(ctx, kProjClip);
  }
  NNC_TRY(checkActivation(s.fw.activation, true));
  s.fw.nInput = in.dim(2);
  s.bw.nInput = s.linking == Linking::kParallel ? nAux : in.dim(2);
  if (s.linking == Linking::kCross) s.fw.nAuxInput = s.bw.nAuxInput = nAux;
  NNC_TRY(inferLstmSizes(ctx, kFwLayout, &s.fw));
  NNC_TRY(inferLstmSizes(ctx, kBwLayout, &s.bw));
  NNC_TRY(checkLstmTensors(ctx, kFwLayout, &s.fw));
  NNC_TRY(checkLstmTensors(ctx, kBwLayout, &s.bw));
  const uint32_t batch = s.seq.batch;
  NNC_TRY(checkShape(ctx, kFwOutputStateIn, "fw_output_state_in", {batch, s.fw.nOutput}));
  NNC_TRY(checkShape(ctx, kFwCellStateIn, "fw_cell_state_in", {batch, s.fw.nCell}));
  NNC_TRY(checkShape(ctx, kBwOutputStateIn, "bw_output_state_in", {batch, s.bw.nOutput}));
  NNC_TRY(checkShape(ctx, kBwCellStateIn, "bw_cell_state_in", {batch, s.bw.nCell}));
  return s;
}

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {61}, {1, 2, 5, 6}));
  auto type = floatInputType(ctx);
  NNC_TRY(type);
  std::vector<OperandType> in(48, *type);
  in.insert(in.end(), {OperandType::INT32, scalarTypeOf(*type), scalarTypeOf(*type),
                       OperandType::BOOL, OperandType::BOOL});
  in.insert(in.end(), 8, *type);
  NNC_TRY(checkInputTypes(ctx, in));
  return checkOutputTypes(ctx, std::vector<OperandType>(ctx.numOutputs(), *type));
}

Status prepare(OperationContext& ctx) {
  auto s = configure(ctx);
  NNC_TRY(s);
  std::vector<uint32_t> dims = ctx.inputShape(kInput).dimensions;
  dims[2] = s->merge ? s->fw.nOutput + s->bw.nOutput : s->fw.nOutput;
  NNC_TRY(setOutputDims(ctx, 0, dims));
  if (!s->merge) {
    dims[2] = s->bw.nOutput;
    NNC_TRY(setOutputDims(ctx, 1, dims));
  }
  if (s->stateOutputs) {
    const size_t first = s->merge ? 1 : 2;
    const size_t states[] = {kFwOutputStateIn, kFwCellStateIn, kBwOutputStateIn, kBwCellStateIn};
    for (size_t k = 0; k < 4; ++k)
      NNC_TRY(setOutputDims(ctx, first + k, ctx.inputShape(states[k]).dimensions));
  }
  return Status::Ok();
}

Status execute(OperationContext& ctx) {
  auto s = configure(ctx);
  NNC_TRY(s);
  const FloatTensor input(ctx, kInput), aux(ctx, kAuxInput);
  const LstmWeights fwW(ctx, kFwLayout), bwW(ctx, kBwLayout);
  auto state = [&](size_t i) {
    const FloatTensor t(ctx, static_cast<int>(i));
    return std::vector<float>(t.data(), t.data() + ctx.inputShape(i).elements());
  };
  std::vector<float> fwOutState = state(kFwOutputStateIn), fwCellState = state(kFwCellStateIn);
  std::vector<float> bwOutState = state(kBwOutputStateIn), bwCellState = state(kBwCellStateIn);

  const size_t rows = size_t{s->seq.maxTime} * s->seq.batch;
  const float* crossAux = s->linking == Linking::kCross ? aux.data() : nullptr;
  const float* bwInput = s->linking == Linking::kParallel ? aux.data() : input.data();
  std::vector<float> fwOut, bwOut;
  if (s->merge) {
    const uint32_t stride = s->fw.nOutput + s->bw.nOutput;
    fwOut.resize(rows * stride);
    lstmSequence(s->fw, fwW, s->seq, true, input.data(), crossAux, fwOutState.data(),
                 fwCellState.data(), fwOut.data(), stride, 0);
    lstmSequence(s->bw, bwW, s->seq, false, bwInput, crossAux, bwOutState.data(),
                 bwCellState.data(), fwOut.data(), stride, s->fw.nOutput);
  } else {
    fwOut.resize(rows * s->fw.nOutput);
    bwOut.resize(rows * s->bw.nOutput);
    lstmSequence(s->fw, fwW, s->seq, true, input.data(), crossAux, fwOutState.data(),
                 fwCellState.data(), fwOut.data(), s->fw.nOutput, 0);
    lstmSequence(s->bw, bwW, s->seq, false, bwInput, crossAux, bwOutState.data(),
                 bwCellState.data(), bwOut.data(), s->bw.nOutput, 0);
  }
  storeFloats(ctx, 0, fwOut.data(), fwOut.size());
  if (!s->merge) storeFloats(ctx, 1, bwOut.data(), bwOut.size());
  if (s->stateOutputs) {
    const size_t first = s->merge ? 1 : 2;
    storeFloats(ctx, first, fwOutState.data(), fwOutState.size());
    storeFloats(ctx, first + 1, fwCellState.data(), fwCellState.size());
    storeFloats(ctx, first + 2, bwOutState.data(), bwOutState.size());
    storeFloats(ctx, first + 3, bwCellState.data(), bwCellState.size());
  }
  return Status::Ok();
}

}  // namespace

OperationDef bidirectionalSequenceLstmOperation() {
  return OperationDef{hal::OperationType::BIDIRECTIONAL_SEQUENCE_LSTM, &validate, &prepare,
                      &execute};
}

}  // namespace nncosim::ops::recurrent
