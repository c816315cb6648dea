// Importing a TensorFlow Lite model as a hal::Model, the way TFLite's NNAPI delegate
// maps builtin operators to NNAPI operations (docs/tflite-import.md).
//
// Subgraph 0 is the model. Tensors become operands (uint8 -> TENSOR_QUANT8_ASYMM, int8
// -> TENSOR_QUANT8_ASYMM_SIGNED, or TENSOR_QUANT8_SYMM_PER_CHANNEL when it has several
// scales, int16 -> TENSOR_QUANT16_SYMM in the 16x8 mode, int32, float32, float16, bool);
// buffers become constants: small ones inline, large ones CONSTANT_REFERENCE into a pool
// that is the (memory-mapped) file itself, so weights are never copied. Operators become
// one or more NNAPI operations with their options as scalar operands. Anything without a
// mapping is refused with one message naming the operator index, its builtin or custom
// name and why.
#pragma once

#include <string>

#include "hal/model.h"
#include "hal/result.h"
#include "hal/tflite/tflite_file.h"

namespace nncosim::tflite {

struct ImportOptions {
  // Constants of at least this many bytes reference the file as pool 0 (CONSTANT_POOL);
  // smaller ones are copied into operandValues.
  size_t poolMinBytes = 64;
  // False: copy every constant (into a fresh pool for the large ones), e.g. before writing
  // the model out, where a pool holding the whole .tflite file would waste space.
  bool referenceFile = true;
};

hal::Result<hal::Model> importModel(const TfliteFile& file, const ImportOptions& options = {});
// openPath + importModel.
hal::Result<hal::Model> readTfliteFile(const std::string& path, const ImportOptions& options = {});

// The builtin operator's TFLite name ("CONV_2D"), or "builtin N" when unknown.
std::string builtinName(int32_t code);

}  // namespace nncosim::tflite
