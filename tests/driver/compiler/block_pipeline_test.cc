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

// Overlapped (ISA 1.14): a depthwise half of DWCONVs, a pointwise half of four GEMMs and a
// REQUANT_STORE whose rows a store takes.
// The depthwise half writes its rows into INP: nothing of it goes to the store queue.
std::vector<Command> depthwiseTiles() {
  Command first{{}, firmware::Dwconv{}}, second{{}, firmware::Dwconv{}};
  first.deps.popPrev = true;
  return {load(0x1000), load(0x2000, false, true), first, second, end()};
}
std::vector<Command> pointwiseGemms() {
  Command rq{{}, firmware::RequantStore{}};
  rq.deps.pushNext = true;
  return {load(0x9000, false, true),
          compute(true, false),
          compute(false, false),
          compute(false, false),
          compute(false, false),
          rq,
          store(),
          end()};
}

// Per channel, pushes minus pops over the stream: load->compute, compute->load,
// compute->store, store->compute.
std::vector<long> tokenBalance(const std::vector<Command>& s) {
  std::vector<long> b(4, 0);
  for (const Command& c : s) {
    const QueueOf q = firmware::queueOf(c);
    if (q == QueueOf::kLoad) b[0] += c.deps.pushNext, b[1] -= c.deps.popNext;
    if (q == QueueOf::kCompute) {
      b[0] -= c.deps.popPrev, b[1] += c.deps.pushPrev;
      b[2] += c.deps.pushNext, b[3] -= c.deps.popNext;
    }
    if (q == QueueOf::kStore) b[2] -= c.deps.popPrev, b[3] += c.deps.pushPrev;
  }
  return b;
}

TEST(BlockPipeline, OverlappedPutsTheNextDepthwiseComputesAmongTheGemms) {
  auto joined = pipelineBlocks({depthwiseTiles(), depthwiseTiles(), depthwiseTiles()},
                               {pointwiseGemms(), pointwiseGemms(), pointwiseGemms()}, 0, 0.0);
  ASSERT_TRUE(joined.ok()) << joined.error();
  const std::vector<Command>& s = *joined;
  EXPECT_EQ(ends(s), 1u);
  EXPECT_EQ(tokenBalance(s), std::vector<long>(4, 0));
  // Block 1's DWCONVs sit between block 0's first and last GEMM (blocks run in order, so
  // the third and fourth DWCONVs of the stream are block 1's).
  std::vector<size_t> gemms, dwconvs;
  for (size_t i = 0; i < s.size(); ++i) {
    if (std::holds_alternative<firmware::Gemm>(s[i].args)) gemms.push_back(i);
    if (std::holds_alternative<firmware::Dwconv>(s[i].args)) dwconvs.push_back(i);
  }
  ASSERT_EQ(gemms.size(), 12u);
  ASSERT_EQ(dwconvs.size(), 6u);
  EXPECT_GT(dwconvs[2], gemms[0]);
  EXPECT_LT(dwconvs[2], gemms[3]);
  // The store->compute token of each boundary: popped by the next pointwise half's
  // REQUANT_STORE, by no DWCONV.
  size_t rqPops = 0;
  for (const Command& c : s) {
    EXPECT_FALSE(std::holds_alternative<firmware::Dwconv>(c.args) && c.deps.popNext);
    rqPops += std::holds_alternative<firmware::RequantStore>(c.args) && c.deps.popNext;
  }
  EXPECT_EQ(rqPops, 2u);
  // The resident weights' tokens only in the first block: one load->compute pop by a GEMM.
  size_t gemmPops = 0;
  for (size_t i : gemms) gemmPops += s[i].deps.popPrev;
  EXPECT_EQ(gemmPops, 1u);
  // Without a REQUANT_STORE in the later pointwise half the boundary's token has no place.
  std::vector<Command> noRequant = pointwiseGemms();
  noRequant.erase(noRequant.begin() + 5);
  noRequant[5].deps.popPrev = false;  // the store then waits for nothing
  auto refused =
      pipelineBlocks({depthwiseTiles(), depthwiseTiles()}, {pointwiseGemms(), noRequant}, 0, 0.0);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("first REQUANT_STORE"), std::string::npos) << refused.error();
  // A depthwise half with a store-queue token would pair with the pointwise half's among
  // which it goes.
  auto stores = pipelineBlocks({depthwiseHalf(), depthwiseHalf()},
                               {pointwiseGemms(), pointwiseGemms()}, 0, 0.0);
  ASSERT_FALSE(stores.ok());
  EXPECT_NE(stores.error().find("store queue"), std::string::npos) << stores.error();
}

// A pointwise half over a tensor in INP: its weights, then per row tile a SYNC in place of
// the tile's A loads, with a token the tile's first GEMM pops. In a job's first block those
// tokens guard no load: dropped (the weights' token stays), so the next block's DWCONVs go
// among all of its GEMMs instead of after the last token-waiting one.
std::vector<Command> pointwiseOverInp() {
  Command rq{{}, firmware::RequantStore{}};
  rq.deps.pushNext = true;
  std::vector<Command> s = {load(0x9000, false, true)};
  for (int t = 0; t < 4; ++t) {
    Command sync{{}, firmware::Sync{firmware::Queue::kLoad}};
    sync.deps.pushNext = true;
    s.push_back(sync);
  }
  s.push_back(compute(true, false));  // pops the weights' token (the first pushed)
  for (int t = 0; t < 4; ++t) {       // each tile's first GEMM pops its SYNC's
    s.push_back(compute(true, false));
    s.push_back(compute(false, false));
  }
  s.push_back(rq);
  s.push_back(store());
  s.push_back(end());
  return s;
}

TEST(BlockPipeline, OverlappedFirstBlockDropsTheTokensOfSyncs) {
  auto joined = pipelineBlocks({depthwiseTiles(), depthwiseTiles()},
                               {pointwiseOverInp(), pointwiseOverInp()}, 0, 0.0);
  ASSERT_TRUE(joined.ok()) << joined.error();
  const std::vector<Command>& s = *joined;
  EXPECT_EQ(tokenBalance(s), std::vector<long>(4, 0));
  size_t syncPushes = 0, gemmPops = 0;
  std::vector<size_t> gemms, dwconvs;
  for (size_t i = 0; i < s.size(); ++i) {
    syncPushes += std::holds_alternative<firmware::Sync>(s[i].args) && s[i].deps.pushNext;
    if (std::holds_alternative<firmware::Gemm>(s[i].args)) {
      gemms.push_back(i);
      gemmPops += s[i].deps.popPrev;
    }
    if (std::holds_alternative<firmware::Dwconv>(s[i].args)) dwconvs.push_back(i);
  }
  EXPECT_EQ(syncPushes, 0u);
  EXPECT_EQ(gemmPops, 1u);  // the weights'
  ASSERT_EQ(gemms.size(), 18u);
  ASSERT_EQ(dwconvs.size(), 4u);
  // Block 1's DWCONVs among block 0's GEMMs from its first on (spread evenly), not after
  // its last tile's first GEMM (gemms[7]), where the SYNCs' last pop would have put them.
  EXPECT_GT(dwconvs[2], gemms[0]);
  EXPECT_LT(dwconvs[2], gemms[7]);
  // A SYNC after a real load keeps its token: it guards that load.
  std::vector<Command> guarded = pointwiseOverInp();
  guarded.insert(guarded.begin() + 3, load(0xA000));
  auto kept = pipelineBlocks({depthwiseTiles(), depthwiseTiles()}, {guarded, guarded}, 0, 0.0);
  ASSERT_TRUE(kept.ok()) << kept.error();
  syncPushes = 0;
  for (const Command& c : *kept)
    syncPushes += std::holds_alternative<firmware::Sync>(c.args) && c.deps.pushNext;
  EXPECT_EQ(syncPushes, 1u);
  EXPECT_EQ(tokenBalance(*kept), std::vector<long>(4, 0));
}

}  // namespace
}  // namespace nncosim::driver
