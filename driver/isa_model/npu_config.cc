#include "driver/isa_model/npu_config.h"

#include <sstream>

namespace nncosim::driver {

uint32_t NpuConfig::bufferBytes(firmware::Buffer b) const {
  switch (b) {
    case firmware::Buffer::kInp: return inpBytes;
    case firmware::Buffer::kWgt: return wgtBytes;
    case firmware::Buffer::kAcc: return accBytes;
    case firmware::Buffer::kOut: return outBytes;
    case firmware::Buffer::kPrm: return prmBytes;
  }
  return 0;
}

hal::Result<NpuConfig> NpuConfig::fromConfigRegister(uint32_t value) {
  NpuConfig c;
  c.rows = (value & firmware::reg::kConfigRows) >> firmware::reg::kConfigRowsLsb;
  c.cols = (value & firmware::reg::kConfigCols) >> firmware::reg::kConfigColsLsb;
  const uint32_t kibLog2 =
      (value & firmware::reg::kConfigBufKibLog2) >> firmware::reg::kConfigBufKibLog2Lsb;
  // GEMM's m and n fields are limited to the ISA's array size: a larger array could not
  // be addressed by this ISA version.
  if (c.rows == 0 || c.rows > firmware::kArrayRows || c.cols == 0 || c.cols > firmware::kArrayCols)
    return hal::fail("CONFIG 0x", std::hex, value, std::dec, ": array ", c.rows, "x", c.cols,
                     " is outside 1..", firmware::kArrayRows, " x 1..", firmware::kArrayCols);
  // Buffer addresses are buf_addr_bits wide: 2^20 bytes = 1 MiB = 2^10 KiB at most.
  if (kibLog2 > firmware::kBufAddrBits - 10)
    return hal::fail("CONFIG 0x", std::hex, value, std::dec, ": INP/WGT buffers of 2^", kibLog2,
                     " KiB exceed the ", firmware::kBufAddrBits, "-bit buffer address");
  c.inpBytes = c.wgtBytes = (1u << kibLog2) << 10;
  return c;
}

std::string NpuConfig::describe() const {
  std::ostringstream os;
  auto kib = [](uint32_t b) { return std::to_string(b >> 10) + " KiB"; };
  os << rows << "x" << cols << " array, INP " << kib(inpBytes) << ", WGT " << kib(wgtBytes)
     << ", ACC " << kib(accBytes) << ", OUT " << kib(outBytes) << ", PRM " << kib(prmBytes);
  return os.str();
}

}  // namespace nncosim::driver
