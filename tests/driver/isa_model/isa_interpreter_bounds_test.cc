// Issue 16 item 2: the ISA interpreter checks a command's footprints before it copies or
// times anything, in time and memory bounded by the command's fields. Each adversarial
// stream below once ran for tens of seconds to hours (or asked for gigabytes) before its
// error; each must now end with its documented error in well under a second.
#include <sys/resource.h>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <memory>
#include <cstring>
#include <optional>
#include <random>
#include <sstream>

#include "driver/isa_model/densify_descriptor.h"
#include "driver/isa_model/isa_interpreter.h"
#include "driver/isa_model/modular_progression.h"
#include "tests/driver/array16.h"

namespace nncosim::driver {
namespace {

using firmware::Buffer;
using firmware::Command;
using firmware::ErrCode;

// The driver's DRAM (InterpreterDevice): 256 MiB at 0x8000'0000.
constexpr uint64_t kBase = 0x8000'0000ull;
constexpr uint64_t kDramBytes = 256ull << 20;

Command cmd(firmware::CommandArgs a) { return Command{{}, std::move(a)}; }
Command end() { return cmd(firmware::End{true, 7}); }

// One command from its eight words, through the generated decoder, as the NPU reads it.
Command decoded(const firmware::CommandWords& w) {
  hal::Result<Command> c = firmware::decode(w);
  EXPECT_TRUE(c.ok()) << c.error();
  return c.ok() ? *c : end();
}

long maxRssKiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;  // KiB on Linux
}

struct Outcome {
  InterpreterResult result;
  double seconds = 0;
  long rssGrowthKiB = 0;
};

// Runs the stream on a fresh interpreter (its buffers allocated before the measurement).
Outcome runTimed(const std::vector<Command>& stream, DramModel& dram) {
  IsaInterpreter npu(test::array16(), dram);  // the footprints below are for 16x16
  Outcome o;
  const long rss0 = maxRssKiB();
  const auto t0 = std::chrono::steady_clock::now();
  o.result = npu.run(stream);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.rssGrowthKiB = maxRssKiB() - rss0;
  return o;
}

// The bound the tests assert: far above what a check costs (microseconds), far below what
// walking a transfer of ~2^28 rows costs (seconds to hours).
constexpr double kMaxSeconds = 1.0;
constexpr long kMaxRssGrowthKiB = 64 << 10;
constexpr uint64_t kMaxCycles = 1000;

void expectBounded(const Outcome& o, ErrCode code, uint32_t info, const char* what) {
  EXPECT_FALSE(o.result.completed) << what;
  EXPECT_EQ(o.result.error, code) << what << ": " << o.result.describe();
  EXPECT_EQ(o.result.errInfo, info) << what << ": " << o.result.describe();
  EXPECT_EQ(o.result.errCommand, 0u) << what;
  EXPECT_LT(o.seconds, kMaxSeconds) << what;
  EXPECT_LT(o.rssGrowthKiB, kMaxRssGrowthKiB) << what;
  // The fault comes when the command issues (fetch and dispatch: tens of cycles), not after
  // the timing model ran the transfer: independent of how fast the machine is.
  EXPECT_LT(o.result.counters.cycles, kMaxCycles) << what;
  std::printf("%s: %s in %.3f ms, max RSS +%ld KiB\n", what, o.result.describe().c_str(),
              1e3 * o.seconds, o.rssGrowthKiB);
}

// Reproducer 1: DMA_LOAD of 2765 x 65535 rows of 65535 bytes into WGT [0, 65535) (in the
// buffer), with dram_stride1 = -1 from 0xa8dce886: every row is outside the DRAM, a bus
// error (DECERR). It used to time 3 G bursts first and list them (4.5 GB, then 4 GiB more).
TEST(IsaInterpreterBounds, HugeDmaLoadOutsideDramIsABusErrorAtOnce) {
  DramModel dram(kBase, kDramBytes);
  const Command c = decoded({0x00001801, 0xa8dce886, 0xffffffff, 0x00000000, 0xacd00000, 0x00000000,
                             0x00000000, 0xffffffff});
  ASSERT_TRUE(std::holds_alternative<firmware::DmaLoad>(c.args));
  const Outcome o = runTimed({c, end()}, dram);
  expectBounded(o, ErrCode::kBusError, 3, "DMA_LOAD reproducer");
  EXPECT_NE(o.result.message.find("0xa8dce886"), std::string::npos) << o.result.message;
}

// Reproducer 2: DMA_STORE of 65535 rows of 65535 bytes from INP with buf_stride1 = 2^20 - 1:
// the footprint is far beyond INP, dma_oob with ERR_INFO = the buffer (INP = 0). It used to
// time every burst (~28 s) before the check.
TEST(IsaInterpreterBounds, HugeDmaStoreBeyondItsBufferIsDmaOobAtOnce) {
  DramModel dram(kBase, kDramBytes);
  const Command c = decoded({0x00000002, 0xffffffff, 0x9f7a46b8, 0xc7b2595e, 0x00100000, 0x000fffff,
                             0x000fffff, 0xffffffff});
  ASSERT_TRUE(std::holds_alternative<firmware::DmaStore>(c.args));
  const Outcome o = runTimed({c, end()}, dram);
  expectBounded(o, ErrCode::kDmaOob, static_cast<uint32_t>(Buffer::kInp), "DMA_STORE reproducer");
}

// The largest transfers whose buffer footprint fits (stride 0 rows rewrite the same bytes),
// with DRAM rows that leave the DRAM only at the very last row: the check finds that row
// without walking the 268 M rows before it.
TEST(IsaInterpreterBounds, MaximalDmaLeavingDramAtItsLastRowIsABusErrorAtOnce) {
  DramModel dram(kBase, kDramBytes);
  for (const bool load : {true, false}) {
    firmware::DmaLoad ld;
    ld.bufId = Buffer::kInp;
    ld.count0 = 16;
    ld.count1 = 65535;
    ld.count2 = 4095;
    // Rows step back 1 byte per row and count1 bytes per plane: row (z, y) starts at
    // dram_addr - z*65535 - y, lower with every row. The last row is placed one byte below
    // the DRAM, every other row inside.
    ld.dramStride1 = 0u - 1;
    ld.dramStride2 = 0u - 65535;
    const uint64_t lastBelowFirst = uint64_t{ld.count2 - 1} * 65535 + (ld.count1 - 1);
    ld.dramAddr = static_cast<uint32_t>(kBase - 1 + lastBelowFirst);
    ASSERT_LE(ld.dramAddr + uint64_t{ld.count0}, kBase + kDramBytes);
    Command c = cmd(ld);
    if (!load) {
      firmware::DmaStore st;
      st.bufId = ld.bufId;
      st.count0 = ld.count0;
      st.count1 = ld.count1;
      st.count2 = ld.count2;
      st.dramStride1 = ld.dramStride1;
      st.dramStride2 = ld.dramStride2;
      st.dramAddr = ld.dramAddr;
      c = cmd(st);
    }
    const Outcome o = runTimed({c, end()}, dram);
    expectBounded(o, ErrCode::kBusError, 3, load ? "maximal DMA_LOAD" : "maximal DMA_STORE");
    EXPECT_NE(o.result.message.find("at 0x7fffffff,"), std::string::npos) << o.result.message;
  }
}

// GEMM with the largest k: m=n=16, k=65535 in int16 mode needs 2 MiB of INP (256 KiB).
TEST(IsaInterpreterBounds, GemmWithHugeKIsDmaOobAtOnce) {
  DramModel dram(kBase, kDramBytes);
  firmware::Gemm g;
  g.mode = firmware::GemmMode::kInt16;
  g.m = 16;
  g.n = 16;
  g.k = 65535;
  g.acc64 = true;
  expectBounded(runTimed({cmd(g), end()}, dram), ErrCode::kDmaOob,
                static_cast<uint32_t>(Buffer::kInp), "GEMM k=65535 int16");
  // INP fits (int8, 16 * 16383 bytes), WGT does not (int16 weights, wgt_addr at its end).
  g.mode = firmware::GemmMode::kInt8;
  g.k = 16383;
  g.wgtAddr = 0xfffff;
  expectBounded(runTimed({cmd(g), end()}, dram), ErrCode::kDmaOob,
                static_cast<uint32_t>(Buffer::kWgt), "GEMM wgt_addr at the top");
}

// REQUANT_STORE with the most rows: 4095 rows of 16 int64 are 512 KiB of ACC (64 KiB).
TEST(IsaInterpreterBounds, RequantStoreWithHugeRowsIsDmaOobAtOnce) {
  DramModel dram(kBase, kDramBytes);
  firmware::RequantStore r;
  r.rows = 4095;
  r.acc64 = true;
  expectBounded(runTimed({cmd(r), end()}, dram), ErrCode::kDmaOob,
                static_cast<uint32_t>(Buffer::kAcc), "REQUANT_STORE rows=4095");
  // ACC fits (one row at the end), the 32-bit output row does not fit at OUT's top.
  r.rows = 1;
  r.acc64 = false;
  r.accAddr = 0;
  r.outWidth = firmware::ElemWidth::kW32;
  r.outAddr = 0xfffff;
  expectBounded(runTimed({cmd(r), end()}, dram), ErrCode::kDmaOob,
                static_cast<uint32_t>(Buffer::kOut), "REQUANT_STORE out_addr at the top");
}

// DENSIFY with descriptor words that claim arrays of 2^32 - 1 elements and outputs of
// 4 GiB: each ends with its error without sizing anything by those words (a segments
// count of 2^32 - 1 used to resize a vector to 16 GiB before the first read failed).
TEST(IsaInterpreterBounds, DensifyWithHugeDescriptorSizesEndsAtOnce) {
  struct Case {
    const char* what;
    std::vector<uint32_t> level;  // one level's 8 words
    uint32_t outSize;
    ErrCode code;
  };
  const uint32_t arrays = static_cast<uint32_t>(kBase + 4096);
  const std::vector<Case> cases = {
      // traversal, format (1 = SPARSE_CSR), dimension, block map, segments addr/count,
      // indices addr/count
      {"segments count 2^32-1",
       {0, 1, 4, 0, arrays, 0xffffffffu, arrays, 1},
       16,
       ErrCode::kBusError},
      {"indices count 2^32-1",
       {0, 1, 4, 0, arrays, 2, arrays, 0xffffffffu},
       16,
       ErrCode::kBusError},
      {"dense dimension 2^31-1, out_size 2^32-1",
       {0, 0, 0x7fffffffu, 0, 0, 0, 0, 0},
       0xffffffffu,
       ErrCode::kDensifyMeta},
  };
  for (const Case& k : cases) {
    DramModel dram(kBase, kDramBytes);
    // Header: levels 1, block levels 0, values 1, fill 0; then the level; the arrays hold
    // small valid values ({0, 1} segments, index 0).
    std::vector<uint32_t> desc(kDensifyHeaderWords + kDensifyLevelWords, 0);
    desc[0] = 1;
    desc[2] = 1;
    std::copy(k.level.begin(), k.level.end(), desc.begin() + kDensifyHeaderWords);
    ASSERT_TRUE(dram.write(kBase, desc.data(), 4 * desc.size()).ok());
    const uint32_t seg[2] = {0, 1};
    ASSERT_TRUE(dram.write(arrays, seg, sizeof seg).ok());
    firmware::Densify d;
    d.elemWidth = firmware::ElemWidth::kW32;
    d.descAddr = static_cast<uint32_t>(kBase);
    d.valuesAddr = static_cast<uint32_t>(kBase + 8192);
    d.outAddr = static_cast<uint32_t>(kBase + 16384);
    d.outSize = k.outSize;
    const Outcome o = runTimed({cmd(d), end()}, dram);
    EXPECT_FALSE(o.result.completed) << k.what;
    EXPECT_EQ(o.result.error, k.code) << k.what << ": " << o.result.describe();
    EXPECT_LT(o.seconds, kMaxSeconds) << k.what;
    EXPECT_LT(o.rssGrowthKiB, kMaxRssGrowthKiB) << k.what;
    std::printf("DENSIFY %s: %s in %.3f ms, max RSS +%ld KiB\n", k.what,
                o.result.describe().c_str(), 1e3 * o.seconds, o.rssGrowthKiB);
  }
}

// The row check is exact: on random transfers small enough to walk, it faults exactly when
// some row leaves the DRAM, naming the first such row, as the row-by-row walk did.
TEST(IsaInterpreterBounds, DramRowCheckAgreesWithARowWalk) {
  std::mt19937 rng(16);
  constexpr uint64_t kSmallBytes = 0x10000;
  // DRAM at the bottom, inside, and at the top of the 32-bit space (ending at 2^32).
  std::array<DramModel, 3> drams = {DramModel(0, kSmallBytes), DramModel(0x1000, kSmallBytes),
                                    DramModel(0xffff0000u, kSmallBytes)};
  std::vector<std::unique_ptr<IsaInterpreter>> npus;
  for (DramModel& d : drams) npus.push_back(std::make_unique<IsaInterpreter>(NpuConfig{}, d));
  auto r32 = [&] { return static_cast<uint32_t>(rng()); };
  auto pick = [&](std::initializer_list<uint32_t> v) { return *(v.begin() + r32() % v.size()); };
  int faults = 0, clean = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t which = r32() % drams.size();
    const DramModel& dram = drams[which];
    firmware::DmaLoad ld;
    ld.count0 = 1 + r32() % 64;
    ld.count1 = 1 + r32() % 40;
    ld.count2 = 1 + r32() % 6;
    ld.dramAddr = pick({static_cast<uint32_t>(dram.base() + r32() % kSmallBytes), r32()});
    ld.dramStride1 = pick({r32() % 512, 0u - r32() % 512, r32(), 0u});
    ld.dramStride2 = pick({r32() % 8192, 0u - r32() % 8192, r32(), 0u});
    // The buffer footprint always fits: stride 0 rows.
    std::optional<uint64_t> first;
    for (uint32_t z = 0; z < ld.count2 && !first; ++z)
      for (uint32_t y = 0; y < ld.count1 && !first; ++y) {
        const uint64_t a =
            (uint64_t{ld.dramAddr} + uint64_t{z} * ld.dramStride2 + uint64_t{y} * ld.dramStride1) &
            0xFFFFFFFFull;
        if (!dram.contains(a, ld.count0)) first = a;
      }
    const InterpreterResult r = npus[which]->run({cmd(ld), end()});
    if (first) {
      ++faults;
      ASSERT_EQ(r.error, ErrCode::kBusError) << trial << ": " << r.describe();
      std::ostringstream want;
      want << "at 0x" << std::hex << *first << ",";
      ASSERT_NE(r.message.find(want.str()), std::string::npos)
          << trial << ": " << r.message << " wants " << want.str();
    } else {
      ++clean;
      ASSERT_TRUE(r.completed) << trial << ": " << r.describe();
    }
  }
  EXPECT_GT(faults, 300);
  EXPECT_GT(clean, 300);
}

// firstMultipleInRange against a walk of every x over one period, for every small modulus.
TEST(ModularProgression, FirstMultipleInRangeMatchesAWalk) {
  for (uint64_t m = 1; m <= 40; ++m)
    for (uint64_t a = 0; a < m; ++a)
      for (uint64_t lo = 0; lo < m; ++lo)
        for (uint64_t hi = lo; hi < m; ++hi) {
          uint64_t want = kNoTerm;
          for (uint64_t x = 0; x < m && want == kNoTerm; ++x)
            if ((a * x) % m >= lo && (a * x) % m <= hi) want = x;
          ASSERT_EQ(firstMultipleInRange(a, m, lo, hi), want)
              << a << " " << m << " " << lo << " " << hi;
        }
}

// firstTermInRange modulo 2^32 against a walk, with steps near 0 and near 2^32 (wrapping
// backwards), ranges anywhere (at the top and the bottom of the space included).
TEST(ModularProgression, FirstTermInRangeMatchesAWalk) {
  std::mt19937 rng(32);
  auto r32 = [&] { return static_cast<uint32_t>(rng()); };
  for (int trial = 0; trial < 20000; ++trial) {
    const uint32_t start = r32();
    const uint32_t step = trial % 3 == 0   ? r32()
                          : trial % 3 == 1 ? r32() % 4096
                                           : 0u - r32() % 4096;
    const uint64_t count = 1 + r32() % 3000;
    uint32_t lo = r32(), hi = r32();
    if (trial % 5 == 0) lo = 0;
    if (trial % 7 == 0) hi = 0xffffffffu;
    if (lo > hi) std::swap(lo, hi);
    uint64_t want = count;
    for (uint64_t i = 0; i < count && want == count; ++i) {
      const uint32_t v = start + static_cast<uint32_t>(i) * step;
      if (v >= lo && v <= hi) want = i;
    }
    ASSERT_EQ(firstTermInRange(start, step, count, lo, hi), want)
        << start << " " << step << " " << count << " " << lo << " " << hi;
  }
}

}  // namespace
}  // namespace nncosim::driver
