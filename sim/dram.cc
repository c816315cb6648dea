#include "sim/dram.h"

#include <cstring>

namespace nncosim::sim {

Dram::Dram(sc_core::sc_module_name name, uint64_t bytes, sc_core::sc_time latency,
           double bytesPerSecond)
    : sc_module(name),
      socket("socket"),
      mem_(static_cast<uint8_t*>(std::calloc(bytes, 1))),
      size_(bytes),
      latency_(latency),
      bytesPerSecond_(bytesPerSecond) {
  if (!mem_) SC_REPORT_FATAL("dram", "cannot allocate the DRAM model's memory");
  socket.register_b_transport(this, &Dram::b_transport);
  socket.register_transport_dbg(this, &Dram::transport_dbg);
  socket.register_get_direct_mem_ptr(this, &Dram::get_direct_mem_ptr);
}

bool Dram::check(tlm::tlm_generic_payload& p) const {
  const uint64_t addr = p.get_address(), len = p.get_data_length();
  if (addr >= size_ || len > size_ - addr) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  if (p.get_byte_enable_ptr() != nullptr) {
    p.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  if (p.get_streaming_width() < len) {
    p.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  return true;
}

void Dram::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  if (!check(p)) return;
  const uint64_t addr = p.get_address(), len = p.get_data_length();
  if (p.is_read()) {
    std::memcpy(p.get_data_ptr(), mem_.get() + addr, len);
    bytesRead_ += len;
  } else if (p.is_write()) {
    std::memcpy(mem_.get() + addr, p.get_data_ptr(), len);
    bytesWritten_ += len;
  }
  delay += latency_ + sc_core::sc_time(static_cast<double>(len) / bytesPerSecond_, sc_core::SC_SEC);
  p.set_dmi_allowed(true);
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned Dram::transport_dbg(tlm::tlm_generic_payload& p) {
  const uint64_t addr = p.get_address();
  if (addr >= size_) return 0;
  const uint64_t len = std::min<uint64_t>(p.get_data_length(), size_ - addr);
  if (p.is_read())
    std::memcpy(p.get_data_ptr(), mem_.get() + addr, len);
  else if (p.is_write())
    std::memcpy(mem_.get() + addr, p.get_data_ptr(), len);
  return static_cast<unsigned>(len);
}

bool Dram::get_direct_mem_ptr(tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi) {
  (void)p;
  dmi.allow_read_write();
  dmi.set_dmi_ptr(mem_.get());
  dmi.set_start_address(0);
  dmi.set_end_address(size_ - 1);
  dmi.set_read_latency(latency_);
  dmi.set_write_latency(latency_);
  return true;
}

}  // namespace nncosim::sim
