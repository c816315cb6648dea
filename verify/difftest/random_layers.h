// Random NPU-eligible layers for differential testing (NPU against the reference).
//
// randomLayer(seed) builds one single-operation hal::Model with random constant weights
// and bias and a random input: CONV_2D, DEPTHWISE_CONV_2D (depth multipliers too),
// GROUPED_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL or TRANSPOSE_CONV_2D, with random shapes, strides,
// explicit and implicit padding, dilation, NHWC and NCHW, zero points, per-tensor and
// per-channel (TENSOR_QUANT8_SYMM_PER_CHANNEL) filters, uint8 and int8, every fused
// activation; a share of the convolutions and fully connected layers in the 16x8 mode
// (TENSOR_QUANT16_SYMM activations, TENSOR_QUANT8_SYMM[_PER_CHANNEL] weights). The output scale and
// zero point are derived from the integer accumulator statistics of the drawn data, so outputs span
// a good part of the quantized range rather than saturating (a few layers deliberately saturate or
// use extreme multipliers). On request (GeneratorOptions::types, `nncosim difftest --op`), LSTM
// steps, which run as hybrid NPU steps: QUANTIZED_16BIT_LSTM, and QUANTIZED_LSTM with CIFG,
// peephole, layer-norm, projection and clipping variants; constant weights, random activations and
// cell states, batches up to 40; AVERAGE_POOL_2D and MAX_POOL_2D (filters up to 7x7, a
// tenth up to 15x15, a twentieth up to 40x40, strides, some padding, uint8, int8 and int16 in the
// 16x8 mode, every fused activation); MEAN over height and/or width (uint8, int8; the pooling
// unit); and ADD, SUB, MUL (the elementwise unit: same shapes and every broadcast it takes,
// constant or runtime inputs, uint8, int8 and int16 ADD/SUB in the 16x8 mode, every fused
// activation).
//
// The same seed gives the same layer on every platform (own PRNG, no <random>
// distributions); layer i of a run with seed S uses layerSeed(S, i).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hal/model.h"
#include "hal/operation_type.h"
#include "hal/tensor_value.h"

namespace nncosim::verify::difftest {

struct GeneratorOptions {
  // Operation types to draw from (uniformly); empty = all of randomLayerTypes().
  std::vector<hal::OperationType> types;
  uint32_t maxSpatial = 20;   // input height / width
  uint32_t maxChannels = 48;  // input and output channels, FC units, matmul rows/columns
  uint32_t maxBatch = 3;
  // Share of CONV_2D, DEPTHWISE_CONV_2D, GROUPED_CONV_2D and FULLY_CONNECTED layers drawn
  // in the 16x8 mode (int16 activations and outputs, int8 symmetric weights; the model's
  // quant16x8 flag set).
  double quant16x8 = 0.2;
  // Instead of single layers, half and half: a DEPTHWISE_CONV_2D and the pointwise CONV_2D
  // that reads its output, or a CONV_2D and the ADD, SUB or MUL that reads its output: the
  // pairs the driver fuses into one step (`nncosim difftest --fused-pairs`).
  bool fusedPairs = false;
  // Instead of single layers, inverted residuals: a pointwise CONV_2D expansion, a
  // DEPTHWISE_CONV_2D over its output and a pointwise CONV_2D projection, and where the
  // shapes allow, half of the time, the ADD of the block's input; one image: what the driver
  // fuses whole (`nncosim difftest --inverted-residuals`).
  bool invertedResiduals = false;
  // Instead of single layers, chains: two or three depthwise -> pointwise pairs, each
  // pair's depthwise layer reading the pointwise output before it; one image: what the
  // driver joins into one step (`nncosim difftest --chains`).
  bool chains = false;
  // Instead of single layers, half and half: a DEPTHWISE_CONV_2D and the pointwise CONV_2D
  // that reads its output (one image), or an inverted residual without the ADD: what the
  // driver runs in overlapped blocks when told to (`nncosim difftest --overlapped`).
  bool overlapped = false;
};

struct RandomLayer {
  uint64_t seed = 0;
  hal::OperationType type = hal::OperationType::CONV_2D;
  hal::Model model;  // one operation (two to four for fused ones), inputs = its runtime operands
  std::vector<hal::TensorValue> inputs;  // per model.main.inputIndexes
  std::string description;               // one line: every parameter of the layer
};

// The operation types the generator draws by default (the MAC array's operations).
const std::vector<hal::OperationType>& randomLayerTypes();
// The types it produces only when asked for them: the LSTM steps, AVERAGE_POOL_2D
// (mostly unclipped windows, which run on the depthwise unit; clipped ones and the rest on
// the pooling unit), MAX_POOL_2D and MEAN (the pooling unit), and ADD, SUB, MUL (the
// elementwise unit).
const std::vector<hal::OperationType>& onRequestLayerTypes();
// True when `type` is one of randomLayerTypes() or onRequestLayerTypes().
bool isRandomLayerType(hal::OperationType type);

// The seed of layer `index` of a run seeded with `runSeed` (a SplitMix64 mix of both).
uint64_t layerSeed(uint64_t runSeed, uint64_t index);

// One random layer; deterministic in (seed, options).
RandomLayer randomLayer(uint64_t seed, const GeneratorOptions& options = {});

}  // namespace nncosim::verify::difftest
