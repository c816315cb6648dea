// The float LSTM cell shared by LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and
// BIDIRECTIONAL_SEQUENCE_LSTM: CIFG, peephole, projection, layer normalization, clipping
// and an optional auxiliary input. Float16 models are computed in float32 (states stay
// float32 across time steps, as NNAPI's CPU path does) and rounded on store.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/operation.h"
#include "ops/recurrent/recurrent_util.h"

namespace nncosim::ops::recurrent {

// The weight and bias tensors of one LSTM cell.
enum LstmTensor : int {
  kInputToInput,
  kInputToForget,
  kInputToCell,
  kInputToOutput,
  kRecurrentToInput,
  kRecurrentToForget,
  kRecurrentToCell,
  kRecurrentToOutput,
  kCellToInput,
  kCellToForget,
  kCellToOutput,
  kInputGateBias,
  kForgetGateBias,
  kCellGateBias,
  kOutputGateBias,
  kProjectionWeights,
  kProjectionBias,
  kInputLayerNorm,
  kForgetLayerNorm,
  kCellLayerNorm,
  kOutputLayerNorm,
  kAuxToInput,
  kAuxToForget,
  kAuxToCell,
  kAuxToOutput,
  kNumLstmTensors
};

// Where a cell's tensors sit among the operation's inputs.
struct LstmLayout {
  int first = 1;       // input index of kInputToInput; the next 16 tensors follow it
  int layerNorm = -1;  // input index of kInputLayerNorm (4 consecutive), -1 if none
  int aux = -1;        // input index of kAuxToInput (4 consecutive), -1 if none
  int index(int tensor) const;
};

struct LstmConfig {
  uint32_t nInput = 0, nAuxInput = 0, nCell = 0, nOutput = 0;
  int32_t activation = 4;
  float cellClip = 0, projClip = 0;
  bool cifg = false, peephole = false, layerNorm = false, projection = false,
       projectionBias = false, auxWeights = false;
};

// Reads nCell and nOutput from input_to_output_weights [nCell, nInput] and
// recurrent_to_output_weights [nCell, nOutput]; cfg->nInput must be set.
Status inferLstmSizes(const OperationContext& ctx, const LstmLayout& layout, LstmConfig* cfg);

// Checks which optional tensors are present and their shapes, as NNAPI's
// CheckInputTensorDimensions does, and fills the flags of `cfg` (whose sizes are set).
Status checkLstmTensors(const OperationContext& ctx, const LstmLayout& layout, LstmConfig* cfg);

// Float copies of a cell's tensors (nullptr where omitted).
struct LstmWeights {
  FloatTensor t[kNumLstmTensors];
  LstmWeights(const OperationContext& ctx, const LstmLayout& layout);
  const float* operator[](int k) const { return t[k].data(); }
};

// Scratch size of one step, in floats: 3 or 4 gate buffers of [batch, nCell].
size_t lstmScratchSize(const LstmConfig& cfg, uint32_t batch);

// One time step for `batch` rows. Inputs are [batch, nInput] (aux [batch, nAuxInput] or
// null); states in and out are [batch, nOutput] / [batch, nCell] and may alias;
// output is [batch, nOutput]. Scratch holds the gates afterwards in NNAPI's order
// (input, cell, forget, output; no input gate with CIFG).
void lstmStep(const LstmConfig& cfg, const LstmWeights& w, uint32_t batch, const float* input,
              const float* auxInput, const float* outputStateIn, const float* cellStateIn,
              float* outputStateOut, float* cellStateOut, float* output, float* scratch);

// Runs a whole sequence: input rows of nInput (aux rows of nAuxInput), output rows of
// `outputStride` floats written at `outputOffset`, all placed by `layout`. The states
// are updated in place. Backward sequences run from the last time step to the first.
void lstmSequence(const LstmConfig& cfg, const LstmWeights& w, const SequenceLayout& layout,
                  bool forward, const float* input, const float* auxInput, float* outputState,
                  float* cellState, float* output, uint32_t outputStride, uint32_t outputOffset);

}  // namespace nncosim::ops::recurrent
