#include "driver/compiler/chain_join.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nncosim::driver {
namespace {

using firmware::Command;
using firmware::QueueOf;

Command load(uint32_t dram, bool popNext = false) {
  firmware::DmaLoad d;
  d.dramAddr = dram;
  d.count0 = 64;
  Command c{{}, d};
  c.deps.popNext = popNext;
  c.deps.pushNext = true;
  return c;
}
Command fill(uint32_t at) {
  firmware::DmaLoad d;
  d.fill = true;
  d.bufAddr = at;
  d.count0 = 16;
  return Command{{}, d};
}
Command compute(bool pushPrev) {
  Command c{{}, firmware::Gemm{}};
  c.deps.popPrev = true;
  c.deps.pushPrev = pushPrev;
  return c;
}
Command end() { return Command{{}, firmware::End{}}; }

// A depthwise half: its weights and a compute; a pointwise half: two slots of weights, a
// compute releasing the first, a reload into it waiting for that, a last compute.
std::vector<Command> depthwiseHalf() { return {load(0x1000), compute(false), end()}; }
std::vector<Command> pointwiseHalf() {
  return {load(0x2000),   load(0x3000),   compute(true), load(0x4000, true),
          compute(false), compute(false), end()};
}

// The compute->load channel in the order the queues see it: 'P' a compute pushing, 'W' a
// load waiting, tagged with what each is.
std::string channel(const std::vector<Command>& s) {
  std::string pushes, pops;
  for (const Command& c : s) {
    const QueueOf q = firmware::queueOf(c);
    const bool sync = std::holds_alternative<firmware::Sync>(c.args);
    if (q == QueueOf::kCompute && c.deps.pushPrev) pushes += sync ? 's' : 'c';
    if (q == QueueOf::kLoad && c.deps.popNext) {
      const auto* d = std::get_if<firmware::DmaLoad>(&c.args);
      pops += sync ? 's' : d && d->fill ? 'f' : 'l';
    }
  }
  return pushes + "|" + pops;
}

TEST(ChainJoin, TwoTokensPerLinkInTheOrderTheyPair) {
  const std::vector<std::vector<Command>> halves = {depthwiseHalf(), pointwiseHalf(),
                                                    depthwiseHalf(), pointwiseHalf(),
                                                    depthwiseHalf(), pointwiseHalf()};
  auto joined = joinChain(halves, {{fill(0x100), fill(0x200)}, {}});
  ASSERT_TRUE(joined.ok()) << joined.error();
  const std::vector<Command>& s = *joined;
  size_t ends = 0;
  for (const Command& c : s) ends += std::holds_alternative<firmware::End>(c.args);
  EXPECT_EQ(ends, 1u);
  EXPECT_TRUE(std::holds_alternative<firmware::End>(s.back().args));
  // Per link: dw's last compute pushes (it pushed nothing: itself), the fills pop it ahead
  // of pw's reload; pw's last compute pushes, the next depthwise half's first load pops.
  // The second link has no fills: a SYNC pops there. Pushes and pops pair in order.
  EXPECT_EQ(channel(s), "ccccccc|fllslll");
  // The fills sit after pw's first two loads, before its reload, the first waiting.
  auto position = [&](auto pred) {
    for (size_t i = 0; i < s.size(); ++i)
      if (const auto* d = std::get_if<firmware::DmaLoad>(&s[i].args); d && pred(*d)) return i;
    return s.size();
  };
  const size_t fills = position([](const firmware::DmaLoad& d) { return d.fill; });
  EXPECT_LT(position([](const firmware::DmaLoad& d) { return d.dramAddr == 0x3000; }), fills);
  EXPECT_LT(fills + 1, position([](const firmware::DmaLoad& d) { return d.dramAddr == 0x4000; }));
  ASSERT_LT(fills + 1, s.size());
  EXPECT_TRUE(s[fills].deps.popNext);
  EXPECT_FALSE(s[fills + 1].deps.popNext);
}

TEST(ChainJoin, ASyncCarriesTheTokenOfAComputeThatPushesAlready) {
  std::vector<Command> dw = {load(0x1000), compute(true), end()};
  auto joined = joinChain({dw, pointwiseHalf(), depthwiseHalf(), pointwiseHalf()}, {{}});
  ASSERT_TRUE(joined.ok()) << joined.error();
  size_t syncs = 0;
  for (const Command& c : *joined)
    syncs += firmware::queueOf(c) == QueueOf::kCompute &&
             std::holds_alternative<firmware::Sync>(c.args) && c.deps.pushPrev;
  EXPECT_EQ(syncs, 1u);
}

TEST(ChainJoin, RefusesWhatIsNoChain) {
  auto one = joinChain({depthwiseHalf(), pointwiseHalf()}, {});
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.error().find("do not make a chain"), std::string::npos) << one.error();
  std::vector<Command> twoJobs = pointwiseHalf();
  twoJobs.insert(twoJobs.begin() + 2, end());
  auto split = joinChain({depthwiseHalf(), twoJobs, depthwiseHalf(), pointwiseHalf()}, {{}});
  ASSERT_FALSE(split.ok());
  EXPECT_NE(split.error().find("half 1 is more than one job"), std::string::npos) << split.error();
  Command waiting = fill(0x100);
  waiting.deps.popNext = true;
  auto bad =
      joinChain({depthwiseHalf(), pointwiseHalf(), depthwiseHalf(), pointwiseHalf()}, {{waiting}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("no plain load"), std::string::npos) << bad.error();
}

}  // namespace
}  // namespace nncosim::driver
