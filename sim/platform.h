// Platform: the whole simulated SoC: a host CPU port, the interconnect, DRAM, and the
// NPU. Built once per process (SystemC elaborates once); the Device drives it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "sim/address_windows.h"
#include "sim/dram.h"
#include "sim/interconnect.h"
#include "sim/npu_adapter.h"
#include "sim/soc_config.h"

namespace nncosim::sim {

// The host CPU: runs queued register operations as TLM transactions from its own thread.
class HostCpu : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(HostCpu);
  tlm_utils::simple_initiator_socket<HostCpu> socket;
  explicit HostCpu(sc_core::sc_module_name name);
  // Queues a 32-bit access; `done` is set when it has completed.
  void post(bool write, uint64_t addr, uint32_t* data, bool* ok, bool* done);

 private:
  struct Op {
    bool write;
    uint64_t addr;
    uint32_t* data;
    bool* ok;
    bool* done;
  };
  void run();
  std::deque<Op> ops_;
  sc_core::sc_event posted_;
};

class Platform : public sc_core::sc_module {
 public:
  Platform(sc_core::sc_module_name name, const SocConfig& config);

  const SocConfig config;
  AddressWindows windows;
  HostCpu host;
  Interconnect bus;
  Dram dram;
  NpuAdapter npu;
};

}  // namespace nncosim::sim
