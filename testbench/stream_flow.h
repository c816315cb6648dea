// The handshake schedule and mismatch record the streaming-unit harnesses share (requant,
// elementwise, pooling): one schedule, so that every unit meets the same four phases and a
// seed reproduces the same stalls in each.
#pragma once

#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace nncosim::testbench {

// Over `items` sent, four phases of a quarter each: free flowing; input gaps (valid low one
// cycle in four); output stalls (ready low one cycle in three); both. The draws happen only
// in the phases that use them, so a phase's schedule does not depend on the others'.
class StreamFlow {
 public:
  struct Cycle {
    bool valid;
    bool ready;
  };
  StreamFlow(uint64_t seed, uint64_t items) : rng_(seed), items_(items) {}

  // The handshake for the next cycle, `sent` items accepted so far.
  Cycle next(uint64_t sent) {
    const int phase = static_cast<int>((sent * 4) / (items_ + 1));
    const bool valid = sent < items_ && (phase == 0 || phase == 2 || rng_() % 4 != 0);
    const bool ready = phase < 2 || rng_() % 3 != 0;
    return {valid, ready};
  }

 private:
  std::mt19937_64 rng_;
  uint64_t items_;
};

// The first few mismatches' descriptions (the count lives in TestbenchResult::mismatches).
class MismatchLog {
 public:
  // Whether a description would be kept: build it only then.
  bool wants() const { return first_.size() < kKept; }
  void add(std::string what) {
    if (wants()) first_.push_back(std::move(what));
  }
  // "; first; second ..." after a summary's count.
  void appendTo(std::ostream& s) const {
    for (const auto& m : first_) s << "; " << m;
  }

 private:
  static constexpr size_t kKept = 4;
  std::vector<std::string> first_;
};

}  // namespace nncosim::testbench
