#include "sim/address_windows.h"

#include <algorithm>

namespace nncosim::sim {

void AddressWindows::unmap(uint64_t base) {
  windows_.erase(std::remove_if(windows_.begin(), windows_.end(),
                                [&](const Window& w) { return w.base == base; }),
                 windows_.end());
}

bool AddressWindows::allows(uint64_t addr, uint64_t len, bool write) const {
  if (!enforced_) return true;
  if (addr + len < addr) return false;  // wraps
  for (const auto& w : windows_) {
    if (addr >= w.base && addr + len <= w.base + w.size) return write ? w.writable : w.readable;
  }
  return false;
}

}  // namespace nncosim::sim
