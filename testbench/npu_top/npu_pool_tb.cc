// Testbench `npu_pool`: POOL (ISA 1.7, the pooling unit; trunc, ISA 1.8) on the whole NPU,
// through the job protocol. INP holds a random image; each iteration fills OUT around the
// result tile with a poison byte, runs one random POOL (MAX, AVG or truncating AVG, MEAN's
// division; uint8, int8 or int16 values; 1..255
// output pixels of 1..16 channels; filters of 1..15 x 1..15, 3x3, 2x2 and 7x7 favoured, a
// sixth 16..60 x 16..60 (ISA 1.8's fh_hi, fw_hi) over 1..4 pixels;
// strides 1..3; random row strides; clamps random; some footprints ending at INP's last
// byte) and stores the tile with a margin on both sides: every output must equal the
// reference's pooling formula over a C++ copy of the image (MAX the largest value, AVG the
// sum plus or minus half the count, divided with C's truncation, MEAN the sum so divided),
// channels past n and the margins must hold the poison. In turn, one fault: a footprint one
// byte past INP or past OUT (dma_oob naming the buffer), a filter of no rows, an empty
// clamp range, 16-bit values not marked signed or a truncating MAX (bad_field at the field). Last,
// 16 back-to-back 3x3 MAX row tiles of 56 pixels, timed from the doorbell to the interrupt.
#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "firmware/pool_window.h"
#include "testbench/npu_top/npu_harness.h"

namespace nncosim::testbench {
namespace {

using namespace nncosim::firmware;
using namespace nncosim::testbench::npu;

constexpr uint32_t kInpImage = 0x40000, kOutDump = 0xD0000;
constexpr uint32_t kMargin = 16;
constexpr uint8_t kPoison = 0x5A;

uint64_t inpEnd(const Pool& p) {
  const uint64_t eb = p.wide ? 2 : 1;
  return uint64_t{p.inpAddr} + uint64_t{poolRows(p) - 1} * p.rowStride +
         (uint64_t{p.m - 1} * p.sw + poolCols(p)) * kC * eb;
}

// One output as the reference computes it.
int64_t model(const Pool& p, const std::vector<uint8_t>& mem, uint32_t i, uint32_t j) {
  const int eb = p.wide ? 2 : 1;
  int64_t sum = 0, best = INT64_MIN;
  for (uint32_t fy = 0; fy < poolRows(p); ++fy)
    for (uint32_t fx = 0; fx < poolCols(p); ++fx) {
      const uint64_t a = p.inpAddr + uint64_t{fy} * p.rowStride +
                         (uint64_t{i} * p.sw + fx) * kC * eb + uint64_t{j} * eb;
      const int64_t x = getN(mem, kInpImage + a, eb, p.wide || p.aSigned);
      sum += x;
      best = std::max(best, x);
    }
  const int64_t count = int64_t{poolRows(p)} * poolCols(p);
  int64_t r = !p.avg    ? best
              : p.trunc ? sum / count
                        : (sum >= 0 ? sum + count / 2 : sum - count / 2) / count;
  r = std::max<int64_t>(p.clampMin, std::min<int64_t>(p.clampMax, r));
  const int64_t lo = p.wide ? -32768 : p.aSigned ? -128 : 0;
  const int64_t hi = p.wide ? 32767 : p.aSigned ? 127 : 255;
  return std::max(lo, std::min(hi, r));
}

Pool randomPool(std::mt19937_64& rng, bool atEnd) {
  auto rnd = [&](int64_t a, int64_t b) {
    return a + static_cast<int64_t>(rng() % static_cast<uint64_t>(b - a + 1));
  };
  Pool p;
  p.avg = rng() % 2;
  p.trunc = p.avg && rng() % 3 == 0;
  p.wide = rng() % 4 == 0;
  p.aSigned = p.wide || rng() % 2;
  const uint32_t eb = p.wide ? 2 : 1;
  auto filter = [&]() -> uint32_t {
    switch (rng() % 5) {
      case 0:
        return 3;
      case 1:
        return 2;
      case 2:
        return 7;
      default:
        return static_cast<uint32_t>(rnd(1, 15));
    }
  };
  // A sixth of the windows wide (ISA 1.8's fifteens: 16..60 per side, a global pool of a
  // 56 x 56 map among them), their rows back to back so a window fits INP.
  const bool large = rng() % 6 == 0;
  const uint32_t fh = large ? static_cast<uint32_t>(rnd(16, 60)) : filter();
  const uint32_t fw = large ? static_cast<uint32_t>(rnd(16, 60)) : filter();
  setPoolWindow(p, fh, fw);
  p.sw = static_cast<uint32_t>(rnd(1, 3));
  p.m = static_cast<uint32_t>(large ? rnd(1, 4) : rng() % 3 ? rnd(1, 64) : rnd(1, 255));
  p.n = static_cast<uint32_t>(rng() % 3 ? kC : rnd(1, kC));
  const bool rowsBackToBack = large || rng() % 2;
  const uint32_t strideDraw = static_cast<uint32_t>(rnd(0, 16000));
  uint32_t spanBytes = 0;
  uint64_t extent = 0;
  // Fewer pixels until the footprint fits INP (15 rows of 255 wide int16 pixels do not).
  for (;; --p.m) {
    spanBytes = ((p.m - 1) * p.sw + fw) * kC * eb;
    p.rowStride = rowsBackToBack ? spanBytes : strideDraw;
    extent = uint64_t{fh - 1} * p.rowStride + spanBytes;
    if (extent <= kInpBufBytes || p.m == 1) break;
  }
  p.inpAddr = static_cast<uint32_t>(atEnd ? kInpBufBytes - extent : rnd(0, kInpBufBytes - extent));
  const uint32_t outBytes = ((p.m - 1) * kC + p.n) * eb;
  p.outAddr = static_cast<uint32_t>(rnd(kMargin, kOutBufBytes - kMargin - outBytes));
  const int32_t tlo = p.wide      ? -32768
                      : p.aSigned ? -128
                                  : 0,
                thi = p.wide      ? 32767
                      : p.aSigned ? 127
                                  : 255;
  switch (rng() % 3) {
    case 0:
      p.clampMin = tlo;
      p.clampMax = thi;
      break;
    case 1:
      p.clampMin = -32768;
      p.clampMax = 32767;
      break;
    default: {
      const int32_t a = static_cast<int32_t>(rnd(tlo, thi)),
                    b = static_cast<int32_t>(rnd(tlo, thi));
      p.clampMin = std::min(a, b);
      p.clampMax = std::max(a, b);
    }
  }
  return p;
}

struct Tally {
  uint64_t commands = 0, results = 0, avg = 0, trunc = 0, wide = 0, large = 0, atEnd = 0,
           inside = 0, faults = 0, values = 0;
};

void randomCase(Npu& npu, std::mt19937_64& rng, uint64_t it, Failures& f, Tally& t) {
  auto& mem = npu.mem().mem();
  const Pool p = randomPool(rng, rng() % 8 == 0 || it == 0);
  const uint32_t eb = p.wide ? 2 : 1;
  t.atEnd += inpEnd(p) == kInpBufBytes;
  const uint32_t tileBytes = p.m * kC * eb, dumpBytes = tileBytes + 2 * kMargin;
  std::fill(mem.begin() + kOutDump, mem.begin() + kOutDump + dumpBytes + 64, 0x00);
  DmaLoad poison =
      load(Buffer::kOut, ElemWidth::kW8, 0, 0, 0, p.outAddr - kMargin, 0, 0, dumpBytes, 1, 1);
  poison.fill = true;
  poison.fillValue = kPoison;
  DmaStore dump;
  dump.bufId = Buffer::kOut;
  dump.elemWidth = ElemWidth::kW8;
  dump.dramAddr = kOutDump;
  dump.bufAddr = p.outAddr - kMargin;
  dump.count0 = std::min<uint32_t>(dumpBytes, kOutBufBytes - (p.outAddr - kMargin));
  dump.count1 = 1;
  End end;
  end.irq = true;
  end.tag = static_cast<uint16_t>(rng());
  std::vector<Command> s = {cmd(poison, false, false, false, true),
                            cmd(p, true, false, false, true), cmd(dump, true), cmd(end)};
  std::ostringstream what;
  what << "POOL " << it
       << (!p.avg    ? " MAX "
           : p.trunc ? " MEAN "
                     : " AVG ")
       << poolRows(p) << "x" << poolCols(p) << " s" << p.sw
       << (p.wide      ? " int16"
           : p.aSigned ? " int8"
                       : " uint8")
       << " m " << p.m << " n " << p.n << " inp@" << p.inpAddr << " rows " << p.rowStride << " out@"
       << p.outAddr << " clamp [" << p.clampMin << ", " << p.clampMax << "]";
  if (!runJob(npu, s, end.tag, f, what.str(), 400000)) return;
  ++t.commands;
  t.avg += p.avg;
  t.trunc += p.trunc;
  t.wide += p.wide;
  t.values += uint64_t{p.m} * poolRows(p) * poolCols(p);
  t.large += poolRows(p) > 15 || poolCols(p) > 15;
  for (uint32_t b = 0; b < kMargin; ++b)
    if (mem[kOutDump + b] != kPoison || (kMargin + tileBytes + b < dump.count0 &&
                                         mem[kOutDump + kMargin + tileBytes + b] != kPoison)) {
      f.fail(what.str() + ": OUT written outside the tile");
      return;
    }
  for (uint32_t i = 0; i < p.m; ++i)
    for (uint32_t j = 0; j < kC; ++j) {
      const uint64_t at = kOutDump + kMargin + (uint64_t{i} * kC + j) * eb;
      if (j >= p.n) {
        if (mem[at] != kPoison || (eb == 2 && mem[at + 1] != kPoison)) {
          f.fail(what.str() + ": channel " + std::to_string(j) + " past n written");
          return;
        }
        continue;
      }
      const int64_t want = model(p, mem, i, j);
      const int64_t got = getN(mem, at, eb, p.wide || p.aSigned);
      if (got != want) {
        f.fail(what.str() + ": pixel " + std::to_string(i) + " channel " + std::to_string(j) +
               " = " + std::to_string(got) + ", want " + std::to_string(want));
        return;
      }
      t.inside += want > p.clampMin && want < p.clampMax;
      ++t.results;
    }
}

void faultCase(Npu& npu, std::mt19937_64& rng, int kind, Failures& f, Tally& t) {
  Pool p = randomPool(rng, true);
  const uint32_t eb = p.wide ? 2 : 1;
  uint32_t wantCode = static_cast<uint32_t>(ErrCode::kDmaOob), wantInfo = 0;
  std::string what;
  switch (kind) {
    case 0:
      ++p.inpAddr;  // the footprint ended at INP's last byte
      wantInfo = static_cast<uint32_t>(Buffer::kInp);
      what = "POOL one byte past INP";
      break;
    case 1:
      p.outAddr = kOutBufBytes - ((p.m - 1) * kC + p.n) * eb + 1;
      wantInfo = static_cast<uint32_t>(Buffer::kOut);
      what = "POOL results one byte past OUT";
      break;
    case 2:
      p.fh = 0;
      wantCode = static_cast<uint32_t>(ErrCode::kBadField);
      wantInfo = 1 * 32 + 20;  // fh: word 1 bits 23:20
      what = "POOL of no filter rows";
      break;
    case 3:
      p.clampMin = 10;
      p.clampMax = 9;
      wantCode = static_cast<uint32_t>(ErrCode::kBadField);
      wantInfo = 4 * 32;  // clamp_min: word 4 bits 15:0
      what = "POOL with an empty clamp range";
      break;
    case 4:
      p.wide = true;
      p.aSigned = false;
      wantCode = static_cast<uint32_t>(ErrCode::kBadField);
      wantInfo = 14;  // wide: word 0 bit 14
      what = "POOL of 16-bit values not signed";
      break;
    default:
      p.avg = false;
      p.trunc = true;
      wantCode = static_cast<uint32_t>(ErrCode::kBadField);
      wantInfo = 15;  // trunc: word 0 bit 15
      what = "POOL MAX marked truncating";
  }
  const CommandWords bad = encode(Command{Deps{}, p});
  if (wantCode == static_cast<uint32_t>(ErrCode::kBadField) &&
      check(bad).bit != static_cast<int>(wantInfo))
    f.fail(what + ": check() names bit " + std::to_string(check(bad).bit));
  expectCommandError(npu, bad, wantCode, wantInfo, what, f);
  ++t.faults;
}

uint64_t timedStretch(Npu& npu, std::mt19937_64& rng, Failures& f, uint64_t& values) {
  auto& mem = npu.mem().mem();
  constexpr int kCommands = 16;
  std::vector<Command> s;
  Pool p;
  for (int i = 0; i < kCommands; ++i) {
    p = Pool{};
    p.aSigned = true;
    p.fh = p.fw = 3;
    p.sw = 2;
    p.m = 56;
    p.n = kC;
    p.rowStride = (55 * 2 + 3) * kC;
    p.inpAddr = static_cast<uint32_t>(i) * 3 * p.rowStride;
    p.outAddr = static_cast<uint32_t>(i % 8) * 56 * kC;
    p.clampMin = -128;
    p.clampMax = 127;
    s.push_back(cmd(p, false, false, false, i == kCommands - 1));
  }
  DmaStore dump;
  dump.bufId = Buffer::kOut;
  dump.elemWidth = ElemWidth::kW8;
  dump.dramAddr = kOutDump;
  dump.bufAddr = p.outAddr;
  dump.count0 = 56 * kC;
  dump.count1 = 1;
  s.push_back(cmd(dump, true));
  End end;
  end.irq = true;
  end.tag = static_cast<uint16_t>(rng());
  s.push_back(cmd(end));
  const uint64_t c0 = npu.cycle();
  if (!runJob(npu, s, end.tag, f, "back-to-back POOLs", 400000)) return 0;
  const uint64_t cycles = npu.cycle() - c0;
  for (uint32_t i = 0; i < 56; ++i)
    for (uint32_t j = 0; j < kC; ++j)
      if (getN(mem, kOutDump + i * kC + j, 1, true) != model(p, mem, i, j)) {
        f.fail("back-to-back POOLs: a result is wrong");
        return cycles;
      }
  values = uint64_t{kCommands} * 56 * 9;
  return cycles;
}

TestbenchResult runNpuPool(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t iterations = opt.iterations ? opt.iterations : 120;
  std::mt19937_64 rng(opt.seed);
  Npu npu(opt, 1 << 20, rng());
  Failures f;
  npu.mem().setTiming(80, 1, 6);
  npu.setupRing(64, 100000);
  loadImages(npu, rng, kInpImage, 0x80000, 16384, f);
  Tally t;
  const uint64_t c0 = npu.cycle();
  for (uint64_t it = 0; it < iterations && f.first.empty(); ++it) {
    randomCase(npu, rng, it, f, t);
    if (f.first.empty() && it % 2 == 1) faultCase(npu, rng, static_cast<int>((it / 2) % 6), f, t);
    res.iterations = it + 1;
  }
  const uint64_t randomCycles = npu.cycle() - c0;
  uint64_t values = 0;
  const uint64_t timed = f.first.empty() ? timedStretch(npu, rng, f, values) : 0;
  for (const auto& v : npu.mem().violations()) f.fail("AXI protocol: " + v);
  if (f.first.empty() && t.atEnd == 0) f.fail("no footprint ended at INP's last byte");
  res.cycles = npu.cycle();
  std::ostringstream os;
  os << t.commands << " POOLs (" << t.avg << " AVG, " << t.trunc << " of them truncating, "
     << t.wide << " int16, " << t.large << " with windows over 15; " << t.atEnd
     << " ending at INP's last byte; " << t.values << " window values): " << t.results
     << " results exact vs the reference's formula (" << t.inside
     << " strictly inside the clamps), channels past n and OUT around each tile untouched ("
     << randomCycles << " cycles); " << t.faults
     << " faults (one byte past INP or OUT: dma_oob; no filter rows, an empty clamp range, "
        "unsigned 16-bit values, a truncating MAX: bad_field) as documented; 16 back-to-back 3x3 "
        "MAX row tiles "
        "of 56 pixels ("
     << values << " window values): " << timed << " cycles (doorbell to interrupt, checked)";
  return finish(res, f, os.str());
}

TestbenchRegistrar reg{
    TestbenchDef{"npu_pool",
                 "Whole NPU: random POOLs (ISA 1.7, trunc 1.8) vs the reference's pooling formula, "
                 "OUT outside the tile "
                 "untouched, their faults, and back-to-back POOLs timed (iterations = commands)",
                 &runNpuPool, 30}};

}  // namespace
}  // namespace nncosim::testbench
