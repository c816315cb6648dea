#include "sim/interconnect.h"

namespace nncosim::sim {

Interconnect::Interconnect(sc_core::sc_module_name name)
    : sc_module(name), targets("targets"), initiators("initiators") {
  targets.register_b_transport(this, &Interconnect::b_transport);
  targets.register_transport_dbg(this, &Interconnect::transport_dbg);
  targets.register_get_direct_mem_ptr(this, &Interconnect::get_direct_mem_ptr);
  initiators.register_invalidate_direct_mem_ptr(this, &Interconnect::invalidate_direct_mem_ptr);
}

void Interconnect::addRegion(std::string name, uint64_t base, uint64_t size) {
  regions_.push_back({std::move(name), base, size});
}

int Interconnect::decode(uint64_t addr, uint64_t len) const {
  for (size_t i = 0; i < regions_.size(); ++i) {
    const auto& r = regions_[i];
    if (addr >= r.base && addr - r.base < r.size && len <= r.size - (addr - r.base))
      return static_cast<int>(i);
  }
  return -1;
}

void Interconnect::b_transport(int, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  ++transactions_;
  const uint64_t addr = p.get_address();
  const int r = decode(addr, p.get_data_length());
  if (r < 0) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  p.set_address(addr - regions_[r].base);
  initiators[r]->b_transport(p, delay);
  p.set_address(addr);
}

unsigned Interconnect::transport_dbg(int, tlm::tlm_generic_payload& p) {
  const uint64_t addr = p.get_address();
  const int r = decode(addr, 1);
  if (r < 0) return 0;
  p.set_address(addr - regions_[r].base);
  const unsigned n = initiators[r]->transport_dbg(p);
  p.set_address(addr);
  return n;
}

bool Interconnect::get_direct_mem_ptr(int, tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi) {
  const uint64_t addr = p.get_address();
  const int r = decode(addr, 1);
  if (r < 0) return false;
  p.set_address(addr - regions_[r].base);
  const bool ok = initiators[r]->get_direct_mem_ptr(p, dmi);
  p.set_address(addr);
  if (ok) {
    // Back to bus addresses, clipped to the region.
    const uint64_t base = regions_[r].base;
    dmi.set_start_address(dmi.get_start_address() + base);
    dmi.set_end_address(
        std::min<uint64_t>(dmi.get_end_address() + base, base + regions_[r].size - 1));
  }
  return ok;
}

void Interconnect::invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end) {
  const uint64_t base = regions_.at(static_cast<size_t>(id)).base;
  for (unsigned t = 0; t < targets.size(); ++t)
    targets[t]->invalidate_direct_mem_ptr(start + base, end + base);
}

}  // namespace nncosim::sim
