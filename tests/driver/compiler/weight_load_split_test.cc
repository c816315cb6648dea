// Resident weights in pieces (weight_load_split.h): the stream's structure, and on the ISA
// interpreter the same sums, no race, and an earlier first GEMM.
#include "driver/compiler/weight_load_split.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "driver/isa_model/isa_interpreter.h"
#include "tests/driver/array16.h"

namespace nncosim::driver {
namespace {

using firmware::Buffer;
using firmware::Command;
using firmware::QueueOf;

constexpr uint64_t kBase = 0x8000'0000ull;
constexpr uint32_t kK = 64, kC = 16, kTileBytes = kK * kC;  // one channel tile's weights
constexpr uint64_t kWeights = kBase + 0x10000;

Command end() { return Command{{}, firmware::End{true, 1}}; }

// A pointwise step's first job: its A tile and `tiles` channel tiles of weights (rows of
// 512 B, as contiguousLoad cuts them), then a GEMM per tile reading `span[t]` tiles from
// tile t's weights; the first GEMM waits for the step's one token.
std::vector<Command> firstJob(uint32_t tiles, std::vector<uint32_t> span = {}) {
  span.resize(tiles, 1);
  firmware::DmaLoad a;
  a.bufId = Buffer::kInp;
  a.dramAddr = kBase;
  a.count0 = kK * kC;
  a.dramStride1 = a.bufStride1 = a.count0;
  firmware::DmaLoad w;
  w.bufId = Buffer::kWgt;
  w.dramAddr = static_cast<uint32_t>(kWeights);
  w.count0 = 512;
  w.count1 = tiles * kTileBytes / 512;
  w.dramStride1 = w.bufStride1 = 512;
  std::vector<Command> s = {Command{{}, a}, Command{{}, w}};
  s.back().deps.pushNext = true;
  for (uint32_t t = 0; t < tiles; ++t) {
    firmware::Gemm g;
    g.m = g.n = kC;
    g.k = kK * span[t];
    g.wgtAddr = t * kTileBytes;
    g.accAddr = t * kC * kC * 4;
    g.aSigned = g.bSigned = true;
    Command c{{}, g};
    c.deps.popPrev = t == 0;
    s.push_back(c);
  }
  s.push_back(end());
  return s;
}

size_t count(const std::vector<Command>& s, QueueOf q, bool firmware::Deps::*flag) {
  size_t n = 0;
  for (const Command& c : s) n += firmware::inQueue(c, q) && c.deps.*flag;
  return n;
}

// Runs `s` on a fresh interpreter over the same DRAM bytes; its ACC and result.
struct Ran {
  InterpreterResult result;
  std::vector<uint8_t> acc;
};
Ran run(const std::vector<Command>& s) {
  DramModel dram(kBase, 1 << 20);
  for (uint32_t i = 0; i < 0x20000; ++i) dram.at(kBase + i)[0] = static_cast<uint8_t>(i * 37 + 11);
  IsaInterpreter npu(test::array16(), dram);
  Ran r;
  r.result = npu.run(s);
  r.acc = npu.buffer(Buffer::kAcc);
  return r;
}

TEST(WeightLoadSplit, PiecesOfOneThreeAndTwelveTilesEachWithItsToken) {
  std::vector<Command> s = firstJob(16);
  const std::vector<Command> before = s;
  // 16 tiles of 2 rows: pieces [0, 1), [1, 4), [4, 16) are three loads for one.
  EXPECT_EQ(splitFirstWeightLoad(s, kC), 2u);
  EXPECT_EQ(count(s, QueueOf::kLoad, &firmware::Deps::pushNext), 3u);
  EXPECT_EQ(count(s, QueueOf::kCompute, &firmware::Deps::popPrev), 3u);
  // The first reader of each piece pops its token: tiles 0, 1 and 4.
  std::vector<uint32_t> poppers;
  for (const Command& c : s)
    if (const auto* g = std::get_if<firmware::Gemm>(&c.args); g && c.deps.popPrev)
      poppers.push_back(g->wgtAddr / kTileBytes);
  EXPECT_EQ(poppers, (std::vector<uint32_t>{0, 1, 4}));
  // The first piece is the first tile, loaded behind the A tile.
  const auto& w0 = std::get<firmware::DmaLoad>(s[1].args);
  EXPECT_EQ(w0.bufId, Buffer::kWgt);
  EXPECT_EQ(uint64_t{w0.count0} * w0.count1, kTileBytes);

  const Ran whole = run(before), split = run(s);
  ASSERT_TRUE(whole.result.clean()) << whole.result.describe();
  ASSERT_TRUE(split.result.clean()) << split.result.describe();
  EXPECT_EQ(split.acc, whole.acc);
  // The first GEMM no longer waits for 16 KiB: the job ends sooner.
  EXPECT_LT(split.result.counters.cycles, whole.result.counters.cycles);
}

TEST(WeightLoadSplit, AReaderOfSeveralPiecesWaitsForAllOfThem) {
  // Tile 1's GEMM reads tiles 1..4 (pieces 1 and 2): one token for both.
  std::vector<Command> s = firstJob(8, {1, 4});
  const std::vector<Command> before = s;
  EXPECT_GT(splitFirstWeightLoad(s, kC), 0u);
  EXPECT_EQ(count(s, QueueOf::kLoad, &firmware::Deps::pushNext), 2u);
  EXPECT_EQ(count(s, QueueOf::kCompute, &firmware::Deps::popPrev), 2u);
  const Ran whole = run(before), split = run(s);
  ASSERT_TRUE(split.result.clean()) << split.result.describe();
  EXPECT_EQ(split.acc, whole.acc);
}

TEST(WeightLoadSplit, APieceWithoutItsPopRacesOnTheInterpreter) {
  // The check above has teeth: drop tile 4's pop (and the push it pairs with) and the
  // interpreter sees a GEMM reading WGT bytes a load may still be writing.
  std::vector<Command> s = firstJob(16);
  ASSERT_EQ(splitFirstWeightLoad(s, kC), 2u);
  for (Command& c : s)
    if (const auto* g = std::get_if<firmware::Gemm>(&c.args); g && g->wgtAddr == 4 * kTileBytes)
      c.deps.popPrev = false;
  for (size_t i = s.size(); i-- > 0;)
    if (firmware::inQueue(s[i], QueueOf::kLoad) && s[i].deps.pushNext) {
      s[i].deps.pushNext = false;
      break;
    }
  const Ran r = run(s);
  EXPECT_FALSE(r.result.races.empty()) << r.result.describe();
}

TEST(WeightLoadSplit, LeavesStreamsItCannotSplitAsTheyAre) {
  // One tile: nothing to split.
  std::vector<Command> one = firstJob(1);
  const std::vector<Command> oneBefore = one;
  EXPECT_EQ(splitFirstWeightLoad(one, kC), 0u);
  EXPECT_EQ(one, oneBefore);
  // Weights read out of order (tile 4 first, then tile 1): the boundaries would not
  // increase.
  std::vector<Command> shuffled = firstJob(8);
  std::swap(std::get<firmware::Gemm>(shuffled[3].args).wgtAddr,
            std::get<firmware::Gemm>(shuffled[6].args).wgtAddr);
  const std::vector<Command> shuffledBefore = shuffled;
  EXPECT_EQ(splitFirstWeightLoad(shuffled, kC), 0u);
  EXPECT_EQ(shuffled, shuffledBefore);
  // A first group that waits on computes (a later group's reload): not a job's first.
  std::vector<Command> waits = firstJob(8);
  waits[0].deps.popNext = true;
  EXPECT_EQ(splitFirstWeightLoad(waits, kC), 0u);
}

}  // namespace
}  // namespace nncosim::driver
