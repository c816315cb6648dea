// The runtime side of the compiler: a model plan (partition + compiled NPU steps + a
// device-memory plan), the device interface the plan runs on, and an executor that runs
// a whole model with NPU steps on the device and every other operation on the reference.
// A hybrid step (CompiledStep::epilogue) runs its jobs on the device, then its host
// epilogue finishes the operation on the CPU.
//
//   ModelPlan plan = compileModel(model, options);        // once per model
//   InterpreterDevice dev(options.npu);                    // or an adapter over sim::Device
//   NpuExecutor ex(model, plan, dev);
//   ex.run(inputs, outputs, &report);                      // per execution
//
// Device memory: every step's constants (weights, parameters, descriptors) live for the
// whole plan; inputs, outputs and scratch of a step live only while it runs (the host
// reads outputs back and writes the next step's inputs in that step's layout), so those
// regions are shared between steps. planDram() places all of them in one arena.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "driver/compiler/compiled_step.h"
#include "driver/compiler/isa_interpreter.h"
#include "driver/compiler/lowering.h"
#include "driver/compiler/partitioner.h"
#include "hal/model.h"
#include "hal/tensor_value.h"

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
  uint64_t requestedBytes = 0;    // sum of the requests (no reuse)
};
// Greedy best-fit by size: requests whose lifetimes overlap never share bytes.
DramPlan planDram(const std::vector<DramRequest>& requests, uint64_t alignment = kDeviceAlignment);

// ---------------------------------------------------------------------------------------
// Model plan

struct PlannedOperation {
  OperationPlacement placement;
  CompiledStep step;                  // when placement.target == kNpu
  std::vector<uint64_t> arenaOffset;  // per step buffer
};

struct ModelPlan {
  LoweringOptions options;
  std::vector<PlannedOperation> operations;  // one per main-subgraph operation
  uint64_t arenaBytes = 0;
  uint64_t constantBytes = 0;   // resident for the whole plan
  uint64_t requestedBytes = 0;  // without reuse
  std::string describe() const;  // partition, per-step reports, memory
};

// Partitions with the declared shapes and lowers every NPU operation. An operation whose
// lowering fails stays on the CPU with the lowering error as the reason.
hal::Result<ModelPlan> compileModel(const hal::Model& model, const LoweringOptions& options);

// ---------------------------------------------------------------------------------------
// Devices

struct JobStats {
  uint64_t cycles = 0;
  InterpreterCounters counters;
  uint32_t jobs = 0;
  JobStats& operator+=(const JobStats& o);
};


// What the runtime needs from an NPU: device memory and job submission. Implemented by
// InterpreterDevice here and by an adapter over sim::Device (sim/device.h) in the SoC.
class NpuDevice {
 public:
  virtual ~NpuDevice() = default;
  virtual std::string name() const = 0;
  virtual NpuConfig config() const = 0;
  virtual hal::Result<uint64_t> allocate(uint64_t bytes, const std::string& name) = 0;
  virtual void freeAll() = 0;
  virtual hal::Status write(uint64_t address, const void* data, size_t bytes) = 0;
  virtual hal::Status read(uint64_t address, void* data, size_t bytes) = 0;
  // Runs one job (commands ending with their only END, absolute DRAM addresses) to
  // completion. The runtime splits a step's stream into its jobs (splitJobs) and runs
  // them in order; each job is self-contained (it loads everything it reads).
  virtual hal::Result<JobStats> run(const std::vector<firmware::Command>& commands) = 0;

  // Busy intervals of the units (0 load, 1 compute, 2 store, 3 densify) on the device's
  // job clock (the sum of the cycles of the jobs run since resetTimeline()). Devices
  // that cannot observe their units return nothing.
  struct UnitSpan {
    int unit;
    uint64_t start, end;
  };
  virtual std::vector<UnitSpan> unitTimeline() const { return {}; }
  // Every command that ran on a unit (0 load, 1 compute, 2 store, 3 densify: a DENSIFY
  // goes through the compute queue but runs on the densify unit), SYNC included as an
  // empty span, END not: one span per command, on the same job clock, with the command.
  // Spans of one queue never overlap (a command starts when the unit could begin it).
  struct CommandSpan {
    int unit;
    uint64_t start, end;
    firmware::Command command;
  };
  virtual std::vector<CommandSpan> commandTimeline() const { return {}; }
  virtual void resetTimeline() {}
};

// The ISA interpreter as a device. Strict: a stream with a data race or leaked tokens
// fails like a hardware error would, so tests catch scheduling bugs the data may hide.
class InterpreterDevice : public NpuDevice {
 public:
  explicit InterpreterDevice(const NpuConfig& config = {}, uint64_t dramBytes = 256ull << 20,
                             const CostModel& cost = {});
  std::string name() const override { return "isa-interpreter"; }
  NpuConfig config() const override { return config_; }
  hal::Result<uint64_t> allocate(uint64_t bytes, const std::string& name) override;
  void freeAll() override { next_ = dram_.base(); }
  hal::Status write(uint64_t address, const void* data, size_t bytes) override;
  hal::Status read(uint64_t address, void* data, size_t bytes) override;
  hal::Result<JobStats> run(const std::vector<firmware::Command>& commands) override;
  const InterpreterResult& lastResult() const { return last_; }
  bool strict = true;

 private:
  NpuConfig config_;
  DramModel dram_;
  IsaInterpreter interp_;
  uint64_t next_;
  InterpreterResult last_;
};

// Runs one compiled step alone: allocates its buffers, uploads constants and inputs
// (operand bytes in the model's layout, by the step's input bindings, in order), runs the
// job and reads the outputs back (model layout), then a hybrid step's epilogue results
// (raw device bytes; the host epilogue needs the whole operation, so it is not run here).
// For tests and single-step tools.
hal::Result<JobStats> runStep(NpuDevice& device, const CompiledStep& step,
                              const std::vector<std::vector<uint8_t>>& inputs,
                              std::vector<std::vector<uint8_t>>& outputs);

// ---------------------------------------------------------------------------------------
// Model execution

struct ExecutionReport {
  struct Step {
    uint32_t operation = 0;
    hal::OperationType type = hal::OperationType::ADD;
    Target target = Target::kCpu;
    std::string note;  // CPU: the partition reason; NPU: the plan summary
    JobStats stats;    // NPU steps
    uint64_t macs = 0;          // multiply-accumulates of the operation (its shapes)
    uint64_t wallNanos = 0;     // host time of the step (CPU steps: the reference kernel)
    uint64_t startCycle = 0;    // NPU cycles before this step (a timeline of the run)
    bool checked = false;       // cross-checked against the reference
    std::string mismatch;       // first difference when the check failed
  };
  std::vector<Step> steps;
  uint64_t npuCycles = 0;
  int npuSteps = 0, cpuSteps = 0;
  int mismatches = 0;  // NPU steps whose cross-check failed
  std::string describe() const;
};

class NpuExecutor {
 public:
  NpuExecutor(const hal::Model& model, const ModelPlan& plan, NpuDevice& device);
  // Validates and runs the main subgraph (inputs per main.inputIndexes).
  hal::Status run(const std::vector<hal::TensorValue>& inputs,
                  std::vector<hal::TensorValue>& outputs, ExecutionReport* report = nullptr);
  // Also run every NPU step on the reference with the same inputs and compare bit for
  // bit (the NPU's result is still the one the run continues with).
  void setCrossCheck(bool on) { crossCheck_ = on; }

 private:
  hal::Status upload();

  const hal::Model& model_;
  const ModelPlan& plan_;
  NpuDevice& device_;
  uint64_t arena_ = 0;
  bool uploaded_ = false;
  bool crossCheck_ = false;
};

}  // namespace nncosim::driver
