// The embedded demo network `nncosim run` executes with no model argument: a small
// quantized CNN (convolutions, a depthwise convolution, a sparse fully-connected layer
// whose weights come through DENSIFY) ending in a float softmax on the CPU fallback.
#pragma once

#include <vector>

#include "hal/model.h"
#include "hal/tensor_value.h"

namespace nncosim::verify {

hal::Model demoNetwork();
// A deterministic input image for it.
std::vector<hal::TensorValue> demoInputs(const hal::Model& model);

}  // namespace nncosim::verify
