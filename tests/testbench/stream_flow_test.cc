// The streaming harnesses' handshake schedule: each quarter of the items meets the phase
// it is meant to (free flow, input gaps, output stalls, both), valid drops once all items
// are sent, and a seed reproduces the schedule.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "testbench/stream_flow.h"

namespace nncosim::testbench {
namespace {

struct PhaseCounts {
  uint64_t cycles = 0, validLow = 0, readyLow = 0;
};

// Drives the schedule as a sink that accepts every valid item, counting per phase.
std::vector<PhaseCounts> drive(uint64_t seed, uint64_t items) {
  StreamFlow flow(seed, items);
  std::vector<PhaseCounts> per(4);
  uint64_t sent = 0;
  while (sent < items) {
    const size_t phase = (sent * 4) / (items + 1);
    const auto c = flow.next(sent);
    ++per[phase].cycles;
    per[phase].validLow += !c.valid;
    per[phase].readyLow += !c.ready;
    sent += c.valid;
  }
  return per;
}

TEST(StreamFlow, EachQuarterHasItsPhase) {
  const auto per = drive(1, 40000);
  EXPECT_EQ(per[0].validLow, 0u);
  EXPECT_EQ(per[0].readyLow, 0u);
  EXPECT_GT(per[1].validLow, per[1].cycles / 6);  // one in four, drawn
  EXPECT_LT(per[1].validLow, per[1].cycles / 3);
  EXPECT_EQ(per[1].readyLow, 0u);
  EXPECT_EQ(per[2].validLow, 0u);
  EXPECT_GT(per[2].readyLow, per[2].cycles / 5);  // one in three, drawn
  EXPECT_LT(per[2].readyLow, per[2].cycles / 2);
  EXPECT_GT(per[3].validLow, 0u);
  EXPECT_GT(per[3].readyLow, 0u);
}

TEST(StreamFlow, NoValidOnceAllItemsAreSent) {
  StreamFlow flow(3, 10);
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(flow.next(10).valid);
}

TEST(StreamFlow, ASeedReproducesTheSchedule) {
  StreamFlow a(42, 1000), b(42, 1000), c(43, 1000);
  bool differs = false;
  for (uint64_t sent = 0; sent < 1000; ++sent) {
    const auto x = a.next(sent), y = b.next(sent), z = c.next(sent);
    EXPECT_EQ(x.valid, y.valid);
    EXPECT_EQ(x.ready, y.ready);
    differs |= x.valid != z.valid || x.ready != z.ready;
  }
  EXPECT_TRUE(differs) << "seeds 42 and 43 gave the same schedule";
}

TEST(MismatchLog, KeepsTheFirstFour) {
  MismatchLog log;
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(log.wants(), i < 4);
    log.add("m" + std::to_string(i));
  }
  std::ostringstream s;
  log.appendTo(s);
  EXPECT_EQ(s.str(), "; m0; m1; m2; m3");
}

}  // namespace
}  // namespace nncosim::testbench
