#include "Vnnc_npu_top.h"  // Verilator before the transactors' users
#include "verilated.h"

#include "sim/bare_npu.h"

#include <cstring>

#include "firmware/isa_generated.h"
#include "sim/address_windows.h"
#include "sim/axi_lite_master.h"
#include "sim/axi_memory_port.h"

namespace nncosim::sim {
namespace {

namespace reg = firmware::reg;
// As NpuAdapter: reset cycles at start-up, and what sim::Device writes to IRQ_STATUS.
constexpr int kResetCycles = 8;
constexpr uint32_t kEveryIrqCause = reg::kIrqStatusDone | reg::kIrqStatusError;

}  // namespace

BareNpu::BareNpu(const SocConfig& config, uint64_t memoryBytes)
    : config_(config),
      memory_(memoryBytes, 0),
      windows_(std::make_unique<AddressWindows>()),
      context_(std::make_unique<VerilatedContext>()),
      host_(std::make_unique<AxiLiteMaster<Vnnc_npu_top>>()) {
  // Every access is allowed: the jobs replayed here were accepted by the SoC's windows.
  windows_->setEnforced(false);
  top_ = std::make_unique<Vnnc_npu_top>(context_.get(), "npu");
  port_ = std::make_unique<AxiMemoryPort<Vnnc_npu_top>>(
      memory_.data(), config.dramBase, memory_.size(), *windows_, config.dramLatencyCycles,
      config.dramBytesPerCycle, config.dramReadQos != 0);
  top_->rst_ni = 0;
  for (int i = 0; i < kResetCycles; ++i) step();
  top_->rst_ni = 1;
  // sim::Device::programRing: the ring at the start of DRAM, all its slots.
  (void)regOp(false, reg::kId, 0);
  (void)regOp(true, reg::kRingBase, static_cast<uint32_t>(config.dramBase));
  (void)regOp(true, reg::kRingSize, firmware::kRingSlots);
  (void)regOp(true, reg::kWatchdog, config.watchdogCycles);
  (void)regOp(true, reg::kCtrl, reg::kCtrlIrqEn);
}

BareNpu::~BareNpu() { top_->final(); }

hal::Status BareNpu::write(uint64_t address, const void* data, size_t bytes) {
  if (address < config_.dramBase || address - config_.dramBase + bytes > memory_.size())
    return hal::fail("bare NPU: write of ", bytes, " bytes at 0x", std::hex, address,
                     " is outside its ", std::dec, memory_.size(), " bytes of memory");
  std::memcpy(memory_.data() + (address - config_.dramBase), data, bytes);
  return hal::Status::Ok();
}

hal::Status BareNpu::read(uint64_t address, void* data, size_t bytes) {
  if (address < config_.dramBase || address - config_.dramBase + bytes > memory_.size())
    return hal::fail("bare NPU: read of ", bytes, " bytes at 0x", std::hex, address,
                     " is outside its ", std::dec, memory_.size(), " bytes of memory");
  std::memcpy(data, memory_.data() + (address - config_.dramBase), bytes);
  return hal::Status::Ok();
}

// One NPU clock cycle, in NpuAdapter::stepCycle's order without its observers.
void BareNpu::step() {
  top_->clk_i = 1;
  top_->eval();
  ++cycle_;
  port_->afterRisingEdge(*top_);
  host_->afterRisingEdge();
  port_->driveInputs(*top_);
  host_->driveInputs(*top_);
  top_->clk_i = 0;
  top_->eval();
  port_->sampleHandshakes(*top_);
  host_->sampleHandshakes(*top_);
}

// A register access clocks the NPU only until it completes, as the SoC's adapter does
// when it is idle.
uint32_t BareNpu::regOp(bool write, uint32_t offset, uint32_t value) {
  RegAccess a;
  a.write = write;
  a.offset = offset;
  a.data = value;
  host_->start(&a);
  while (!a.done) step();
  return a.result;
}

JobResult BareNpu::run(const std::vector<uint8_t>& commands, uint64_t timeoutCycles,
                       PerfCounters* counters) {
  JobResult r;
  // sim::Device::reset
  (void)regOp(true, reg::kCtrl, reg::kCtrlSoftReset | reg::kCtrlIrqEn | reg::kCtrlPerfClear);
  (void)regOp(true, reg::kIrqStatus, kEveryIrqCause);
  // sim::Device::submit: from slot 0 (soft reset returns HEAD to 0); the caller keeps a
  // job within the ring, as the SoC refuses one that is not.
  const uint32_t n = static_cast<uint32_t>(commands.size() / firmware::kCommandBytes);
  std::memcpy(memory_.data(), commands.data(), commands.size());
  (void)regOp(true, reg::kRingTail, n % firmware::kRingSlots);
  const uint64_t start = cycle_;
  (void)regOp(true, reg::kDoorbell, 1);
  // sim::Device::wait
  while (!top_->irq_o) {
    if (cycle_ - start > timeoutCycles) {
      r.timedOut = true;
      r.cycles = cycle_ - start;
      return r;
    }
    step();
  }
  r.cycles = cycle_ - start;
  const uint32_t status = regOp(false, reg::kStatus, 0);
  r.errCode = regOp(false, reg::kErrCode, 0);
  r.errAddr = regOp(false, reg::kErrAddr, 0);
  r.errInfo = regOp(false, reg::kErrInfo, 0);
  r.completed = (status & reg::kStatusDone) && r.errCode == 0;
  (void)regOp(true, reg::kIrqStatus, kEveryIrqCause);
  // sim::Device::counters, in its order; SimNpuDevice reads them for completed jobs only.
  if (counters && r.completed) {
    PerfCounters& p = *counters;
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
    for (const auto& [off, dst] : regs) *dst = regOp(false, off, 0);
  }
  return r;
}

}  // namespace nncosim::sim
