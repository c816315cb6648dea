// Judging one conformance test's outputs by the NNAPI test harness's criteria
// (shared/conformance/README.md), and separately for bit-exactness.
#pragma once

#include <string>
#include <vector>

#include "hal/vector_file.h"

namespace nncosim::verify {

struct Verdict {
  bool passed = false;
  bool integerOutputs = false;  // every compared output has an integer or bool type
  bool bitExact = false;        // integerOutputs and every element equal
  std::string reason;           // why it failed (first offending output/element)
};

Verdict judgeOutputs(const hal::ConformanceTest& test, const std::vector<hal::TensorValue>& actual);

// True when the README's relaxed float tolerance applies (isRelaxed, or any
// TENSOR_FLOAT16 operand in any subgraph).
bool usesRelaxedTolerance(const hal::Model& model);

}  // namespace nncosim::verify
