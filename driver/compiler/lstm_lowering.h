// The quantized LSTMs as hybrid steps (lstm_lowering.cc; not part of the public API).
#pragma once

#include "driver/compiler/lowering_internal.h"

namespace nncosim::driver::internal {

// QUANTIZED_16BIT_LSTM: the gate GEMM on the array (int16 Q3.12 out), the cell on the host.
hal::Status quantized16BitLstmSupport(const OpView& v);
hal::Result<CompiledStep> lowerQuantized16BitLstm(const hal::Model& model, uint32_t index,
                                                  const OpView& v, const LoweringOptions& options);
// QUANTIZED_LSTM: every gate's input and recurrent products on the array, the rest
// (saturating sum, peepholes, layer norm, cell, hidden, projection) on the host.
hal::Status quantizedLstmSupport(const OpView& v);
hal::Result<CompiledStep> lowerQuantizedLstm(const hal::Model& model, uint32_t index,
                                             const OpView& v, const LoweringOptions& options);

}  // namespace nncosim::driver::internal
