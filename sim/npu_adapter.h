// NpuAdapter: the Verilated NPU (nnc_npu_top) as a SystemC module. One SC_THREAD owns
// the model and toggles its clock in plain C++; it synchronises with SystemC once per
// quantum (SocConfig::quantumCycles) or when the host touches a register, so
// whole-network simulations are not slowed by the SystemC kernel.
//
//   host --TLM--> Interconnect --TLM--> regs (b_transport -> AXI4-Lite pins)
//   NPU AXI4 master pins --AxiMemoryPort--> DRAM (DMI pointer, windows-checked)
//   irq_o --> irqEvent()
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "firmware/unit_span.h"
#include "sim/address_windows.h"
#include "sim/soc_config.h"

class Vnnc_npu_top;
class VerilatedFstC;
class VerilatedContext;

namespace nncosim::sim {

template <typename Top>
class AxiMemoryPort;
template <typename Top>
class AxiLiteMaster;
struct RegAccess;

class NpuAdapter : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(NpuAdapter);
  tlm_utils::simple_target_socket<NpuAdapter> regs;       // AXI4-Lite slave, as TLM
  tlm_utils::simple_initiator_socket<NpuAdapter> memory;  // DMI requests for the AXI master

  NpuAdapter(sc_core::sc_module_name name, const SocConfig& config, const AddressWindows& windows);
  ~NpuAdapter() override;

  // FST waveform of the NPU (off unless called before simulation starts).
  void traceTo(const std::string& path);
  const sc_core::sc_event& irqEvent() const { return irqEvent_; }
  bool irq() const;
  uint64_t cycles() const { return cycle_; }
  // True when the NPU has nothing to do (status idle/done/error, no bus traffic).
  bool quiescent() const;
  // Busy intervals of the NPU's units (load, compute, store, densify), in NPU cycles,
  // since the last clearTimeline(): the timeline of a run.
  using UnitSpan = firmware::UnitSpan;
  const std::vector<UnitSpan>& timeline() const { return spans_; }
  // Every command the queues (0 load, 1 compute, 2 store) completed since the last
  // clearTimeline(), in completion order: per queue, the k-th one is the queue's k-th
  // command in the stream (SYNC included, END never reaches a queue). `start` is when the
  // queue's unit could begin it: its issue, or the queue's previous completion if later
  // (a unit may accept a command while it still finishes the one before), so the spans
  // of one queue never overlap. A SYNC starts and ends in the same cycle.
  struct CommandSpan {
    int queue;
    uint64_t start, end;
  };
  const std::vector<CommandSpan>& commandTimeline() const { return commands_; }
  void clearTimeline() {
    spans_.clear();
    commands_.clear();
    for (auto& q : issued_) q.clear();
  }
  // Stops clocking until the host touches a register again (after a job ends).
  void park() { running_ = false; }

 private:
  void clockThread();
  void stepCycle();
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& p);
  bool ensureMemory();

  SocConfig config_;
  const AddressWindows& windows_;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Vnnc_npu_top> top_;
  std::unique_ptr<AxiMemoryPort<Vnnc_npu_top>> port_;
  std::unique_ptr<AxiLiteMaster<Vnnc_npu_top>> host_;
  std::unique_ptr<VerilatedFstC> trace_;
  std::deque<RegAccess*> regQueue_;
  bool regCompleted_ = false;
  bool running_ = false;  // a job may be executing: keep the clock going
  sc_core::sc_event regEvent_, regDone_, irqEvent_;
  uint64_t cycle_ = 0;
  bool tracing_ = false;
  std::vector<UnitSpan> spans_;
  uint8_t lastBusy_ = 0;
  uint64_t busySince_[4] = {0, 0, 0, 0};
  std::vector<CommandSpan> commands_;
  std::deque<uint64_t> issued_[3];  // issue cycles of the commands in flight, per queue
  uint64_t lastDone_[3] = {0, 0, 0};
  void recordCommands(uint8_t issue, uint8_t done);
};

}  // namespace nncosim::sim
