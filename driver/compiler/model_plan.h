// The plan of a whole model: the partition, one compiled step per NPU operation (a fused
// step covers the operations after it too, which keep none of their own) and a
// device-memory plan for all of them. Built once per preparation; the runtime
// (driver/runtime/npu_executor.h) runs it.
//
// Device memory: every step's constants (weights, parameters, descriptors) live for the
// whole plan; inputs, outputs and scratch of a step live only while it runs (the host
// reads outputs back and writes the next step's inputs in that step's layout), so those
// regions are shared between steps. A tensor that an NPU step writes in the very layout
// a later NPU step reads (Binding::resident) is one buffer that lives from its producer
// to its last consumer: the host neither reads it back nor writes it again. planDram()
// places all of them in one arena.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "driver/compiler/compiled_step.h"
#include "driver/compiler/lowering.h"
#include "driver/compiler/partitioner.h"
#include "hal/model.h"

namespace nncosim::driver {

// ---------------------------------------------------------------------------------------
// Device memory plan

struct DramRequest {
  uint64_t bytes = 0;
  uint32_t first = 0, last = 0;  // live from step `first` to step `last` (inclusive)
};
struct DramPlan {
  std::vector<uint64_t> offsets;  // per request, in the arena
  uint64_t arenaBytes = 0;
  uint64_t requestedBytes = 0;  // sum of the requests (no reuse)
};
// Greedy best-fit by size: requests whose lifetimes overlap never share bytes.
DramPlan planDram(const std::vector<DramRequest>& requests, uint64_t alignment = kDeviceAlignment);

// ---------------------------------------------------------------------------------------
// Model plan

struct PlannedOperation {
  OperationPlacement placement;
  CompiledStep step;                  // when placement.target == kNpu
  std::vector<uint64_t> arenaOffset;  // per step buffer
  // On the NPU inside an earlier operation's fused step (that operation's index): no step of
  // its own.
  std::optional<uint32_t> fusedInto;
};

struct ModelPlan {
  LoweringOptions options;
  std::vector<PlannedOperation> operations;  // one per main-subgraph operation
  uint64_t arenaBytes = 0;
  uint64_t constantBytes = 0;    // resident for the whole plan
  uint64_t requestedBytes = 0;   // without reuse
  std::string describe() const;  // partition, per-step reports, memory
};

// Partitions with the declared shapes and lowers every NPU operation. An operation whose
// lowering fails stays on the CPU with the lowering error as the reason.
hal::Result<ModelPlan> compileModel(const hal::Model& model, const LoweringOptions& options);

}  // namespace nncosim::driver
