// Interconnect: the SoC bus. Initiators (the host CPU, the NPU's memory port) bind to
// `targets`; each target region (DRAM, the NPU's registers) binds to `initiators` in
// the order of addRegion(). Addresses are decoded, rebased to the region and
// forwarded; DMI ranges are translated back; unmapped addresses answer
// TLM_ADDRESS_ERROR_RESPONSE.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

namespace nncosim::sim {

class Interconnect : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Interconnect> targets;
  tlm_utils::multi_passthrough_initiator_socket<Interconnect> initiators;

  explicit Interconnect(sc_core::sc_module_name name);
  // Region i is served by the i-th binding of `initiators`.
  void addRegion(std::string name, uint64_t base, uint64_t size);
  // Accesses decoded so far, for reports.
  uint64_t transactions() const { return transactions_; }

 private:
  struct Region {
    std::string name;
    uint64_t base, size;
  };
  int decode(uint64_t addr, uint64_t len) const;
  void b_transport(int id, tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& p);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi);
  void invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end);

  std::vector<Region> regions_;
  uint64_t transactions_ = 0;
};

}  // namespace nncosim::sim
