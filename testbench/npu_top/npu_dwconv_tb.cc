// Testbench `npu_dwconv`: DWCONV (ISA 1.6, the depthwise unit) on the whole NPU, through the
// job protocol. INP holds a random image, WGT random weights; each iteration runs a chain
// of 1..3 DWCONVs accumulating into one ACC tile (a filter split across commands: random
// m, n, filter rows and columns 1..7, strides and dilations 1 or 2, signs, zero points,
// row strides; some footprints ending at INP's last byte), now and then a k-major GEMM on
// another ACC tile between them (the compute unit hands the drain from one unit to the
// other). The int32 ACC rows, stored with DMA_STORE, are checked against the depthwise
// formula over a C++ copy of the images. In turn, one fault: a footprint one byte past INP
// or past WGT (dma_oob naming the buffer), or a stride of 3 or a filter of no rows
// (bad_field at the field). Every other iteration a shifted chain: DWCONVs of 1x1 to 2x3
// filters accumulating at random row offsets of one another, back to back, so a drained
// pair of rows (ISA 1.11: two int32 rows per ACC access) meets the pair written in the same
// cycle half a window away, which the drain must forward. Last, 48 back-to-back 3x3 stride-1
// DWCONVs of full row tiles, timed from the doorbell to the interrupt, ACC checked.
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

constexpr uint32_t kInpImage = 0x40000, kWgtImage = 0x80000, kWgtImageBytes = 0x10000,
                   kAccOut = 0x90000, kAccOut2 = 0x98000;

uint32_t spanOf(const Dwconv& w) { return (w.m - 1) * w.sw + (w.fw - 1) * w.dw + 1; }

// acc (rows of C, from row `row0`) += the DWCONV's sums over the images.
void accumulate(const Dwconv& w, const std::vector<uint8_t>& mem, std::vector<uint32_t>& acc,
                uint32_t row0 = 0) {
  for (uint32_t i = 0; i < w.m; ++i)
    for (uint32_t j = 0; j < w.n; ++j) {
      int64_t s = 0;
      for (uint32_t fy = 0; fy < w.fh; ++fy)
        for (uint32_t fx = 0; fx < w.fw; ++fx) {
          const uint64_t a =
              w.inpAddr + uint64_t{fy} * w.rowStride + (uint64_t{i} * w.sw + fx * w.dw) * kC + j;
          const uint64_t b = w.wgtAddr + (uint64_t{fy} * w.fw + fx) * kC + j;
          s += (getN(mem, kInpImage + a, 1, w.aSigned) - w.aZp) *
               (getN(mem, kWgtImage + b, 1, w.bSigned) - w.bZp);
        }
      acc[(row0 + i) * kC + j] += static_cast<uint32_t>(static_cast<uint64_t>(s));
    }
}

// A random DWCONV of m lanes and n channels whose footprint fits (`atEnd`: its INP footprint
// ends at INP's last byte).
Dwconv randomDwconv(std::mt19937_64& rng, uint32_t m, uint32_t n, bool atEnd) {
  auto rnd = [&](int64_t a, int64_t b) {
    return a + static_cast<int64_t>(rng() % static_cast<uint64_t>(b - a + 1));
  };
  Dwconv w;
  w.m = m;
  w.n = n;
  w.fh = static_cast<uint32_t>(rng() % 2 ? 3 : rnd(1, 7));
  w.fw = static_cast<uint32_t>(rng() % 2 ? 3 : rnd(1, 7));
  w.sw = static_cast<uint32_t>(rnd(1, 2));
  w.dw = rng() % 4 ? 1 : 2;
  w.aSigned = rng() % 2;
  w.bSigned = rng() % 2;
  w.aZp = static_cast<int32_t>(rng() % 2 ? 0 : rnd(-255, 255));
  w.bZp = static_cast<int32_t>(rng() % 2 ? 0 : rnd(-255, 255));
  const uint32_t spanBytes = spanOf(w) * kC;
  w.rowStride = static_cast<uint32_t>(rng() % 2 ? spanBytes : rnd(0, 20000));
  const uint64_t extent = uint64_t{w.fh - 1} * w.rowStride + spanBytes;
  w.inpAddr = static_cast<uint32_t>(atEnd ? kInpBufBytes - extent : rnd(0, kInpBufBytes - extent));
  w.wgtAddr = static_cast<uint32_t>(rnd(0, kWgtImageBytes - w.fh * w.fw * kC));
  return w;
}

struct Tally {
  uint64_t dwconvs = 0, gemms = 0, atEnd = 0, rows = 0, macs = 0, faults = 0, shifted = 0;
};

void chainCase(Npu& npu, std::mt19937_64& rng, uint64_t it, Failures& f, Tally& t) {
  auto& mem = npu.mem().mem();
  const uint32_t M = static_cast<uint32_t>(rng() % 3 ? kR : 1 + rng() % kR);
  const uint32_t N = static_cast<uint32_t>(rng() % 3 ? kC : 1 + rng() % kC);
  const uint32_t accAddr = static_cast<uint32_t>(rng() % 16) * 1024;
  const uint32_t gemmAcc = 32768;  // a GEMM's tile, apart from the DWCONVs'
  const int G = static_cast<int>(1 + rng() % 3);
  std::vector<uint32_t> want(kR * kC, 0), wantGemm(kR * kC, 0);
  std::vector<Command> s;
  std::ostringstream what;
  what << "chain " << it << " M=" << M << " N=" << N << ":";
  bool gemmDone = false;
  for (int gi = 0; gi < G; ++gi) {
    Dwconv w = randomDwconv(rng, M, N, rng() % 8 == 0 || (it == 0 && gi == 0));
    t.atEnd += uint64_t{kInpBufBytes} ==
               w.inpAddr + uint64_t{w.fh - 1} * w.rowStride + uint64_t{spanOf(w)} * kC;
    w.accAddr = accAddr;
    w.accumulate = gi > 0;
    s.push_back(cmd(w));
    accumulate(w, mem, want);
    ++t.dwconvs;
    t.macs += uint64_t{w.m} * w.n * w.fh * w.fw;
    what << " dw " << w.fh << "x" << w.fw << " s" << w.sw << " d" << w.dw << " zp " << w.aZp << "/"
         << w.bZp;
    if (!gemmDone && rng() % 4 == 0) {  // a GEMM between two DWCONVs
      Gemm g;
      g.m = kR;
      g.n = kC;
      g.k = static_cast<uint32_t>(1 + rng() % 64);
      g.aSigned = g.bSigned = true;
      g.inpAddr = static_cast<uint32_t>(rng() % 1024) * 64;
      g.wgtAddr = static_cast<uint32_t>(rng() % 16) * 1024;
      g.accAddr = gemmAcc;
      s.push_back(cmd(g));
      for (uint32_t tt = 0; tt < g.k; ++tt)
        for (uint32_t i = 0; i < kR; ++i)
          for (uint32_t j = 0; j < kC; ++j)
            wantGemm[i * kC + j] +=
                static_cast<uint32_t>(getN(mem, kInpImage + g.inpAddr + tt * kR + i, 1, true) *
                                      getN(mem, kWgtImage + g.wgtAddr + tt * kC + j, 1, true));
      gemmDone = true;
      ++t.gemms;
      what << " gemm k=" << g.k;
    }
  }
  s.back().deps.pushNext = true;
  std::fill(mem.begin() + kAccOut, mem.begin() + kAccOut + M * N * 4 + 64, 0x5A);
  std::fill(mem.begin() + kAccOut2, mem.begin() + kAccOut2 + kR * kC * 4 + 64, 0x5A);
  s.push_back(cmd(accStore(accAddr, M, N, kAccOut), true));
  if (gemmDone) s.push_back(cmd(accStore(gemmAcc, kR, kC, kAccOut2)));
  End e;
  e.irq = true;
  e.tag = static_cast<uint16_t>(rng());
  s.push_back(cmd(e));
  if (!runJob(npu, s, e.tag, f, what.str(), 400000)) return;
  if (checkAcc(mem, kAccOut, want, M, N, f, what.str())) t.rows += M;
  if (gemmDone) checkAcc(mem, kAccOut2, wantGemm, kR, kC, f, what.str() + " (the GEMM's tile)");
}

// A shifted chain over 2R ACC rows: two DWCONVs of R lanes write them, then 3..6 accumulate
// m random lanes at random row offsets, small filters so each tile's sums wait for the
// drain of the one before (the pairs then meet in the drain's read and write stages).
void shiftedChainCase(Npu& npu, std::mt19937_64& rng, uint64_t it, Failures& f, Tally& t) {
  auto& mem = npu.mem().mem();
  const uint32_t N = static_cast<uint32_t>(rng() % 3 ? kC : 1 + rng() % kC);
  const uint32_t rows = 2 * kR;
  const uint32_t accAddr = static_cast<uint32_t>(rng() % 8) * rows * kC * 4;
  std::vector<uint32_t> want(rows * kC, 0);
  std::vector<Command> s;
  std::ostringstream what;
  what << "shifted chain " << it << " N=" << N << ":";
  const int G = static_cast<int>(5 + rng() % 4);
  for (int gi = 0; gi < G; ++gi) {
    const uint32_t m = gi < 2 ? kR : static_cast<uint32_t>(1 + rng() % kR);
    Dwconv w = randomDwconv(rng, m, N, false);
    w.fh = static_cast<uint32_t>(1 + rng() % 2);  // smaller: the footprint still fits
    w.fw = static_cast<uint32_t>(1 + rng() % 3);
    const uint32_t row0 = gi < 2 ? gi * kR : static_cast<uint32_t>(rng() % (rows - m + 1));
    w.accAddr = accAddr + row0 * kC * 4;
    w.accumulate = gi >= 2;
    s.push_back(cmd(w));
    accumulate(w, mem, want, row0);
    ++t.dwconvs;
    t.macs += uint64_t{w.m} * w.n * w.fh * w.fw;
    what << " dw m=" << m << " row " << row0 << " " << w.fh << "x" << w.fw;
  }
  s.back().deps.pushNext = true;
  std::fill(mem.begin() + kAccOut, mem.begin() + kAccOut + rows * N * 4 + 64, 0x5A);
  s.push_back(cmd(accStore(accAddr, rows, N, kAccOut), true));
  End e;
  e.irq = true;
  e.tag = static_cast<uint16_t>(rng());
  s.push_back(cmd(e));
  if (!runJob(npu, s, e.tag, f, what.str(), 400000)) return;
  if (checkAcc(mem, kAccOut, want, rows, N, f, what.str())) t.rows += rows;
  ++t.shifted;
}

// Faults in turn; each ends the job with the documented error at the command's slot.
void faultCase(Npu& npu, std::mt19937_64& rng, int kind, Failures& f, Tally& t) {
  Dwconv w = randomDwconv(rng, kR, kC, true);
  uint32_t wantCode = static_cast<uint32_t>(ErrCode::kDmaOob), wantInfo = 0;
  std::string what;
  if (kind == 0) {
    ++w.inpAddr;  // the footprint ended at INP's last byte
    wantInfo = static_cast<uint32_t>(Buffer::kInp);
    what = "DWCONV one byte past INP";
  } else if (kind == 1) {
    w.wgtAddr = kWgtBufBytes - w.fh * w.fw * kC + 1;
    wantInfo = static_cast<uint32_t>(Buffer::kWgt);
    what = "DWCONV weights one byte past WGT";
  } else if (kind == 2) {
    w.sw = 3;
    wantCode = static_cast<uint32_t>(ErrCode::kBadField);
    wantInfo = 1 * 32 + 26;  // sw: word 1 bits 27:26
    what = "DWCONV stride 3";
  } else {
    w.fh = 0;
    wantCode = static_cast<uint32_t>(ErrCode::kBadField);
    wantInfo = 1 * 32 + 20;  // fh: word 1 bits 22:20
    what = "DWCONV of no filter rows";
  }
  const CommandWords bad = encode(Command{Deps{}, w});  // unchecked: the NPU must refuse it
  if (wantCode == static_cast<uint32_t>(ErrCode::kBadField) &&
      check(bad).bit != static_cast<int>(wantInfo))
    f.fail(what + ": check() names bit " + std::to_string(check(bad).bit));
  expectCommandError(npu, bad, wantCode, wantInfo, what, f);
  ++t.faults;
}

// 48 back-to-back 3x3 stride-1 DWCONVs of R lanes, each into its own ACC tile (a layer's
// row tiles): cycles from the doorbell to the interrupt, the last tile's ACC checked.
uint64_t timedStretch(Npu& npu, std::mt19937_64& rng, Failures& f) {
  auto& mem = npu.mem().mem();
  constexpr int kTiles = 48;  // with the store and END within the 64-slot ring
  std::vector<Command> s;
  std::vector<uint32_t> want(kR * kC, 0);
  for (int i = 0; i < kTiles; ++i) {
    Dwconv w;
    w.m = kR;
    w.n = kC;
    w.fh = w.fw = 3;
    w.aSigned = w.bSigned = true;
    w.rowStride = (kR + 2) * kC;
    w.inpAddr = static_cast<uint32_t>(i) * 3 * w.rowStride;
    w.wgtAddr = static_cast<uint32_t>(rng() % 8) * 1024;
    w.accAddr = static_cast<uint32_t>(i % 8) * kR * kC * 4;
    s.push_back(cmd(w, false, false, false, i == kTiles - 1));
    if (i == kTiles - 1) accumulate(w, mem, want);
  }
  std::fill(mem.begin() + kAccOut, mem.begin() + kAccOut + kR * kC * 4 + 64, 0x5A);
  s.push_back(cmd(accStore(((kTiles - 1) % 8) * kR * kC * 4, kR, kC, kAccOut), true));
  End e;
  e.irq = true;
  e.tag = static_cast<uint16_t>(rng());
  s.push_back(cmd(e));
  const uint64_t c0 = npu.cycle();
  if (!runJob(npu, s, e.tag, f, "back-to-back DWCONVs", 400000)) return 0;
  const uint64_t cycles = npu.cycle() - c0;
  checkAcc(mem, kAccOut, want, kR, kC, f, "back-to-back DWCONVs");
  return cycles;
}

TestbenchResult runNpuDwconv(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t iterations = opt.iterations ? opt.iterations : 60;
  std::mt19937_64 rng(opt.seed);
  Npu npu(opt, 1 << 20, rng());
  Failures f;
  npu.mem().setTiming(80, 1, 6);
  npu.setupRing(64, 100000);
  loadImages(npu, rng, kInpImage, kWgtImage, kWgtImageBytes, f);
  Tally t;
  const uint64_t c0 = npu.cycle();
  for (uint64_t it = 0; it < iterations && f.first.empty(); ++it) {
    chainCase(npu, rng, it, f, t);
    if (f.first.empty() && it % 2 == 0) shiftedChainCase(npu, rng, it, f, t);
    if (f.first.empty()) faultCase(npu, rng, static_cast<int>(it % 4), f, t);
    res.iterations = it + 1;
  }
  const uint64_t randomCycles = npu.cycle() - c0;
  const uint64_t timed = f.first.empty() ? timedStretch(npu, rng, f) : 0;
  for (const auto& v : npu.mem().violations()) f.fail("AXI protocol: " + v);
  if (f.first.empty() && t.atEnd == 0) f.fail("no footprint ended at INP's end");
  const uint32_t perfMacs = npu.read(reg::kPerfMacs);
  res.cycles = npu.cycle();
  std::ostringstream os;
  os << t.dwconvs << " DWCONVs (" << t.atEnd << " ending at INP's last byte, " << t.macs
     << " MACs) and " << t.gemms << " GEMMs between them in " << res.iterations << " chains and "
     << t.shifted << " shifted ones, ACC exact vs the depthwise formula (" << t.rows << " rows, "
     << randomCycles << " cycles); " << t.faults
     << " faults (one byte past INP or WGT: dma_oob; stride 3, no filter rows: bad_field) as "
        "documented; 48 back-to-back 3x3 stride-1 DWCONVs of "
     << kR << " lanes: " << timed << " cycles (doorbell to interrupt, ACC checked); PERF_MACS "
     << perfMacs;
  return finish(res, f, os.str());
}

TestbenchRegistrar reg{TestbenchDef{
    "npu_dwconv",
    "Whole NPU: chains of random DWCONVs (ISA 1.6) vs the depthwise formula, GEMMs between "
    "them, their faults, and back-to-back DWCONVs timed (iterations = chains)",
    &runNpuDwconv, 8}};

}  // namespace
}  // namespace nncosim::testbench
