#include "Vnnc_npu_top.h"  // Verilator before SystemC

#include "driver/runtime/soc/sim_npu_device.h"

#include <algorithm>

#include "firmware/job.h"
#include "hal/profile.h"

namespace nncosim::driver {

SimNpuDevice::SimNpuDevice(sim::Device& device, uint64_t jobTimeoutCycles)
    : device_(device), timeout_(jobTimeoutCycles) {
  // The compiler plans for the NPU the CONFIG registers describe. A constructor cannot
  // fail, so a device this ISA cannot drive fails its first job instead.
  auto c = NpuConfig::fromRegisters([this](uint32_t offset) { return device_.readReg(offset); });
  if (c)
    config_ = *c;
  else
    configStatus_ = hal::fail("the simulated NPU: ", c.error());
}

hal::Result<uint64_t> SimNpuDevice::allocate(uint64_t bytes, const std::string& name) {
  NNC_ASSIGN_OR_RETURN(auto b, device_.allocate(bytes, name));
  device_.map(b, /*readable=*/true, /*writable=*/true);
  return b.address;
}

void SimNpuDevice::freeAll() {
  device_.freeAll();
  device_.unmapAll();
}

hal::Status SimNpuDevice::write(uint64_t address, const void* data, size_t bytes) {
  return device_.write(address, data, bytes);
}

hal::Status SimNpuDevice::read(uint64_t address, void* data, size_t bytes) {
  return device_.read(address, data, bytes);
}

hal::Result<JobStats> SimNpuDevice::run(const std::vector<firmware::Command>& commands) {
  NNC_TRY(configStatus_);
  hal::profile::Scope setup("npu.setup");
  NNC_ASSIGN_OR_RETURN(auto words, firmware::encodeStream(commands));
  // Each job starts from a clean NPU with cleared counters, so its counters are its own.
  NNC_TRY(device_.reset());
  NNC_TRY(device_.submit(firmware::toBytes(words)));
  setup.stop();
  hal::profile::Scope waiting("npu.wait");
  const sim::JobResult r = device_.wait(timeout_);
  waiting.stop();
  hal::profile::Scope results("npu.results");
  ++jobs_;
  // Unit spans on the job clock: the job's r.cycles end at the device's current cycle.
  const uint64_t base = device_.cycle() - r.cycles;
  for (const auto& sp : device_.timeline())
    if (sp.end > base)
      spans_.push_back(
          {sp.unit, std::max(sp.start, base) - base + jobClock_, sp.end - base + jobClock_});
  // Command spans: per queue, the k-th completion is the queue's k-th command.
  std::vector<size_t> ofQueue[3];
  for (size_t i = 0; i < commands.size(); ++i) {
    const auto q = firmware::queueOf(commands[i]);
    if (q != firmware::QueueOf::kNone) ofQueue[static_cast<int>(q)].push_back(i);
  }
  size_t next[3] = {0, 0, 0};
  for (const auto& c : device_.commandTimeline()) {
    if (c.end < base || next[c.queue] >= ofQueue[c.queue].size()) continue;  // not this job's
    const firmware::Command& cmd = commands[ofQueue[c.queue][next[c.queue]++]];
    const int unit = cmd.opcode() == firmware::Opcode::kDensify ? 3 : c.queue;
    commands_.push_back(
        {unit, std::max(c.start, base) - base + jobClock_, c.end - base + jobClock_, cmd});
  }
  jobClock_ += r.cycles;
  if (!r.completed) return hal::fail("NPU job failed: ", r.describe());
  NNC_ASSIGN_OR_RETURN(auto perf, device_.counters());
  JobStats s;
  s.cycles = r.cycles;
  auto& c = s.counters;
  c.cycles = perf.cycles;
  c.loadBusy = perf.loadBusy;
  c.loadStall = perf.loadStall;
  c.computeBusy = perf.computeBusy;
  c.computeStall = perf.computeStall;
  c.storeBusy = perf.storeBusy;
  c.storeStall = perf.storeStall;
  c.densifyBusy = perf.densifyBusy;
  c.dmaReadBytes = perf.dmaReadBytes;
  c.dmaWriteBytes = perf.dmaWriteBytes;
  c.macs = perf.macs;
  c.commands = commands.size();
  return s;
}

}  // namespace nncosim::driver
