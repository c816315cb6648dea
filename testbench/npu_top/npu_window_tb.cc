// Testbench `npu_window`: GEMM window mode (ISA 1.5) on the whole NPU, through the job
// protocol. INP holds a random image (loaded once, a random piece of it reloaded each
// iteration); each iteration runs a chain of 1..4 GEMMs accumulating into one ACC tile, each
// a random window: lanes m, vector length vec, inner taps and channel tiles with their
// strides (convolution-like strides and dilations, and arbitrary ones), int8 or int16 (now
// and then 8-bit weights), signed or not, zero points; some footprints end exactly at the end
// of INP, and now and then a k-major GEMM sits in the chain. The int32 ACC rows, stored with
// DMA_STORE, are checked against sums gathered from a C++ copy of INP by the ISA's address
// formula (testbench/window.h). In turn, one fault: a window ending one byte past INP
// (dma_oob naming INP), k that is not vec * taps * tiles (bad_field at k), or a window field
// set without window (bad_field at that field). Last, a timed stretch: 32 back-to-back window
// GEMMs of full tiles against the same beats as k-major GEMMs, each checked.
#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "testbench/npu_top/npu_harness.h"
#include "testbench/window.h"

namespace nncosim::testbench {
namespace {

using namespace nncosim::firmware;
using namespace nncosim::testbench::npu;

// DRAM: the INP image (the whole buffer), the WGT image, the stored ACC rows, reload data.
constexpr uint32_t kInpImage = 0x40000, kWgtImage = 0x80000, kWgtImageBytes = 0x10000,
                   kAccOut = 0x90000, kReload = 0xA0000;
static_assert(kInpImage + kInpBufBytes <= kWgtImage, "INP image overlaps the WGT image");
constexpr uint32_t kReloadMax = 4096;

// One GEMM of a chain, with what the reference needs.
struct ChainGemm {
  Gemm g;
  Window w;  // the window (g.window), for the address formula
};

// Sums the chain's products into acc (M x C, int32 wrapping) from the INP and WGT images.
void accumulate(const ChainGemm& cg, const std::vector<uint8_t>& mem, std::vector<uint32_t>& acc) {
  const Gemm& g = cg.g;
  const int eb = g.mode == GemmMode::kInt16 ? 2 : 1, wb = g.wgt8 ? 1 : eb;
  for (uint32_t t = 0; t < g.k; ++t) {
    for (uint32_t i = 0; i < g.m; ++i) {
      const uint32_t addr = g.window ? windowVectorAddress(cg.w, i, t / g.vec) + (t % g.vec) * eb
                                     : g.inpAddr + (t * kR + i) * eb;
      const int64_t a = getN(mem, kInpImage + addr, eb, g.aSigned) - g.aZp;
      for (uint32_t j = 0; j < g.n; ++j) {
        const int64_t b =
            getN(mem, kWgtImage + g.wgtAddr + (t * kC + j) * wb, wb, g.bSigned) - g.bZp;
        acc[i * kC + j] += static_cast<uint32_t>(a * b);
      }
    }
  }
}

struct Tally {
  uint64_t windows = 0, kMajor = 0, wide = 0, atEnd = 0, blocks = 0, beats = 0, faults = 0;
};

// A random window of M lanes whose footprint fits INP; `atEnd`: it ends at INP's last byte.
ChainGemm randomWindow(std::mt19937_64& rng, uint32_t M, uint32_t N, bool atEnd) {
  auto rnd = [&](int64_t a, int64_t b) {
    return a + static_cast<int64_t>(rng() % static_cast<uint64_t>(b - a + 1));
  };
  ChainGemm cg;
  Gemm& g = cg.g;
  g.mode = rng() % 4 == 0 ? GemmMode::kInt16 : GemmMode::kInt8;
  const bool wide = g.mode == GemmMode::kInt16;
  const uint32_t eb = wide ? 2 : 1;
  g.wgt8 = wide && rng() % 2;
  g.aSigned = rng() % 2;
  g.bSigned = rng() % 2;
  const int64_t aHi = wide ? 32767 : 127, bHi = wide && !g.wgt8 ? 32767 : 127;
  g.aZp = static_cast<int32_t>(rng() % 2 ? 0 : rnd(-aHi, aHi));
  g.bZp = static_cast<int32_t>(rng() % 2 ? 0 : rnd(-bHi, bHi));
  g.m = M;
  g.n = N;
  g.window = true;
  g.vec = static_cast<uint32_t>(rng() % 2 ? kR : rnd(1, kR));
  g.taps = static_cast<uint32_t>(rnd(1, rng() % 4 ? 3 : 9));
  g.tiles = static_cast<uint32_t>(rnd(1, rng() % 4 ? 2 : 6));
  // B (k x C weights of up to 2 bytes) within the WGT image, whatever the array size.
  while (uint64_t{g.vec} * g.taps * g.tiles * kC * 2 > kWgtImageBytes) {
    if (g.tiles > 1)
      --g.tiles;
    else if (g.taps > 1)
      --g.taps;
    else
      g.vec = (g.vec + 1) / 2;
  }
  g.k = g.vec * g.taps * g.tiles;
  const uint32_t vb = g.vec * eb;  // a pixel vector's bytes
  for (;;) {
    switch (rng() % 4) {  // lanes: stride 1 or 2 over vectors, overlapping, or arbitrary
      case 0:
        g.laneStride = vb;
        break;
      case 1:
        g.laneStride = 2 * vb;
        break;
      case 2:
        g.laneStride = static_cast<uint32_t>(rnd(0, vb));
        break;
      default:
        g.laneStride = static_cast<uint32_t>(rnd(0, 4000));
        break;
    }
    switch (rng() % 3) {  // inner taps: dilation 1 or 2 along a row, or arbitrary
      case 0:
        g.tapStride = g.laneStride;
        break;
      case 1:
        g.tapStride = 2 * vb;
        break;
      default:
        g.tapStride = static_cast<uint32_t>(rnd(0, 4095));
        break;
    }
    g.tapStride = std::min<uint32_t>(g.tapStride, 4095);
    g.tileStride = static_cast<uint32_t>(rng() % 2 ? rnd(0, 64) * 256 : rnd(0, 60000));
    const uint64_t span = uint64_t{M - 1} * g.laneStride + uint64_t{g.taps - 1} * g.tapStride +
                          uint64_t{g.tiles - 1} * g.tileStride + vb;
    if (span > kInpBufBytes) continue;
    g.inpAddr = static_cast<uint32_t>(atEnd ? kInpBufBytes - span : rnd(0, kInpBufBytes - span));
    break;
  }
  const uint32_t wb = g.wgt8 ? 1 : eb;
  g.wgtAddr = static_cast<uint32_t>(rnd(0, kWgtImageBytes - g.k * kC * wb));
  cg.w = Window{wide, g.inpAddr, g.m, g.vec, g.taps, g.k, g.laneStride, g.tapStride, g.tileStride};
  return cg;
}

void chainCase(Npu& npu, std::mt19937_64& rng, uint64_t it, Failures& f, Tally& t) {
  auto rnd = [&](int64_t a, int64_t b) {
    return a + static_cast<int64_t>(rng() % static_cast<uint64_t>(b - a + 1));
  };
  auto& mem = npu.mem().mem();
  // A piece of INP reloaded with new bytes (the C++ copy follows).
  const uint32_t len = static_cast<uint32_t>(rnd(1, kReloadMax));
  const uint32_t at = static_cast<uint32_t>(rnd(0, kInpBufBytes - len));
  for (uint32_t b = 0; b < len; ++b) {
    mem[kReload + b] = static_cast<uint8_t>(rng());
    mem[kInpImage + at + b] = mem[kReload + b];
  }
  std::vector<Command> s;
  s.push_back(cmd(load(Buffer::kInp, ElemWidth::kW8, kReload, 0, 0, at, 0, 0, len, 1, 1), false,
                  false, false, true));

  const uint32_t M = static_cast<uint32_t>(rng() % 3 ? kR : rnd(1, kR));
  const uint32_t N = static_cast<uint32_t>(rng() % 3 ? kC : rnd(1, kC));
  const uint32_t accAddr = static_cast<uint32_t>(rnd(0, 32)) * 64;
  const int G = static_cast<int>(rnd(1, 4));
  std::vector<uint32_t> want(kR * kC, 0);
  std::ostringstream what;
  what << "chain " << it << " M=" << M << " N=" << N << ":";
  for (int gi = 0; gi < G; ++gi) {
    ChainGemm cg;
    if (G > 1 && rng() % 6 == 0) {  // a k-major GEMM in the chain
      Gemm& g = cg.g;
      g.mode = rng() % 4 == 0 ? GemmMode::kInt16 : GemmMode::kInt8;
      const uint32_t eb = g.mode == GemmMode::kInt16 ? 2 : 1;
      g.aSigned = rng() % 2;
      g.bSigned = rng() % 2;
      g.m = M;
      g.n = N;
      g.k = static_cast<uint32_t>(rnd(1, 300));
      g.inpAddr = static_cast<uint32_t>(rnd(0, kInpBufBytes - g.k * kR * eb));
      g.wgtAddr = static_cast<uint32_t>(rnd(0, kWgtImageBytes - g.k * kC * eb));
      ++t.kMajor;
      what << " k-major k=" << g.k;
    } else {
      const bool atEnd = rng() % 8 == 0 || (it == 0 && gi == 0);
      cg = randomWindow(rng, M, N, atEnd);
      ++t.windows;
      t.wide += cg.g.mode == GemmMode::kInt16;
      t.atEnd += atEnd;
      t.blocks += uint64_t{cg.g.taps} * cg.g.tiles;
      what << " window vec=" << cg.g.vec << " taps=" << cg.g.taps << " tiles=" << cg.g.tiles
           << " strides " << cg.g.laneStride << "/" << cg.g.tapStride << "/" << cg.g.tileStride
           << (cg.g.mode == GemmMode::kInt16 ? " int16" : " int8") << (cg.g.wgt8 ? " wgt8" : "");
    }
    cg.g.accAddr = accAddr;
    cg.g.accumulate = gi > 0;
    s.push_back(cmd(cg.g, gi == 0, false, false, gi == G - 1));
    accumulate(cg, mem, want);
    t.beats += cg.g.k;
  }
  std::fill(mem.begin() + kAccOut, mem.begin() + kAccOut + M * N * 4 + 64, 0x5A);
  s.push_back(cmd(accStore(accAddr, M, N, kAccOut), true));
  End e;
  e.irq = true;
  e.tag = static_cast<uint16_t>(rng());
  s.push_back(cmd(e));
  if (!runJob(npu, s, e.tag, f, what.str(), 400000)) return;
  checkAcc(mem, kAccOut, want, M, N, f, what.str());
}

// Faults in turn: a footprint one byte past INP, k that is not whole blocks, a window field
// without window; each ends the job with the documented error at the command's slot.
void faultCase(Npu& npu, std::mt19937_64& rng, int kind, Failures& f, Tally& t) {
  ChainGemm cg = randomWindow(rng, kR, kC, true);
  Gemm& g = cg.g;
  uint32_t wantCode = static_cast<uint32_t>(ErrCode::kBadField), wantInfo = 0;
  std::string what;
  if (kind == 0) {
    // One byte further: the footprint's end moves past INP whichever term carries it.
    if (g.tileStride && g.tiles > 1)
      ++g.tileStride;
    else if (g.inpAddr < kInpBufBytes)
      ++g.inpAddr;
    wantCode = static_cast<uint32_t>(ErrCode::kDmaOob);
    wantInfo = static_cast<uint32_t>(Buffer::kInp);
    what = "window one byte past INP";
  } else if (kind == 1) {
    g.k += rng() % 2 || g.k == 1 ? 1 : -1;
    wantInfo = 4 * 32;  // k: word 4 bits 15:0
    what = "window k not vec*taps*tiles";
  } else {
    Gemm plain;  // a 1.4 GEMM with one window field set
    const int which = static_cast<int>(rng() % 3);
    if (which == 0) plain.vec = 1 + static_cast<uint32_t>(rng() % kR);
    if (which == 1) plain.laneStride = 1 + static_cast<uint32_t>(rng() % 1000);
    if (which == 2) plain.tiles = 1 + static_cast<uint32_t>(rng() % 8);
    wantInfo = which == 0 ? 4 * 32 + 19 : which == 1 ? 6 * 32 : 7 * 32 + 20;
    g = plain;
    what = "window field without window";
  }
  const CommandWords bad = encode(Command{Deps{}, g});  // unchecked: the NPU must refuse it
  if (kind != 0 && check(bad).bit != static_cast<int>(wantInfo))
    f.fail(what + ": check() names bit " + std::to_string(check(bad).bit));
  expectCommandError(npu, bad, wantCode, wantInfo, what, f);
  ++t.faults;
}

// 32 back-to-back GEMMs of full tiles (3x3 filter rows over 2 channel tiles, k = 96 each),
// as windows and as k-major GEMMs: cycles from the doorbell to the interrupt, and ACC checked.
uint64_t timedStretch(Npu& npu, std::mt19937_64& rng, bool window, Failures& f) {
  auto& mem = npu.mem().mem();
  constexpr int kGemms = 32;
  std::vector<uint32_t> want(kR * kC, 0);
  std::vector<Command> s;
  for (int gi = 0; gi < kGemms; ++gi) {
    ChainGemm cg;
    Gemm& g = cg.g;
    g.m = kR;
    g.n = kC;
    g.aSigned = g.bSigned = true;
    g.accumulate = gi > 0;
    g.wgtAddr = static_cast<uint32_t>(rng() % 8) * 4096;
    if (window) {
      g.window = true;
      g.vec = kR;
      g.taps = 3;
      g.tiles = 2;
      g.k = 3 * 2 * kR;
      g.laneStride = g.tapStride = kR;
      g.tileStride = 8192;
      g.inpAddr = static_cast<uint32_t>(gi) * 1024;
      cg.w = Window{false, g.inpAddr,    g.m,         g.vec,       g.taps,
                    g.k,   g.laneStride, g.tapStride, g.tileStride};
    } else {
      g.k = 3 * 2 * kR;
      g.inpAddr = static_cast<uint32_t>(gi) * g.k * kR;
    }
    s.push_back(cmd(g, false, false, false, gi == kGemms - 1));
    accumulate(cg, mem, want);
  }
  std::fill(mem.begin() + kAccOut, mem.begin() + kAccOut + kR * kC * 4 + 64, 0x5A);
  s.push_back(cmd(accStore(0, kR, kC, kAccOut), true));
  End e;
  e.irq = true;
  e.tag = static_cast<uint16_t>(rng());
  s.push_back(cmd(e));
  const uint64_t c0 = npu.cycle();
  const std::string what = window ? "back-to-back windows" : "back-to-back k-major GEMMs";
  if (!runJob(npu, s, e.tag, f, what, 400000)) return 0;
  const uint64_t cycles = npu.cycle() - c0;
  checkAcc(mem, kAccOut, want, kR, kC, f, what);
  return cycles;
}

TestbenchResult runNpuWindow(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t iterations = opt.iterations ? opt.iterations : 60;
  std::mt19937_64 rng(opt.seed);
  Npu npu(opt, 1 << 20, rng());
  Failures f;
  npu.mem().setTiming(80, 1, 6);
  npu.setupRing(64, 100000);
  // The images: INP whole, WGT's first 64 KiB.
  loadImages(npu, rng, kInpImage, kWgtImage, kWgtImageBytes, f);

  Tally t;
  const uint64_t c0 = npu.cycle();
  for (uint64_t it = 0; it < iterations && f.first.empty(); ++it) {
    chainCase(npu, rng, it, f, t);
    if (f.first.empty()) faultCase(npu, rng, static_cast<int>(it % 3), f, t);
    res.iterations = it + 1;
  }
  const uint64_t randomCycles = npu.cycle() - c0;
  uint64_t windowCycles = 0, kMajorCycles = 0;
  if (f.first.empty()) {
    windowCycles = timedStretch(npu, rng, true, f);
    kMajorCycles = timedStretch(npu, rng, false, f);
  }
  for (const auto& v : npu.mem().violations()) f.fail("AXI protocol: " + v);
  if (f.first.empty() && t.atEnd == 0) f.fail("no window footprint ended at INP's end");
  res.cycles = npu.cycle();
  std::ostringstream os;
  os << t.windows << " window GEMMs (" << t.wide << " int16, " << t.atEnd
     << " ending at INP's last byte, " << t.blocks << " blocks) and " << t.kMajor
     << " k-major GEMMs in " << res.iterations << " accumulating chains, " << t.beats
     << " beats, ACC exact vs the address formula (" << randomCycles << " cycles); " << t.faults
     << " faults (footprint one byte past INP: dma_oob; k not vec*taps*tiles, a window field "
        "without window: bad_field) as documented; back-to-back, 32 GEMMs of k = "
     << 6 * kR << " (" << 32 * 6 * kR << " beats): " << windowCycles << " cycles as windows, "
     << kMajorCycles << " as k-major GEMMs (doorbell to interrupt, ACC checked)";
  return finish(res, f, os.str());
}

TestbenchRegistrar reg{TestbenchDef{
    "npu_window",
    "Whole NPU: chains of random window GEMMs (ISA 1.5) vs the address formula, their faults, "
    "and back-to-back windows timed against k-major GEMMs (iterations = chains)",
    &runNpuWindow, 8}};

}  // namespace
}  // namespace nncosim::testbench
