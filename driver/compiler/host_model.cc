#include "driver/compiler/host_model.h"

#include <cstdlib>
#include <sstream>

namespace nncosim::driver {

HostBytes& HostBytes::operator+=(const HostBytes& o) {
  packed += o.packed;
  copiedIn += o.copiedIn;
  unpacked += o.unpacked;
  copiedOut += o.copiedOut;
  sourceBytes += o.sourceBytes;
  cpuBytes += o.cpuBytes;
  betweenNpuSteps += o.betweenNpuSteps;
  return *this;
}

HostWork& HostWork::operator+=(const HostWork& o) {
  bytes += o.bytes;
  passNanos += o.passNanos;
  cpuNanos += o.cpuNanos;
  cpuColdNanos += o.cpuColdNanos;
  return *this;
}

double HostModel::passNanos(const HostBytes& b) const {
  const double cycles = static_cast<double>(b.packed + b.unpacked) / packBytesPerCycle +
                        static_cast<double>(b.copiedIn + b.copiedOut) / copyBytesPerCycle;
  return cycles * 1000.0 / clockMHz;
}

bool HostModel::set(const std::string& kv, std::string* error) {
  const auto eq = kv.find('=');
  if (eq == std::string::npos) {
    *error = "host model setting '" + kv + "' is not key=value";
    return false;
  }
  const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(v > 0) || v > 1e9) {
    *error = "host model setting " + key + ": '" + value + "' is not a positive number";
    return false;
  }
  if (key == "clock_mhz")
    clockMHz = v;
  else if (key == "copy_bytes_per_cycle")
    copyBytesPerCycle = v;
  else if (key == "pack_bytes_per_cycle")
    packBytesPerCycle = v;
  else if (key == "cpu_scale")
    cpuScale = v;
  else if (key == "core_power_w")
    corePowerW = v;
  else {
    *error = "unknown host model key '" + key +
             "' (clock_mhz, copy_bytes_per_cycle, pack_bytes_per_cycle, cpu_scale, core_power_w)";
    return false;
  }
  return true;
}

std::string HostModel::describe() const {
  std::ostringstream os;
  os << "host model: " << clockMHz << " MHz, copies " << copyBytesPerCycle << " B/cycle, packing "
     << packBytesPerCycle << " B/cycle, CPU steps x" << cpuScale << " of their time measured here";
  return os.str();
}

}  // namespace nncosim::driver
