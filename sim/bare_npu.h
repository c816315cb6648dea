// BareNpu: the Verilated NPU clocked from plain C++ with the SoC's own transactors
// (AxiMemoryPort, AxiLiteMaster) over one flat memory, and no SystemC, no interconnect,
// no protection windows, no timeline observation: the yardstick the SoC's simulation
// speed is measured against (tests/bench/bench_network).
//
// A job follows sim::Device's register protocol exactly (soft reset and interrupt
// clear, the stream copied into the ring, RING_TAIL, DOORBELL, the interrupt, STATUS and
// the error registers, interrupt clear, the performance counters), so the NPU is in the
// same state at every doorbell and a job takes the same cycles on both.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hal/result.h"
#include "sim/device.h"
#include "sim/soc_config.h"

class Vnnc_npu_top;
class VerilatedContext;

namespace nncosim::sim {

template <typename Top>
class AxiMemoryPort;
template <typename Top>
class AxiLiteMaster;
class AddressWindows;

class BareNpu {
 public:
  // `memoryBytes` of memory at config.dramBase (the ring sits at its start, as on the
  // SoC); the NPU is reset and its ring programmed here.
  BareNpu(const SocConfig& config, uint64_t memoryBytes);
  ~BareNpu();
  BareNpu(const BareNpu&) = delete;
  BareNpu& operator=(const BareNpu&) = delete;

  hal::Status write(uint64_t address, const void* data, size_t bytes);
  hal::Status read(uint64_t address, void* data, size_t bytes);
  // Runs one job (the ring bytes of its commands, ending with END) and reads its
  // counters. cycles: doorbell to interrupt, as JobResult::cycles on the SoC.
  JobResult run(const std::vector<uint8_t>& commands, uint64_t timeoutCycles,
                PerfCounters* counters);
  uint64_t cycle() const { return cycle_; }

 private:
  void step();
  uint32_t regOp(bool write, uint32_t offset, uint32_t value);

  SocConfig config_;
  std::vector<uint8_t> memory_;
  std::unique_ptr<AddressWindows> windows_;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Vnnc_npu_top> top_;
  std::unique_ptr<AxiMemoryPort<Vnnc_npu_top>> port_;
  std::unique_ptr<AxiLiteMaster<Vnnc_npu_top>> host_;
  uint64_t cycle_ = 0;
};

}  // namespace nncosim::sim
