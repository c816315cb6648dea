// LSTM: one time step of a (CIFG / peephole / projection / layer-norm) LSTM cell.
// Inputs 0-22 (1.0), plus 23-26 layer norm weights (1.2); outputs scratch buffer,
// output state, cell state, output.
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

constexpr size_t kScratchOut = 0;
constexpr size_t kOutputStateOut = 1;
constexpr size_t kCellStateOut = 2;
constexpr size_t kOutput = 3;

LstmLayout layoutOf(const OperationContext& ctx) {
  LstmLayout l;
  l.first = 1;
  l.layerNorm = ctx.numInputs() == 27 ? 23 : -1;
  return l;
}

Result<LstmConfig> configure(const OperationContext& ctx) {
  NNC_TRY(checkPresent(ctx, kInput, "input"));
  NNC_TRY(checkPresent(ctx, kOutputStateIn, "output_state_in"));
  NNC_TRY(checkPresent(ctx, kCellStateIn, "cell_state_in"));
  NNC_TRY(checkPresent(ctx, kActivation, "activation"));
  NNC_TRY(checkPresent(ctx, kCellClip, "cell_clip"));
  NNC_TRY(checkPresent(ctx, kProjClip, "proj_clip"));
  NNC_TRY(checkRank(ctx, kInput, "input", 2));
  LstmConfig cfg;
  const LstmLayout layout = layoutOf(ctx);
  cfg.nInput = ctx.inputShape(kInput).dim(1);
  NNC_TRY(inferLstmSizes(ctx, layout, &cfg));
  cfg.activation = ctx.scalar<int32_t>(kActivation);
  NNC_TRY(checkActivation(cfg.activation, true));
  cfg.cellClip = floatScalar(ctx, kCellClip);
  cfg.projClip = floatScalar(ctx, kProjClip);
  NNC_TRY(checkLstmTensors(ctx, layout, &cfg));
  const uint32_t batch = ctx.inputShape(kInput).dim(0);
  NNC_TRY(checkShape(ctx, kOutputStateIn, "output_state_in", {batch, cfg.nOutput}));
  NNC_TRY(checkShape(ctx, kCellStateIn, "cell_state_in", {batch, cfg.nCell}));
  return cfg;
}

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {23, 27}, {4}));
  auto type = floatInputType(ctx);
  NNC_TRY(type);
  std::vector<OperandType> in(20, *type);
  in.push_back(OperandType::INT32);
  in.push_back(scalarTypeOf(*type));
  in.push_back(scalarTypeOf(*type));
  if (ctx.numInputs() == 27) in.insert(in.end(), 4, *type);
  NNC_TRY(checkInputTypes(ctx, in));
  return checkOutputTypes(ctx, std::vector<OperandType>(4, *type));
}

Status prepare(OperationContext& ctx) {
  auto cfg = configure(ctx);
  NNC_TRY(cfg);
  const uint32_t batch = ctx.inputShape(kInput).dim(0);
  NNC_TRY(setOutputDims(ctx, kScratchOut, {batch, cfg->nCell * (cfg->cifg ? 3u : 4u)}));
  NNC_TRY(setOutputDims(ctx, kOutputStateOut, {batch, cfg->nOutput}));
  NNC_TRY(setOutputDims(ctx, kCellStateOut, {batch, cfg->nCell}));
  return setOutputDims(ctx, kOutput, {batch, cfg->nOutput});
}

Status execute(OperationContext& ctx) {
  auto cfg = configure(ctx);
  NNC_TRY(cfg);
  const uint32_t batch = ctx.inputShape(kInput).dim(0);
  const LstmWeights w(ctx, layoutOf(ctx));
  const FloatTensor input(ctx, kInput), outputStateIn(ctx, kOutputStateIn),
      cellStateIn(ctx, kCellStateIn);
  std::vector<float> outputState(size_t{batch} * cfg->nOutput);
  std::vector<float> cellState(size_t{batch} * cfg->nCell);
  std::vector<float> output(outputState.size());
  std::vector<float> scratch(lstmScratchSize(*cfg, batch));
  lstmStep(*cfg, w, batch, input.data(), nullptr, outputStateIn.data(), cellStateIn.data(),
           outputState.data(), cellState.data(), output.data(), scratch.data());
  storeFloats(ctx, kScratchOut, scratch.data(), scratch.size());
  storeFloats(ctx, kOutputStateOut, outputState.data(), outputState.size());
  storeFloats(ctx, kCellStateOut, cellState.data(), cellState.size());
  storeFloats(ctx, kOutput, output.data(), output.size());
  return Status::Ok();
}

}  // namespace

OperationDef lstmOperation() {
  return OperationDef{hal::OperationType::LSTM, &validate, &prepare, &execute};
}

}  // namespace nncosim::ops::recurrent
