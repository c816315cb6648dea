// CompiledStep: one NPU step (one model operation, or a fused chain of them, fused_lowering.h)
// as the compiler hands it to a runtime: a command stream, the device buffers it addresses,
// and how model operands map onto them.
//
// Addresses: the compiler lays the step's buffers out in a step-local DRAM space starting
// at kStepLocalBase (never 0, so a null address stays recognisable). Every DRAM address in
// the commands (DMA dram_addr, DENSIFY desc/values/out addresses) and in constant contents
// (the words listed in addressWords) points into exactly one buffer, so a runtime may
// place each buffer anywhere: relocate() rebases the commands, relocatedContents() the
// constants.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "driver/compiler/host_model.h"
#include "driver/compiler/layout.h"
#include "firmware/isa_generated.h"
#include "hal/capabilities.h"
#include "hal/operation_type.h"
#include "hal/result.h"
#include "ops/operation.h"

namespace nncosim::driver {

inline constexpr uint64_t kStepLocalBase = 0x1000;
// Device buffers start on 4 KiB pages: the DMA splits its bursts at 4 KiB boundaries (AXI),
// so a step's timing depends on its buffers' offsets within a page, and page-aligned
// buffers keep a step's estimate in its step-local addresses equal to its cycles wherever
// it is placed.
inline constexpr uint64_t kDeviceAlignment = 4096;
// `bytes` (or an address) rounded up to the next multiple of kDeviceAlignment.
inline constexpr uint64_t deviceAligned(uint64_t bytes) {
  return (bytes + kDeviceAlignment - 1) & ~(kDeviceAlignment - 1);
}

enum class BufferRole { kInput, kOutput, kConstant, kScratch };
const char* toString(BufferRole r);

struct StepBuffer {
  std::string name;
  BufferRole role = BufferRole::kScratch;
  uint64_t bytes = 0;
  uint64_t localAddress = 0;           // in the step-local space
  std::vector<uint8_t> contents;       // kConstant: the device bytes
  std::vector<uint32_t> addressWords;  // byte offsets in contents of 32-bit DRAM addresses
};

// A model operand (main subgraph index) bound to a device buffer through a layout.
// `resident` (set by compileModel): an input the NPU step that produced it left in device
// DRAM in this very layout, at the same place (the runtime writes nothing); an output
// that stays there for NPU consumers only (the runtime reads nothing back).
struct Binding {
  uint32_t operand = 0;
  size_t buffer = 0;
  TensorLayout layout;
  bool resident = false;
  // Set by the model plan: not resident, and the tensor goes from one NPU step to another
  // (an input an NPU step produced; an output that only NPU steps read, no model output),
  // so the host's pass over it is a round trip the NPU steps could have avoided.
  bool betweenNpuSteps = false;
};

// What the plan looks like, for run reports (docs/driver.md explains the fields).
struct StepReport {
  std::string operation;  // "CONV_2D #3"
  std::string mapping;    // how the op maps onto the array
  hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
  std::string weightMode;    // "resident" / "streamed" / "-"
  uint32_t bufferSlots = 0;  // INP/WGT/PRM slots (2 = double buffered)
  uint32_t outSlots = 0;     // OUT slots
  uint32_t ocTiles = 0, pixelTiles = 0, phases = 0, steps = 0, kChunk = 0;
  uint32_t rowTilesPerStep = 0;  // row tiles a step computes (the largest block)
  uint32_t groupsPerStep = 0;    // A groups a step computes (the most)
  uint32_t phaseCap = 0;         // channel tiles per phase asked for (0 = as many as fit)
  bool lateLoads = false;        // next step's loads among the REQUANT_STOREs
  uint32_t depth = 0;            // deepest reduction of a channel tile
  uint64_t gemms = 0, macs = 0, usefulMacs = 0;
  uint64_t dmaLoads = 0, dmaStores = 0, loadBytes = 0, storeBytes = 0;
  uint64_t commands = 0;
  uint32_t jobs = 1;             // ENDs in the stream (cut to fit the command ring)
  uint64_t estimatedCycles = 0;  // filled in when the step runs on the interpreter
  HostBytes hostBytes;           // what the host moves around the step (hostTraffic)
  double hostNanos = 0;          // those passes on the modelled host
  std::string describe() const;
};

// The host's part of a hybrid step: an operation whose matrix products run on the NPU and
// whose elementwise remainder runs on the CPU (docs/driver.md, "Hybrid steps"). The jobs
// write the products into `results` (kOutput buffers bound to no operand); the runtime
// reads them back (device bytes) and calls `finish` with the operation's context (inputs
// bound, outputs prepared), which writes the operation's outputs. `finish` calls the
// reference's own phase (e.g. ops/recurrent's LSTM cell), so both paths share that code.
struct HostEpilogue {
  std::vector<size_t> results;  // step buffers, in the order `finish` receives them
  std::function<hal::Status(ops::OperationContext& ctx,
                            const std::vector<std::vector<uint8_t>>& results)>
      finish;
  explicit operator bool() const { return static_cast<bool>(finish); }
};

struct CompiledStep {
  uint32_t operation = 0;  // index in the main subgraph
  hal::OperationType type = hal::OperationType::ADD;
  // One or more jobs, each ending with END (a device runs them in order; the on-chip
  // buffers keep their contents between them); step-local addresses.
  std::vector<firmware::Command> commands;
  std::vector<StepBuffer> buffers;
  std::vector<Binding> inputs;   // operands the runtime writes before the job
  std::vector<Binding> outputs;  // operands the runtime reads after it
  uint64_t localBytes = 0;       // extent of the step-local space
  HostEpilogue epilogue;         // set for a hybrid step (its outputs come from the host)
  // A fused step (fused_lowering.h): the later operations it computes too, in order; its
  // inputs are the first operation's and the later ones' other inputs (an ADD's), its
  // outputs the last one's.
  std::vector<uint32_t> fused;
  StepReport report;
};

// The jobs of a stream: the commands up to and including each END.
std::vector<std::vector<firmware::Command>> splitJobs(const std::vector<firmware::Command>& stream);

// The commands with every DRAM address rebased: buffer i at address placement[i].
hal::Result<std::vector<firmware::Command>> relocate(const CompiledStep& step,
                                                     const std::vector<uint64_t>& placement);
// A constant buffer's contents with its address words rebased.
hal::Result<std::vector<uint8_t>> relocatedContents(const CompiledStep& step, size_t buffer,
                                                    const std::vector<uint64_t>& placement);

}  // namespace nncosim::driver
