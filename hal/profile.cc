#include "hal/profile.h"

#include <cstring>

namespace nncosim::hal::profile {
namespace {

bool same(const char* a, const char* b) { return a == b || std::strcmp(a, b) == 0; }

bool gOn = false;
std::vector<Entry> gEntries;
// Taken when this file's statics initialize, which is before main: the start of the
// process as far as the program can tell.
const std::chrono::steady_clock::time_point gStart = std::chrono::steady_clock::now();

}  // namespace

void enable(bool on) { gOn = on; }
bool enabled() { return gOn; }

void add(const char* phase, uint64_t nanos, uint64_t calls) {
  if (!gOn) return;
  for (Entry& e : gEntries)
    if (same(e.phase, phase)) {
      e.nanos += nanos;
      e.calls += calls;
      return;
    }
  gEntries.push_back({phase, nanos, calls});
}

const std::vector<Entry>& entries() { return gEntries; }

Entry get(const char* phase) {
  for (const Entry& e : gEntries)
    if (same(e.phase, phase)) return e;
  return {phase, 0, 0};
}

void clear() { gEntries.clear(); }

uint64_t processNanos() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now() - gStart)
                                   .count());
}

}  // namespace nncosim::hal::profile
