// Testbench `npu_eltwise`: ELTWISE (ISA 1.7, the elementwise unit) on the whole NPU, through
// the job protocol. INP and WGT hold random images; each iteration loads a random parameter
// record into PRM (multipliers derived from random scales as NNAPI derives them, or random
// Q31 values; shifts now and then outside -31..31, which the unit clamps; clamps random,
// often inverted), fills OUT around the result run with a poison byte, runs one random
// ELTWISE (ADD/SUB or MUL; uint8, int8 or int16 operands; 8- or 16-bit, signed or unsigned
// outputs; 1..4096 elements, some runs ending at a buffer's last byte) and stores OUT's run
// with a margin on both sides: the results are checked against the reference's per-element
// code (ops/elementwise/quant_arith.h) over a C++ copy of the images, the margins against the
// poison (nothing written past the count). In turn, one fault: a run one byte past INP,
// WGT or OUT, a record past PRM (dma_oob naming the buffer), 16-bit operands not marked
// signed or a count of 0 (bad_field at the field). Last, 16 back-to-back ELTWISEs of 4,096
// int8 elements, timed from the doorbell to the interrupt.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ops/elementwise/quant_arith.h"
#include "testbench/npu_top/npu_harness.h"

namespace nncosim::testbench {
namespace {

using namespace nncosim::firmware;
using namespace nncosim::testbench::npu;

constexpr uint32_t kInpImage = 0x40000, kWgtImage = 0x80000, kRecord = 0xC0000, kOutDump = 0xD0000;
constexpr uint32_t kMargin = 16;  // poison bytes stored on each side of the result run
constexpr uint8_t kPoison = 0x5A;

struct Record {
  int32_t aMult = 0, bMult = 0, outMult = 0, clampMin = 0, clampMax = 0;
  int32_t aShift = 0, bShift = 0, outShift = 0;  // as stored (int8)
};

// Q31 multiplier and shift of a real factor, as the reference quantizes it.
std::pair<int32_t, int32_t> quantize(double real) {
  int exp = 0;
  const double q = std::frexp(real, &exp);
  auto m = static_cast<int64_t>(std::round(q * (int64_t{1} << 31)));
  if (m == (int64_t{1} << 31)) {
    m /= 2;
    ++exp;
  }
  return {static_cast<int32_t>(m), exp};
}

// One result as the unit computes it: the reference's element code with the record's
// parameters (shifts clamped to -31..31), the zero point added without wrapping, then the
// record's clamp and the output type's saturation.
int64_t model(const Eltwise& e, const Record& r, int32_t a, int32_t b) {
  ops::elementwise::QuantArithParams p;
  p.mul = e.mul;
  p.leftShift = static_cast<int>(e.left);
  auto sh = [](int32_t s) { return std::clamp(s, -31, 31); };
  p.a = {r.aMult, sh(r.aShift)};
  p.b = {r.bMult, sh(r.bShift)};
  p.out = {r.outMult, sh(r.outShift)};
  p.aZp = e.aZp;
  p.bZp = e.bZp;
  p.range = {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
  const int64_t y = int64_t{ops::elementwise::quantArithElement(p, a, b)} + e.outZp;
  int64_t v = y < r.clampMin ? r.clampMin : (y > r.clampMax ? r.clampMax : y);
  const int bits = e.outWide ? 16 : 8;
  const int64_t lo = e.outSigned ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi = e.outSigned ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  return std::max(lo, std::min(hi, v));
}

struct Tally {
  uint64_t commands = 0, results = 0, mul = 0, sub = 0, wide = 0, inside = 0, atEnd = 0, faults = 0;
};

Eltwise randomEltwise(std::mt19937_64& rng, Record& r, bool atEnd) {
  auto rnd = [&](int64_t a, int64_t b) {
    return a + static_cast<int64_t>(rng() % static_cast<uint64_t>(b - a + 1));
  };
  Eltwise e;
  e.mul = rng() % 4 == 0;
  e.wide = !e.mul && rng() % 4 == 0;
  e.aSigned = e.wide || rng() % 2;
  e.bSigned = e.wide || rng() % 2;
  e.outWide = e.wide ? rng() % 4 != 0 : rng() % 6 == 0;
  e.outSigned = e.wide ? rng() % 4 != 0 : (rng() % 4 ? e.aSigned : rng() % 2 == 0);
  e.left = e.mul ? 0 : (rng() % 4 ? (e.wide ? 15 : 20) : static_cast<uint32_t>(rnd(0, 31)));
  const uint32_t maxCount = rng() % 3 ? 4096 : 300;
  e.count = static_cast<uint32_t>(rng() % 8 == 0 ? rnd(1, 17) : rnd(1, maxCount));
  const uint32_t eb = e.wide ? 2 : 1, ob = e.outWide ? 2 : 1;
  const uint32_t aBytes = e.count * eb, outBytes = e.count * ob;
  e.aAddr = static_cast<uint32_t>(atEnd && rng() % 2 ? kInpBufBytes - aBytes
                                                     : rnd(0, kInpBufBytes - aBytes));
  e.bAddr = static_cast<uint32_t>(atEnd && rng() % 2 ? kWgtBufBytes - aBytes
                                                     : rnd(0, kWgtBufBytes - aBytes));
  // OUT's run keeps a poison margin inside the buffer on both sides.
  e.outAddr = static_cast<uint32_t>(rnd(kMargin, kOutBufBytes - kMargin - outBytes));
  e.prmAddr = static_cast<uint32_t>(rng() % 8 == 0 ? kPrmBufBytes - kEltwisePrmBytes
                                                   : rnd(0, kPrmBufBytes - kEltwisePrmBytes));
  const bool u8 = !e.wide && !e.aSigned;
  auto zp = [&](bool isSigned) -> int32_t {
    if (e.wide) return rng() % 4 ? 0 : static_cast<int32_t>(rnd(-300, 300));
    return static_cast<int32_t>(isSigned ? rnd(-128, 127) : rnd(0, 255));
  };
  e.aZp = zp(e.aSigned);
  e.bZp = zp(e.bSigned);
  e.outZp = static_cast<int32_t>(e.outSigned ? rnd(-128, 127) : rnd(0, 255));
  (void)u8;
  if (rng() % 2) {  // scales, as NNAPI derives the multipliers
    const double sa = std::exp(rnd(-800, 200) / 100.0), sb = std::exp(rnd(-800, 200) / 100.0),
                 so = std::exp(rnd(-800, 200) / 100.0);
    if (e.mul) {
      const auto [m, s] = quantize(std::min(0.999, sa * sb / so));
      r.outMult = m;
      r.outShift = s;
      r.aMult = r.bMult = 0;
      r.aShift = r.bShift = 0;
    } else {
      const double twice = 2 * std::max(sa, sb);
      std::tie(r.aMult, r.aShift) = quantize(sa / twice);
      std::tie(r.bMult, r.bShift) = quantize(sb / twice);
      if (rng() % 3 == 0) r.bMult = -r.bMult;  // SUB
      std::tie(r.outMult, r.outShift) =
          quantize(std::min(0.999, twice / (std::ldexp(1.0, static_cast<int>(e.left)) * so)));
    }
  } else {
    auto mult = [&]() -> int32_t {
      switch (rng() % 5) {
        case 0:
          return 0;
        case 1:
          return 1 << 30;
        case 2:
          return std::numeric_limits<int32_t>::max();
        case 3:
          return static_cast<int32_t>(-rnd(1 << 30, std::numeric_limits<int32_t>::max()));
        default:
          return static_cast<int32_t>(rnd(1 << 30, std::numeric_limits<int32_t>::max()));
      }
    };
    auto shift = [&]() { return static_cast<int32_t>(rng() % 8 ? rnd(-31, 31) : rnd(-128, 127)); };
    r.aMult = mult();
    r.bMult = mult();
    r.outMult = mult();
    r.aShift = shift();
    r.bShift = shift();
    r.outShift = shift();
  }
  switch (rng() % 4) {
    case 0:  // the full range
      r.clampMin = std::numeric_limits<int32_t>::min();
      r.clampMax = std::numeric_limits<int32_t>::max();
      break;
    case 1:  // a fused ReLU6-like range
      r.clampMin = e.outZp;
      r.clampMax = e.outZp + static_cast<int32_t>(rnd(0, 200));
      break;
    case 2:  // often inverted
      r.clampMin = static_cast<int32_t>(rnd(-40000, 40000));
      r.clampMax = static_cast<int32_t>(rnd(-40000, 40000));
      break;
    default:
      r.clampMin = static_cast<int32_t>(rnd(-300, 0));
      r.clampMax = static_cast<int32_t>(rnd(0, 300));
  }
  return e;
}

void putRecord(std::vector<uint8_t>& mem, uint32_t at, const Record& r) {
  put32(mem, at + 0, static_cast<uint32_t>(r.aMult));
  put32(mem, at + 4, static_cast<uint32_t>(r.bMult));
  put32(mem, at + 8, static_cast<uint32_t>(r.outMult));
  put32(mem, at + 12, static_cast<uint32_t>(r.clampMin));
  put32(mem, at + 16, static_cast<uint32_t>(r.clampMax));
  mem[at + 20] = static_cast<uint8_t>(r.aShift);
  mem[at + 21] = static_cast<uint8_t>(r.bShift);
  mem[at + 22] = static_cast<uint8_t>(r.outShift);
  mem[at + 23] = 0;
}

void randomCase(Npu& npu, std::mt19937_64& rng, uint64_t it, Failures& f, Tally& t) {
  auto& mem = npu.mem().mem();
  Record r;
  const Eltwise e = randomEltwise(rng, r, rng() % 6 == 0 || it == 0);
  const uint32_t eb = e.wide ? 2 : 1, ob = e.outWide ? 2 : 1;
  t.atEnd += uint64_t{e.aAddr} + e.count * eb == kInpBufBytes ||
             uint64_t{e.bAddr} + e.count * eb == kWgtBufBytes;
  putRecord(mem, kRecord, r);
  const uint32_t runBytes = e.count * ob, dumpBytes = runBytes + 2 * kMargin;
  std::fill(mem.begin() + kOutDump, mem.begin() + kOutDump + dumpBytes + 64, 0x00);
  DmaLoad rec =
      load(Buffer::kPrm, ElemWidth::kW8, kRecord, 0, 0, e.prmAddr, 0, 0, kEltwisePrmBytes, 1, 1);
  DmaLoad poison =
      load(Buffer::kOut, ElemWidth::kW8, 0, 0, 0, e.outAddr - kMargin, 0, 0, dumpBytes, 1, 1);
  poison.fill = true;
  poison.fillValue = kPoison;
  DmaStore dump;
  dump.bufId = Buffer::kOut;
  dump.elemWidth = ElemWidth::kW8;
  dump.dramAddr = kOutDump;
  dump.bufAddr = e.outAddr - kMargin;
  dump.count0 = dumpBytes;
  dump.count1 = 1;
  End end;
  end.irq = true;
  end.tag = static_cast<uint16_t>(rng());
  std::vector<Command> s = {cmd(rec), cmd(poison, false, false, false, true),
                            cmd(e, true, false, false, true), cmd(dump, true), cmd(end)};
  std::ostringstream what;
  what << "ELTWISE " << it << (e.mul ? " MUL" : " ADD") << (e.wide ? " int16" : "") << " count "
       << e.count << " a@" << e.aAddr << " b@" << e.bAddr << " out@" << e.outAddr
       << (e.outWide ? " (16-bit" : " (8-bit") << (e.outSigned ? " signed)" : " unsigned)")
       << " left " << e.left << " zp " << e.aZp << "/" << e.bZp << "/" << e.outZp << " mult "
       << r.aMult << "/" << r.bMult << "/" << r.outMult << " shift " << r.aShift << "/" << r.bShift
       << "/" << r.outShift << " clamp [" << r.clampMin << ", " << r.clampMax << "]";
  if (!runJob(npu, s, end.tag, f, what.str(), 200000)) return;
  ++t.commands;
  t.mul += e.mul;
  t.sub += !e.mul && r.bMult < 0;
  t.wide += e.wide;
  for (uint32_t i = 0; i < kMargin; ++i) {
    if (mem[kOutDump + i] != kPoison || mem[kOutDump + kMargin + runBytes + i] != kPoison) {
      f.fail(what.str() + ": OUT written outside the run");
      return;
    }
  }
  for (uint32_t i = 0; i < e.count; ++i) {
    const auto a = static_cast<int32_t>(getN(mem, kInpImage + e.aAddr + i * eb, eb, e.aSigned));
    const auto b = static_cast<int32_t>(getN(mem, kWgtImage + e.bAddr + i * eb, eb, e.bSigned));
    const int64_t want = model(e, r, a, b);
    const int64_t got = getN(mem, kOutDump + kMargin + i * ob, ob, e.outSigned);
    if (got != want) {
      f.fail(what.str() + ": element " + std::to_string(i) + " (a " + std::to_string(a) + ", b " +
             std::to_string(b) + ") = " + std::to_string(got) + ", want " + std::to_string(want));
      return;
    }
    const int bits = e.outWide ? 16 : 8;
    const int64_t lo = e.outSigned ? -(int64_t{1} << (bits - 1)) : 0;
    const int64_t hi = e.outSigned ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
    t.inside +=
        want > std::max<int64_t>(lo, r.clampMin) && want < std::min<int64_t>(hi, r.clampMax);
  }
  t.results += e.count;
}

// Faults in turn; each ends the job with the documented error at the command's slot.
void faultCase(Npu& npu, std::mt19937_64& rng, int kind, Failures& f, Tally& t) {
  Record r;
  Eltwise e = randomEltwise(rng, r, false);
  const uint32_t eb = e.wide ? 2 : 1, ob = e.outWide ? 2 : 1;
  uint32_t wantCode = static_cast<uint32_t>(ErrCode::kDmaOob), wantInfo = 0;
  std::string what;
  switch (kind) {
    case 0:
      e.aAddr = kInpBufBytes - e.count * eb + 1;
      wantInfo = static_cast<uint32_t>(Buffer::kInp);
      what = "ELTWISE a one byte past INP";
      break;
    case 1:
      e.bAddr = kWgtBufBytes - e.count * eb + 1;
      wantInfo = static_cast<uint32_t>(Buffer::kWgt);
      what = "ELTWISE b one byte past WGT";
      break;
    case 2:
      e.outAddr = kOutBufBytes - e.count * ob + 1;
      wantInfo = static_cast<uint32_t>(Buffer::kOut);
      what = "ELTWISE results one byte past OUT";
      break;
    case 3:
      e.prmAddr = kPrmBufBytes - kEltwisePrmBytes + 1;
      wantInfo = static_cast<uint32_t>(Buffer::kPrm);
      what = "ELTWISE record one byte past PRM";
      break;
    case 4:
      e.wide = true;
      e.aSigned = false;
      e.bSigned = true;
      wantCode = static_cast<uint32_t>(ErrCode::kBadField);
      wantInfo = 15;  // wide: word 0 bit 15 (the constraint names its first field)
      what = "ELTWISE 16-bit operands not signed";
      break;
    default:
      e.count = 0;
      wantCode = static_cast<uint32_t>(ErrCode::kBadField);
      wantInfo = 5 * 32;  // count: word 5 bits 15:0
      what = "ELTWISE of no elements";
  }
  const CommandWords bad = encode(Command{Deps{}, e});  // unchecked: the NPU must refuse it
  if (wantCode == static_cast<uint32_t>(ErrCode::kBadField) &&
      check(bad).bit != static_cast<int>(wantInfo))
    f.fail(what + ": check() names bit " + std::to_string(check(bad).bit));
  expectCommandError(npu, bad, wantCode, wantInfo, what, f);
  ++t.faults;
}

// 16 back-to-back int8 ADDs of 4,096 elements (256 beats each): cycles from the doorbell to
// the interrupt; the last one's results checked.
uint64_t timedStretch(Npu& npu, std::mt19937_64& rng, Failures& f, uint64_t& beats) {
  auto& mem = npu.mem().mem();
  constexpr int kCommands = 16;
  constexpr uint32_t kCount = 4096;
  Record r;
  std::tie(r.aMult, r.aShift) = quantize(0.5);
  std::tie(r.bMult, r.bShift) = quantize(0.3);
  std::tie(r.outMult, r.outShift) = quantize(0.9 / (1 << 20) * (1 << 10));
  r.clampMin = -128;
  r.clampMax = 127;
  putRecord(mem, kRecord, r);
  std::vector<Command> s;
  s.push_back(
      cmd(load(Buffer::kPrm, ElemWidth::kW8, kRecord, 0, 0, 0, 0, 0, kEltwisePrmBytes, 1, 1), false,
          false, false, true));
  Eltwise e;
  for (int i = 0; i < kCommands; ++i) {
    e = Eltwise{};
    e.aSigned = e.bSigned = e.outSigned = true;
    e.left = 20;
    e.count = kCount;
    e.aAddr = static_cast<uint32_t>(i) * kCount;
    e.bAddr = static_cast<uint32_t>(rng() % 32) * kCount;
    e.outAddr = static_cast<uint32_t>(i % 8) * kCount;
    e.aZp = static_cast<int32_t>(rng() % 256) - 128;
    s.push_back(cmd(e, i == 0, false, false, i == kCommands - 1));
  }
  DmaStore dump;
  dump.bufId = Buffer::kOut;
  dump.elemWidth = ElemWidth::kW8;
  dump.dramAddr = kOutDump;
  dump.bufAddr = e.outAddr;
  dump.count0 = kCount;
  dump.count1 = 1;
  s.push_back(cmd(dump, true));
  End end;
  end.irq = true;
  end.tag = static_cast<uint16_t>(rng());
  s.push_back(cmd(end));
  const uint64_t c0 = npu.cycle();
  if (!runJob(npu, s, end.tag, f, "back-to-back ELTWISEs", 400000)) return 0;
  const uint64_t cycles = npu.cycle() - c0;
  for (uint32_t i = 0; i < kCount; ++i) {
    const auto a = static_cast<int32_t>(getN(mem, kInpImage + e.aAddr + i, 1, true));
    const auto b = static_cast<int32_t>(getN(mem, kWgtImage + e.bAddr + i, 1, true));
    if (getN(mem, kOutDump + i, 1, true) != model(e, r, a, b)) {
      f.fail("back-to-back ELTWISEs: element " + std::to_string(i) + " wrong");
      break;
    }
  }
  beats = uint64_t{kCommands} * kCount / kC;
  return cycles;
}

TestbenchResult runNpuEltwise(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t iterations = opt.iterations ? opt.iterations : 120;
  std::mt19937_64 rng(opt.seed);
  Npu npu(opt, 1 << 20, rng());
  Failures f;
  npu.mem().setTiming(80, 1, 6);
  npu.setupRing(64, 100000);
  loadImages(npu, rng, kInpImage, kWgtImage, kWgtBufBytes, f);
  Tally t;
  const uint64_t c0 = npu.cycle();
  for (uint64_t it = 0; it < iterations && f.first.empty(); ++it) {
    randomCase(npu, rng, it, f, t);
    if (f.first.empty() && it % 2 == 1) faultCase(npu, rng, static_cast<int>((it / 2) % 6), f, t);
    res.iterations = it + 1;
  }
  const uint64_t randomCycles = npu.cycle() - c0;
  uint64_t beats = 0;
  const uint64_t timed = f.first.empty() ? timedStretch(npu, rng, f, beats) : 0;
  for (const auto& v : npu.mem().violations()) f.fail("AXI protocol: " + v);
  if (f.first.empty() && t.atEnd == 0) f.fail("no run ended at a buffer's last byte");
  res.cycles = npu.cycle();
  std::ostringstream os;
  os << t.commands << " ELTWISEs (" << t.mul << " MUL, " << t.sub << " SUB, " << t.wide
     << " int16; " << t.atEnd << " ending at INP's or WGT's last byte): " << t.results
     << " results exact vs the reference's element code (" << t.inside
     << " strictly inside the clamps), OUT untouched past each run (" << randomCycles
     << " cycles); " << t.faults
     << " faults (a run one byte past INP, WGT, OUT or PRM: dma_oob; unsigned 16-bit "
        "operands, no elements: bad_field) as documented; 16 back-to-back int8 ELTWISEs of "
        "4,096 elements ("
     << beats << " beats): " << timed << " cycles (doorbell to interrupt, results checked)";
  return finish(res, f, os.str());
}

TestbenchRegistrar reg{TestbenchDef{
    "npu_eltwise",
    "Whole NPU: random ELTWISEs (ISA 1.7) vs the reference's element code, OUT outside the run "
    "untouched, their faults, and back-to-back ELTWISEs timed (iterations = commands)",
    &runNpuEltwise, 30}};

}  // namespace
}  // namespace nncosim::testbench
