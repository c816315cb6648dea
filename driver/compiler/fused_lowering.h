// Fused steps: two operations in one job, the tensor between them kept in INP (REQUANT_STORE
// to_inp, ISA 1.9) instead of going through device DRAM.
//
// A depthwise layer on the depthwise unit and the pointwise CONV_2D that reads its output:
// the depthwise half requantizes its rows into INP, where its channel tiles lie as they would
// in DRAM (the pixels of a tile in raster order, C channels each), and the pointwise half's
// window GEMMs read them there instead of loading them. Each half is planned by its own
// lowering (conv_lowering's window mapping) in its own parts of the buffers: the tensor at
// the top of INP and the depthwise input slots below it; the depthwise weights and
// parameters in the low parts of WGT and PRM and the pointwise ones above, so the pointwise
// half's loads run while the depthwise half computes and never overwrite what it reads.
// The two streams follow each other in one job; each balances its own tokens (docs/isa.md),
// and the in-order queues keep them apart. No on-chip state crosses an END.
//
// A CONV_2D and the ADD, SUB or MUL that alone reads its output (ResNet's residual ADDs):
// the convolution's rows are requantized into INP, the step's loads bring the other
// input's matching rows into WGT beside its weights, and ELTWISE (ISA 1.7) writes the
// elementwise results into OUT, which the step stores: one plan (the GEMM engine's
// elementwise epilogue), the convolution's output never in DRAM.
//
// A CONV_2D in front of such a depthwise -> pointwise pair (MobileNet-v2's expansion, or a
// stem): its rows go into INP image row by image row, between zero-point padding the step
// fills on chip, laid out as the depthwise half's loads would lay them, and the depthwise
// half reads them there: three (with the ADD four) operations, neither expanded tensor in
// DRAM.
//
// Such pairs feeding each other (MobileNet-v1's body) as one job: each pointwise layer but
// the last writes its rows into INP between the next depthwise layer's padding, as the
// expansion does; two tokens per link order what the pairs share (chain_join.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "driver/compiler/compiled_step.h"
#include "driver/compiler/lowering.h"
#include "hal/model.h"
#include "hal/result.h"
#include "ops/shape.h"

namespace nncosim::driver {

// Main-subgraph operation `depthwise` (DEPTHWISE_CONV_2D) and `pointwise` (a 1x1 stride-1
// CONV_2D whose input is the depthwise output) as one step: its inputs those of the
// depthwise layer, its outputs those of the pointwise one, CompiledStep::fused = {pointwise}.
// Fails (the caller keeps the two steps) when a half does not apply (NCHW layers among
// them) or not one block of the tensor's rows fits in INP beside the depthwise input.
// With `eltwise` (an ADD, SUB or MUL of the pointwise output and a tensor of its shape,
// MobileNet-v2's residual ADD) the pointwise half ends with that operation as a convolution
// does in lowerFusedConvEltwise: the step's inputs add the other tensor, its output is the
// elementwise operation's, fused = {pointwise, eltwise}.
hal::Result<CompiledStep> lowerFusedDepthwisePointwise(
    const hal::Model& model, uint32_t depthwise, uint32_t pointwise,
    const std::vector<ops::Shape>& shapes, const LoweringOptions& options,
    std::optional<uint32_t> eltwise = std::nullopt);

// Main-subgraph operations `expand` (a pointwise CONV_2D), `depthwise` (reading only its
// output) and `pointwise` (a pointwise CONV_2D reading the depthwise output), MobileNet-v2's
// inverted residual, as one step: the expansion's rows go into INP between the zero-point
// padding the depthwise unit reads (filled on chip), the depthwise rows into INP as in
// lowerFusedDepthwisePointwise, so neither expanded tensor passes through DRAM. One image,
// by blocks of output rows (a job each; a block recomputes the expanded rows its filter
// overlaps with the next). With `eltwise` the pointwise half ends with it as there.
// CompiledStep::fused = {depthwise, pointwise[, eltwise]}.
hal::Result<CompiledStep> lowerFusedInvertedResidual(
    const hal::Model& model, uint32_t expand, uint32_t depthwise, uint32_t pointwise,
    const std::vector<ops::Shape>& shapes, const LoweringOptions& options,
    std::optional<uint32_t> eltwise = std::nullopt);

// Main-subgraph operations first, first + 1, ..., first + 2 * pairs - 1: `pairs` depthwise ->
// pointwise pairs as lowerFusedDepthwisePointwise fuses them, each pair's depthwise layer
// past the first reading the pointwise output before it (MobileNet-v1's 14 x 14 layers), as
// one step and one job: each pointwise layer but the last writes its rows into INP between
// zero-point padding filled on chip, where the next depthwise layer reads them, as
// lowerFusedInvertedResidual's expansion does, so no tensor between the first layer's input
// and the last one's output passes through DRAM. Whole tensors only (one image, every
// tensor between the layers and every padded depthwise input in INP at once).
// CompiledStep::fused = {first + 1, ..., first + 2 * pairs - 1}.
hal::Result<CompiledStep> lowerFusedChain(const hal::Model& model, uint32_t first, uint32_t pairs,
                                          const std::vector<ops::Shape>& shapes,
                                          const LoweringOptions& options);

// Main-subgraph operation `conv` (CONV_2D) and `eltwise` (ADD, SUB or MUL of the
// convolution's output and a tensor of the same shape and type) as one step: its inputs
// the convolution's and the other tensor, its output the elementwise operation's,
// CompiledStep::fused = {eltwise}. Fails (the caller keeps the two steps) when the
// convolution is no window mapping over channel tiles, an input broadcasts, or the
// operands are not 8-bit.
hal::Result<CompiledStep> lowerFusedConvEltwise(const hal::Model& model, uint32_t conv,
                                                uint32_t eltwise,
                                                const std::vector<ops::Shape>& shapes,
                                                const LoweringOptions& options);

}  // namespace nncosim::driver
