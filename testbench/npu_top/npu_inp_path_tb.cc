// Testbench `npu_inp_path`: the on-chip OUT-to-INP path (REQUANT_STORE to_inp, ISA 1.9) on
// the whole NPU, through the job protocol. INP holds a random image (a C++ mirror follows
// every write). Each iteration is one job: a k-major GEMM of M x K x C from the image, its
// rows requantized to 8 bits straight into INP (random signs, zero points, per-channel or
// per-tensor parameters, clamps; the rows anywhere in INP, past OUT's capacity too, now and
// then over the GEMM's own operand or ending at INP's last byte; every other chain in
// segments with random gaps, ISA 1.13), a window GEMM of the same queue reading INP back
// as pixel vectors from the rows' first, its ACC rows and the INP bytes the rows span
// stored by DMA and checked against ops/quant and the mirror; meanwhile the load queue
// writes another INP region, so the DMA and the requant unit meet on INP's write port. In
// turn, one fault: to_inp with 16-bit outputs (bad_field at out_width), rows one byte past
// INP (dma_oob naming INP), segments with int64 rows (bad_field at segments) or segments
// whose gaps would pass INP (dma_oob naming INP). Then a timed stretch (32 REQUANT_STOREs of R rows
// into INP against the same into OUT) and a dump of the whole of INP against the mirror: nothing
// was written where it should not be.
#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "testbench/npu_top/npu_harness.h"

namespace nncosim::testbench {
namespace {

using namespace nncosim::firmware;
using namespace nncosim::testbench::npu;

// DRAM: the INP image, the WGT image, PRM parameters, stored ACC and INP rows, reload data
// for the concurrent load, an ACC image for the timed stretch, and the final INP dump.
constexpr uint32_t kInpImage = 0x40000, kWgtImage = 0x80000, kWgtImageBytes = 0x10000,
                   kPrmImage = 0x90000, kAccOut = 0x92000, kRowsOut = 0x96000, kReload = 0x98000,
                   kAccImage = 0xA0000, kInpDump = 0x140000;
constexpr uint32_t kReloadMax = 4096, kTileBytes = kR * kC * 4;
static_assert(kInpImage + kInpBufBytes <= kWgtImage, "INP image overlaps the WGT image");
static_assert(kAccImage + kTileBytes <= kInpDump, "ACC image overlaps the INP dump");
struct Tally {
  uint64_t chains = 0, rows = 0, pastOut = 0, atEnd = 0, overOperand = 0, reloadBytes = 0,
           faults = 0, segmented = 0, gapsTaken = 0;
};

// Where each row of a REQUANT_STORE with segments lands, in C-byte vectors from out_addr
// (docs/isa.md, ISA 1.13): a gap of seg_gap vectors after each pair that fills its segment
// (the first holds seg_pairs - seg_first pairs, one at least) while fewer than seg_gaps were taken.
std::vector<uint32_t> rowVectors(const RequantStore& r, uint64_t& gapsTaken) {
  std::vector<uint32_t> at(r.rows);
  uint32_t skip = 0, column = r.segFirst, taken = 0;
  for (uint32_t pair = 0; 2 * pair < r.rows; ++pair) {
    for (uint32_t i = 2 * pair; i < std::min(r.rows, 2 * pair + 2); ++i) at[i] = i + skip;
    if (!r.segments) continue;
    if (++column >= r.segPairs && taken < r.segGaps) {
      column = 0;
      ++taken;
      skip += r.segGap;
    }
  }
  gapsTaken += taken;
  return at;
}

int64_t rndIn(std::mt19937_64& rng, int64_t a, int64_t b) {
  return a + static_cast<int64_t>(rng() % static_cast<uint64_t>(b - a + 1));
}

bool overlaps(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) { return a0 < b1 && b0 < a1; }

void chainCase(Npu& npu, std::mt19937_64& rng, std::vector<uint8_t>& inp, Failures& f, Tally& t,
               Requant8& last) {
  auto rnd = [&](int64_t a, int64_t b) { return rndIn(rng, a, b); };
  auto& mem = npu.mem().mem();
  const uint32_t M = static_cast<uint32_t>(rnd(1, kR)), K = static_cast<uint32_t>(rnd(1, 64));
  // GEMM 1: k-major A (K x R bytes) from INP, all C columns (REQUANT_STORE writes them all).
  Gemm g1;
  g1.aSigned = rng() % 2;
  g1.bSigned = rng() % 2;
  g1.aZp = static_cast<int32_t>(rng() % 2 ? 0 : rnd(-127, 127));
  g1.bZp = static_cast<int32_t>(rng() % 2 ? 0 : rnd(-127, 127));
  g1.m = M;
  g1.n = kC;
  g1.k = K;
  g1.inpAddr = static_cast<uint32_t>(rnd(0, kInpBufBytes - K * kR));
  g1.wgtAddr = static_cast<uint32_t>(rnd(0, kWgtImageBytes - K * kC));
  g1.accAddr = static_cast<uint32_t>(rnd(0, 7)) * kTileBytes;
  const Requant8 q = randomRequant8(rng, mem, kPrmImage);
  RequantStore rq = q.command(g1.accAddr, M, 0, true);
  if (t.chains % 2) {  // segments: short ones, gaps of 0 to 8 vectors, a first one of any column
    rq.segments = true;
    rq.segPairs = static_cast<uint32_t>(rnd(0, 4));
    rq.segFirst = static_cast<uint32_t>(rnd(0, 5));
    rq.segGap = static_cast<uint32_t>(rnd(0, 8));
    rq.segGaps = static_cast<uint32_t>(rnd(0, 6));
    ++t.segmented;
  }
  uint64_t gapsTaken = 0;
  const std::vector<uint32_t> at = rowVectors(rq, gapsTaken);
  // The requantized rows: anywhere, at INP's end, or over GEMM 1's operand (read already);
  // their footprint counts every gap they may take.
  const uint32_t rowBytes = (M + (rq.segments ? rq.segGaps * rq.segGap : 0)) * kC;
  uint32_t x;
  switch (rng() % 4) {
    case 0:
      x = kInpBufBytes - rowBytes;
      ++t.atEnd;
      break;
    case 1:
      x = std::min<uint32_t>(g1.inpAddr, kInpBufBytes - rowBytes);
      ++t.overOperand;
      break;
    default:
      x = static_cast<uint32_t>(rnd(0, kInpBufBytes - rowBytes));
      break;
  }
  if (x + rowBytes > kOutBufBytes) ++t.pastOut;
  // GEMM 2: a window over the rows as pixel vectors (lane_stride C), its first vec channels.
  Gemm g2;
  g2.window = true;
  g2.vec = static_cast<uint32_t>(rnd(1, std::min(kR, kC)));
  g2.taps = 1;
  g2.tiles = 1;
  g2.k = g2.vec;
  g2.laneStride = kC;
  g2.inpAddr = x;
  g2.aSigned = q.isSigned;
  g2.bSigned = rng() % 2;
  g2.aZp = q.zp;
  g2.bZp = static_cast<int32_t>(rnd(-127, 127));
  g2.m = M;
  g2.n = static_cast<uint32_t>(rnd(1, kC));
  g2.wgtAddr = static_cast<uint32_t>(rnd(0, kWgtImageBytes - g2.k * kC));
  g2.accAddr = static_cast<uint32_t>(rnd(8, 15)) * kTileBytes;
  // The load queue's write into INP meanwhile, clear of everything the chain touches.
  uint32_t reloadAddr = 0, reloadBytes = 0;
  for (int tries = 0; tries < 50 && reloadBytes == 0; ++tries) {
    const auto n = static_cast<uint32_t>(rnd(16, kReloadMax));
    const auto a = static_cast<uint32_t>(rnd(0, kInpBufBytes - n));
    if (!overlaps(a, a + n, g1.inpAddr, g1.inpAddr + K * kR) &&
        !overlaps(a, a + n, x, x + rowBytes)) {
      reloadAddr = a;
      reloadBytes = n;
    }
  }
  for (uint32_t b = 0; b < reloadBytes; ++b) mem[kReload + b] = static_cast<uint8_t>(rng());

  // Reference: GEMM 1 from the mirror, the rows into the mirror (where their segments put
  // them), GEMM 2 from the mirror.
  auto elem = [](uint8_t v, bool s) { return s ? int64_t{static_cast<int8_t>(v)} : int64_t{v}; };
  const std::vector<uint8_t> gemm1Inp(inp.begin() + g1.inpAddr, inp.begin() + g1.inpAddr + K * kR);
  for (uint32_t i = 0; i < M; ++i)
    for (uint32_t j = 0; j < kC; ++j) {
      int64_t s = 0;
      for (uint32_t k = 0; k < K; ++k)
        s += (elem(gemm1Inp[k * kR + i], g1.aSigned) - g1.aZp) *
             (elem(mem[kWgtImage + g1.wgtAddr + k * kC + j], g1.bSigned) - g1.bZp);
      inp[x + at[i] * kC + j] = q.apply(static_cast<uint32_t>(s), j);
    }
  const std::vector<uint8_t> rows(inp.begin() + x, inp.begin() + x + rowBytes);
  std::copy(mem.begin() + kReload, mem.begin() + kReload + reloadBytes, inp.begin() + reloadAddr);
  std::vector<uint32_t> want(kR * kC, 0);
  for (uint32_t i = 0; i < M; ++i)
    for (uint32_t j = 0; j < g2.n; ++j) {
      int64_t s = 0;
      for (uint32_t c = 0; c < g2.vec; ++c)
        s += (elem(rows[i * kC + c], g2.aSigned) - g2.aZp) *
             (elem(mem[kWgtImage + g2.wgtAddr + c * kC + j], g2.bSigned) - g2.bZp);
      want[i * kC + j] = static_cast<uint32_t>(s);
    }

  // The job. Load: PRM (token to compute), then the concurrent INP write. Compute: GEMM 1,
  // REQUANT_STORE to_inp, GEMM 2 (token to store). Store: ACC rows and the INP rows.
  std::fill(mem.begin() + kAccOut, mem.begin() + kAccOut + M * g2.n * 4 + 64, 0x5A);
  std::fill(mem.begin() + kRowsOut, mem.begin() + kRowsOut + rowBytes + 64, 0xC3);
  std::vector<Command> s;
  s.push_back(cmd(load(Buffer::kPrm, ElemWidth::kW8, kPrmImage, 0, 0, 0, 0, 0, kPrmBytes, 1, 1),
                  false, false, false, true));
  if (reloadBytes)
    s.push_back(cmd(
        load(Buffer::kInp, ElemWidth::kW8, kReload, 0, 0, reloadAddr, 0, 0, reloadBytes, 1, 1)));
  s.push_back(cmd(g1, true));
  rq.outAddr = x;
  s.push_back(cmd(rq));
  s.push_back(cmd(g2, false, false, false, true));
  s.push_back(cmd(accStore(g2.accAddr, M, g2.n, kAccOut), true));
  DmaStore st;
  st.bufId = Buffer::kInp;
  st.elemWidth = ElemWidth::kW8;
  st.dramAddr = kRowsOut;
  st.bufAddr = x;
  st.count0 = rowBytes;
  s.push_back(cmd(st));
  End e;
  e.irq = true;
  e.tag = static_cast<uint16_t>(rng());
  s.push_back(cmd(e));
  std::ostringstream what;
  what << "chain " << t.chains << ": GEMM M=" << M << " K=" << K << " -> " << (int)M
       << " rows into INP at " << x;
  if (rq.segments)
    what << " (segments: seg_pairs " << rq.segPairs << ", seg_first " << rq.segFirst << ", seg_gap "
         << rq.segGap << ", seg_gaps " << rq.segGaps << ")";
  what << " -> window GEMM vec=" << g2.vec << " n=" << g2.n;
  if (!runJob(npu, s, e.tag, f, what.str(), 400000)) return;
  for (uint32_t b = 0; b < rowBytes; ++b)
    if (mem[kRowsOut + b] != rows[b]) {
      f.fail(what.str() + ": INP row byte " + std::to_string(b) + " = " +
             std::to_string(mem[kRowsOut + b]) + ", want " + std::to_string(rows[b]));
      return;
    }
  if (mem[kRowsOut + rowBytes] != 0xC3) f.fail(what.str() + ": stored past the INP rows");
  checkAcc(mem, kAccOut, want, M, g2.n, f, what.str());
  ++t.chains;
  t.rows += M;
  t.gapsTaken += gapsTaken;
  t.reloadBytes += reloadBytes;
  last = q;
}

void faultCase(Npu& npu, std::mt19937_64& rng, int kind, const Requant8& q, Failures& f, Tally& t) {
  const auto rows = static_cast<uint32_t>(rndIn(rng, 1, kR));
  RequantStore r = q.command(0, rows, 0, true);
  uint32_t wantCode = static_cast<uint32_t>(ErrCode::kDmaOob), wantInfo = 0;
  std::string what;
  if (kind == 0) {
    r.outWidth = ElemWidth::kW16;
    wantCode = static_cast<uint32_t>(ErrCode::kBadField);
    wantInfo = 12;  // out_width: word 0 bits 13:12
    what = "REQUANT_STORE to_inp of 16-bit outputs";
  } else if (kind == 1) {
    r.outAddr = kInpBufBytes - rows * kC + 1;
    wantInfo = static_cast<uint32_t>(Buffer::kInp);
    what = "REQUANT_STORE to_inp one byte past INP";
  } else if (kind == 2) {
    r.segments = true;
    r.acc64 = true;
    r.segPairs = 1;
    wantCode = static_cast<uint32_t>(ErrCode::kBadField);
    wantInfo = 2 * 32 + 23;  // segments: word 2 bit 23
    what = "REQUANT_STORE with segments of int64 rows";
  } else {
    // The rows fit; the gaps they may take pass INP's end by a byte.
    r.segments = true;
    r.segPairs = 1;
    r.segGap = static_cast<uint32_t>(rndIn(rng, 1, 8));
    r.segGaps = static_cast<uint32_t>(rndIn(rng, 1, 8));
    r.outAddr = kInpBufBytes - (rows + r.segGaps * r.segGap) * kC + 1;
    wantInfo = static_cast<uint32_t>(Buffer::kInp);
    what = "REQUANT_STORE whose segments' gaps pass INP by a byte";
  }
  const CommandWords bad = encode(Command{Deps{}, r});  // unchecked: the NPU must refuse it
  if (wantCode == static_cast<uint32_t>(ErrCode::kBadField) &&
      check(bad).bit != static_cast<int>(wantInfo))
    f.fail(what + ": check() names bit " + std::to_string(check(bad).bit));
  expectCommandError(npu, bad, wantCode, wantInfo, what, f);
  ++t.faults;
}

// 32 back-to-back REQUANT_STOREs of R rows from one ACC tile (loaded from a random image),
// into consecutive INP places, against the same 32 into OUT: cycles from the doorbell to the
// interrupt. The INP rows join the mirror (the final dump checks them).
void timedStretch(Npu& npu, std::mt19937_64& rng, const Requant8& q, std::vector<uint8_t>& inp,
                  Failures& f, uint64_t& toInp, uint64_t& toOut) {
  auto& mem = npu.mem().mem();
  constexpr uint32_t kCount = 32, kBase = 0x10000;
  for (uint32_t b = 0; b < kTileBytes; ++b) mem[kAccImage + b] = static_cast<uint8_t>(rng());
  End e;
  e.irq = true;
  e.tag = 7;
  if (!runJob(npu,
              {cmd(load(Buffer::kAcc, ElemWidth::kW8, kAccImage, 0, 0, 0, 0, 0, kTileBytes, 1, 1)),
               cmd(load(Buffer::kPrm, ElemWidth::kW8, kPrmImage, 0, 0, 0, 0, 0, kPrmBytes, 1, 1)),
               cmd(e)},
              e.tag, f, "ACC image load", 400000))
    return;
  for (int intoInp = 1; intoInp >= 0; --intoInp) {
    std::vector<Command> s;
    for (uint32_t i = 0; i < kCount; ++i)
      s.push_back(cmd(q.command(0, kR, (intoInp ? kBase : 0) + i * kR * kC, intoInp)));
    e.tag = static_cast<uint16_t>(8 + intoInp);
    s.push_back(cmd(e));
    const uint64_t c0 = npu.cycle();
    if (!runJob(npu, s, e.tag, f, intoInp ? "REQUANT_STOREs into INP" : "into OUT", 400000)) return;
    (intoInp ? toInp : toOut) = npu.cycle() - c0;
  }
  for (uint32_t i = 0; i < kCount; ++i)
    for (uint32_t r = 0; r < kR; ++r)
      for (uint32_t j = 0; j < kC; ++j)
        inp[kBase + (i * kR + r) * kC + j] =
            q.apply(static_cast<uint32_t>(getN(mem, kAccImage + (r * kC + j) * 4, 4, false)), j);
}

TestbenchResult runNpuInpPath(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t iterations = opt.iterations ? opt.iterations : 200;
  std::mt19937_64 rng(opt.seed);
  Npu npu(opt, 2 << 20, rng());
  Failures f;
  npu.mem().setTiming(80, 1, 6);
  npu.setupRing(64, 100000);
  loadImages(npu, rng, kInpImage, kWgtImage, kWgtImageBytes, f);
  auto& mem = npu.mem().mem();
  std::vector<uint8_t> inp(mem.begin() + kInpImage, mem.begin() + kInpImage + kInpBufBytes);
  Tally t;
  Requant8 last;
  const uint64_t c0 = npu.cycle();
  for (uint64_t it = 0; it < iterations && f.first.empty(); ++it) {
    chainCase(npu, rng, inp, f, t, last);
    if (f.first.empty()) faultCase(npu, rng, static_cast<int>(it % 4), last, f, t);
    res.iterations = it + 1;
  }
  const uint64_t randomCycles = npu.cycle() - c0;
  uint64_t toInp = 0, toOut = 0;
  if (f.first.empty()) timedStretch(npu, rng, last, inp, f, toInp, toOut);
  // The whole of INP against the mirror.
  if (f.first.empty()) checkInpMirror(npu, inp, kInpDump, f);
  for (const auto& v : npu.mem().violations()) f.fail("AXI protocol: " + v);
  if (f.first.empty() && (t.atEnd == 0 || t.pastOut == 0 || t.overOperand == 0))
    f.fail("the rows never ended at INP's end, passed OUT's capacity or covered the operand");
  if (f.first.empty() && iterations >= 8 && (t.segmented == 0 || t.gapsTaken == 0))
    f.fail("no chain wrote rows in segments with a gap");
  res.cycles = npu.cycle();
  std::ostringstream os;
  os << t.chains << " GEMM -> REQUANT_STORE to_inp -> window GEMM chains (" << t.rows
     << " rows into INP: " << t.atEnd << " ending at its last byte, " << t.pastOut
     << " past OUT's capacity, " << t.overOperand << " over the GEMM's operand; " << t.reloadBytes
     << " bytes loaded into INP meanwhile) exact vs ops/quant (" << randomCycles << " cycles); "
     << t.segmented << " of them in segments, " << t.gapsTaken << " gaps taken; " << t.faults
     << " faults (16-bit outputs, segments of int64 rows: bad_field; one byte past INP, gaps "
        "past INP: dma_oob) as documented; 32 back-to-back REQUANT_STOREs of "
     << kR << " rows: " << toInp << " cycles into INP, " << toOut
     << " into OUT; the whole of INP equal to its mirror";
  return finish(res, f, os.str());
}

TestbenchRegistrar reg{TestbenchDef{
    "npu_inp_path",
    "Whole NPU: REQUANT_STORE to_inp (ISA 1.9) chains, half in segments (ISA 1.13), read back "
    "by window GEMMs, a concurrent INP load, faults, and the rate into INP against OUT "
    "(iterations = chains)",
    &runNpuInpPath, 12}};

}  // namespace
}  // namespace nncosim::testbench
