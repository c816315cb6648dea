// The tiling engine shared by every MAC-array operation. Each operation is described as
// output = requant(A x B): A the activations (lanes = output pixels or matrix rows, on
// the array rows), B the weights (lanes = output channels or matrix columns, on the array
// columns, so REQUANT_STORE's per-column parameters are per output channel). The engine
// chooses the loop nest, the buffer slots and the chunking, and emits the steps.
//
// Terms:
//   channel tile q   C consecutive output channels (the GEMM's n lanes)
//   row tile p       up to R output pixels / matrix rows (the GEMM's m lanes)
//   A group          channel tiles that read the same activations (all tiles of a
//                    CONV_2D; one tile of a depthwise convolution; the tiles of a group)
//   phase            a run of channel tiles whose weights (and PRM parameters) stay in
//                    WGT/PRM while every row tile streams through
//   step             one row tile x one A group x one k chunk: its activations (and, for
//                    streamed weights, its weight chunks) in one INP/WGT slot
//
// Loop nest (per problem; BATCH_MATMUL has one problem per batch, since B changes):
//   for phase:                          load weights + PRM once (resident) ...
//     for row tile p:
//       for A group g in the phase:
//         for k chunk c:                load A chunk (+ weight chunks when streamed)
//           GEMM each tile of g         (accumulate when c > 0)
//         REQUANT each tile of g, store its rows
//
// Buffer use (D = bufferSlots, Do = outSlots):
//   INP  D slots of A chunks                 WGT  D resident slots (by phase) or
//   ACC  one R x C int32 tile per channel         D streamed slots (by step)
//        tile of the phase                  PRM  D slots (by phase) of 144 B per tile:
//   OUT  Do slots, one R x C tile per tile        bias C x int32, mult C x int32, shift C x int8
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "driver/compiler/compiled_step.h"
#include "driver/compiler/isa_interpreter.h"
#include "driver/compiler/npu_config.h"
#include "driver/compiler/stream_builder.h"
#include "hal/capabilities.h"
#include "hal/result.h"

namespace nncosim::driver {

// PRM bytes of one channel tile: C int32 biases, C int32 multipliers, C int8 shifts
// (144 for C = 16).
inline constexpr uint32_t prmTileBytes(uint32_t cols) { return 9 * cols; }

// How the preference shapes the plan (docs/driver.md).
struct PlanOptions {
  uint32_t bufferSlots = 2;      // 2 = double-buffered INP/WGT/PRM
  uint32_t outSlots = 2;         // 2 = double-buffered OUT
  uint32_t maxTilesPerPhase = 0; // 0 = as many as fit
  // Longest job: the stream is cut into jobs (each ending with END, its tokens balanced)
  // at step boundaries so that each fits the device's command ring. 0 = one job.
  uint32_t maxJobCommands = 0;
  // The base options of a preference (FAST_SINGLE_ANSWER then searches phase sizes).
  static PlanOptions forPreference(hal::ExecutionPreference p);
};

struct GemmProblem {
  uint32_t weightImage = 0;  // DRAM address of B: per channel tile, depth(q) x C bytes
  uint32_t rowTiles = 0;
  std::function<uint32_t(uint32_t p)> rowsOf;  // m of row tile p (1..R)
  // DMA_LOADs of A for row tile p, A group g, reduction range [k0, k1) (relative to the
  // group's depth) into INP at inpAddr, k-major with R lanes.
  std::function<void(uint32_t p, uint32_t g, uint32_t k0, uint32_t k1, uint32_t inpAddr,
                      std::vector<firmware::DmaLoad>&)>
      loadA;
  // Optional: the GEMMs of row tile p, channel tile q for reduction range [k0, k1), given
  // the A chunk at inpAddr and the tile's weights for k0 at wgtAddr (`proto` has every
  // other field set). Default: one GEMM over the range. Lowerings with several GEMMs per
  // chunk (one per filter tap) set accumulate on all but the first when proto's is clear.
  std::function<void(uint32_t p, uint32_t q, uint32_t k0, uint32_t k1, uint32_t inpAddr,
                     uint32_t wgtAddr, const firmware::Gemm& proto, std::vector<firmware::Gemm>&)>
      gemms;
  // DMA_STOREs of the output rows of row tile p, channel tiles [q0, q1), from OUT: row i
  // of tile q at outAddr + (q - q0)*R*C + i*C bytes.
  std::function<void(uint32_t p, uint32_t q0, uint32_t q1, uint32_t outAddr,
                     std::vector<firmware::DmaStore>&)>
      storeOut;
};

struct GemmSpec {
  uint32_t channels = 0;               // output channels N
  std::vector<uint32_t> tileDepth;     // K of each channel tile
  std::vector<uint32_t> tileGroup;     // A group of each channel tile (non-decreasing)
  uint32_t kUnit = 1;                  // k chunks are multiples of this (taps per channel)
  uint64_t usefulMacs = 0;             // MACs the operation needs (for the report)
  // GEMM operands
  bool aSigned = false, bSigned = false;
  int32_t aZp = 0, bZp = 0;
  // REQUANT_STORE
  uint32_t prmImage = 0;               // DRAM: prmTileBytes(C) per channel tile
  bool perChannel = false, biasEn = true, outSigned = false;
  int32_t outZp = 0, clampMin = 0, clampMax = 0;
  std::vector<GemmProblem> problems;
};

// The deepest channel tile whose whole reduction fits one k chunk with its weights
// resident, for these options (lowerings with chunk-dependent layouts check it).
uint32_t maxSingleChunkDepth(const NpuConfig& npu, const PlanOptions& options, uint32_t kUnit);

// Plans and emits the whole operation; fills the report's tiling fields.
hal::Result<std::vector<firmware::Command>> emitGemm(const GemmSpec& spec, const NpuConfig& npu,
                                                     const PlanOptions& options, uint32_t tag,
                                                     StepReport& report);

// The plan for a preference: FAST_SINGLE_ANSWER emits candidates with several phase sizes
// and keeps the one with the fewest estimated cycles (IsaInterpreter::estimate); the
// others emit their base options. Sets report.estimatedCycles.
hal::Result<std::vector<firmware::Command>> emitGemmFor(const GemmSpec& spec, const NpuConfig& npu,
                                                        hal::ExecutionPreference preference,
                                                        uint32_t maxJobCommands, const CostModel& cost,
                                                        uint32_t tag, StepReport& report);

// Stores m output rows x channel tiles [q0, q1) (as storeOut lays them out in OUT) to
// DRAM, where output row i, channel c is at dram + i*rowStride + (c - q0*C): the full
// 16-channel tiles in one 3-D DMA_STORE (channels x tiles x rows), a partial last tile in
// another.
void storeTiles(uint64_t dram, uint32_t rowStride, uint32_t m, uint32_t q0, uint32_t q1,
                uint32_t channels, const NpuConfig& npu, uint32_t outAddr,
                std::vector<firmware::DmaStore>& out);

// Splits a contiguous DRAM -> buffer copy into DMA_LOADs (count0 is 16 bits).
void contiguousLoad(firmware::Buffer buffer, uint32_t bufAddr, uint32_t dramAddr, uint64_t bytes,
                    std::vector<firmware::DmaLoad>& out);

}  // namespace nncosim::driver
