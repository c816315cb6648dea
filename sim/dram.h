// Dram: the device memory as a TLM-2.0 target: b_transport with latency and bandwidth
// timing, transport_dbg for the host's untimed copies, and DMI for bulk access.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace nncosim::sim {

class Dram : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Dram> socket;

  // Addresses on the socket are offsets from 0 (the interconnect subtracts the base).
  Dram(sc_core::sc_module_name name, uint64_t bytes, sc_core::sc_time latency,
       double bytesPerSecond);

  uint8_t* data() { return mem_.get(); }
  uint64_t size() const { return size_; }
  uint64_t bytesRead() const { return bytesRead_; }
  uint64_t bytesWritten() const { return bytesWritten_; }

 private:
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& p);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi);
  // Checks the command, range and byte enables; sets the response status when bad.
  bool check(tlm::tlm_generic_payload& p) const;

  // calloc'ed: the pages of a large allocation come zeroed from the kernel and are only
  // touched (paid for, in time and RSS) when used; a zero-filled vector writes them all
  // at elaboration and frees them all at exit.
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> mem_;
  uint64_t size_;
  sc_core::sc_time latency_;
  double bytesPerSecond_;
  uint64_t bytesRead_ = 0, bytesWritten_ = 0;
};

}  // namespace nncosim::sim
