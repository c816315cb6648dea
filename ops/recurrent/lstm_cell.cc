#include "ops/recurrent/lstm_cell.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace nncosim::ops::recurrent {
namespace {

constexpr const char* kNames[kNumLstmTensors] = {"input_to_input_weights",
                                                 "input_to_forget_weights",
                                                 "input_to_cell_weights",
                                                 "input_to_output_weights",
                                                 "recurrent_to_input_weights",
                                                 "recurrent_to_forget_weights",
                                                 "recurrent_to_cell_weights",
                                                 "recurrent_to_output_weights",
                                                 "cell_to_input_weights",
                                                 "cell_to_forget_weights",
                                                 "cell_to_output_weights",
                                                 "input_gate_bias",
                                                 "forget_gate_bias",
                                                 "cell_gate_bias",
                                                 "output_gate_bias",
                                                 "projection_weights",
                                                 "projection_bias",
                                                 "input_layer_norm_weights",
                                                 "forget_layer_norm_weights",
                                                 "cell_layer_norm_weights",
                                                 "output_layer_norm_weights",
                                                 "aux_input_to_input_weights",
                                                 "aux_input_to_forget_weights",
                                                 "aux_input_to_cell_weights",
                                                 "aux_input_to_output_weights"};

// out[b][r] += sum_c m[r][c] * v[b][c]; the dot product is summed first, as TFLite does.
void matVecAccumulate(const float* m, uint32_t rows, uint32_t cols, const float* v, uint32_t batch,
                      float* out) {
  for (uint32_t b = 0; b < batch; ++b) {
    const float* vb = v + size_t{b} * cols;
    float* ob = out + size_t{b} * rows;
    for (uint32_t r = 0; r < rows; ++r) {
      const float* mr = m + size_t{r} * cols;
      float dot = 0.0f;
      for (uint32_t c = 0; c < cols; ++c) dot += mr[c] * vb[c];
      ob[r] += dot;
    }
  }
}

// Normalizes each row to zero mean and unit variance, then scales by `weights` and adds
// `bias` (layer-normalized LSTM).
void layerNormalize(float* x, uint32_t n, uint32_t batch, const float* weights, const float* bias) {
  for (uint32_t b = 0; b < batch; ++b) {
    float* row = x + size_t{b} * n;
    float sum = 0.0f;
    for (uint32_t k = 0; k < n; ++k) sum += row[k];
    const float mean = sum / static_cast<float>(n);
    float sumSq = 0.0f;
    for (uint32_t k = 0; k < n; ++k) sumSq += (row[k] - mean) * (row[k] - mean);
    const float variance = sumSq / static_cast<float>(n);
    const float invStddev = 1.0f / std::sqrt(variance + 1e-8f);
    for (uint32_t k = 0; k < n; ++k) row[k] = (row[k] - mean) * invStddev * weights[k] + bias[k];
  }
}

void fillRows(float* x, uint32_t n, uint32_t batch, const float* row) {
  for (uint32_t b = 0; b < batch; ++b) std::copy(row, row + n, x + size_t{b} * n);
}

void clip(float* x, size_t n, float limit) {
  for (size_t k = 0; k < n; ++k) x[k] = std::min(limit, std::max(-limit, x[k]));
}

// Gate = sigmoid(LN(acc + peephole * cell)): everything after the matrix products.
void finishGate(const LstmConfig& cfg, uint32_t batch, float* gate, const float* peephole,
                const float* cellState, const float* lnWeights, const float* bias) {
  const uint32_t n = cfg.nCell;
  if (cfg.peephole && peephole)
    for (uint32_t b = 0; b < batch; ++b)
      for (uint32_t k = 0; k < n; ++k)
        gate[size_t{b} * n + k] += peephole[k] * cellState[size_t{b} * n + k];
  if (cfg.layerNorm) layerNormalize(gate, n, batch, lnWeights, bias);
  for (size_t k = 0; k < size_t{batch} * n; ++k) gate[k] = sigmoid(gate[k]);
}

}  // namespace

int LstmLayout::index(int tensor) const {
  if (tensor < kInputLayerNorm) return first + tensor;
  if (tensor < kAuxToInput) return layerNorm < 0 ? -1 : layerNorm + (tensor - kInputLayerNorm);
  return aux < 0 ? -1 : aux + (tensor - kAuxToInput);
}

Status inferLstmSizes(const OperationContext& ctx, const LstmLayout& layout, LstmConfig* cfg) {
  const int io = layout.index(kInputToOutput), ro = layout.index(kRecurrentToOutput);
  NNC_TRY(checkRank(ctx, io, kNames[kInputToOutput], 2));
  NNC_TRY(checkRank(ctx, ro, kNames[kRecurrentToOutput], 2));
  cfg->nCell = ctx.inputShape(io).dim(0);
  cfg->nOutput = ctx.inputShape(ro).dim(1);
  if (ctx.inputShape(io).dim(1) != cfg->nInput)
    return hal::fail("input ", io, " (", kNames[kInputToOutput], "): shape ",
                     toString(ctx.inputShape(io).dimensions), " does not match input size ",
                     cfg->nInput);
  if (ctx.inputShape(ro).dim(0) != cfg->nCell)
    return hal::fail("input ", ro, " (", kNames[kRecurrentToOutput], "): shape ",
                     toString(ctx.inputShape(ro).dimensions), " does not match ", cfg->nCell,
                     " cells");
  return Status::Ok();
}

Status checkLstmTensors(const OperationContext& ctx, const LstmLayout& layout, LstmConfig* cfg) {
  auto has = [&](int t) { return present(ctx, layout.index(t)); };
  auto shape = [&](int t, std::vector<uint32_t> dims) -> Status {
    const int i = layout.index(t);
    if (!present(ctx, i))
      return hal::fail("input ", i, " (", kNames[t], ") is required but omitted");
    return checkShape(ctx, static_cast<size_t>(i), kNames[t], dims);
  };
  auto mustBeOmitted = [&](int t, const char* why) -> Status {
    if (has(t))
      return hal::fail("input ", layout.index(t), " (", kNames[t], ") must be omitted ", why);
    return Status::Ok();
  };
  const uint32_t nIn = cfg->nInput, nCell = cfg->nCell, nOut = cfg->nOutput;

  if (!(cfg->cellClip >= 0)) return hal::fail("cell_clip ", cfg->cellClip, " must be >= 0");
  if (!(cfg->projClip >= 0)) return hal::fail("proj_clip ", cfg->projClip, " must be >= 0");

  cfg->cifg = !has(kInputToInput);
  if (has(kInputToInput) != has(kRecurrentToInput))
    return hal::fail("input ", layout.index(kInputToInput), " and input ",
                     layout.index(kRecurrentToInput),
                     " (input_to_input_weights, recurrent_to_input_weights) must be both present "
                     "(regular LSTM) or both omitted (CIFG)");
  for (int t : {kInputToForget, kInputToCell, kInputToOutput}) NNC_TRY(shape(t, {nCell, nIn}));
  for (int t : {kRecurrentToForget, kRecurrentToCell, kRecurrentToOutput})
    NNC_TRY(shape(t, {nCell, nOut}));
  if (!cfg->cifg) {
    NNC_TRY(shape(kInputToInput, {nCell, nIn}));
    NNC_TRY(shape(kRecurrentToInput, {nCell, nOut}));
  }

  for (int t : {kCellToInput, kCellToForget, kCellToOutput})
    if (has(t)) NNC_TRY(shape(t, {nCell}));
  const bool anyPeephole = has(kCellToInput) || has(kCellToForget) || has(kCellToOutput);
  const bool allPeephole =
      (has(kCellToInput) || cfg->cifg) && has(kCellToForget) && has(kCellToOutput);
  if (anyPeephole && !allPeephole)
    return hal::fail("peephole weights (inputs ", layout.index(kCellToInput), "-",
                     layout.index(kCellToOutput), ") must be all present or all omitted",
                     cfg->cifg ? " (cell_to_input_weights may be omitted with CIFG)" : "");
  cfg->peephole = has(kCellToOutput);

  if (cfg->cifg) {
    NNC_TRY(mustBeOmitted(kInputGateBias, "with CIFG"));
  } else {
    NNC_TRY(shape(kInputGateBias, {nCell}));
  }
  for (int t : {kForgetGateBias, kCellGateBias, kOutputGateBias}) NNC_TRY(shape(t, {nCell}));

  cfg->projection = has(kProjectionWeights);
  cfg->projectionBias = has(kProjectionBias);
  if (cfg->projection) NNC_TRY(shape(kProjectionWeights, {nOut, nCell}));
  if (cfg->projectionBias) {
    if (!cfg->projection)
      return hal::fail("input ", layout.index(kProjectionBias),
                       " (projection_bias) is present without projection_weights");
    NNC_TRY(shape(kProjectionBias, {nOut}));
  }
  if (!cfg->projection && nOut != nCell)
    return hal::fail("without projection_weights the output size (", nOut,
                     ") must equal the number of cells (", nCell, ")");

  for (int t : {kInputLayerNorm, kForgetLayerNorm, kCellLayerNorm, kOutputLayerNorm})
    if (has(t)) NNC_TRY(shape(t, {nCell}));
  cfg->layerNorm = has(kOutputLayerNorm);
  if (cfg->cifg) NNC_TRY(mustBeOmitted(kInputLayerNorm, "with CIFG"));
  const bool lnForgetCellOutput =
      has(kForgetLayerNorm) && has(kCellLayerNorm) && has(kOutputLayerNorm);
  const bool noLn = !has(kInputLayerNorm) && !has(kForgetLayerNorm) && !has(kCellLayerNorm) &&
                    !has(kOutputLayerNorm);
  if (!noLn && !(lnForgetCellOutput && (cfg->cifg || has(kInputLayerNorm))))
    return hal::fail("layer norm weights (inputs ", layout.index(kInputLayerNorm), "-",
                     layout.index(kOutputLayerNorm), ") must be all present or all omitted",
                     cfg->cifg ? " (input_layer_norm_weights omitted with CIFG)" : "");

  cfg->auxWeights = has(kAuxToForget);
  if (layout.aux >= 0) {
    const bool anyAux =
        has(kAuxToInput) || has(kAuxToForget) || has(kAuxToCell) || has(kAuxToOutput);
    if (cfg->cifg) NNC_TRY(mustBeOmitted(kAuxToInput, "with CIFG"));
    if (anyAux) {
      if (!cfg->cifg) NNC_TRY(shape(kAuxToInput, {nCell, cfg->nAuxInput}));
      for (int t : {kAuxToForget, kAuxToCell, kAuxToOutput})
        NNC_TRY(shape(t, {nCell, cfg->nAuxInput}));
    }
  }
  return Status::Ok();
}

LstmWeights::LstmWeights(const OperationContext& ctx, const LstmLayout& layout) {
  for (int k = 0; k < kNumLstmTensors; ++k) t[k] = FloatTensor(ctx, layout.index(k));
}

size_t lstmScratchSize(const LstmConfig& cfg, uint32_t batch) {
  return size_t{cfg.cifg ? 3u : 4u} * batch * cfg.nCell;
}

void lstmStep(const LstmConfig& cfg, const LstmWeights& w, uint32_t batch, const float* input,
              const float* auxInput, const float* outputStateIn, const float* cellStateIn,
              float* outputStateOut, float* cellStateOut, float* output, float* scratch) {
  const uint32_t nCell = cfg.nCell, nOut = cfg.nOutput;
  const size_t gateSize = size_t{batch} * nCell;
  float* inputGate = cfg.cifg ? nullptr : scratch;
  float* cellGate = cfg.cifg ? scratch : scratch + gateSize;
  float* forgetGate = cellGate + gateSize;
  float* outputGate = forgetGate + gateSize;

  // With layer norm the biases are added after normalization.
  if (cfg.layerNorm) {
    std::fill(scratch, scratch + lstmScratchSize(cfg, batch), 0.0f);
  } else {
    if (!cfg.cifg) fillRows(inputGate, nCell, batch, w[kInputGateBias]);
    fillRows(forgetGate, nCell, batch, w[kForgetGateBias]);
    fillRows(cellGate, nCell, batch, w[kCellGateBias]);
    fillRows(outputGate, nCell, batch, w[kOutputGateBias]);
  }

  const bool aux = auxInput != nullptr && cfg.auxWeights;
  if (!cfg.cifg) {
    matVecAccumulate(w[kInputToInput], nCell, cfg.nInput, input, batch, inputGate);
    if (aux) matVecAccumulate(w[kAuxToInput], nCell, cfg.nAuxInput, auxInput, batch, inputGate);
    matVecAccumulate(w[kRecurrentToInput], nCell, nOut, outputStateIn, batch, inputGate);
  }
  struct {
    int in, aux, rec;
    float* gate;
  } const gates[] = {{kInputToForget, kAuxToForget, kRecurrentToForget, forgetGate},
                     {kInputToCell, kAuxToCell, kRecurrentToCell, cellGate},
                     {kInputToOutput, kAuxToOutput, kRecurrentToOutput, outputGate}};
  for (const auto& g : gates) {
    matVecAccumulate(w[g.in], nCell, cfg.nInput, input, batch, g.gate);
    if (aux) matVecAccumulate(w[g.aux], nCell, cfg.nAuxInput, auxInput, batch, g.gate);
    matVecAccumulate(w[g.rec], nCell, nOut, outputStateIn, batch, g.gate);
  }

  if (!cfg.cifg)
    finishGate(cfg, batch, inputGate, w[kCellToInput], cellStateIn, w[kInputLayerNorm],
               w[kInputGateBias]);
  finishGate(cfg, batch, forgetGate, w[kCellToForget], cellStateIn, w[kForgetLayerNorm],
             w[kForgetGateBias]);

  // New cell state: forget * old + input * act(cell gate).
  if (cfg.layerNorm) layerNormalize(cellGate, nCell, batch, w[kCellLayerNorm], w[kCellGateBias]);
  for (size_t k = 0; k < gateSize; ++k) {
    const float candidate = applyActivation(cfg.activation, cellGate[k]);
    const float in = cfg.cifg ? 1.0f - forgetGate[k] : inputGate[k];
    cellGate[k] = candidate;
    cellStateOut[k] = forgetGate[k] * cellStateIn[k] + candidate * in;
  }
  if (cfg.cellClip > 0) clip(cellStateOut, gateSize, cfg.cellClip);

  // The output gate's peephole looks at the new cell state.
  finishGate(cfg, batch, outputGate, w[kCellToOutput], cellStateOut, w[kOutputLayerNorm],
             w[kOutputGateBias]);
  for (size_t k = 0; k < gateSize; ++k)
    outputGate[k] *= applyActivation(cfg.activation, cellStateOut[k]);

  if (cfg.projection) {
    if (cfg.projectionBias) {
      fillRows(output, nOut, batch, w[kProjectionBias]);
    } else {
      std::fill(output, output + size_t{batch} * nOut, 0.0f);
    }
    matVecAccumulate(w[kProjectionWeights], nOut, nCell, outputGate, batch, output);
    if (cfg.projClip > 0) clip(output, size_t{batch} * nOut, cfg.projClip);
  } else {
    std::copy(outputGate, outputGate + size_t{batch} * nOut, output);
  }
  std::copy(output, output + size_t{batch} * nOut, outputStateOut);
}

void lstmSequence(const LstmConfig& cfg, const LstmWeights& w, const SequenceLayout& layout,
                  bool forward, const float* input, const float* auxInput, float* outputState,
                  float* cellState, float* output, uint32_t outputStride, uint32_t outputOffset) {
  const uint32_t batch = layout.batch;
  std::vector<float> stepInput(size_t{batch} * cfg.nInput);
  std::vector<float> stepAux(auxInput ? size_t{batch} * cfg.nAuxInput : 0);
  std::vector<float> stepOutput(size_t{batch} * cfg.nOutput);
  std::vector<float> scratch(lstmScratchSize(cfg, batch));
  for (uint32_t k = 0; k < layout.maxTime; ++k) {
    const uint32_t t = forward ? k : layout.maxTime - 1 - k;
    for (uint32_t b = 0; b < batch; ++b) {
      const size_t row = layout.row(t, b);
      std::memcpy(&stepInput[size_t{b} * cfg.nInput], input + row * cfg.nInput,
                  cfg.nInput * sizeof(float));
      if (auxInput)
        std::memcpy(&stepAux[size_t{b} * cfg.nAuxInput], auxInput + row * cfg.nAuxInput,
                    cfg.nAuxInput * sizeof(float));
    }
    lstmStep(cfg, w, batch, stepInput.data(), auxInput ? stepAux.data() : nullptr, outputState,
             cellState, outputState, cellState, stepOutput.data(), scratch.data());
    for (uint32_t b = 0; b < batch; ++b)
      std::memcpy(output + layout.row(t, b) * outputStride + outputOffset,
                  &stepOutput[size_t{b} * cfg.nOutput], cfg.nOutput * sizeof(float));
  }
}

}  // namespace nncosim::ops::recurrent
