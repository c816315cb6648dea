// Lowering: one NPU-eligible operation of a model -> CompiledStep (command stream, device
// buffers, operand bindings).
//
// MAC array (docs/driver.md has the pictures):
//   CONV_2D, GROUPED_CONV_2D, DEPTHWISE_CONV_2D  im2col GEMM: output pixels on the array
//       rows, output channels on the columns. DMA_LOAD gathers, per filter tap, the
//       pixels of a row tile from the planar padded input (layout.h kConvInput). Grouped
//       and depthwise channel tiles use a block-diagonal weight tile: column j only sees
//       its own group's input channels, the other weights are the filter zero point (so
//       they add exactly 0). A depthwise tile thus computes 16 channels x 16 pixels per
//       GEMM instead of leaving 15 of 16 columns idle.
//   FULLY_CONNECTED   batch rows x units; BATCH_MATMUL   rows x columns per batch.
//   Requantization uses ops/conv's ConvQuantParams (the reference's own derivation), so
//   results are bit-exact.
// Densify unit: DENSIFY of any element type, one DENSIFY command.
// Hybrid steps (lstm_lowering.cc): QUANTIZED_16BIT_LSTM and QUANTIZED_LSTM, gate products
//   on the array (int16 / int32 REQUANT_STORE outputs), the cell in the step's host
//   epilogue (CompiledStep::epilogue).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "driver/compiler/compiled_step.h"
#include "driver/compiler/gemm_engine.h"
#include "driver/compiler/host_model.h"
#include "driver/isa_model/energy_model.h"
#include "driver/isa_model/isa_interpreter.h"
#include "driver/isa_model/npu_config.h"
#include "hal/capabilities.h"
#include "hal/model.h"
#include "hal/result.h"
#include "ops/shape.h"

namespace nncosim::driver {

// How convolutions map onto the array (conv_lowering.cc); kAuto keeps the fastest.
enum class ConvMapping {
  kAuto,
  kHostIm2col,
  kDmaIm2col,
  kShiftedWindows,
  kOutputBlocks,
  kWindow,         // ISA 1.5 window GEMMs over channel tiles
  kDepthwiseUnit,  // ISA 1.6 DWCONVs on the depthwise unit, over the same channel tiles
  kRawWindow       // ISA 1.5 window GEMMs over the NHWC input itself (few input channels)
};

// Operands that earlier NPU steps leave in device DRAM, with their layouts (compileModel):
// an input bound through the same layout costs the host nothing.
using DeviceLayouts = std::map<uint32_t, TensorLayout>;

struct LoweringOptions {
  NpuConfig npu;
  hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
  uint32_t tag = 1;  // END tag of the job(s)
  // Longest job the device accepts: sim::Device takes fewer commands than its ring has
  // slots (firmware::kRingSlots, 16384 by default since session 24: a chain of fused pairs
  // is one job). Longer streams are cut into several jobs, each ending with END; 0 = never
  // cut.
  uint32_t maxJobCommands = firmware::kRingSlots - 384;
  // The timing model behind the plan choices (shifted windows or im2col, FAST's phase
  // sizes); calibrate it with the RTL's measured latencies.
  CostModel cost;
  ConvMapping convMapping = ConvMapping::kAuto;
  // The host the books charge for its packing, copies and CPU steps (host_model.h), and
  // the device clock that turns its time into device cycles: mappings are compared by
  // end-to-end cost, device cycles plus the host's passes around the step.
  HostModel host;
  double deviceClockMHz = 1000;
  // Per-event energies: LOW_POWER keeps the plan and mapping with the least energy.
  EnergyModel energy;
  // Set by a mapping search for each candidate after its first: the best end-to-end cost
  // (endToEndCycles) so far. A candidate whose device cycles plus host cycles pass it
  // cannot win, so its estimates stop there (cycleLimitFor, emitGemmFor's cycleLimit).
  double costLimit = std::numeric_limits<double>::infinity();
  // Set by compileModel: what earlier NPU steps leave on the device (null: nothing).
  const DeviceLayouts* deviceLayouts = nullptr;
  // compileModel: fused steps when they are faster (fused_lowering.h: a depthwise layer and
  // the pointwise layer after it; a convolution, or such a pair, and the ADD, SUB or MUL
  // after it); off = every operation its own step.
  bool fuseLayers = true;
  // A fused depthwise + pointwise step or inverted residual in blocks of rows: kAuto keeps
  // the fastest of a job per block, pipelined (pairs) and overlapped blocks
  // (block_pipeline.h); kOverlapped takes the overlapped blocks wherever they fit (tests and
  // comparisons), failing where they do not.
  enum class BlockJoin { kAuto, kOverlapped };
  BlockJoin blockJoin = BlockJoin::kAuto;
};

// The host's bytes around one step (its bindings' packing, copies and unpacking, and a
// hybrid step's results), as the runtime will move them: nothing for resident bindings,
// nor for an input that `onDevice` holds in the binding's layout. An input `onDevice`
// holds in another layout also carries its read-back (the producer's unpack or copy out),
// so a mapping search charges a candidate for the round trip it forces; a plan's books
// (no `onDevice`) put that read-back on the producer instead.
HostBytes hostTraffic(const hal::Model& model, const CompiledStep& step,
                      const DeviceLayouts* onDevice = nullptr);
// The step's host passes at the device clock (its bindings only: known before its commands).
double hostCycles(const hal::Model& model, const CompiledStep& step,
                  const LoweringOptions& options);
// The step's estimated device cycles plus its host passes at the device clock.
double endToEndCycles(const hal::Model& model, const CompiledStep& step,
                      const LoweringOptions& options);
// The step's estimated energy in picojoules: its stream's events at its estimated cycles,
// and the host's DRAM bytes around it.
double estimatedEnergyPj(const hal::Model& model, const CompiledStep& step,
                         const LoweringOptions& options);
// The estimated device cycles from which `step` (its bindings set, its commands not yet
// chosen) costs more than options.costLimit end to end: its plan's estimates may stop
// there. One cycle of margin keeps the comparison exact whatever the rounding of the
// costs, so a step stopped there loses even a tie. kNoLimit without a cost limit.
uint64_t cycleLimitFor(const hal::Model& model, const CompiledStep& step,
                       const LoweringOptions& options);

// The model's declared shapes of the main subgraph's operands.
std::vector<ops::Shape> declaredShapes(const hal::Model& model);

// Ok when main-subgraph operation `operationIndex` can run on the NPU with the operand
// shapes `shapes` (one per operand; this operation's must be fully specified); else the
// reason it stays on the CPU.
hal::Status npuSupport(const hal::Model& model, uint32_t operationIndex,
                       const std::vector<ops::Shape>& shapes, const NpuConfig& npu = {});

hal::Result<CompiledStep> lowerOperation(const hal::Model& model, uint32_t operationIndex,
                                         const std::vector<ops::Shape>& shapes,
                                         const LoweringOptions& options);

}  // namespace nncosim::driver
