// InterpreterDevice: the ISA model (driver/isa_model/) behind the NpuDevice interface.
#pragma once

#include "driver/isa_model/isa_interpreter.h"
#include "driver/runtime/npu_device.h"

namespace nncosim::driver {

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

}  // namespace nncosim::driver
