// Verilator's headers must precede SystemC's in every TU that sees both.
#include "Vnnc_npu_top.h"

#include "sim/platform.h"

namespace nncosim::sim {

HostCpu::HostCpu(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
  SC_THREAD(run);
}

void HostCpu::post(bool write, uint64_t addr, uint32_t* data, bool* ok, bool* done) {
  ops_.push_back({write, addr, data, ok, done});
  posted_.notify(sc_core::SC_ZERO_TIME);
}

void HostCpu::run() {
  for (;;) {
    while (ops_.empty()) sc_core::wait(posted_);
    Op op = ops_.front();
    ops_.pop_front();
    tlm::tlm_generic_payload p;
    p.set_command(op.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p.set_address(op.addr);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(op.data));
    p.set_data_length(4);
    p.set_streaming_width(4);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(p, delay);
    if (delay != sc_core::SC_ZERO_TIME) sc_core::wait(delay);
    *op.ok = p.is_response_ok();
    *op.done = true;
  }
}

Platform::Platform(sc_core::sc_module_name name, const SocConfig& c)
    : sc_module(name),
      config(c),
      host("host"),
      bus("bus"),
      dram("dram", c.dramBytes,
           sc_core::sc_time(c.dramLatencyCycles * c.periodNs(), sc_core::SC_NS),
           c.dramBytesPerCycle * c.clockMHz * 1e6),
      npu("npu", c, windows) {
  // Initiators: host (0), NPU memory port (1). Regions: DRAM (0), NPU registers (1).
  host.socket.bind(bus.targets);
  npu.memory.bind(bus.targets);
  bus.addRegion("dram", c.dramBase, c.dramBytes);
  bus.initiators.bind(dram.socket);
  bus.addRegion("npu", c.npuRegBase, c.npuRegBytes);
  bus.initiators.bind(npu.regs);
}

}  // namespace nncosim::sim
