#include "hal/memory_pool.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nncosim::hal {

MemoryPool MemoryPool::fromBytes(std::vector<uint8_t> bytes) {
  MemoryPool p;
  auto v = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  p.data_ = v->data();
  p.size_ = v->size();
  p.owner_ = v;
  return p;
}

Result<MemoryPool> MemoryPool::mapFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(path, ": cannot open pool file: ", std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return fail(path, ": cannot stat pool file: ", std::strerror(e));
  }
  MemoryPool p;
  p.path_ = path;
  p.size_ = static_cast<size_t>(st.st_size);
  if (p.size_ == 0) {  // mmap rejects empty files; an empty pool is still valid
    ::close(fd);
    return fromBytes({});
  }
  void* m = ::mmap(nullptr, p.size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) return fail(path, ": cannot map pool file: ", std::strerror(errno));
  size_t n = p.size_;
  p.owner_ = std::shared_ptr<void>(m, [n](void* q) { ::munmap(q, n); });
  p.data_ = static_cast<const uint8_t*>(m);
  return p;
}

}  // namespace nncosim::hal
