// The ISA interpreter against docs/isa.md: data movement, GEMM and REQUANT_STORE
// arithmetic, errors, and the stream-discipline checks (races, token leaks, deadlock).
#include "driver/isa_model/isa_interpreter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "driver/compiler/stream_builder.h"
#include "ops/quant/fixed_point.h"
#include "tests/driver/array16.h"

namespace nncosim::driver {
namespace {

using firmware::Buffer;
using firmware::Command;

constexpr uint64_t kBase = 0x8000'0000ull;

using test::array16;  // the arithmetic and bounds cases below are written for 16x16

Command cmd(firmware::CommandArgs a, firmware::Deps d = {}) { return Command{d, std::move(a)}; }
Command end() { return cmd(firmware::End{true, 7}); }
// A REQUANT_STORE of `rows` ACC rows to signed 8-bit outputs, per-channel multipliers at
// PRM 64 and shifts at 128 (the cases below put them there).
firmware::RequantStore int8Rows(uint32_t rows) {
  firmware::RequantStore rq;
  rq.rows = rows;
  rq.multAddr = 64;
  rq.shiftAddr = 128;
  rq.perChannel = true;
  rq.outSigned = true;
  rq.clampMin = -128;
  rq.clampMax = 127;
  return rq;
}

TEST(IsaInterpreter, ThreeDimensionalLoadAndStoreMoveTheRightBytes) {
  DramModel dram(kBase, 1 << 16);
  for (uint32_t i = 0; i < 4096; ++i) dram.at(kBase + i)[0] = static_cast<uint8_t>(i * 7 + 1);
  IsaInterpreter npu(array16(), dram);
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
  IsaInterpreter npu(array16(), dram);
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
        acc +=
            (int64_t{static_cast<int8_t>(inp[t * 16 + i])} + 3) * (int64_t{wgt[t * 16 + j]} - 120);
      const int32_t accWord = static_cast<int32_t>(
          npu.buffer(Buffer::kAcc)[(i * 16 + j) * 4] |
          npu.buffer(Buffer::kAcc)[(i * 16 + j) * 4 + 1] << 8 |
          npu.buffer(Buffer::kAcc)[(i * 16 + j) * 4 + 2] << 16 |
          static_cast<uint32_t>(npu.buffer(Buffer::kAcc)[(i * 16 + j) * 4 + 3]) << 24);
      ASSERT_EQ(accWord, static_cast<int32_t>(acc));
      int32_t bias = 0, mult = 0;
      for (int b = 0; b < 4; ++b) {
        bias |= prm[4 * j + b] << (8 * b);
        mult |= prm[64 + 4 * j + b] << (8 * b);
      }
      const int32_t y = ops::quant::multiplyByQuantizedMultiplier(
                            accWord + bias, mult, static_cast<int8_t>(prm[128 + j])) +
                        17;
      EXPECT_EQ(npu.buffer(Buffer::kOut)[i * 16 + j], std::clamp(y, 10, 240)) << i << "," << j;
    }
}

// ISA 1.9 to_inp: the same rows land in INP instead of OUT (OUT untouched), a window GEMM
// of the same queue reads them back as pixel vectors, the footprint is checked against INP's
// capacity (beyond OUT's is fine), 16-bit outputs are refused at out_width, and a load into
// the same INP bytes without a token is a race.
TEST(IsaInterpreter, RequantToInpWritesInpAndFeedsTheNextGemm) {
  DramModel dram(kBase, 4096);
  NpuConfig cfg = array16();
  IsaInterpreter npu(cfg, dram);
  std::mt19937 rng(5);
  auto& acc = npu.buffer(Buffer::kAcc);
  auto& prm = npu.buffer(Buffer::kPrm);
  auto& wgt = npu.buffer(Buffer::kWgt);
  for (uint32_t i = 0; i < 16 * 16 * 4; ++i) acc[i] = static_cast<uint8_t>(rng());
  for (uint32_t i = 0; i < 16 * 16; ++i) wgt[i] = static_cast<uint8_t>(rng());
  for (uint32_t j = 0; j < 16; ++j) {
    const int32_t mult = (1 << 30) + static_cast<int32_t>(rng() % (1 << 30));
    for (int b = 0; b < 4; ++b)
      prm[64 + 4 * j + b] = static_cast<uint8_t>(static_cast<uint32_t>(mult) >> (8 * b));
    prm[128 + j] = static_cast<uint8_t>(static_cast<int8_t>(-20));
  }
  firmware::RequantStore rq = int8Rows(16);
  rq.outZp = -5;
  InterpreterResult r = npu.run({cmd(rq), end()});  // the reference: the rows into OUT
  ASSERT_TRUE(r.clean()) << r.describe();
  const std::vector<uint8_t> rows(npu.buffer(Buffer::kOut).begin(),
                                  npu.buffer(Buffer::kOut).begin() + 256);
  std::fill(npu.buffer(Buffer::kOut).begin(), npu.buffer(Buffer::kOut).end(), 0xEE);
  // Into INP past OUT's capacity, then a window GEMM over the rows (vec 16, lane stride 16).
  const uint32_t at = static_cast<uint32_t>(cfg.outBytes) + 4096;
  rq.toInp = true;
  rq.outAddr = at;
  firmware::Gemm g;
  g.window = true;
  g.vec = 16;
  g.taps = 1;
  g.tiles = 1;
  g.k = 16;
  g.laneStride = 16;
  g.inpAddr = at;
  g.aSigned = true;
  g.bSigned = true;
  g.m = 16;
  g.n = 16;
  g.accAddr = 4096;
  r = npu.run({cmd(rq), cmd(g), end()});
  ASSERT_TRUE(r.clean()) << r.describe();
  const auto& inp = npu.buffer(Buffer::kInp);
  EXPECT_TRUE(std::equal(rows.begin(), rows.end(), inp.begin() + at));
  EXPECT_TRUE(std::all_of(npu.buffer(Buffer::kOut).begin(), npu.buffer(Buffer::kOut).end(),
                          [](uint8_t v) { return v == 0xEE; }));
  for (uint32_t i = 0; i < 16; ++i)
    for (uint32_t j = 0; j < 16; ++j) {
      int32_t want = 0;
      for (uint32_t c = 0; c < 16; ++c)
        want += int32_t{static_cast<int8_t>(rows[i * 16 + c])} *
                int32_t{static_cast<int8_t>(wgt[c * 16 + j])};
      int32_t got = 0;
      for (int b = 0; b < 4; ++b) got |= acc[4096 + (i * 16 + j) * 4 + b] << (8 * b);
      ASSERT_EQ(got, want) << i << "," << j;
    }
  // The footprint is INP's: one byte past it is dma_oob naming INP.
  rq.outAddr = static_cast<uint32_t>(cfg.inpBytes) - 256 + 1;
  r = npu.run({cmd(rq), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kDmaOob);
  EXPECT_EQ(r.errInfo, static_cast<uint32_t>(Buffer::kInp));
  // 16-bit rows do not fit INP's port: bad_field at out_width (word 0, bit 12).
  rq.outAddr = 0;
  rq.outWidth = firmware::ElemWidth::kW16;
  r = npu.run({cmd(rq), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kBadField);
  EXPECT_EQ(r.errInfo, 12u);
  // A load into the rows' bytes with no token between them races with the requant.
  rq.outWidth = firmware::ElemWidth::kW8;
  firmware::DmaLoad ld;
  ld.dramAddr = kBase;
  ld.bufAddr = 64;
  ld.count0 = 64;
  r = npu.run({cmd(rq), cmd(ld), end()});
  ASSERT_TRUE(r.completed) << r.describe();
  EXPECT_EQ(r.races.size(), 1u) << r.describe();
}

// Segments (ISA 1.13, docs/isa.md): the rows of a REQUANT_STORE into INP skip seg_gap
// vectors after each pair that fills its segment, while gaps are left; the gap bytes keep
// what they held, and the footprint counts every gap the command may take.
TEST(IsaInterpreter, RequantSegmentsSkipTheirGaps) {
  DramModel dram(kBase, 4096);
  NpuConfig cfg = array16();
  IsaInterpreter npu(cfg, dram);
  std::mt19937 rng(9);
  auto& acc = npu.buffer(Buffer::kAcc);
  for (uint32_t i = 0; i < 16 * 16 * 4; ++i) acc[i] = static_cast<uint8_t>(rng());
  for (uint32_t j = 0; j < 16; ++j) npu.buffer(Buffer::kPrm)[64 + 4 * j + 3] = 0x40;  // 0.5
  firmware::RequantStore rq = int8Rows(11);
  InterpreterResult r = npu.run({cmd(rq), end()});  // the rows, contiguous, into OUT
  ASSERT_TRUE(r.clean()) << r.describe();
  const std::vector<uint8_t> rows(npu.buffer(Buffer::kOut).begin(),
                                  npu.buffer(Buffer::kOut).begin() + 11 * 16);
  // Segments of 2 pairs, the first 1 pair short, gaps of 3 vectors, at most 2 of them:
  // rows 0-1 | gap | 2-5 | gap | 6-10 (the gaps used up, the rest contiguous).
  auto& inp = npu.buffer(Buffer::kInp);
  std::fill(inp.begin(), inp.begin() + 4096, 0xEE);
  rq.toInp = true;
  rq.outAddr = 1024;
  rq.segments = true;
  rq.segPairs = 2;
  rq.segFirst = 1;
  rq.segGap = 3;
  rq.segGaps = 2;
  r = npu.run({cmd(rq), end()});
  ASSERT_TRUE(r.clean()) << r.describe();
  const uint32_t vectorOf[11] = {0, 1, 5, 6, 7, 8, 12, 13, 14, 15, 16};
  std::vector<uint8_t> want(4096, 0xEE);
  for (uint32_t i = 0; i < 11; ++i)
    std::copy(rows.begin() + i * 16, rows.begin() + (i + 1) * 16,
              want.begin() + 1024 + vectorOf[i] * 16);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), inp.begin()));
  // The footprint ends at out_addr + (rows + seg_gaps * seg_gap) * C: one byte past INP is
  // dma_oob naming INP even where the rows alone would fit.
  rq.outAddr = static_cast<uint32_t>(cfg.inpBytes) - (11 + 2 * 3) * 16 + 1;
  r = npu.run({cmd(rq), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kDmaOob);
  EXPECT_EQ(r.errInfo, static_cast<uint32_t>(Buffer::kInp));
  // A load into a gap races with nothing; into a segment's rows it does.
  rq.outAddr = 1024;
  firmware::DmaLoad ld;
  ld.dramAddr = kBase;
  ld.bufAddr = 1024 + 2 * 16;
  ld.count0 = 3 * 16;
  r = npu.run({cmd(rq), cmd(ld), end()});
  ASSERT_TRUE(r.completed) << r.describe();
  EXPECT_TRUE(r.races.empty()) << r.describe();
  ld.bufAddr = 1024 + 5 * 16;
  r = npu.run({cmd(rq), cmd(ld), end()});
  ASSERT_TRUE(r.completed) << r.describe();
  EXPECT_EQ(r.races.size(), 1u) << r.describe();
}

// A fill's rows are its accesses (not the box around them): the padding columns of a
// padded tensor, filled while a REQUANT_STORE writes its rows in segments between them and
// unordered with it, race with nothing; a fill over a segment's rows does.
TEST(IsaInterpreter, FillsRaceOnlyWithTheBytesTheirRowsWrite) {
  DramModel dram(kBase, 4096);
  NpuConfig cfg = array16();
  IsaInterpreter npu(cfg, dram);
  firmware::RequantStore rq = int8Rows(8);
  // Rows of 6 vectors: 4 image pixels between a padding vector on each side, so segments of
  // 2 pairs with a gap of 2 vectors, the first starting one vector in.
  rq.toInp = true;
  rq.outAddr = 1024 + 16;
  rq.segments = true;
  rq.segPairs = 2;
  rq.segGap = 2;
  rq.segGaps = 1;
  firmware::DmaLoad fill;
  fill.fill = true;
  fill.fillValue = 7;
  fill.bufAddr = 1024;
  fill.count0 = 16;  // a padding vector
  fill.count1 = 2;   // left of both image rows
  fill.bufStride1 = 6 * 16;
  InterpreterResult r = npu.run({cmd(rq), cmd(fill), end()});
  ASSERT_TRUE(r.completed) << r.describe();
  EXPECT_TRUE(r.races.empty()) << r.describe();
  EXPECT_EQ(npu.buffer(Buffer::kInp)[1024 + 6 * 16], 7);
  fill.bufAddr = 1024 + 16;  // the first pixel of each image row
  r = npu.run({cmd(rq), cmd(fill), end()});
  ASSERT_TRUE(r.completed) << r.describe();
  EXPECT_EQ(r.races.size(), 2u) << r.describe();
}

// The array's timeline in the counters: a GEMM's k beats; a DWCONV's cycles, of which those
// the GEMM behind it does not stream beside (ISA 1.14) leave the array idle; before the
// first beat, the cycles no DWCONV runs (here the load the DWCONV waits for).
TEST(IsaInterpreter, CountersSplitTheArraysIdleCycles) {
  DramModel dram(kBase, 1 << 16);
  IsaInterpreter npu(array16(), dram);
  firmware::DmaLoad ld;
  ld.dramAddr = kBase;
  ld.count0 = 4096;
  firmware::Dwconv w;
  w.m = 16;
  w.n = 16;
  w.fh = 3;
  w.fw = 3;
  w.sw = 1;
  w.dw = 1;
  w.rowStride = 18 * 16;
  w.accAddr = 4096;
  firmware::Gemm g;
  g.m = 16;
  g.n = 16;
  g.k = 64;
  firmware::Deps push, pop;
  push.pushNext = true;
  pop.popPrev = true;
  InterpreterResult r = npu.run({cmd(ld, push), cmd(w, pop), cmd(g), end()});
  ASSERT_TRUE(r.clean()) << r.describe();
  const InterpreterCounters& k = r.counters;
  EXPECT_EQ(k.arrayBeats, 64u);
  EXPECT_GE(k.dwconvBusy, 9u);
  EXPECT_LT(k.idleDwconv, k.dwconvBusy);    // the GEMM streams beside the DWCONV
  EXPECT_GT(k.idleBeforeGemm, 4096u / 16);  // the load's beats at least
  EXPECT_LE(k.arrayBeats + k.idleDwconv + k.idleBeforeGemm, k.cycles);
  // Without GEMMs nothing is before a first beat; estimates keep no timeline.
  r = npu.run({cmd(ld, push), cmd(w, pop), end()});
  ASSERT_TRUE(r.clean()) << r.describe();
  EXPECT_EQ(r.counters.arrayBeats, 0u);
  EXPECT_EQ(r.counters.idleBeforeGemm, 0u);
  EXPECT_EQ(r.counters.idleDwconv, r.counters.dwconvBusy);
}

// Estimates are a pure function of the configuration, the cost model, the limit and the
// stream: the same stream again is answered from the cache with the same result; a stream
// differing in one field is not; a command whose fields do not survive encoding never uses
// the cache (its encoding would stand for other values).
TEST(IsaInterpreter, EstimatesOfTheSameStreamComeFromTheCache) {
  firmware::Gemm g;
  g.m = 16;
  g.n = 16;
  g.k = 777;
  const std::vector<Command> stream = {cmd(g), cmd(g), end()};
  const uint64_t before = IsaInterpreter::estimateCacheHits();
  const InterpreterResult a = IsaInterpreter::estimate(array16(), stream);
  const InterpreterResult b = IsaInterpreter::estimate(array16(), stream);
  EXPECT_EQ(IsaInterpreter::estimateCacheHits(), before + 1);
  ASSERT_TRUE(a.completed && b.completed);
  EXPECT_EQ(a.counters.cycles, b.counters.cycles);
  EXPECT_EQ(a.counters.computeBusy, b.counters.computeBusy);
  std::vector<Command> other = stream;
  std::get<firmware::Gemm>(other[1].args).k = 778;
  const InterpreterResult c = IsaInterpreter::estimate(array16(), other);
  EXPECT_EQ(IsaInterpreter::estimateCacheHits(), before + 1);
  EXPECT_EQ(c.counters.cycles, a.counters.cycles + 1);
  // Another cost model or limit: estimated again.
  CostModel slow;
  slow.gemmDrain += 10;
  EXPECT_EQ(IsaInterpreter::estimate(array16(), stream, slow).counters.cycles,
            a.counters.cycles + 10);
  EXPECT_TRUE(IsaInterpreter::estimate(array16(), stream, {}, 100).overLimit);
  EXPECT_EQ(IsaInterpreter::estimateCacheHits(), before + 1);
  // k past its field's width: the encoding would be another k, so no cache.
  std::vector<Command> wide = stream;
  std::get<firmware::Gemm>(wide[0].args).k = 1u << 24;
  IsaInterpreter::estimate(array16(), wide);
  IsaInterpreter::estimate(array16(), wide);
  EXPECT_EQ(IsaInterpreter::estimateCacheHits(), before + 1);
}

// acc64 (docs/isa.md): int16 GEMMs whose sums leave int32, accumulated over several
// commands into int64 ACC elements (8 bytes each), then REQUANT_STORE's 64-bit path.
TEST(IsaInterpreter, Acc64GemmAndRequantMatchTheInt64Model) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu(array16(), dram);
  std::mt19937_64 rng(11);
  const uint32_t m = 16, n = 13, kPart = 1500, parts = 3, k = kPart * parts;
  auto& inp = npu.buffer(Buffer::kInp);
  auto& wgt = npu.buffer(Buffer::kWgt);
  auto& acc = npu.buffer(Buffer::kAcc);
  auto& prm = npu.buffer(Buffer::kPrm);
  auto put = [](std::vector<uint8_t>& b, size_t a, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) b[a + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  auto get = [](const std::vector<uint8_t>& b, size_t a, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t{b[a + i]} << (8 * i);
    return v;
  };
  // Full-scale int16 activations; int16 weights in the even columns, int8 ones
  // (sign-extended: the 16x8 case) in the odd columns.
  std::vector<int64_t> A(m * k), B(k * 16);
  for (uint32_t t = 0; t < k; ++t) {
    for (uint32_t i = 0; i < 16; ++i) {
      const int64_t a = rng() % 4 ? (rng() % 2 ? 32767 : -32768) : static_cast<int16_t>(rng());
      if (i < m) A[i * k + t] = a;
      put(inp, (size_t{t} * 16 + i) * 2, static_cast<uint64_t>(a), 2);
    }
    for (uint32_t j = 0; j < 16; ++j) {
      const int64_t b = j % 2 ? static_cast<int8_t>(rng()) : static_cast<int16_t>(rng());
      B[t * 16 + j] = b;
      put(wgt, (size_t{t} * 16 + j) * 2, static_cast<uint64_t>(b), 2);
    }
  }
  // ACC starts with values near the int64 limits in some lanes (accumulate wraps modulo
  // 2^64) and a stale int32-looking pattern in the rest; lanes j >= n stay untouched.
  const uint32_t accAddr = 1024;
  std::vector<uint64_t> want(m * 16);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < 16; ++j) {
      const uint64_t v =
          (i + j) % 5 == 0 ? uint64_t{INT64_MAX} - (rng() % (uint64_t{1} << 40)) : rng();
      want[i * 16 + j] = v;
      put(acc, accAddr + (size_t{i} * 16 + j) * 8, v, 8);
    }
  std::vector<Command> s;
  for (uint32_t p = 0; p < parts; ++p) {
    firmware::Gemm g;
    g.mode = firmware::GemmMode::kInt16;
    g.acc64 = true;
    g.aSigned = g.bSigned = true;
    g.accumulate = true;
    g.m = m;
    g.n = n;
    g.k = kPart;
    g.inpAddr = p * kPart * 16 * 2;
    g.wgtAddr = p * kPart * 16 * 2;
    g.accAddr = accAddr;
    s.push_back(cmd(g));
  }
  bool beyondInt32 = false;
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      int64_t sum = 0;
      for (uint32_t t = 0; t < k; ++t) sum += A[i * k + t] * B[t * 16 + j];
      beyondInt32 |= sum != static_cast<int32_t>(sum);
      want[i * 16 + j] += static_cast<uint64_t>(sum);
    }
  ASSERT_TRUE(beyondInt32);
  // Per-channel parameters; shifts cover the valid range [-31, 14] and two outside it
  // (clamped: 20 acts as 14, -40 as -31).
  int32_t bias[16], mult[16];
  int shift[16];
  for (uint32_t j = 0; j < 16; ++j) {
    bias[j] = static_cast<int32_t>(rng());
    mult[j] = static_cast<int32_t>((uint64_t{1} << 30) + rng() % (uint64_t{1} << 30));
    shift[j] = j == 3 ? 20 : j == 5 ? -40 : static_cast<int>(rng() % 46) - 31;
    put(prm, 4 * j, static_cast<uint32_t>(bias[j]), 4);
    put(prm, 64 + 4 * j, static_cast<uint32_t>(mult[j]), 4);
    prm[128 + j] = static_cast<uint8_t>(static_cast<int8_t>(shift[j]));
  }
  mult[7] = 0x7FFFFFFF;  // the reduced multiplier's cap
  put(prm, 64 + 4 * 7, 0x7FFFFFFF, 4);
  firmware::RequantStore rq;
  rq.acc64 = true;
  rq.accAddr = accAddr;
  rq.rows = m;
  rq.biasEn = true;
  rq.multAddr = 64;
  rq.shiftAddr = 128;
  rq.perChannel = true;
  rq.outWidth = firmware::ElemWidth::kW16;
  rq.outSigned = true;
  rq.outZp = 5;
  rq.clampMin = -30000;
  rq.clampMax = 32767;
  s.push_back(cmd(rq));
  s.push_back(end());
  InterpreterResult r = npu.run(s);
  ASSERT_TRUE(r.clean()) << r.describe();
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < 16; ++j) {
      ASSERT_EQ(get(acc, accAddr + (size_t{i} * 16 + j) * 8, 8), want[i * 16 + j]) << i << "," << j;
      const int64_t x =
          static_cast<int64_t>(want[i * 16 + j] + static_cast<uint64_t>(int64_t{bias[j]}));
      const int s = std::clamp(shift[j], -31, 14);
      int64_t y = int64_t{ops::quant::multiplyByQuantizedMultiplier64(x, mult[j], s)} + 5;
      y = std::clamp<int64_t>(y, -30000, 32767);
      EXPECT_EQ(static_cast<int16_t>(get(npu.buffer(Buffer::kOut), (size_t{i} * 16 + j) * 2, 2)), y)
          << i << "," << j << " shift " << shift[j];
    }
  // A sum that needs more than 32 bits, checked on its own: acc64 keeps it.
  EXPECT_NE(want[0], static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(want[0]))));
}

// The same ACC row read without acc64 is the int32 path: acc64 = 0 is ISA 1.0.
TEST(IsaInterpreter, Acc64OffIsTheInt32Path) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu(array16(), dram);
  auto& inp = npu.buffer(Buffer::kInp);
  auto& wgt = npu.buffer(Buffer::kWgt);
  // 600 products of 32767 * -32768: -2^39-ish, wraps in int32.
  const uint32_t k = 600;
  for (uint32_t t = 0; t < k; ++t) {
    inp[t * 32] = 0xFF;
    inp[t * 32 + 1] = 0x7F;
    wgt[t * 32] = 0x00;
    wgt[t * 32 + 1] = 0x80;
  }
  firmware::Gemm g;
  g.mode = firmware::GemmMode::kInt16;
  g.aSigned = g.bSigned = true;
  g.k = k;
  g.acc64 = true;
  ASSERT_TRUE(npu.run({cmd(g), end()}).clean());
  const int64_t exact = int64_t{32767} * -32768 * k;
  int64_t got = 0;
  for (int b = 0; b < 8; ++b) got |= int64_t{npu.buffer(Buffer::kAcc)[b]} << (8 * b);
  EXPECT_EQ(got, exact);
  g.acc64 = false;
  ASSERT_TRUE(npu.run({cmd(g), end()}).clean());
  int32_t word = 0;
  for (int b = 0; b < 4; ++b) word |= int32_t{npu.buffer(Buffer::kAcc)[b]} << (8 * b);
  EXPECT_EQ(word, static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(exact))));
}

// wgt8 (ISA 1.2): an int16 GEMM over 8-bit weights (C bytes per k step) gives the ACC of
// the same GEMM over the weights widened to int16, signed and unsigned, with a weight zero
// point; its WGT footprint is the 1-byte one; with mode int8 it is bad_field at its bit.
TEST(IsaInterpreter, Wgt8GemmEqualsTheWidenedGemm) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu(array16(), dram);
  std::mt19937_64 rng(23);
  const uint32_t k = 300, narrowAt = 0, wideAt = 16 * k;
  auto& inp = npu.buffer(Buffer::kInp);
  auto& wgt = npu.buffer(Buffer::kWgt);
  for (uint32_t i = 0; i < k * 16 * 2; ++i) inp[i] = static_cast<uint8_t>(rng());
  for (const bool bSigned : {true, false}) {
    for (uint32_t e = 0; e < k * 16; ++e) {
      const auto v = static_cast<uint8_t>(rng());
      const uint16_t wide = bSigned ? static_cast<uint16_t>(static_cast<int8_t>(v)) : v;
      wgt[narrowAt + e] = v;
      wgt[wideAt + 2 * e] = static_cast<uint8_t>(wide);
      wgt[wideAt + 2 * e + 1] = static_cast<uint8_t>(wide >> 8);
    }
    firmware::Gemm g;
    g.mode = firmware::GemmMode::kInt16;
    g.aSigned = true;
    g.bSigned = bSigned;
    g.bZp = bSigned ? -7 : 130;
    g.aZp = 3;
    g.m = 15;
    g.n = 11;
    g.k = k;
    g.acc64 = true;
    g.wgtAddr = wideAt;
    ASSERT_TRUE(npu.run({cmd(g), end()}).clean());
    const std::vector<uint8_t> widened = npu.buffer(Buffer::kAcc);
    g.wgt8 = true;
    g.wgtAddr = narrowAt;
    std::fill(npu.buffer(Buffer::kAcc).begin(), npu.buffer(Buffer::kAcc).end(), 0);
    ASSERT_TRUE(npu.run({cmd(g), end()}).clean());
    EXPECT_EQ(npu.buffer(Buffer::kAcc), widened) << "b_signed " << bSigned;
    EXPECT_NE(std::count(widened.begin(), widened.end(), 0), static_cast<long>(widened.size()));
  }
  // Footprint: k*C bytes, not 2*k*C.
  NpuConfig cfg;
  firmware::Gemm g;
  g.mode = firmware::GemmMode::kInt16;
  g.wgt8 = true;
  g.k = 4096;
  g.wgtAddr = cfg.wgtBytes - g.k * 16;
  EXPECT_TRUE(npu.run({cmd(g), end()}).clean());
  g.wgt8 = false;
  InterpreterResult r = npu.run({cmd(g), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kDmaOob);
  EXPECT_EQ(r.errInfo, static_cast<uint32_t>(Buffer::kWgt));
  // With mode int8 wgt8 is rejected.
  g.k = 4;
  g.wgt8 = true;
  g.mode = firmware::GemmMode::kInt8;
  r = npu.run({cmd(firmware::Sync{}), cmd(g), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kBadField);
  EXPECT_EQ(r.errCommand, 1u);
  EXPECT_EQ(r.errInfo, 4u * 32 + 17);
}

TEST(IsaInterpreter, FootprintsBeyondABufferAreDmaOob) {
  DramModel dram(kBase, 4096);
  NpuConfig cfg = array16();  // footprints below are for 16x16 tiles
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
  // acc64: 16 rows of 16 int64 need 2 KiB of ACC where int32 needs 1 KiB.
  g = firmware::Gemm{};
  g.m = 16;
  g.accAddr = static_cast<uint32_t>(cfg.accBytes - 1024);
  ASSERT_TRUE(npu.run({cmd(g), end()}).completed);
  g.acc64 = true;
  r = npu.run({cmd(g), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kDmaOob);
  EXPECT_EQ(r.errInfo, static_cast<uint32_t>(Buffer::kAcc));
  firmware::RequantStore rq;
  rq.rows = 8;
  rq.accAddr = static_cast<uint32_t>(cfg.accBytes - 512);
  ASSERT_TRUE(npu.run({cmd(rq), end()}).completed);
  rq.acc64 = true;
  r = npu.run({cmd(rq), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kDmaOob);
  EXPECT_EQ(r.errInfo, static_cast<uint32_t>(Buffer::kAcc));
}

// ISA 1.5 window mode: a 3x3 convolution (stride 1, 32 input channels in two channel tiles
// stored apart, one output row of 16 pixels) as three accumulating window GEMMs, one per
// filter row, equals the convolution computed directly; the footprint check covers the
// furthest vector exactly, and k must be vec * taps * tiles.
TEST(IsaInterpreter, WindowGemmsAreTheConvolutionTheyDescribe) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu(array16(), dram);
  std::mt19937 rng(5);
  constexpr uint32_t W = 18, Ct = 16, tiles = 2, N = 16;           // input width, tile channels
  constexpr uint32_t rowBytes = W * Ct, tileBytes = 3 * rowBytes;  // 3 input rows per tile
  auto& inp = npu.buffer(Buffer::kInp);
  auto& wgt = npu.buffer(Buffer::kWgt);
  // INP: tile q, input row y, pixel x, channel c at q*tileBytes + y*rowBytes + x*Ct + c.
  for (uint32_t i = 0; i < tiles * tileBytes; ++i) inp[i] = static_cast<uint8_t>(rng());
  // WGT per filter row fy: k = (tile, tap, channel) rows of N weights.
  const uint32_t k = Ct * 3 * tiles;
  for (uint32_t i = 0; i < 3 * k * 16; ++i) wgt[i] = static_cast<uint8_t>(rng());
  std::vector<Command> s;
  for (uint32_t fy = 0; fy < 3; ++fy) {
    firmware::Gemm g;
    g.m = 16;
    g.n = N;
    g.aSigned = true;
    g.bSigned = true;
    g.aZp = 5;
    g.accumulate = fy > 0;
    g.window = true;
    g.vec = Ct;
    g.taps = 3;
    g.tiles = tiles;
    g.k = k;
    g.inpAddr = fy * rowBytes;
    g.laneStride = Ct;
    g.tapStride = Ct;
    g.tileStride = tileBytes;
    g.wgtAddr = fy * k * 16;
    s.push_back(cmd(g));
  }
  s.push_back(end());
  InterpreterResult r = npu.run(s);
  ASSERT_TRUE(r.clean()) << r.describe();
  for (uint32_t ox = 0; ox < 16; ++ox)
    for (uint32_t j = 0; j < N; ++j) {
      int64_t acc = 0;
      for (uint32_t fy = 0; fy < 3; ++fy)
        for (uint32_t q = 0; q < tiles; ++q)
          for (uint32_t fx = 0; fx < 3; ++fx)
            for (uint32_t c = 0; c < Ct; ++c) {
              const int64_t a =
                  static_cast<int8_t>(inp[q * tileBytes + fy * rowBytes + (ox + fx) * Ct + c]);
              const uint32_t t = (q * 3 + fx) * Ct + c;  // the weights' (tile, tap, channel)
              acc += (a - 5) * static_cast<int8_t>(wgt[fy * k * 16 + t * 16 + j]);
            }
      const auto* p = &npu.buffer(Buffer::kAcc)[(ox * 16 + j) * 4];
      const int32_t got =
          static_cast<int32_t>(p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24);
      ASSERT_EQ(got, static_cast<int32_t>(acc)) << "pixel " << ox << " channel " << j;
    }
  EXPECT_EQ(r.counters.macs, uint64_t{3} * 16 * N * k);

  // The furthest byte: (m-1)*lane_stride + (taps-1)*tap_stride + (tiles-1)*tile_stride + vec.
  firmware::Gemm g = std::get<firmware::Gemm>(s[0].args);
  const uint32_t span = 15 * Ct + 2 * Ct + (tiles - 1) * tileBytes + Ct;
  g.inpAddr = static_cast<uint32_t>(array16().inpBytes) - span;
  EXPECT_TRUE(npu.run({cmd(g), end()}).clean());
  ++g.inpAddr;
  r = npu.run({cmd(g), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kDmaOob);
  EXPECT_EQ(r.errInfo, static_cast<uint32_t>(Buffer::kInp));
  g.inpAddr = 0;
  g.k = k - 1;
  r = npu.run({cmd(g), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kBadField);
}

// ISA 1.4: a fill writes its pattern into the rows, reads no DRAM (its DRAM fields are
// ignored, even outside DRAM), costs a cycle per beat beyond a fixed overhead, and keeps
// the footprint check.
TEST(IsaInterpreter, FillWritesThePatternAndNoDram) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu(array16(), dram);
  auto& inp = npu.buffer(Buffer::kInp);
  std::fill(inp.begin(), inp.begin() + 512, uint8_t{0x11});
  firmware::DmaLoad f;
  f.bufId = Buffer::kInp;
  f.fill = true;
  f.fillValue = 0x9C;
  f.dramAddr = 0xFFFF'FFF0u;  // outside DRAM: a load would be a bus error
  f.bufAddr = 3;
  f.count0 = 20;  // 20 bytes, 2 beats per row
  f.count1 = 3;
  f.bufStride1 = 50;
  f.count2 = 2;
  f.bufStride2 = 200;
  InterpreterResult r = npu.run({cmd(f), end()});
  ASSERT_TRUE(r.clean()) << r.describe();
  for (uint32_t a = 0; a < 512; ++a) {
    const uint32_t rel = a - 3, z = rel / 200, y = (rel % 200) / 50, x = rel % 50;
    const bool inRow = a >= 3 && z < 2 && y < 3 && x < 20 && rel % 200 < 150;
    EXPECT_EQ(inp[a], inRow ? 0x9C : 0x11) << a;
  }
  // Against a job of one SYNC: the same command fetches, no other DRAM byte. A beat per
  // cycle: half the planes, 6 beats fewer.
  const InterpreterResult bare = npu.run({cmd(firmware::Sync{firmware::Queue::kLoad}), end()});
  ASSERT_TRUE(bare.clean()) << bare.describe();
  EXPECT_EQ(r.counters.dmaReadBytes, bare.counters.dmaReadBytes);
  firmware::DmaLoad half = f;
  half.count2 = 1;
  EXPECT_EQ(r.counters.cycles - npu.run({cmd(half), end()}).counters.cycles, 6u);
  f.bufAddr = static_cast<uint32_t>(array16().inpBytes - 300);  // the last row passes the end
  r = npu.run({cmd(f), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kDmaOob);
  EXPECT_EQ(r.errInfo, static_cast<uint32_t>(Buffer::kInp));
}

TEST(IsaInterpreter, DramOutsideTheModelIsABusError) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu(array16(), dram);
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
  g.m = firmware::kArrayRows + 1;  // beyond the array the ISA is built for
  InterpreterResult r = npu.run({cmd(firmware::Sync{}), cmd(g), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kBadField);
  EXPECT_EQ(r.errCommand, 1u);
  EXPECT_EQ(r.errInfo, 16u);  // m: word 0 bits [23:16], as the hardware's ERR_INFO
}

TEST(IsaInterpreter, AMissingTokenDeadlocksIntoTheWatchdog) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu(array16(), dram);
  InterpreterResult r =
      npu.run({cmd(firmware::Gemm{}, firmware::Deps{true, false, false, false}), end()});
  EXPECT_EQ(r.error, firmware::ErrCode::kWatchdog);
  EXPECT_NE(r.message.find("deadlock"), std::string::npos);
}

TEST(IsaInterpreter, UnorderedAccessesAreReportedAsRaces) {
  DramModel dram(kBase, 4096);
  IsaInterpreter npu(array16(), dram);
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
  IsaInterpreter npu(array16(), dram);
  InterpreterResult r =
      npu.run({cmd(firmware::Sync{firmware::Queue::kLoad}, {false, false, false, true}), end()});
  ASSERT_TRUE(r.completed);
  ASSERT_EQ(r.tokenLeaks.size(), 1u);
  EXPECT_NE(r.tokenLeaks[0].find("load->compute"), std::string::npos);
}

// estimate() with a cycle limit: the exact estimate below it, overLimit (a lower bound,
// not completed) at or above it; a functional run times the stream the same.
TEST(IsaInterpreter, EstimateStopsAtItsCycleLimit) {
  firmware::DmaLoad ld;
  ld.dramAddr = kBase;
  ld.count0 = 16;
  ld.count1 = 64;  // 64 short rows: a burst each, many bus events
  ld.dramStride1 = 48;
  ld.bufStride1 = 16;
  firmware::Gemm g;
  g.m = g.n = 16;
  g.k = 64;
  firmware::DmaStore st;
  st.bufId = Buffer::kOut;
  st.dramAddr = kBase + 8192;
  st.count0 = 256;
  std::vector<Command> stream = {cmd(ld, {false, false, false, true}),
                                 cmd(g, {true, false, false, true}),
                                 cmd(firmware::RequantStore{}, {false, false, false, true}),
                                 cmd(st, {true, false, false, false}), end()};
  const InterpreterResult full = IsaInterpreter::estimate({}, stream);
  ASSERT_TRUE(full.completed) << full.describe();
  const uint64_t c = full.counters.cycles;
  ASSERT_GT(c, 100u);
  DramModel dram(kBase, 1 << 16);
  IsaInterpreter npu(array16(), dram);
  EXPECT_EQ(npu.run(stream).counters.cycles, c);
  const InterpreterResult under = IsaInterpreter::estimate({}, stream, {}, c + 1);
  EXPECT_TRUE(under.completed);
  EXPECT_FALSE(under.overLimit);
  EXPECT_EQ(under.counters.cycles, c);
  EXPECT_EQ(under.counters.loadBusy, full.counters.loadBusy);
  EXPECT_EQ(under.counters.computeStall, full.counters.computeStall);
  for (uint64_t limit : {c, c / 2, uint64_t{1}}) {
    const InterpreterResult over = IsaInterpreter::estimate({}, stream, {}, limit);
    EXPECT_FALSE(over.completed) << limit;
    EXPECT_TRUE(over.overLimit) << limit;
    EXPECT_GE(over.counters.cycles, limit);
    EXPECT_LE(over.counters.cycles, c);
  }
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
        NpuConfig config;
        config.queueDepth = depth;
        IsaInterpreter npu(config, dram);
        InterpreterResult r = npu.run(ss.finish(1));
        EXPECT_TRUE(r.completed) << slots << "/" << outSlots << "/" << depth << ": "
                                 << r.describe();
        EXPECT_TRUE(r.clean()) << r.describe();
      }
}

}  // namespace
}  // namespace nncosim::driver

namespace nncosim::driver {
namespace {

// A register file holding the spec's values where the spec says the CONFIG registers
// report them: what the RTL built with the defaults answers.
std::map<uint32_t, uint32_t> specConfigRegisters() {
  std::map<uint32_t, uint32_t> regs;
  for (const firmware::reg::ConfigReport& r : firmware::reg::kConfigReports)
    regs[r.offset] |= r.value << r.lsb;
  return regs;
}

NpuConfig::RegisterReader readerOf(const std::map<uint32_t, uint32_t>& regs) {
  return [regs](uint32_t offset) -> hal::Result<uint32_t> {
    auto it = regs.find(offset);
    if (it == regs.end()) return hal::fail("no register");
    return it->second;
  };
}

std::vector<uint32_t> fields(const NpuConfig& c) {
  return {c.rows,     c.cols,       c.inpBytes,   c.wgtBytes,  c.accBytes,  c.outBytes,
          c.prmBytes, c.queueDepth, c.fetchDepth, c.dmaBursts, c.gemmTiles, c.densifyBeats};
}

// The compiler's defaults are what the spec's hardware reports: decoding the CONFIG
// registers of an NPU built with the defaults gives NpuConfig{} field for field.
TEST(NpuConfig, DefaultsAreWhatTheSpecsHardwareReports) {
  auto c = NpuConfig::fromRegisters(readerOf(specConfigRegisters()));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(fields(*c), fields(NpuConfig{}));
  const std::string size =
      std::to_string(firmware::kArrayRows) + "x" + std::to_string(firmware::kArrayCols);
  EXPECT_EQ(NpuConfig{}.describe(),
            size + " array, INP 256 KiB, WGT 256 KiB, ACC 64 KiB, OUT 64 KiB, PRM 4 KiB");
  // The timing constants that are hardware structure, not measurements.
  EXPECT_EQ(CostModel{}.gemmSpacing, std::max(firmware::kArrayRows, firmware::kArrayCols));
  EXPECT_EQ(CostModel{}.busBytesPerCycle, firmware::kAxiDataBytes);
}

TEST(NpuConfig, FromRegistersTakesWhatTheHardwareSays) {
  auto regs = specConfigRegisters();
  regs[firmware::reg::kConfigAccBytes] = 32u << 10;
  regs[firmware::reg::kConfig] = (regs[firmware::reg::kConfig] & ~firmware::reg::kConfigRows) | 8u;
  regs[firmware::reg::kConfigQueues] = 2u | 8u << firmware::reg::kConfigQueuesFetchDepthLsb;
  auto c = NpuConfig::fromRegisters(readerOf(regs));
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->accBytes, 32u << 10);
  EXPECT_EQ(c->rows, 8u);
  EXPECT_EQ(c->cols, firmware::kArrayCols);
  EXPECT_EQ(c->queueDepth, 2u);
  EXPECT_EQ(c->fetchDepth, 8u);
}

TEST(NpuConfig, FromRegistersRefusesHardwareTheIsaCannotDrive) {
  auto refused = [](uint32_t offset, uint32_t value, const std::string& fragment) {
    auto regs = specConfigRegisters();
    regs[offset] = value;
    auto c = NpuConfig::fromRegisters(readerOf(regs));
    ASSERT_FALSE(c.ok()) << fragment;
    EXPECT_NE(c.error().find(fragment), std::string::npos) << c.error();
  };
  const uint32_t config = specConfigRegisters()[firmware::reg::kConfig];
  // An array twice the built one's rows is beyond what this build's ISA model drives.
  const uint32_t R = firmware::kArrayRows, C = firmware::kArrayCols;
  refused(firmware::reg::kConfig, (config & ~firmware::reg::kConfigRows) | 2 * R,
          std::to_string(2 * R) + "x" + std::to_string(C) + " array, beyond the ISA's " +
              std::to_string(R) + "x" + std::to_string(C));
  refused(firmware::reg::kConfig, config & ~firmware::reg::kConfigCols, "array columns = 0");
  refused(firmware::reg::kConfigWgtBytes, 2u << 20,
          "2097152-byte wgt buffer, beyond the 20-bit buffer address");
  refused(firmware::reg::kConfigDma, 32u | 4u << firmware::reg::kConfigDmaBurstsLsb,
          "32-byte memory bus");
  refused(firmware::reg::kConfigCompute, 0, "GEMM tiles = 0");
  auto regs = specConfigRegisters();
  regs.erase(firmware::reg::kConfigPrmBytes);  // an ISA 1.2 NPU has no such register
  auto c = NpuConfig::fromRegisters(readerOf(regs));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().find("CONFIG register at 0x80: no register"), std::string::npos) << c.error();
}

}  // namespace
}  // namespace nncosim::driver
