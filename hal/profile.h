// Wall-time profile of a process: totals and call counts of named phases (compile,
// mapping estimates, host packing, job set-up, simulation, ...), for `nncosim run
// --profile`. It lives on the ground floor so every layer can time its own phases
// without knowing who prints them.
//
//   hal::profile::enable(true);
//   { hal::profile::Scope s("compile"); ... }     // adds the scope's wall time
//   for (const auto& e : hal::profile::entries()) ...
//
// Off by default: a Scope then reads no clock and costs one branch. A phase is its name
// (compared as text; the pointer is kept, so pass string literals). Not thread-safe:
// time the phases of one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

namespace nncosim::hal::profile {

struct Entry {
  const char* phase;
  uint64_t nanos = 0;
  uint64_t calls = 0;
};

void enable(bool on);
bool enabled();
// Adds `nanos` and `calls` to `phase` (when enabled).
void add(const char* phase, uint64_t nanos, uint64_t calls = 1);
// Every phase timed since the last clear, in the order first seen.
const std::vector<Entry>& entries();
// The phase's entry, or a zero one.
Entry get(const char* phase);
void clear();
// Nanoseconds since the process started (the profile's static initialization).
uint64_t processNanos();

class Scope {
 public:
  explicit Scope(const char* phase) : phase_(phase), on_(enabled()) {
    if (on_) t0_ = std::chrono::steady_clock::now();
  }
  ~Scope() { stop(); }
  // Ends the phase before the scope does (once; later calls add nothing).
  void stop() {
    if (!on_) return;
    on_ = false;
    add(phase_, static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now() - t0_)
                                          .count()));
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  const char* phase_;
  bool on_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace nncosim::hal::profile
