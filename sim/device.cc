#include "Vnnc_npu_top.h"  // Verilator before SystemC

#include "sim/device.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "firmware/isa_generated.h"
#include "hal/profile.h"
#include "sim/platform.h"

namespace nncosim::sim {
namespace {

namespace reg = firmware::reg;

// Protection windows cover whole 64-byte lines; buffers start on 4 KiB pages (as an IOMMU
// maps them), so a buffer's offset within a page, which decides where the DMA splits its
// bursts (AXI bursts never cross 4 KiB), is the same as in the driver's step-local plan.
constexpr uint64_t kAlign = 64;
constexpr uint64_t kPage = 4096;
// Written to IRQ_STATUS (write 1 to clear) to acknowledge whatever was raised.
constexpr uint32_t kEveryIrqCause = reg::kIrqStatusDone | reg::kIrqStatusError;
Device* gDevice = nullptr;

uint64_t alignUp(uint64_t x, uint64_t to = kAlign) { return (x + to - 1) & ~(to - 1); }

}  // namespace

std::string JobResult::describe() const {
  std::ostringstream os;
  if (timedOut)
    os << "timed out after " << cycles << " cycles";
  else if (errCode)
    os << "error code " << errCode << " at 0x" << std::hex << errAddr << std::dec << " (info "
       << errInfo << ") after " << cycles << " cycles";
  else
    os << "done in " << cycles << " cycles";
  return os.str();
}

hal::Result<Device*> Device::open(const SocConfig& config, const DeviceOptions& options) {
  if (gDevice) {
    if (gDevice->config().toJson() != config.toJson())
      return hal::fail("the simulated device is already elaborated with another configuration");
    return gDevice;
  }
  if (config.arrayRows != firmware::kArrayRows || config.arrayCols != firmware::kArrayCols)
    return hal::fail("config: array ", config.arrayRows, "x", config.arrayCols,
                     " but the RTL was built as ", firmware::kArrayRows, "x", firmware::kArrayCols);
  if (config.dramBase + config.dramBytes > (uint64_t{1} << 32))
    return hal::fail("config: DRAM must lie below 4 GiB (the NPU has 32-bit addresses)");
  gDevice = new Device(config, options);  // lives for the process: SystemC elaborates once
  if (auto st = gDevice->programRing(); !st.ok()) return hal::Error{st.error()};
  return gDevice;
}

Device::Device(const SocConfig& config, const DeviceOptions& options) : options_(options) {
  platform_ = std::make_unique<Platform>("soc", config);
  if (!options.wavesPath.empty()) platform_->npu.traceTo(options.wavesPath);
  dram_ = platform_->dram.data();
  ringBase_ = config.dramBase;
  const uint64_t ringBytes = alignUp(uint64_t{options.ringSlots} * firmware::kCommandBytes);
  const uint64_t heap = alignUp(config.dramBase + ringBytes, kPage);
  if (heap < config.dramBase + config.dramBytes)
    freeList_.push_back({heap, config.dramBase + config.dramBytes - heap});
  platform_->windows.map({ringBase_, ringBytes, true, false, "command ring"});
}

Device::~Device() = default;

const SocConfig& Device::config() const { return platform_->config; }
uint64_t Device::cycle() const { return platform_->npu.cycles(); }

hal::Result<DeviceBuffer> Device::allocate(uint64_t bytes, const std::string& name) {
  const uint64_t need = alignUp(std::max<uint64_t>(bytes, 1), kPage);
  for (auto it = freeList_.begin(); it != freeList_.end(); ++it) {
    if (it->bytes < need) continue;
    DeviceBuffer b{it->address, bytes, name};
    it->address += need;
    it->bytes -= need;
    if (it->bytes == 0) freeList_.erase(it);
    used_.push_back({b.address, need});
    return b;
  }
  return hal::fail("device memory exhausted: cannot allocate ", bytes, " bytes for ", name);
}

void Device::free(const DeviceBuffer& buffer) {
  auto it = std::find_if(used_.begin(), used_.end(),
                         [&](const Range& r) { return r.address == buffer.address; });
  if (it == used_.end()) return;
  freeList_.push_back(*it);
  used_.erase(it);
  // Coalesce neighbours so freed space is reused for larger buffers.
  std::sort(freeList_.begin(), freeList_.end(),
            [](const Range& a, const Range& b) { return a.address < b.address; });
  std::vector<Range> merged;
  for (const auto& r : freeList_) {
    if (!merged.empty() && merged.back().address + merged.back().bytes == r.address)
      merged.back().bytes += r.bytes;
    else
      merged.push_back(r);
  }
  freeList_ = std::move(merged);
}

void Device::freeAll() {
  while (!used_.empty()) free(DeviceBuffer{used_.back().address, 0, ""});
}

hal::Status Device::write(uint64_t address, const void* data, size_t bytes) {
  const auto& c = config();
  if (address < c.dramBase || address - c.dramBase + bytes > c.dramBytes)
    return hal::fail("host write of ", bytes, " bytes at 0x", std::hex, address,
                     " is outside DRAM");
  std::memcpy(dram_ + (address - c.dramBase), data, bytes);
  return hal::Status::Ok();
}

hal::Status Device::read(uint64_t address, void* data, size_t bytes) {
  const auto& c = config();
  if (address < c.dramBase || address - c.dramBase + bytes > c.dramBytes)
    return hal::fail("host read of ", bytes, " bytes at 0x", std::hex, address, " is outside DRAM");
  std::memcpy(data, dram_ + (address - c.dramBase), bytes);
  return hal::Status::Ok();
}

void Device::map(const DeviceBuffer& buffer, bool readable, bool writable) {
  platform_->windows.map({buffer.address, alignUp(buffer.bytes), readable, writable, buffer.name});
}

void Device::unmapAll() {
  platform_->windows.clear();
  const uint64_t ringBytes = alignUp(uint64_t{options_.ringSlots} * firmware::kCommandBytes);
  platform_->windows.map({ringBase_, ringBytes, true, false, "command ring"});
}

hal::Status Device::regOp(bool write, uint32_t offset, uint32_t* value) {
  hal::profile::Scope timed("npu.register");
  bool ok = false, done = false;
  platform_->host.post(write, config().npuRegBase + offset, value, &ok, &done);
  const sc_core::sc_time chunk(config().periodNs() * config().quantumCycles, sc_core::SC_NS);
  for (int guard = 0; !done; ++guard) {
    if (guard > 1000000) return hal::fail("register access at offset ", offset, " never completed");
    sc_core::sc_start(chunk, sc_core::SC_EXIT_ON_STARVATION);
  }
  if (!ok) return hal::fail("register access at offset ", offset, " got a bus error");
  return hal::Status::Ok();
}

hal::Result<uint32_t> Device::readReg(uint32_t offset) {
  uint32_t v = 0;
  NNC_TRY(regOp(false, offset, &v));
  return v;
}

hal::Status Device::writeReg(uint32_t offset, uint32_t value) {
  return regOp(true, offset, &value);
}

hal::Status Device::programRing() {
  NNC_ASSIGN_OR_RETURN(auto id, readReg(reg::kId));
  if (id != reg::kIdValue)
    return hal::fail("NPU ID register reads 0x", std::hex, id, ", expected 0x", reg::kIdValue);
  NNC_TRY(writeReg(reg::kRingBase, static_cast<uint32_t>(ringBase_)));
  NNC_TRY(writeReg(reg::kRingSize, options_.ringSlots));
  NNC_TRY(writeReg(reg::kWatchdog, config().watchdogCycles));
  NNC_TRY(writeReg(reg::kCtrl, reg::kCtrlIrqEn));
  tail_ = 0;
  return hal::Status::Ok();
}

hal::Status Device::submit(const std::vector<uint8_t>& commands) {
  const uint32_t n = static_cast<uint32_t>(commands.size() / firmware::kCommandBytes);
  if (commands.size() % firmware::kCommandBytes != 0 || n == 0)
    return hal::fail("a command stream is a non-empty multiple of ", firmware::kCommandBytes,
                     " bytes, got ", commands.size());
  if (n >= options_.ringSlots)
    return hal::fail("job of ", n, " commands does not fit the ring of ", options_.ringSlots);
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t slot =
        ringBase_ + uint64_t{(tail_ + i) % options_.ringSlots} * firmware::kCommandBytes;
    NNC_TRY(write(slot, commands.data() + uint64_t{i} * firmware::kCommandBytes,
                  firmware::kCommandBytes));
  }
  tail_ = (tail_ + n) % options_.ringSlots;
  NNC_TRY(writeReg(reg::kRingTail, tail_));
  startCycle_ = cycle();
  return writeReg(reg::kDoorbell, 1);
}

JobResult Device::wait(uint64_t timeoutCycles) {
  JobResult r;
  const uint64_t start = startCycle_;
  const sc_core::sc_time chunk(config().periodNs() * config().quantumCycles, sc_core::SC_NS);
  {
    hal::profile::Scope timed("npu.simulate");
    while (!platform_->npu.irq()) {
      if (cycle() - start > timeoutCycles) {
        r.timedOut = true;
        r.cycles = cycle() - start;
        platform_->npu.park();
        return r;
      }
      sc_core::sc_start(chunk, sc_core::SC_EXIT_ON_STARVATION);
    }
  }
  r.cycles = cycle() - start;
  auto status = readReg(reg::kStatus);
  auto code = readReg(reg::kErrCode);
  auto addr = readReg(reg::kErrAddr);
  auto info = readReg(reg::kErrInfo);
  if (code) r.errCode = *code;
  if (addr) r.errAddr = *addr;
  if (info) r.errInfo = *info;
  r.completed = status && (*status & reg::kStatusDone) && r.errCode == 0;
  (void)writeReg(reg::kIrqStatus, kEveryIrqCause);
  platform_->npu.park();
  return r;
}

hal::Status Device::reset() {
  // Keeps irq_en: CTRL is written whole.
  NNC_TRY(writeReg(reg::kCtrl, reg::kCtrlSoftReset | reg::kCtrlIrqEn | reg::kCtrlPerfClear));
  platform_->npu.clearTimeline();
  (void)writeReg(reg::kIrqStatus, kEveryIrqCause);
  tail_ = 0;
  return hal::Status::Ok();
}

std::vector<Device::UnitSpan> Device::timeline() const { return platform_->npu.timeline(); }

std::vector<Device::CommandSpan> Device::commandTimeline() const {
  std::vector<CommandSpan> out;
  for (const auto& c : platform_->npu.commandTimeline()) out.push_back({c.queue, c.start, c.end});
  return out;
}

hal::Result<PerfCounters> Device::counters() {
  PerfCounters p;
  const std::pair<uint32_t, uint64_t*> regs[] = {{reg::kPerfCycles, &p.cycles},
                                                 {reg::kPerfLoadBusy, &p.loadBusy},
                                                 {reg::kPerfLoadStall, &p.loadStall},
                                                 {reg::kPerfComputeBusy, &p.computeBusy},
                                                 {reg::kPerfComputeStall, &p.computeStall},
                                                 {reg::kPerfStoreBusy, &p.storeBusy},
                                                 {reg::kPerfStoreStall, &p.storeStall},
                                                 {reg::kPerfDensifyBusy, &p.densifyBusy},
                                                 {reg::kPerfDensifyStall, &p.densifyStall},
                                                 {reg::kPerfDmaRdBytes, &p.dmaReadBytes},
                                                 {reg::kPerfDmaWrBytes, &p.dmaWriteBytes},
                                                 {reg::kPerfMacs, &p.macs}};
  for (const auto& [off, dst] : regs) {
    NNC_ASSIGN_OR_RETURN(auto v, readReg(off));
    *dst = v;
  }
  return p;
}

}  // namespace nncosim::sim
