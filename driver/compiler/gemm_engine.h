// The tiling engine shared by every MAC-array operation. Each operation is described as
// output = requant(A x B): A the activations (lanes = output pixels or matrix rows, on
// the array rows), B the weights (lanes = output channels or matrix columns, on the array
// columns, so REQUANT_STORE's per-column parameters are per output channel). The engine
// chooses the loop nest, the buffer slots and the chunking, and emits the steps.
//
// Terms:
//   channel tile q   C consecutive output columns (the GEMM's n lanes)
//   row tile p       up to R output pixels / matrix rows (the GEMM's m lanes)
//   A group          channel tiles that read the same activations (all tiles of a
//                    CONV_2D; one tile of a depthwise convolution; the tiles of a group)
//   phase            a run of channel tiles whose weights (and PRM parameters) stay in
//                    WGT/PRM while every row tile streams through
//   step             a block of row tiles x a run of A groups (x one k chunk when a tile's
//                    reduction does not fit): its activations in one INP slot, one GEMM
//                    per row tile and channel tile, then one REQUANT_STORE per channel tile
//                    over all the block's rows and the stores of the block
//
// Loop nest (per problem; BATCH_MATMUL has one problem per batch, since B changes):
//   for phase:                          load weights + PRM once (resident) ...
//     for row block [p0, p1):
//       for group run [g0, g1) in the phase:
//         for k chunk c:                load A pieces (g, p) (+ weight chunks when streamed)
//           for tile:
//             GEMM each row tile        (accumulate when c > 0)
//             REQUANT the tile          (last chunk: all rows of the block)
//         store the block
//
// A REQUANT_STORE reads its rows once the GEMMs ahead of it have drained and runs beside
// the GEMMs behind it that write other ACC rows (ISA 1.10, docs/isa.md), so a step's rows
// are requantized by one command per channel tile, each after its tile's GEMMs, beside the
// next tile's: ACC and OUT hold the block's rows densely (tile q's rows, row tile by row
// tile).
//
// Buffer use (D = bufferSlots, Do = outSlots):
//   INP  D slots of A pieces                 WGT  D resident slots (by phase) or
//   ACC  tiles x rows of the step (int32)         D streamed slots (by step)
//   OUT  Do slots, tiles x rows of the step  PRM  D slots (by phase), prmTile B per tile
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "driver/compiler/compiled_step.h"
#include "driver/isa_model/energy_model.h"
#include "driver/isa_model/isa_interpreter.h"
#include "driver/isa_model/npu_config.h"
#include "driver/compiler/stream_builder.h"
#include "hal/capabilities.h"
#include "hal/result.h"

namespace nncosim::driver {

// PRM bytes of one channel tile: C int32 biases, C int32 multipliers, C int8 shifts
// (144 for C = 16).
inline constexpr uint32_t prmTileBytes(uint32_t cols) { return 9 * cols; }

// How the preference shapes the plan (docs/driver.md).
struct PlanOptions {
  uint32_t bufferSlots = 2;         // 2 = double-buffered INP/WGT/PRM
  uint32_t outSlots = 2;            // 2 = double-buffered OUT
  uint32_t maxTilesPerPhase = 0;    // 0 = as many as fit
  uint32_t maxRowTilesPerStep = 0;  // 0 = as many as ACC, OUT and INP hold
  uint32_t maxGroupsPerStep = 0;    // 0 = as many A groups (single-chunk) as fit
  bool lateLoads = false;           // next step's loads among this step's REQUANTs (StepStream)
  // Longest job: the stream is cut into jobs (each ending with END, its tokens balanced)
  // at step boundaries so that each fits the device's command ring. 0 = one job.
  uint32_t maxJobCommands = 0;
  // The base options of a preference (FAST_SINGLE_ANSWER then searches phase sizes).
  static PlanOptions forPreference(hal::ExecutionPreference p);
};

// One k-major A chunk the engine asks for: row tile p of A group g, reduction [k0, k1)
// (relative to the group's depth), to INP at inpAddr ((k1 - k0) * R elements). A step's
// pieces are group-major, then row tile, packed one after the other.
struct APiece {
  uint32_t p = 0, g = 0, k0 = 0, k1 = 0, inpAddr = 0;
};

struct GemmProblem {
  uint32_t weightImage = 0;  // DRAM address of B: per channel tile, depth(q) x C elements
  // Row tiles [firstRowTile, firstRowTile + rowTiles): the callbacks see these indices (a
  // fused step's block of output rows starts past 0).
  uint32_t firstRowTile = 0;
  uint32_t rowTiles = 0;
  std::function<uint32_t(uint32_t p)> rowsOf;  // m of row tile p (1..R)
  // DMA_LOADs of the step's A pieces.
  std::function<void(const std::vector<APiece>& pieces, std::vector<firmware::DmaLoad>&)> loadA;
  // Optional: the commands of row tile p, channel tile q for reduction range [k0, k1),
  // given the A piece at inpAddr and the tile's weights for k0 at wgtAddr (`proto` has every
  // other field set). Default: one GEMM over the range. Lowerings with several GEMMs per
  // chunk (one per filter tap) set accumulate on all but the first when proto's is clear;
  // the depthwise mapping emits one DWCONV instead, into proto's ACC rows.
  // (wgtAddr advances k * C * weight bytes per k.)
  std::function<void(uint32_t p, uint32_t q, uint32_t k0, uint32_t k1, uint32_t inpAddr,
                     uint32_t wgtAddr, const firmware::Gemm& proto,
                     std::vector<firmware::CommandArgs>&)>
      gemms;
  // DMA_STOREs of row tiles [p0, p1) x channel tiles [q0, q1) from OUT: tile q's `rows`
  // rows (row tile p0's m rows, then p0 + 1's, ...) at outAddr + (q - q0)*rows*C, C bytes
  // each.
  std::function<void(uint32_t p0, uint32_t p1, uint32_t q0, uint32_t q1, uint32_t rows,
                     uint32_t outAddr, std::vector<firmware::DmaStore>&)>
      storeOut;
  // Optional (fused steps, fused_lowering.h): channel tile q's rows of a step, from row tile
  // p0 on, go to INP at requantInp(p0, q) (REQUANT_STORE to_inp, ISA 1.9), where the step's
  // next operation reads them; storeOut is not called and OUT is not used.
  std::function<uint32_t(uint32_t p0, uint32_t q)> requantInp;
  // Optional, instead of requantInp: the step's `rows` rows from row tile p0 on as runs,
  // each visit(first row, rows, INP address) one REQUANT_STORE (a fused step's expansion
  // layer writes each image row between the zero-point columns of its padded tensor).
  using RunVisitor = std::function<void(uint32_t row, uint32_t rows, uint32_t inpAddr)>;
  std::function<void(uint32_t p0, uint32_t rows, uint32_t q, const RunVisitor&)> requantInpRuns;
  // Whether the rows go into INP (either of the two).
  bool intoInp() const { return requantInp || requantInpRuns; }
};

// A part [base, base + bytes) of an on-chip buffer; bytes 0 = the whole buffer.
struct BufferWindow {
  uint32_t base = 0, bytes = 0;
};

// An elementwise operation after the requantization (a residual ADD fused into the
// convolution before it, fused_lowering.h). Each output event's rows are requantized into
// INP (REQUANT_STORE to_inp, ISA 1.9) instead of OUT; the step's loads bring the other
// operand's matching rows into WGT; one ELTWISE (ISA 1.7) per event writes the results
// into the OUT slot its stores read. It takes an INP region and D WGT slots of a step's
// rows (the top of those windows) and the 24-byte record at the top of PRM.
// INP bytes an elementwise epilogue's rows take at most: a step's rows (ACC's int32 rows at
// most) of C 8-bit results, 64-byte aligned. What a caller giving them a region of their own
// (EltwiseEpilogue::inp) gives.
uint32_t eltwiseRowBytes(const NpuConfig& npu);

struct EltwiseEpilogue {
  firmware::Eltwise proto;  // the arithmetic: every field but the addresses and the count
  uint32_t prmImage = 0;    // DRAM address of its 24-byte parameter record
  // Where the requantized rows go in INP; bytes 0 = the top of the INP window, taken from
  // it (a fused step's pointwise half, whose INP window is notional, gives a region).
  BufferWindow inp;
  // DMA_LOADs of the other operand's rows of row tiles [p0, p1) x channel tiles [q0, q1)
  // into WGT: tile q's `rows` rows at wgtAddr + (q - q0)*rows*C, C bytes each (the rows
  // storeOut stores from OUT).
  std::function<void(uint32_t p0, uint32_t p1, uint32_t q0, uint32_t q1, uint32_t rows,
                     uint32_t wgtAddr, std::vector<firmware::DmaLoad>&)>
      loadOther;
};

struct GemmSpec {
  uint32_t channels = 0;            // output columns N (tiles of C)
  std::vector<uint32_t> tileDepth;  // K of each channel tile
  std::vector<uint32_t> tileGroup;  // A group of each channel tile (non-decreasing)
  uint32_t kUnit = 1;               // k chunks are multiples of this (taps per channel)
  uint32_t inpTail = 0;             // INP bytes a piece's GEMMs may read past its end
  // INP elements of an A piece per k step of a row tile: 0 = R (k-major A). The depthwise
  // mapping's k steps are filter taps, each a span of pixel vectors (R * C elements).
  uint32_t aElemsPerK = 0;
  uint64_t usefulMacs = 0;  // MACs the operation needs (for the report)
  // The 16x8 mode: 16-bit activations (the A image holds int16 elements, twice the bytes),
  // int64 ACC words (GEMM and REQUANT_STORE acc64) and int16 outputs (OUT rows of C*2
  // bytes; storeOut's byte counts double). Off: 8-bit operands, int32 ACC, 8-bit outputs.
  bool wide = false;
  // Weight element bytes (the B image, WGT slots): 0 = as wide as the activations; 1 with
  // wide = 8-bit weights under int16 activations (GEMM wgt8, ISA 1.2: the 16x8 mode's).
  uint32_t weightBytes = 0;
  // Output element bytes (1, 2 or 4; REQUANT_STORE's out_width, OUT rows of C*outBytes);
  // 0 = by the mode (1, or 2 when wide). The LSTMs' gate products store int16 and int32
  // results of 8-bit GEMMs.
  uint32_t outBytes = 0;
  // GEMM operands
  bool aSigned = false, bSigned = false;
  int32_t aZp = 0, bZp = 0;
  // REQUANT_STORE: per channel tile, prmTile bytes at prmImage + q*prmTile holding the
  // biases (C int32 at +0), the multipliers (at +multOffset) and shifts (at +shiftOffset);
  // 0 = the standard image (prmTileBytes(C), 4C, 8C).
  uint32_t prmImage = 0;
  uint32_t prmTile = 0, multOffset = 0, shiftOffset = 0;
  bool perChannel = false, biasEn = true, outSigned = false;
  int32_t outZp = 0, clampMin = 0, clampMax = 0;
  // The parts of INP, WGT and PRM the plan's slots take: a fused step gives each of its
  // operations its own, so the next one's loads never overwrite what this one reads.
  BufferWindow inpWindow, wgtWindow, prmWindow;
  // The part of ACC its tiles write (a fused step's depthwise half beside the pointwise
  // GEMMs: ISA 1.14); bytes 0 = all of it.
  BufferWindow accWindow;
  // The weights and parameters load once, before the computes (a fused step's pipelined
  // blocks need it): one phase in one WGT/PRM slot, FAST_SINGLE_ANSWER's search for shorter
  // phases off; a plan with a load that waits for computes fails.
  bool weightsOnce = false;
  // Each job's first resident weights in pieces, so its first GEMMs wait for their own
  // (weight_load_split.h). A fused pair's and an inverted residual's halves leave it to the
  // fused lowering, which tries their blocks with and without.
  bool splitWeights = true;
  std::optional<EltwiseEpilogue> eltwise;  // one problem, 8-bit outputs, not into INP
  std::vector<GemmProblem> problems;
};

// Loads pieces whose DRAM bytes are `dramOf(piece)` (k-major, R bytes per k): runs of
// pieces contiguous in DRAM and in INP become one contiguous DMA.
void loadContiguousPieces(const std::vector<APiece>& pieces, uint32_t R,
                          const std::function<uint64_t(const APiece&)>& dramOf,
                          std::vector<firmware::DmaLoad>& out);

// The deepest channel tile whose whole reduction fits one k chunk with its weights
// resident, for these options (lowerings with chunk-dependent layouts check it).
uint32_t maxSingleChunkDepth(const NpuConfig& npu, const PlanOptions& options, uint32_t kUnit);

// Plans and emits the whole operation; fills the report's tiling fields.
hal::Result<std::vector<firmware::Command>> emitGemm(const GemmSpec& spec, const NpuConfig& npu,
                                                     const PlanOptions& options, uint32_t tag,
                                                     StepReport& report);

// The plan for a preference: FAST_SINGLE_ANSWER emits candidates with several phase sizes
// and keeps the one with the fewest estimated cycles (IsaInterpreter::estimate);
// LOW_POWER emits single- and double-buffered plans and keeps the one with the least
// energy (EnergyModel over the stream and its estimated cycles); SUSTAINED_SPEED emits
// its base options. Sets report.estimatedCycles.
//
// A caller that will discard a plan of `cycleLimit` estimated cycles or more (a mapping
// search, for the candidates after its best) passes it: each candidate's estimate stops
// there, as it does at the best candidate's cycles, and when the plan cannot come in
// under the limit the result is an error starting with kOverCycleLimit. The plan chosen
// is the same as without a limit whenever it is under it (a candidate whose estimate
// would fail past the limit is discarded instead of failing the plan). LOW_POWER, which
// chooses by energy, ignores the limit.
inline constexpr const char* kOverCycleLimit = "every plan reaches the cycle limit of ";
hal::Result<std::vector<firmware::Command>> emitGemmFor(
    const GemmSpec& spec, const NpuConfig& npu, hal::ExecutionPreference preference,
    uint32_t maxJobCommands, const CostModel& cost, uint32_t tag, StepReport& report,
    uint64_t cycleLimit = IsaInterpreter::kNoLimit, const EnergyModel& energy = {});

// Stores m output rows x channel tiles [q0, q1) (tile q's rows at outAddr +
// (q - q0)*tileStride in OUT, C elements of eb bytes each) to DRAM, where output row i,
// channel c is at dram + i*rowStride + (c - q0*C)*eb (addresses and strides in bytes): the
// full C-channel tiles in one 3-D DMA_STORE (channels x tiles x rows), a partial last tile
// in another.
void storeTiles(uint64_t dram, uint32_t rowStride, uint32_t m, uint32_t q0, uint32_t q1,
                uint32_t channels, const NpuConfig& npu, uint32_t outAddr, uint32_t tileStride,
                std::vector<firmware::DmaStore>& out, uint32_t eb = 1);

// Splits a contiguous DRAM -> buffer copy into DMA_LOADs (count0 is 16 bits).
void contiguousLoad(firmware::Buffer buffer, uint32_t bufAddr, uint32_t dramAddr, uint64_t bytes,
                    std::vector<firmware::DmaLoad>& out);

}  // namespace nncosim::driver
