// SimNpuDevice: the runtime's NpuDevice over the simulated SoC (sim::Device): device
// memory is DRAM behind the protection windows (every allocation is mapped for the NPU,
// nothing else is), and a job is a command stream in the ring, a doorbell and the
// completion interrupt. Cycle counts come from the simulation.
#pragma once

#include <string>
#include <vector>

#include "driver/runtime/npu_device.h"
#include "sim/device.h"

namespace nncosim::driver {

class SimNpuDevice : public NpuDevice {
 public:
  explicit SimNpuDevice(sim::Device& device, uint64_t jobTimeoutCycles = 2'000'000'000ull);
  std::string name() const override { return "soc"; }
  NpuConfig config() const override { return config_; }
  hal::Result<uint64_t> allocate(uint64_t bytes, const std::string& name) override;
  void freeAll() override;
  hal::Status write(uint64_t address, const void* data, size_t bytes) override;
  hal::Status read(uint64_t address, void* data, size_t bytes) override;
  hal::Result<JobStats> run(const std::vector<firmware::Command>& commands) override;

  std::vector<UnitSpan> unitTimeline() const override { return spans_; }
  std::vector<CommandSpan> commandTimeline() const override { return commands_; }
  void resetTimeline() override {
    spans_.clear();
    commands_.clear();
    jobClock_ = 0;
  }
  sim::Device& device() { return device_; }
  uint64_t jobs() const { return jobs_; }

 private:
  sim::Device& device_;
  NpuConfig config_;
  hal::Status configStatus_ = hal::Status::Ok();  // whether the CONFIG registers made sense
  uint64_t timeout_;
  uint64_t jobs_ = 0;
  std::vector<UnitSpan> spans_;
  std::vector<CommandSpan> commands_;
  uint64_t jobClock_ = 0;
};

}  // namespace nncosim::driver
