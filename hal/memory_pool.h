// MemoryPool: a read-only block of bytes backing CONSTANT_POOL operands: either owned
// in memory or a memory-mapped file (large constants are never copied on load).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hal/result.h"

namespace nncosim::hal {

class MemoryPool {
 public:
  MemoryPool() = default;
  static MemoryPool fromBytes(std::vector<uint8_t> bytes);
  // Maps the whole file read-only. Errors name the file.
  static Result<MemoryPool> mapFile(const std::string& path);

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }  // empty for in-memory pools

 private:
  std::shared_ptr<void> owner_;  // keeps the vector or the mapping alive
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

}  // namespace nncosim::hal
