#include "driver/compiler/block_pipeline.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nncosim::driver {
namespace {

using firmware::Command;
using firmware::QueueOf;

Command load(uint32_t dram, bool popNext = false, bool pushNext = false) {
  firmware::DmaLoad d;
  d.dramAddr = dram;
  d.count0 = 64;
  Command c{{}, d};
  c.deps.popNext = popNext;
  c.deps.pushNext = pushNext;
  return c;
}
Command compute(bool popPrev, bool pushNext) {
  Command c{{}, firmware::Gemm{}};
  c.deps.popPrev = popPrev;
  c.deps.pushNext = pushNext;
  return c;
}
Command store() {
  Command c{{}, firmware::DmaStore{}};
  c.deps.popPrev = true;
  return c;
}
Command end() { return Command{{}, firmware::End{}}; }

// A depthwise half: two loads (its slot), a compute, a store-queue SYNC; a pointwise half:
// its weights, a compute and a store.
std::vector<Command> depthwiseHalf() {
  Command sync{{}, firmware::Sync{firmware::Queue::kStore}};
  sync.deps.popPrev = true;
  return {load(0x1000), load(0x2000, false, true), compute(true, true), sync, end()};
}
std::vector<Command> pointwiseHalf(uint32_t weights = 0x9000) {
  return {load(weights, false, true), compute(true, true), store(), end()};
}

// The ENDs of a stream, and its loads of the pointwise halves' weights.
size_t ends(const std::vector<Command>& s) {
  size_t n = 0;
  for (const Command& c : s) n += std::holds_alternative<firmware::End>(c.args);
  return n;
}
size_t weightLoads(const std::vector<Command>& s) {
  size_t n = 0;
  for (const Command& c : s) n += c.args == load(0x9000).args;
  return n;
}

// Three blocks of the halves above, joined into jobs of at most maxJobCommands.
hal::Result<std::vector<Command>> threeBlocks(uint32_t maxJobCommands) {
  return pipelineBlocks({depthwiseHalf(), depthwiseHalf(), depthwiseHalf()},
                        {pointwiseHalf(), pointwiseHalf(), pointwiseHalf()}, maxJobCommands);
}

TEST(BlockPipeline, JoinsBlocksWithATokenPairPerBoundary) {
  auto joined = threeBlocks(0);
  ASSERT_TRUE(joined.ok()) << joined.error();
  const std::vector<Command>& s = *joined;
  // One job: one END, last.
  EXPECT_EQ(ends(s), 1u);
  EXPECT_TRUE(std::holds_alternative<firmware::End>(s.back().args));
  // The weights load once; the later blocks' loads are SYNCs carrying the same token.
  EXPECT_EQ(weightLoads(s), 1u);
  // Per boundary: a compute->load pair and a store->compute pair, so every channel balances.
  size_t loadPops = 0, computePushesPrev = 0, computePopsNext = 0, storePushes = 0;
  for (const Command& c : s) {
    const QueueOf q = firmware::queueOf(c);
    loadPops += q == QueueOf::kLoad && c.deps.popNext;
    computePushesPrev += q == QueueOf::kCompute && c.deps.pushPrev;
    computePopsNext += q == QueueOf::kCompute && c.deps.popNext;
    storePushes += q == QueueOf::kStore && c.deps.pushPrev;
  }
  EXPECT_EQ(loadPops, 2u);
  EXPECT_EQ(computePushesPrev, 2u);
  EXPECT_EQ(computePopsNext, 2u);
  EXPECT_EQ(storePushes, 2u);
  // Block 1's input loads come before block 0's pointwise compute in the stream, so the
  // dispatcher feeds them while that compute runs.
  size_t firstPopLoad = s.size(), secondPwCompute = s.size(), computes = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (firmware::queueOf(s[i]) == QueueOf::kLoad && s[i].deps.popNext && firstPopLoad == s.size())
      firstPopLoad = i;
    if (firmware::queueOf(s[i]) == QueueOf::kCompute && ++computes == 2) secondPwCompute = i;
  }
  EXPECT_LT(firstPopLoad, secondPwCompute);
}

TEST(BlockPipeline, SplitsJobsAtBlocks) {
  auto joined = threeBlocks(16);
  ASSERT_TRUE(joined.ok()) << joined.error();
  const std::vector<Command>& s = *joined;
  // Blocks of 8 commands: two to a job; each job loads the weights itself.
  EXPECT_EQ(ends(s), 2u);
  EXPECT_EQ(weightLoads(s), 2u);
  EXPECT_TRUE(std::holds_alternative<firmware::End>(s.back().args));
}

TEST(BlockPipeline, RefusesWhatCannotJoin) {
  // A pointwise half that reloads a weight slot (its load waits for computes).
  std::vector<Command> reloads = pointwiseHalf();
  reloads.insert(reloads.begin() + 2, load(0xA000, true, true));
  auto a = pipelineBlocks({depthwiseHalf(), depthwiseHalf()}, {pointwiseHalf(), reloads}, 0);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().find("block 1: the pointwise half reloads a slot"), std::string::npos)
      << a.error();
  // Other weights in a later block.
  auto b = pipelineBlocks({depthwiseHalf(), depthwiseHalf()},
                          {pointwiseHalf(), pointwiseHalf(0xB000)}, 0);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().find("block 1: the pointwise half loads other weights"), std::string::npos)
      << b.error();
  // A depthwise half whose last compute already pushes to the load queue.
  std::vector<Command> pushes = depthwiseHalf();
  pushes[2].deps.pushPrev = true;
  auto c = pipelineBlocks({pushes, depthwiseHalf()}, {pointwiseHalf(), pointwiseHalf()}, 0);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().find("carries a token already"), std::string::npos) << c.error();
  // A half that is not a job.
  std::vector<Command> open = depthwiseHalf();
  open.pop_back();
  EXPECT_FALSE(pipelineBlocks({open}, {pointwiseHalf()}, 0).ok());
}

}  // namespace
}  // namespace nncosim::driver
