// The densify testbench's memory model: a flat byte array at a base address, with the
// regions the unit may touch and a canary everywhere else.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace nncosim::testbench {

class DensifyMemory {
 public:
  static constexpr uint32_t kBase = 0x4000'0000;

  struct Region {
    uint32_t addr, size;
    bool writable;
    std::string name;
    bool readable = true;
  };

  void reset(std::mt19937_64& rng) {
    bytes_.assign(bytes_.size(), 0xa5);  // canary everywhere not allocated
    next_ = 16 + static_cast<uint32_t>(rng() % 64) * 4;
    regions_.clear();
    // Half the layouts leave two beats of canary after every region, so a read of one beat
    // too many (a prefetch past the end of an array) shows; the others pack them tightly.
    guard_ = rng() % 2 ? 32 : 0;
  }
  uint32_t alloc(uint32_t size, uint32_t align, bool writable, std::string name,
                 std::mt19937_64& rng, bool gap = true) {
    next_ = (next_ + align - 1) / align * align;
    const uint32_t off = next_;
    next_ += size + (gap ? static_cast<uint32_t>(rng() % 4) * align + guard_ : 0);  // random gaps
    if (next_ > bytes_.size()) bytes_.resize(next_ + 4096, 0xa5);
    regions_.push_back({kBase + off, size, writable, std::move(name)});
    return kBase + off;
  }
  // Marks the last region as one the unit must not touch at all.
  void forbidLast() { regions_.back().readable = false; }
  void put(uint32_t addr, const void* p, size_t n) {
    if (n == 0) return;  // an empty array's data() may be null, which memcpy must not get
    std::memcpy(&bytes_[addr - kBase], p, n);
  }
  void put32(uint32_t addr, uint32_t v) { put(addr, &v, 4); }
  std::vector<uint8_t> get(uint32_t addr, size_t n) const {
    return std::vector<uint8_t>(bytes_.begin() + (addr - kBase),
                                bytes_.begin() + (addr - kBase) + n);
  }
  // Whether [addr, addr + n) shares a byte with a region the unit may read.
  bool touchesReadable(uint32_t addr, uint32_t n) const {
    for (const auto& r : regions_)
      if (r.readable && !r.writable && addr < static_cast<uint64_t>(r.addr) + r.size &&
          r.addr < static_cast<uint64_t>(addr) + n)
        return true;
    return false;
  }
  // Region an access falls in completely, or nullptr.
  const Region* find(uint32_t addr, uint32_t n) const {
    for (const auto& r : regions_)
      if (addr >= r.addr &&
          static_cast<uint64_t>(addr) + n <= static_cast<uint64_t>(r.addr) + r.size)
        return &r;
    return nullptr;
  }
  uint32_t read(uint32_t addr, uint32_t n) const {
    uint32_t v = 0;
    std::memcpy(&v, &bytes_[addr - kBase], n);
    return v;
  }
  uint8_t byte(uint32_t addr) const { return bytes_[addr - kBase]; }
  void write(uint32_t addr, uint32_t n, uint32_t v) { std::memcpy(&bytes_[addr - kBase], &v, n); }
  // Bytes outside every region still hold the canary.
  bool canaryIntact() const {
    std::vector<bool> inside(bytes_.size(), false);
    for (const auto& r : regions_)
      for (uint32_t i = 0; i < r.size; ++i) inside[r.addr - kBase + i] = true;
    for (size_t i = 0; i < bytes_.size(); ++i)
      if (!inside[i] && bytes_[i] != 0xa5) return false;
    return true;
  }

 private:
  std::vector<uint8_t> bytes_ = std::vector<uint8_t>(1 << 16, 0xa5);
  uint32_t next_ = 0, guard_ = 0;
  std::vector<Region> regions_;
};

}  // namespace nncosim::testbench
