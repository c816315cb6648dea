// Helpers shared by the per-operation lowerings (not part of the public API).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/compiler/compiled_step.h"
#include "driver/compiler/lowering.h"
#include "hal/model.h"
#include "ops/operation.h"

namespace nncosim::driver::internal {

// The operation's context over the given shapes, with constants bound: the reference's
// own geometry and parameter code runs on it.
class OpView {
 public:
  OpView(const hal::Model& model, uint32_t operationIndex, const std::vector<ops::Shape>& shapes);
  OpView(const OpView&) = delete;  // ctx_ refers to operands_
  OpView& operator=(const OpView&) = delete;
  const hal::Operation& op() const { return op_; }
  const ops::OperationContext& ctx() const { return ctx_; }
  const ops::Shape& inShape(size_t i) const { return ctx_.inputShape(i); }
  const ops::Shape& outShape(size_t i) const { return ctx_.outputShape(i); }
  uint32_t inOperand(size_t i) const { return op_.inputs.at(i); }
  uint32_t outOperand(size_t i) const { return op_.outputs.at(i); }
  bool isConstant(size_t i) const;
  // The bytes of constant input i (nullptr if not constant).
  const uint8_t* constantBytes(size_t i) const;
  // Runs the operation's validate (signature) and checks every tensor operand of the
  // operation is fully specified.
  hal::Status check() const;

 private:
  const hal::Model& model_;
  const hal::Operation& op_;
  std::vector<ops::RuntimeOperand> operands_;
  ops::OperationContext ctx_;
};

// Builds a CompiledStep's buffers in the step-local address space.
class StepBuilder {
 public:
  StepBuilder(const hal::Model& model, uint32_t operationIndex);
  size_t addBuffer(const std::string& name, BufferRole role, uint64_t bytes);
  size_t addConstant(const std::string& name, std::vector<uint8_t> contents);
  // Operand `operand` through `layout`: a packed constant buffer when the operand is a
  // constant, else an input buffer plus a binding the runtime fills.
  hal::Result<size_t> bindInput(uint32_t operand, const TensorLayout& layout,
                                const std::string& name);
  size_t bindOutput(uint32_t operand, const TensorLayout& layout, uint64_t bytes,
                    const std::string& name);
  // Assigns step-local addresses (call once, after every buffer is added).
  hal::Status layout();
  uint32_t address(size_t buffer) const {
    return static_cast<uint32_t>(step_.buffers.at(buffer).localAddress);
  }
  CompiledStep& step() { return step_; }

 private:
  const hal::Model& model_;
  CompiledStep step_;
};

std::string operationName(const hal::Model& model, uint32_t operationIndex);

// An ADD, SUB or MUL fused after a convolution: inputs of the output's shape, the
// convolution's output its input `convInput` (ELTWISE's a, requantized into INP), the other
// one ELTWISE's b (loaded beside the accumulators).
struct EltwiseAfter {
  uint32_t other = 0, output = 0;  // the other input's and the output's operands
  firmware::Eltwise proto;         // the arithmetic (addresses and count unset)
  std::vector<uint8_t> record;     // ELTWISE's PRM record
  std::string name;                // ADD, SUB or MUL
};
hal::Result<EltwiseAfter> eltwiseAfter(const OpView& v, uint32_t convInput);

// Per-operation lowerings and support checks.
hal::Status convSupport(const OpView& v);
hal::Result<CompiledStep> lowerConv(const hal::Model& model, uint32_t index, const OpView& v,
                                    const LoweringOptions& options);
// The halves of a fused depthwise -> pointwise step (fused_lowering.h): a tensor kept in
// INP between them, channel tiles `tileStride` bytes apart from `base`, each the pixels in
// raster order, C bytes per pixel (the channel-tile layout of device DRAM, on chip), and
// the parts of INP, WGT and PRM each half's slots take.
struct InpTensor {
  uint32_t base = 0, tileStride = 0;
};
// A fused inverted residual's expanded tensor in INP (lowerFusedInvertedResidual), laid out
// for the depthwise unit: per channel tile `tileStride` bytes apart, rows of `pitch` bytes
// (C bytes per pixel), the zero-point padding included: row 0 holds input row `rowOrigin`
// (negative: padding rows), column 0 input column -padLeft. pitch 0 = none.
struct PaddedInp {
  uint32_t base = 0, tileStride = 0, pitch = 0, padLeft = 0;
  int64_t rowOrigin = 0;
};
struct FusedHalf {
  InpTensor tensor;  // its base holds the first pixel of output row rowFirst
  // With pitch != 0: the expansion half's rows go here (its output binding left unused),
  // and the depthwise half reads its input here instead of loading it.
  PaddedInp expanded;
  BufferWindow inp, wgt, prm;
  BufferWindow acc;         // bytes 0 = all of ACC
  BufferWindow eltwiseInp;  // the pointwise half's elementwise rows, when one follows
  // The block of output rows (across batches) this half computes: [rowFirst, + rowCount);
  // rowCount 0 = every row.
  uint32_t rowFirst = 0, rowCount = 0;
  // Pipelined blocks (block_pipeline.h): the half's weights load once (GemmSpec).
  bool weightsOnce = false;
  // The half's first resident weights in pieces (GemmSpec::splitWeights); off where the
  // fused lowering tries its blocks with and without.
  bool splitWeights = false;
};
// DEPTHWISE_CONV_2D on the depthwise unit (DWCONV), its rows REQUANT_STOREd into
// `half.tensor` (to_inp) instead of stored; its output binding is left unused. With
// `half.expanded`, its input is read there (no loads; the input binding is left unused).
hal::Result<CompiledStep> lowerDepthwiseIntoInp(const hal::Model& model, uint32_t index,
                                                const OpView& v, const LoweringOptions& options,
                                                const FusedHalf& half);
// A CONV_2D (window GEMMs over channel tiles or the raw pixels, A loaded from DRAM) whose
// output rows [rowFirst, + rowCount) are REQUANT_STOREd into `half.expanded` (to_inp) image
// row by image row, for the depthwise half after it; its output binding is left unused.
hal::Result<CompiledStep> lowerConvIntoInp(const hal::Model& model, uint32_t index, const OpView& v,
                                           const LoweringOptions& options, const FusedHalf& half);
// A pointwise CONV_2D (window GEMMs over channel tiles) whose A is `half.tensor` in INP: no
// loads of its input, whose binding is left unused. With `half.expanded` its rows go there
// as lowerConvIntoInp's do (a chain's inner pointwise layer; its output binding is left
// unused). With `after`, an elementwise operation
// applied to its rows (the GEMM engine's epilogue, its INP rows in `half.eltwiseInp`): the
// step's output is then that operation's.
hal::Result<CompiledStep> lowerPointwiseFromInp(const hal::Model& model, uint32_t index,
                                                const OpView& v, const LoweringOptions& options,
                                                const FusedHalf& half,
                                                const EltwiseAfter* after = nullptr);
// CONV_2D as window GEMMs over channel tiles, `after` applied to its rows on the NPU: the
// step's output is `after.output`; the convolution's own output binding is left unused.
hal::Result<CompiledStep> lowerConvThenEltwise(const hal::Model& model, uint32_t index,
                                               const OpView& v, const LoweringOptions& options,
                                               const EltwiseAfter& after);
// TRANSPOSE_CONV_2D as the convolution of its zero-inserted input (host im2col).
hal::Status transposeConvSupport(const OpView& v);
hal::Result<CompiledStep> lowerTransposeConv(const hal::Model& model, uint32_t index,
                                             const OpView& v, const LoweringOptions& options);
// AVERAGE_POOL_2D with unclipped windows as a depthwise convolution (DWCONV), else on the
// pooling unit (POOL) where that takes it.
hal::Status averagePoolSupport(const OpView& v);
hal::Result<CompiledStep> lowerAveragePool(const hal::Model& model, uint32_t index, const OpView& v,
                                           const LoweringOptions& options);
// FULLY_CONNECTED (constant weights) as a pointwise window convolution over channel tiles.
hal::Result<CompiledStep> lowerFullyConnectedAsPointwise(const hal::Model& model, uint32_t index,
                                                         const OpView& v,
                                                         const LoweringOptions& options,
                                                         uint32_t batches, uint32_t inputSize,
                                                         uint32_t units, int32_t activation);
hal::Status fullyConnectedSupport(const OpView& v);
hal::Result<CompiledStep> lowerFullyConnected(const hal::Model& model, uint32_t index,
                                              const OpView& v, const LoweringOptions& options);
hal::Status batchMatmulSupport(const OpView& v);
hal::Result<CompiledStep> lowerBatchMatmul(const hal::Model& model, uint32_t index, const OpView& v,
                                           const LoweringOptions& options);
// MAX_POOL_2D, and the AVERAGE_POOL_2D layers the depthwise unit does not take, on the
// pooling unit (POOL).
hal::Status poolUnitSupport(const OpView& v, bool avg);
hal::Status maxPoolSupport(const OpView& v);
hal::Result<CompiledStep> lowerPoolUnit(const hal::Model& model, uint32_t index, const OpView& v,
                                        const LoweringOptions& options, bool avg);
hal::Result<CompiledStep> lowerMaxPool(const hal::Model& model, uint32_t index, const OpView& v,
                                       const LoweringOptions& options);
// MEAN over height and/or width on the pooling unit (POOL with trunc, ISA 1.8).
hal::Status meanSupport(const OpView& v);
hal::Result<CompiledStep> lowerMean(const hal::Model& model, uint32_t index, const OpView& v,
                                    const LoweringOptions& options);
// ADD, SUB, MUL on the elementwise unit (ELTWISE).
hal::Status eltwiseSupport(const OpView& v);
hal::Result<CompiledStep> lowerEltwise(const hal::Model& model, uint32_t index, const OpView& v,
                                       const LoweringOptions& options);
hal::Status densifySupport(const OpView& v);
hal::Result<CompiledStep> lowerDensify(const hal::Model& model, uint32_t index, const OpView& v,
                                       const LoweringOptions& options);

// The PRM image of a GEMM layer: per channel tile of C lanes, C int32 biases, C int32
// multipliers, C int8 shifts (lanes past `channels` are 0).
std::vector<uint8_t> prmImage(uint32_t channels, uint32_t cols, const int32_t* bias,
                              const std::vector<int32_t>& multipliers,
                              const std::vector<int32_t>& shifts);

void putI32(std::vector<uint8_t>& bytes, size_t at, int32_t v);

// A DMA_LOAD into INP of `planes` x `rows` rows of `rowBytes` bytes (8-bit elements), or
// with `fill` `fillValue` written into them (the DRAM fields then zero, as the ISA ignores
// them).
firmware::DmaLoad inpRowsLoad(bool fill, uint8_t fillValue, uint64_t dram, uint32_t buf,
                              uint64_t rowBytes, uint32_t rows, uint64_t dramStride1,
                              uint32_t bufStride1, uint32_t planes = 1, uint64_t dramStride2 = 0,
                              uint32_t bufStride2 = 0);

// The 16x8 mode (hal::Model::quant16x8): the operation's input is TENSOR_QUANT16_SYMM in a
// model that selects the mode. Its activations run as int16 on the array and its int8
// weights as they are (GEMM wgt8; ACC int64, int16 outputs).
bool is16x8(const OpView& v);

}  // namespace nncosim::driver::internal
