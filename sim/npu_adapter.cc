// Verilator headers come before SystemC's.
#include "Vnnc_npu_top.h"
#include "verilated.h"
#include "verilated_fst_c.h"

#include "sim/npu_adapter.h"

#include <algorithm>

#include "sim/axi_lite_master.h"
#include "sim/axi_memory_port.h"

namespace nncosim::sim {
namespace {
constexpr uint32_t kDoorbellOffset = 48;
constexpr int kResetCycles = 8;
}  // namespace

NpuAdapter::NpuAdapter(sc_core::sc_module_name name, const SocConfig& config,
                       const AddressWindows& windows)
    : sc_module(name),
      regs("regs"),
      memory("memory"),
      config_(config),
      windows_(windows),
      context_(std::make_unique<VerilatedContext>()),
      host_(std::make_unique<AxiLiteMaster<Vnnc_npu_top>>()) {
  regs.register_b_transport(this, &NpuAdapter::b_transport);
  regs.register_transport_dbg(this, &NpuAdapter::transport_dbg);
  context_->traceEverOn(true);  // costs nothing until a trace is opened
  top_ = std::make_unique<Vnnc_npu_top>(context_.get(), "npu");
  SC_THREAD(clockThread);
}

NpuAdapter::~NpuAdapter() {
  if (trace_) trace_->close();
  top_->final();
}

void NpuAdapter::traceTo(const std::string& path) {
  trace_ = std::make_unique<VerilatedFstC>();
  top_->trace(trace_.get(), 99);
  trace_->open(path.c_str());
  tracing_ = true;
}

bool NpuAdapter::irq() const { return top_->irq_o; }

bool NpuAdapter::ensureMemory() {
  if (port_) return true;
  // The NPU's memory path goes through the bus once, for a DMI pointer to DRAM.
  tlm::tlm_generic_payload p;
  tlm::tlm_dmi dmi;
  p.set_address(config_.dramBase);
  p.set_command(tlm::TLM_READ_COMMAND);
  if (!memory->get_direct_mem_ptr(p, dmi)) return false;
  port_ = std::make_unique<AxiMemoryPort<Vnnc_npu_top>>(
      dmi.get_dmi_ptr(), dmi.get_start_address(),
      dmi.get_end_address() - dmi.get_start_address() + 1, windows_, config_.dramLatencyCycles,
      config_.dramBytesPerCycle, config_.dramReadQos != 0);
  port_->setWriteFault(static_cast<uint8_t>(config_.faultWriteXor));
  return true;
}

bool NpuAdapter::quiescent() const {
  return !running_ && regQueue_.empty() && !host_->busy() && (!port_ || port_->idle());
}

void NpuAdapter::stepCycle() {
  top_->clk_i = 1;
  top_->eval();
  ++cycle_;
  port_->afterRisingEdge(*top_);
  if (RegAccess* done = host_->afterRisingEdge()) {
    if (done->write && done->offset == kDoorbellOffset) running_ = true;
    regQueue_.pop_front();
    regCompleted_ = true;
  }
  if (!host_->busy() && !regQueue_.empty()) host_->start(regQueue_.front());
  port_->driveInputs(*top_);
  host_->driveInputs(*top_);
  top_->clk_i = 0;
  top_->eval();
  port_->sampleHandshakes(*top_);
  host_->sampleHandshakes(*top_);
  if (tracing_) trace_->dump(cycle_ * 2);
  const uint8_t busy = top_->busy_o;
  if (busy != lastBusy_) {  // rare: only when a unit starts or finishes a command
    for (int u = 0; u < 4; ++u) {
      const bool was = (lastBusy_ >> u) & 1, is = (busy >> u) & 1;
      if (is && !was) busySince_[u] = cycle_;
      if (was && !is) spans_.push_back({u, busySince_[u], cycle_});
    }
    lastBusy_ = busy;
  }
  const uint8_t issue = top_->cmd_issue_o, done = top_->cmd_done_o;
  if (issue | done) recordCommands(issue, done);  // a few cycles per command
}

void NpuAdapter::recordCommands(uint8_t issue, uint8_t done) {
  for (int q = 0; q < 3; ++q) {
    if ((issue >> q) & 1) issued_[q].push_back(cycle_);
    // Issues before completions: a SYNC does both in one cycle.
    if (((done >> q) & 1) && !issued_[q].empty()) {
      const uint64_t start = std::max(issued_[q].front(), lastDone_[q]);
      issued_[q].pop_front();
      commands_.push_back({q, start, cycle_});
      lastDone_[q] = cycle_;
    }
  }
}

void NpuAdapter::clockThread() {
  if (!ensureMemory()) SC_REPORT_FATAL("npu", "no DMI access to DRAM");
  // Reset with idle bus inputs.
  top_->rst_ni = 0;
  for (int i = 0; i < kResetCycles; ++i) stepCycle();
  top_->rst_ni = 1;
  const sc_core::sc_time period(config_.periodNs(), sc_core::SC_NS);
  for (;;) {
    if (quiescent()) sc_core::wait(regEvent_);  // nothing to clock until the host asks
    uint32_t n = 0;
    regCompleted_ = false;
    const bool irqBefore = top_->irq_o;
    bool irqRose = false;
    while (n < config_.quantumCycles) {
      stepCycle();
      ++n;
      irqRose = !irqBefore && top_->irq_o;
      // Synchronise early at a bus event the host waits for, or when there is nothing to do.
      if (regCompleted_ || irqRose || quiescent()) break;
    }
    sc_core::wait(period * static_cast<double>(n));
    if (regCompleted_) regDone_.notify();
    if (irqRose) {
      running_ = false;  // the job ended (done or error); the host reads why
      irqEvent_.notify();
    }
  }
}

void NpuAdapter::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  if (p.get_data_length() != 4 || (p.get_address() & 3) != 0 ||
      p.get_address() >= config_.npuRegBytes) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  // Synchronise: the register access happens at the current simulated time.
  sc_core::wait(delay);
  delay = sc_core::SC_ZERO_TIME;
  RegAccess a;
  a.write = p.is_write();
  a.offset = static_cast<uint32_t>(p.get_address());
  std::memcpy(&a.data, p.get_data_ptr(), 4);
  regQueue_.push_back(&a);
  regEvent_.notify();
  while (!a.done) sc_core::wait(regDone_);
  if (!a.write) std::memcpy(p.get_data_ptr(), &a.result, 4);
  p.set_response_status(a.resp == 0 ? tlm::TLM_OK_RESPONSE : tlm::TLM_GENERIC_ERROR_RESPONSE);
}

unsigned NpuAdapter::transport_dbg(tlm::tlm_generic_payload&) {
  return 0;  // registers have side effects (W1C, doorbell): no untimed access
}

}  // namespace nncosim::sim
