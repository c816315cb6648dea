#include "ops/recurrent/rnn_cell.h"

#include <cstring>
#include <vector>

namespace nncosim::ops::recurrent {

void rnnStep(const RnnCell& cell, uint32_t batch, const float* input, const float* aux,
             const float* hidden, float* out, uint32_t outStride) {
  const uint32_t n = cell.nUnits;
  for (uint32_t b = 0; b < batch; ++b) {
    const float* x = input + size_t{b} * cell.nInput;
    const float* xa = aux ? aux + size_t{b} * cell.nAuxInput : nullptr;
    const float* h = hidden + size_t{b} * n;
    float* o = out + size_t{b} * outStride;
    for (uint32_t u = 0; u < n; ++u) {
      float acc = cell.bias[u];
      const float* wr = cell.weights + size_t{u} * cell.nInput;
      for (uint32_t i = 0; i < cell.nInput; ++i) acc += x[i] * wr[i];
      if (xa) {
        const float* ar = cell.auxWeights + size_t{u} * cell.nAuxInput;
        for (uint32_t i = 0; i < cell.nAuxInput; ++i) acc += xa[i] * ar[i];
      }
      const float* rr = cell.recurrentWeights + size_t{u} * n;
      for (uint32_t k = 0; k < n; ++k) acc += h[k] * rr[k];
      o[u] = applyActivation(cell.activation, acc);
    }
  }
}

void rnnSequence(const RnnCell& cell, const SequenceLayout& layout, bool forward,
                 const float* input, const float* aux, float* hidden, float* out,
                 uint32_t outStride, uint32_t outOffset, bool halfStates) {
  const uint32_t batch = layout.batch, n = cell.nUnits;
  std::vector<float> stepIn(size_t{batch} * cell.nInput);
  std::vector<float> stepAux(aux ? size_t{batch} * cell.nAuxInput : 0);
  std::vector<float> stepOut(size_t{batch} * n);
  for (uint32_t k = 0; k < layout.maxTime; ++k) {
    const uint32_t t = forward ? k : layout.maxTime - 1 - k;
    for (uint32_t b = 0; b < batch; ++b) {
      const size_t row = layout.row(t, b);
      std::memcpy(&stepIn[size_t{b} * cell.nInput], input + row * cell.nInput,
                  cell.nInput * sizeof(float));
      if (aux)
        std::memcpy(&stepAux[size_t{b} * cell.nAuxInput], aux + row * cell.nAuxInput,
                    cell.nAuxInput * sizeof(float));
    }
    rnnStep(cell, batch, stepIn.data(), aux ? stepAux.data() : nullptr, hidden, stepOut.data(), n);
    if (halfStates) roundToHalf(stepOut.data(), stepOut.size());
    std::memcpy(hidden, stepOut.data(), stepOut.size() * sizeof(float));
    for (uint32_t b = 0; b < batch; ++b)
      std::memcpy(out + layout.row(t, b) * outStride + outOffset, &stepOut[size_t{b} * n],
                  n * sizeof(float));
  }
}

}  // namespace nncosim::ops::recurrent
