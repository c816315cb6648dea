#include "hal/operand.h"

#include <array>

namespace nncosim::hal {
namespace {
constexpr std::array<std::string_view, 7> kLifetimes = {
    "TEMPORARY_VARIABLE", "SUBGRAPH_INPUT", "SUBGRAPH_OUTPUT", "CONSTANT_COPY",
    "CONSTANT_REFERENCE", "NO_VALUE",       "SUBGRAPH"};
}

std::string_view toString(OperandLifeTime l) {
  auto i = static_cast<size_t>(l);
  return i < kLifetimes.size() ? kLifetimes[i] : std::string_view("<bad lifetime>");
}

std::optional<OperandLifeTime> lifetimeFromString(std::string_view name) {
  for (size_t i = 0; i < kLifetimes.size(); ++i)
    if (kLifetimes[i] == name) return static_cast<OperandLifeTime>(i);
  if (name == "CONSTANT_POOL") return OperandLifeTime::CONSTANT_POOL;
  return std::nullopt;
}

std::optional<uint64_t> elementCount(const std::vector<uint32_t>& dims) {
  uint64_t n = 1;
  for (uint32_t d : dims) {
    if (d == 0) return std::nullopt;
    n *= d;
    if (n > (uint64_t{1} << 31)) return std::nullopt;
  }
  return n;
}

bool fullySpecified(const Operand& o) {
  if (!isTensor(o.type)) return true;
  if (o.dimensions.empty()) return false;
  for (uint32_t d : o.dimensions)
    if (d == 0) return false;
  return true;
}

}  // namespace nncosim::hal
