// NpuDevice: what the runtime needs from an NPU, device memory and job submission, and
// what a job cost (JobStats). Implemented by InterpreterDevice (the ISA model) and
// SimNpuDevice (the simulated SoC).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/isa_model/isa_interpreter.h"
#include "driver/isa_model/npu_config.h"
#include "firmware/isa_generated.h"
#include "firmware/unit_span.h"
#include "hal/result.h"

namespace nncosim::driver {

// What a job cost: its cycles and the interpreter-style counters.
struct JobStats {
  uint64_t cycles = 0;
  InterpreterCounters counters;
  uint32_t jobs = 0;
  JobStats& operator+=(const JobStats& o);
};

// What the runtime needs from an NPU: device memory and job submission. Implemented by
// InterpreterDevice (the ISA model) and SimNpuDevice (runtime/soc/, over sim::Device).
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
  using UnitSpan = firmware::UnitSpan;
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

}  // namespace nncosim::driver
