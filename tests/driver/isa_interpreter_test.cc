// The ISA interpreter against docs/isa.md: data movement, GEMM and REQUANT_STORE
// arithmetic, errors, and the stream-discipline checks (races, token leaks, deadlock).
#include "driver/compiler/isa_interpreter.h"

#include <gtest/gtest.h>

#include <random>

#include "driver/compiler/stream_builder.h"
#include "ops/quant/fixed_point.h"

namespace nncosim::driver {
namespace {

using firmware::Buffer;
using firmware::Command;

constexpr uint64_t kBase = 0x8000'0000ull;

Command cmd(firmware::CommandArgs a, firmware::Deps d = {}) { return Command{d, std::move(a)}; }
Command end() { return cmd(firmware::End{true, 7}); }

TEST(IsaInterpreter, ThreeDimensionalLoadAndStoreMoveTheRightBytes) {
  DramModel dram(kBase, 1 << 16);
  for (uint32_t i = 0; i < 4096; ++i) dram.at(kBase + i)[0] = static_cast<uint8_t>(i * 7 + 1);
  IsaInterpreter npu({}, dram);
  firmware::DmaLoad ld;
  ld.bufId = Buffer::kInp;
  ld.dramAddr = kBase + 5;
  ld.count0 = 3;
  ld.count1 = 4;
  ld.dramStride1 = 10;
  ld.bufStride1 = 16;
  ld.count2 = 2;
  ld.dramStride2 = 100;
  ld.bufStride2 = 64;
  ld.bufAddr = 32;
  firmware::DmaStore st;
  st.bufId = Buffer::kInp;
  st.bufAddr = 32;
  st.dramAddr = kBase + 8192;
  st.count0 = 3;
  st.count1 = 8;  // the 4 rows of both planes, read back as 8 rows of stride 16 in INP
  st.bufStride1 = 16;
  st.dramStride1 = 3;
  // Load pushes a token the store cannot see directly: route it through a compute SYNC.
  Command sc = cmd(firmware::Sync{firmware::Queue::kCompute});
  sc.deps.popPrev = true;
  sc.deps.pushNext = true;
  Command stc = cmd(st);
  stc.deps.popPrev = true;
  Command ldc = cmd(ld);
  ldc.deps.pushNext = true;
  InterpreterResult r = npu.run({ldc, sc, stc, end()});
  ASSERT_TRUE(r.clean()) << r.describe();
  // INP row (z, y) at 32 + z*64 + y*16 holds DRAM 5 + z*100 + y*10 .. +3. The store reads
  // rows at 32 + y*16 for y < 8: planes interleave as rows 0..3 of plane 0 then garbage
  // (zero) rows, then plane 1 starts at 32 + 64 = row 4.
  for (uint32_t y = 0; y < 8; ++y)
    for (uint32_t x = 0; x < 3; ++x) {
      const uint32_t z = y / 4, yy = y % 4;
      const uint8_t want = static_cast<uint8_t>((5 + z * 100 + yy * 10 + x) * 7 + 1);
      EXPECT_EQ(dram.at(kBase + 8192 + y * 3 + x)[0], want) << y << "," << x;
    }
  EXPECT_EQ(r.counters.dmaWriteBytes, 24u);
}

TEST(IsaInterpreter, GemmAndRequantMatchTheFormulas) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu({}, dram);
  std::mt19937 rng(3);
  const uint32_t m = 5, n = 7, k = 9;
  auto& inp = npu.buffer(Buffer::kInp);
  auto& wgt = npu.buffer(Buffer::kWgt);
  for (uint32_t i = 0; i < 16 * k; ++i) inp[i] = static_cast<uint8_t>(rng());
  for (uint32_t i = 0; i < 16 * k; ++i) wgt[i] = static_cast<uint8_t>(rng());
  auto& prm = npu.buffer(Buffer::kPrm);
  for (uint32_t j = 0; j < 16; ++j) {
    const int32_t bias = static_cast<int32_t>(rng() % 2001) - 1000;
    const int32_t mult = (1 << 30) + static_cast<int32_t>(rng() % (1 << 30));
    for (int b = 0; b < 4; ++b) {
      prm[4 * j + b] = static_cast<uint8_t>(static_cast<uint32_t>(bias) >> (8 * b));
      prm[64 + 4 * j + b] = static_cast<uint8_t>(static_cast<uint32_t>(mult) >> (8 * b));
    }
    prm[128 + j] = static_cast<uint8_t>(static_cast<int8_t>(-7 - static_cast<int>(j % 3)));
  }
  firmware::Gemm g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.aSigned = true;
  g.bSigned = false;
  g.aZp = -3;
  g.bZp = 120;
  firmware::RequantStore rq;
  rq.rows = m;
  rq.biasEn = true;
  rq.multAddr = 64;
  rq.shiftAddr = 128;
  rq.perChannel = true;
  rq.outSigned = false;
  rq.outZp = 17;
  rq.clampMin = 10;
  rq.clampMax = 240;
  InterpreterResult r = npu.run({cmd(g), cmd(rq), end()});
  ASSERT_TRUE(r.clean()) << r.describe();
  EXPECT_EQ(r.counters.macs, uint64_t{m} * n * k);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      for (uint32_t t = 0; t < k; ++t)
        acc += (int64_t{static_cast<int8_t>(inp[t * 16 + i])} + 3) * (int64_t{wgt[t * 16 + j]} - 120);
      const int32_t accWord = static_cast<int32_t>(
          npu.buffer(Buffer::kAcc)[(i * 16 + j) * 4] | npu.buffer(Buffer::kAcc)[(i * 16 + j) * 4 + 1] << 8 |
          npu.buffer(Buffer::kAcc)[(i * 16 + j) * 4 + 2] << 16 |
          static_cast<uint32_t>(npu.buffer(Buffer::kAcc)[(i * 16 + j) * 4 + 3]) << 24);
      ASSERT_EQ(accWord, static_cast<int32_t>(acc));
      int32_t bias = 0, mult = 0;
      for (int b = 0; b < 4; ++b) {
        bias |= prm[4 * j + b] << (8 * b);
        mult |= prm[64 + 4 * j + b] << (8 * b);
      }
      const int32_t y = ops::quant::multiplyByQuantizedMultiplier(accWord + bias, mult,
                                                                  static_cast<int8_t>(prm[128 + j])) + 17;
      EXPECT_EQ(npu.buffer(Buffer::kOut)[i * 16 + j], std::clamp(y, 10, 240)) << i << "," << j;
    }
}

TEST(IsaInterpreter, FootprintsBeyondABufferAreDmaOob) {
  DramModel dram(kBase, 4096);
  NpuConfig cfg;
  IsaInterpreter npu(cfg, dram);
  firmware::DmaLoad ld;
  ld.bufId = Buffer::kPrm;
  ld.dramAddr = kBase;
  ld.bufAddr = cfg.prmBytes - 8;
  ld.count0 = 9;
  InterpreterResult r = npu.run({cmd(ld), end()});
  EXPECT_FALSE(r.completed);
  EXPECT_EQ(r.error, firmware::ErrCode::kDmaOob);
  EXPECT_EQ(r.errInfo, static_cast<uint32_t>(Buffer::kPrm));
  firmware::Gemm g;
  g.k = static_cast<uint32_t>(cfg.inpBytes / 16);
  g.inpAddr = 16;
  r = npu.run({cmd(g), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kDmaOob);
  EXPECT_EQ(r.errInfo, static_cast<uint32_t>(Buffer::kInp));
}

TEST(IsaInterpreter, DramOutsideTheModelIsABusError) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu({}, dram);
  firmware::DmaLoad ld;
  ld.dramAddr = kBase + 4090;
  ld.count0 = 8;
  InterpreterResult r = npu.run({cmd(ld), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kBusError);
  EXPECT_EQ(r.errCommand, 0u);
}

TEST(IsaInterpreter, OutOfRangeFieldsAreBadField) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu({}, dram);
  firmware::Gemm g;
  g.m = 17;
  InterpreterResult r = npu.run({cmd(firmware::Sync{}), cmd(g), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kBadField);
  EXPECT_EQ(r.errCommand, 1u);
}

TEST(IsaInterpreter, AMissingTokenDeadlocksIntoTheWatchdog) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu({}, dram);
  InterpreterResult r = npu.run({cmd(firmware::Gemm{}, firmware::Deps{true, false, false, false}), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kWatchdog);
  EXPECT_NE(r.message.find("deadlock"), std::string::npos);
}

TEST(IsaInterpreter, UnorderedAccessesAreReportedAsRaces) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu({}, dram);
  firmware::DmaLoad ld;
  ld.dramAddr = kBase;
  ld.count0 = 64;
  firmware::Gemm g;  // reads INP [0, 16) while the load writes [0, 64): no token between
  InterpreterResult r = npu.run({cmd(ld), cmd(g), end()});
  ASSERT_TRUE(r.completed) << r.describe();
  EXPECT_EQ(r.races.size(), 1u) << r.describe();
  // With the tokens it is clean.
  r = npu.run({cmd(ld, {false, false, false, true}), cmd(g, {true, false, false, false}), end()});
  EXPECT_TRUE(r.clean()) << r.describe();
}

TEST(IsaInterpreter, TokensLeftAtEndAreReported) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu({}, dram);
  InterpreterResult r = npu.run({cmd(firmware::Sync{firmware::Queue::kLoad}, {false, false, false, true}), end()});
  ASSERT_TRUE(r.completed);
  ASSERT_EQ(r.tokenLeaks.size(), 1u);
  EXPECT_NE(r.tokenLeaks[0].find("load->compute"), std::string::npos);
}

// The step protocol over many steps, every slot count and queue depth: clean, no deadlock.
TEST(StepStream, TokensBalanceForAnyShapeAndQueueDepth) {
  for (uint32_t slots : {1u, 2u, 3u})
    for (uint32_t outSlots : {1u, 2u})
      for (uint32_t depth : {1u, 2u, 8u}) {
        StepStream ss(slots, outSlots);
        for (int s = 0; s < 7; ++s) {
          ss.beginStep();
          for (int l = 0; l < s % 3; ++l) {
            firmware::DmaLoad d;
            d.dramAddr = kBase;
            d.bufAddr = (s % slots) * 64;
            d.count0 = 16;
            ss.load(d);
          }
          if (s % 2 == 0) {
            firmware::Gemm g;
            g.inpAddr = (s % slots) * 64;
            ss.compute(Command{{}, g});
          }
          if (s % 3 != 1) {
            const uint32_t o = ss.nextOutSlot() * 256;
            ss.beginOutput();
            firmware::RequantStore rq;
            rq.outAddr = o;
            if (s % 2 == 0) ss.requant(rq);
            firmware::DmaStore st;
            st.bufAddr = o;
            st.bufId = Buffer::kOut;
            st.dramAddr = kBase + 1024 + 64 * s;
            st.count0 = 16;
            ss.store(st);
          }
        }
        DramModel dram(kBase, 4096);
        CostModel cost;
        cost.queueDepth = depth;
        IsaInterpreter npu({}, dram, cost);
        InterpreterResult r = npu.run(ss.finish(1));
        EXPECT_TRUE(r.completed) << slots << "/" << outSlots << "/" << depth << ": " << r.describe();
        EXPECT_TRUE(r.clean()) << r.describe();
      }
}

}  // namespace
}  // namespace nncosim::driver

namespace nncosim::driver {
namespace {

TEST(NpuConfig, FromTheConfigRegister) {
  // 16 x 16 array, 2^8 KiB INP/WGT: the RTL's default.
  auto c = NpuConfig::fromConfigRegister(16u | 16u << 8 | 8u << 16);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->inpBytes, 256u << 10);
  EXPECT_EQ(c->wgtBytes, 256u << 10);
  EXPECT_EQ(c->rows, 16u);
  EXPECT_EQ(c->accBytes, NpuConfig{}.accBytes);
  EXPECT_FALSE(NpuConfig::fromConfigRegister(32u | 16u << 8 | 8u << 16).ok());  // m is <= 16
  EXPECT_FALSE(NpuConfig::fromConfigRegister(16u | 16u << 8 | 11u << 16).ok());  // > 20-bit
  EXPECT_NE(NpuConfig{}.describe().find("INP 256 KiB"), std::string::npos);
}

}  // namespace
}  // namespace nncosim::driver
