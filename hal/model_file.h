// The project's model file format "nncosim-model/1" (docs/model-format.md): JSON for
// structure and small constants, binary pool files for CONSTANT_REFERENCE data,
// memory-mapped on load.
#pragma once

#include <string>

#include "hal/model.h"
#include "hal/result.h"

namespace nncosim::hal {

// Reads FILE.json; pool files are resolved relative to its folder.
Result<Model> readModelFile(const std::string& path);
// Parses a model from JSON text; pool file names resolve against `baseDir`.
Result<Model> parseModelJson(const std::string& text, const std::string& baseDir,
                             const std::string& name = "<model>");
// Writes FILE.json and, for each pool, FILE.poolN.bin beside it.
Status writeModelFile(const Model& model, const std::string& path);

// Moves every CONSTANT_COPY operand of at least `minBytes` into a new pool as a
// CONSTANT_REFERENCE, as a model builder does with large weights.
void moveLargeConstantsToPool(Model& model, size_t minBytes);

// Structural equality including operandValues bytes and pool contents.
bool sameModel(const Model& a, const Model& b);

}  // namespace nncosim::hal
