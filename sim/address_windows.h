// AddressWindows: the IOMMU in miniature between the NPU and memory. The driver maps
// each job's buffers as windows; any NPU access not wholly inside a window (with the
// right permission) is refused, so a faulty job can never change memory outside them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nncosim::sim {

class AddressWindows {
 public:
  struct Window {
    uint64_t base = 0, size = 0;
    bool readable = true, writable = true;
    std::string name;
  };

  void map(Window w) { windows_.push_back(std::move(w)); }
  // Removes every window starting at `base`.
  void unmap(uint64_t base);
  void clear() { windows_.clear(); }
  // True when [addr, addr+len) lies in one window allowing the access.
  bool allows(uint64_t addr, uint64_t len, bool write) const;
  // When off, everything is allowed (host accesses, bring-up).
  void setEnforced(bool on) { enforced_ = on; }
  bool enforced() const { return enforced_; }
  const std::vector<Window>& windows() const { return windows_; }

 private:
  std::vector<Window> windows_;
  bool enforced_ = true;
};

}  // namespace nncosim::sim
