// Device: the access layer a driver uses to talk to the simulated NPU: allocate and
// map buffers in device DRAM, copy in and out, read and write registers, submit a
// job (a command stream into the ring + doorbell), wait for it with a timeout, and
// read the performance counters. One per process: SystemC elaborates once, so the
// device lives for the whole process and is reset between jobs.
// Simulated time and cycle counts are deterministic: a job gives the same cycles on
// every run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "firmware/isa_generated.h"
#include "firmware/unit_span.h"
#include "hal/result.h"
#include "sim/soc_config.h"

namespace nncosim::sim {

class Platform;

struct DeviceOptions {
  std::string wavesPath;  // FST of the NPU; empty = off
  uint32_t ringSlots = firmware::kRingSlots;
};

struct DeviceBuffer {
  uint64_t address = 0;  // bus address in DRAM
  uint64_t bytes = 0;
  std::string name;
};

struct PerfCounters {
  uint64_t cycles = 0, loadBusy = 0, loadStall = 0, computeBusy = 0, computeStall = 0,
           storeBusy = 0, storeStall = 0, densifyBusy = 0, densifyStall = 0, dmaReadBytes = 0,
           dmaWriteBytes = 0, macs = 0;
};

struct JobResult {
  bool completed = false;  // END reached
  bool timedOut = false;   // the host gave up waiting
  uint32_t errCode = 0, errAddr = 0, errInfo = 0;
  uint64_t cycles = 0;           // NPU clock cycles from doorbell to completion
  std::string describe() const;  // "done in N cycles" / "error bus_error at 0x... (info 2)"
};

class Device {
 public:
  // The process's device; the first call elaborates it with `config`, later calls
  // must pass the same config (or get an error).
  static hal::Result<Device*> open(const SocConfig& config, const DeviceOptions& options = {});
  ~Device();

  const SocConfig& config() const;
  uint64_t cycle() const;  // NPU cycles clocked so far

  // Device memory: first-fit, 64-byte aligned, in DRAM after the command ring.
  hal::Result<DeviceBuffer> allocate(uint64_t bytes, const std::string& name);
  void free(const DeviceBuffer& buffer);
  void freeAll();
  hal::Status write(uint64_t address, const void* data, size_t bytes);
  hal::Status read(uint64_t address, void* data, size_t bytes);

  // Protection windows for the NPU's accesses (the command ring is always readable).
  void map(const DeviceBuffer& buffer, bool readable, bool writable);
  void unmapAll();

  hal::Result<uint32_t> readReg(uint32_t offset);
  hal::Status writeReg(uint32_t offset, uint32_t value);

  // Copies a command stream (32-byte commands ending with END) into the ring and rings
  // the doorbell.
  hal::Status submit(const std::vector<uint8_t>& commands);
  // Runs the simulation until the job completes, fails, or `timeoutCycles` pass.
  JobResult wait(uint64_t timeoutCycles);
  // Soft reset (aborts, clears errors and queues) and clears the counters.
  hal::Status reset();
  hal::Result<PerfCounters> counters();
  // Busy intervals per unit of the jobs since the last reset (cycles as in cycle()).
  using UnitSpan = firmware::UnitSpan;
  std::vector<UnitSpan> timeline() const;
  // The commands the queues (0 load, 1 compute, 2 store) ran since the last reset, in
  // completion order; per queue in stream order (NpuAdapter::commandTimeline()).
  struct CommandSpan {
    int queue;
    uint64_t start, end;
  };
  std::vector<CommandSpan> commandTimeline() const;

 private:
  Device(const SocConfig& config, const DeviceOptions& options);
  hal::Status regOp(bool write, uint32_t offset, uint32_t* value);
  hal::Status programRing();

  struct Range {
    uint64_t address, bytes;
  };
  std::unique_ptr<Platform> platform_;
  DeviceOptions options_;
  uint64_t ringBase_ = 0;
  uint32_t tail_ = 0;
  uint64_t startCycle_ = 0;
  std::vector<Range> freeList_;
  std::vector<Range> used_;
  uint8_t* dram_ = nullptr;
};

}  // namespace nncosim::sim
