// UNIDIRECTIONAL_SEQUENCE_LSTM: the LSTM cell over a [time, batch, input] (or
// batch-major) sequence. 28 inputs; outputs the sequence output and, from 1.3, the final
// output and cell states.
#include <vector>

#include "ops/recurrent/lstm_cell.h"
#include "ops/recurrent/operations.h"

namespace nncosim::ops::recurrent {
namespace {

constexpr size_t kInput = 0;
constexpr size_t kOutputStateIn = 18;
constexpr size_t kCellStateIn = 19;
constexpr size_t kActivation = 20;
constexpr size_t kCellClip = 21;
constexpr size_t kProjClip = 22;
constexpr size_t kTimeMajor = 23;

constexpr size_t kOutput = 0;
constexpr size_t kOutputStateOut = 1;
constexpr size_t kCellStateOut = 2;

constexpr LstmLayout kLayout{1, 24, -1};

Result<LstmConfig> configure(const OperationContext& ctx, SequenceLayout* seq) {
  NNC_TRY(checkPresent(ctx, kOutputStateIn, "output_state_in"));
  NNC_TRY(checkPresent(ctx, kCellStateIn, "cell_state_in"));
  NNC_TRY(checkPresent(ctx, kActivation, "activation"));
  NNC_TRY(checkPresent(ctx, kCellClip, "cell_clip"));
  NNC_TRY(checkPresent(ctx, kProjClip, "proj_clip"));
  NNC_TRY(checkPresent(ctx, kTimeMajor, "time_major"));
  NNC_TRY(checkRank(ctx, kInput, "input", 3));
  const Shape& in = ctx.inputShape(kInput);
  seq->timeMajor = boolScalar(ctx, kTimeMajor);
  seq->maxTime = in.dim(seq->timeMajor ? 0 : 1);
  seq->batch = in.dim(seq->timeMajor ? 1 : 0);
  LstmConfig cfg;
  cfg.nInput = in.dim(2);
  NNC_TRY(inferLstmSizes(ctx, kLayout, &cfg));
  cfg.activation = ctx.scalar<int32_t>(kActivation);
  NNC_TRY(checkActivation(cfg.activation, true));
  cfg.cellClip = floatScalar(ctx, kCellClip);
  cfg.projClip = floatScalar(ctx, kProjClip);
  NNC_TRY(checkLstmTensors(ctx, kLayout, &cfg));
  NNC_TRY(checkShape(ctx, kOutputStateIn, "output_state_in", {seq->batch, cfg.nOutput}));
  NNC_TRY(checkShape(ctx, kCellStateIn, "cell_state_in", {seq->batch, cfg.nCell}));
  return cfg;
}

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {28}, {1, 3}));
  auto type = floatInputType(ctx);
  NNC_TRY(type);
  std::vector<OperandType> in(20, *type);
  in.insert(in.end(),
            {OperandType::INT32, scalarTypeOf(*type), scalarTypeOf(*type), OperandType::BOOL});
  in.insert(in.end(), 4, *type);
  NNC_TRY(checkInputTypes(ctx, in));
  return checkOutputTypes(ctx, std::vector<OperandType>(ctx.numOutputs(), *type));
}

Status prepare(OperationContext& ctx) {
  SequenceLayout seq;
  auto cfg = configure(ctx, &seq);
  NNC_TRY(cfg);
  std::vector<uint32_t> outDims = ctx.inputShape(kInput).dimensions;
  outDims[2] = cfg->nOutput;
  NNC_TRY(setOutputDims(ctx, kOutput, outDims));
  if (ctx.numOutputs() == 3) {
    NNC_TRY(setOutputDims(ctx, kOutputStateOut, {seq.batch, cfg->nOutput}));
    NNC_TRY(setOutputDims(ctx, kCellStateOut, {seq.batch, cfg->nCell}));
  }
  return Status::Ok();
}

Status execute(OperationContext& ctx) {
  SequenceLayout seq;
  auto cfg = configure(ctx, &seq);
  NNC_TRY(cfg);
  const LstmWeights w(ctx, kLayout);
  const FloatTensor input(ctx, kInput), outputStateIn(ctx, kOutputStateIn),
      cellStateIn(ctx, kCellStateIn);
  const size_t stateSize = size_t{seq.batch} * cfg->nOutput;
  const size_t cellSize = size_t{seq.batch} * cfg->nCell;
  std::vector<float> outputState(outputStateIn.data(), outputStateIn.data() + stateSize);
  std::vector<float> cellState(cellStateIn.data(), cellStateIn.data() + cellSize);
  std::vector<float> output(size_t{seq.maxTime} * stateSize);
  lstmSequence(*cfg, w, seq, /*forward=*/true, input.data(), nullptr, outputState.data(),
               cellState.data(), output.data(), cfg->nOutput, 0);
  storeFloats(ctx, kOutput, output.data(), output.size());
  if (ctx.numOutputs() == 3) {
    storeFloats(ctx, kOutputStateOut, outputState.data(), outputState.size());
    storeFloats(ctx, kCellStateOut, cellState.data(), cellState.size());
  }
  return Status::Ok();
}

}  // namespace

OperationDef unidirectionalSequenceLstmOperation() {
  return OperationDef{hal::OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM, &validate, &prepare,
                      &execute};
}

}  // namespace nncosim::ops::recurrent
