// The basic RNN cell shared by RNN, UNIDIRECTIONAL_SEQUENCE_RNN and
// BIDIRECTIONAL_SEQUENCE_RNN: h' = act(W x + W_aux x_aux + R h + bias).
#pragma once

#include <cstdint>

#include "ops/recurrent/recurrent_util.h"

namespace nncosim::ops::recurrent {

struct RnnCell {
  uint32_t nInput = 0, nAuxInput = 0, nUnits = 0;
  int32_t activation = 0;
  const float* weights = nullptr;           // [nUnits, nInput]
  const float* auxWeights = nullptr;        // [nUnits, nAuxInput] or null
  const float* recurrentWeights = nullptr;  // [nUnits, nUnits]
  const float* bias = nullptr;              // [nUnits]
};

// One step for `batch` rows: input [batch, nInput], aux [batch, nAuxInput] (or null),
// hidden [batch, nUnits]; output row b is written at out + b * outStride.
void rnnStep(const RnnCell& cell, uint32_t batch, const float* input, const float* aux,
             const float* hidden, float* out, uint32_t outStride);

// Runs a sequence; `hidden` ([batch, nUnits]) holds the initial state and receives the
// final one. Output rows of `outStride` floats are written at `outOffset`. With
// `halfStates` each step's output is rounded to half before it becomes the next state,
// as a FLOAT16 buffer would hold it.
void rnnSequence(const RnnCell& cell, const SequenceLayout& layout, bool forward,
                 const float* input, const float* aux, float* hidden, float* out,
                 uint32_t outStride, uint32_t outOffset, bool halfStates);

}  // namespace nncosim::ops::recurrent
