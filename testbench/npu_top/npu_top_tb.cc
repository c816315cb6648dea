// Testbenches `npu_top` and `bench_gemm`: the whole NPU (rtl/nnc_npu_top.sv) driven like a
// driver would: command streams built with the C++ encoder (firmware/) are written into a
// ring in a C++ AXI memory model, the host programs the registers over AXI4-Lite, rings the
// doorbell and waits for the interrupt.
//
// npu_top, per iteration: a random GEMM tile (int8 or int16, signed or unsigned, zero
// points, K split into accumulating GEMMs, per-tensor or per-channel requant to 8/16/32-bit
// outputs) loaded with strided DMA, requantized and stored, checked against the C++
// reference (ops/quant); an acc64 tile (int16 x int8/int16, K = 4096, sums beyond int32,
// int64 ACC and the 64-bit requantization; int8 weights mostly as bytes, GEMM wgt8); a DENSIFY of a
// random CSR matrix; and in turn one fault: a corrupt command, an acc64 footprint past ACC, a
// dependency deadlock (watchdog), a DMA bus error, bad densify metadata; each followed by a soft
// reset.
//
// bench_gemm: an int8 GEMM M x 1024 x 256 (M = 16 x iterations, default 256) with operands
// resident on chip: cycles against the ideal M*K*N / (R*C), and simulated cycles per second.
#include <algorithm>
#include <ctime>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_npu_top.h"
#include "firmware/isa_generated.h"
#include "firmware/job.h"
#include "ops/quant/fixed_point.h"
#include "testbench/dma/axi_mem_model.h"
#include "testbench/testbench.h"
#include "testbench/verilated_model.h"
#include "testbench/npu_top/npu_harness.h"

namespace nncosim::testbench {
namespace {

using namespace nncosim::firmware;
using namespace nncosim::testbench::npu;

// --- GEMM + requant + store ----------------------------------------------------------------
constexpr uint32_t kA = 0x10000, kB = 0x20000, kP = 0x30000, kO = 0x40000;
// PRM image: C int32 biases, C int32 multipliers, C int8 shifts (any array size).
constexpr uint32_t kPrmMult = 4 * kC, kPrmShift = 8 * kC, kPrmBytes = 9 * kC;

// The output stage both GEMM cases end with: REQUANT_STORE of M rows of ACC at accAddr
// (PRM: C biases at 0, C multipliers at kPrmMult, C shifts at kPrmShift) into OUT at
// outAddr, then (on its token) DMA_STORE of the M x N outputs to DRAM at `dram`, rows packed.
struct OutputStage {
  ElemWidth width;
  bool isSigned, perChannel, biasEn, acc64;
  int32_t zp, clampMin, clampMax;
};
void appendOutputStage(std::vector<Command>& s, const OutputStage& o, uint32_t accAddr,
                       uint32_t outAddr, uint32_t M, uint32_t N, uint32_t dram) {
  const uint32_t ob = 1u << static_cast<int>(o.width);
  RequantStore r;
  r.acc64 = o.acc64;
  r.outWidth = o.width;
  r.outSigned = o.isSigned;
  r.perChannel = o.perChannel;
  r.outZp = o.zp;
  r.accAddr = accAddr;
  r.rows = M;
  r.outAddr = outAddr;
  r.biasEn = o.biasEn;
  r.biasAddr = 0;
  r.multAddr = kPrmMult;
  r.shiftAddr = kPrmShift;
  r.clampMin = o.clampMin;
  r.clampMax = o.clampMax;
  s.push_back(cmd(r, false, false, false, true));
  DmaStore st;
  st.bufId = Buffer::kOut;
  st.elemWidth = o.width;
  st.dramAddr = dram;
  st.dramStride1 = N * ob;
  st.bufAddr = outAddr;
  st.bufStride1 = kC * ob;
  st.count0 = N;
  st.count1 = M;
  s.push_back(cmd(st, true));
}

void gemmCase(Npu& npu, std::mt19937_64& rng, Failures& f, uint64_t& macs) {
  auto rnd = [&](int64_t a, int64_t b) {
    return a + static_cast<int64_t>(rng() % static_cast<uint64_t>(b - a + 1));
  };
  const uint32_t M = static_cast<uint32_t>(rnd(1, kR)), N = static_cast<uint32_t>(rnd(1, kC));
  const bool wide = rng() % 5 == 0;
  const uint32_t K = static_cast<uint32_t>(wide ? rnd(1, 40) : rnd(1, 300));
  const int eb = wide ? 2 : 1;
  const bool as = rng() % 2, bs = rng() % 2;
  auto elemRange = [&](bool s) {
    return wide
               ? (s ? std::pair<int64_t, int64_t>{-32768, 32767}
                    : std::pair<int64_t, int64_t>{0, 65535})
               : (s ? std::pair<int64_t, int64_t>{-128, 127} : std::pair<int64_t, int64_t>{0, 255});
  };
  const auto ar = elemRange(as), br = elemRange(bs);
  const int32_t azp = static_cast<int32_t>(wide ? rnd(-3, 3) : rnd(ar.first, ar.second));
  const int32_t bzp = static_cast<int32_t>(wide ? rnd(-3, 3) : rnd(br.first, br.second));
  std::vector<int64_t> A(M * K), B(K * N);
  auto& m = npu.mem().mem();
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t t = 0; t < K; ++t) {
      A[i * K + t] = rnd(ar.first, ar.second);
      putN(m, kA + (i * K + t) * eb, A[i * K + t], eb);
    }
  }
  for (uint32_t t = 0; t < K; ++t) {
    for (uint32_t j = 0; j < N; ++j) {
      B[t * N + j] = rnd(br.first, br.second);
      putN(m, kB + (t * N + j) * eb, B[t * N + j], eb);
    }
  }
  // Requant parameters.
  const bool perChannel = rng() % 2;
  const ElemWidth ow = static_cast<ElemWidth>(rng() % 3);
  const bool os = rng() % 2;
  const int ob = 1 << static_cast<int>(ow);
  int64_t tmin, tmax;
  if (ow == ElemWidth::kW8) {
    tmin = os ? -128 : 0;
    tmax = os ? 127 : 255;
  } else if (ow == ElemWidth::kW16) {
    tmin = os ? -32768 : 0;
    tmax = os ? 32767 : 65535;
  } else {
    tmin = os ? INT32_MIN : 0;
    tmax = INT32_MAX;
  }
  const bool biasEn = rng() % 4 != 0;
  int32_t bias[kC], mult[kC];
  int shift[kC];
  for (uint32_t j = 0; j < kC; ++j) {
    bias[j] = static_cast<int32_t>(rnd(-100000, 100000));
    mult[j] = static_cast<int32_t>(rnd(int64_t{1} << 30, (int64_t{1} << 31) - 1));
    shift[j] = static_cast<int>(rng() % 8 == 0 ? rnd(-31, 30) : rnd(-16, 0));
    put32(m, kP + 4 * j, static_cast<uint32_t>(bias[j]));
    put32(m, kP + kPrmMult + 4 * j, static_cast<uint32_t>(mult[j]));
    m[kP + kPrmShift + j] = static_cast<uint8_t>(shift[j]);
  }
  const int32_t outZp = static_cast<int32_t>(
      ow == ElemWidth::kW32 ? 0
                            : rnd(std::max<int64_t>(tmin, -32768), std::min<int64_t>(tmax, 32767)));
  int32_t cmin = static_cast<int32_t>(std::max<int64_t>(tmin, INT32_MIN)),
          cmax = static_cast<int32_t>(tmax);
  if (rng() % 2) {
    int64_t a = rnd(std::max<int64_t>(tmin, -100000), std::min<int64_t>(tmax, 100000));
    int64_t b = rnd(std::max<int64_t>(tmin, -100000), std::min<int64_t>(tmax, 100000));
    cmin = static_cast<int32_t>(std::min(a, b));
    cmax = static_cast<int32_t>(std::max(a, b));
  }
  // Reference.
  std::vector<int64_t> want(M * N);
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      int64_t s = 0;
      for (uint32_t t = 0; t < K; ++t) s += (A[i * K + t] - azp) * (B[t * N + j] - bzp);
      const int32_t acc = static_cast<int32_t>(static_cast<uint32_t>(s));
      const uint32_t jj = perChannel ? j : 0;
      const int32_t x = static_cast<int32_t>(static_cast<uint32_t>(acc) +
                                             static_cast<uint32_t>(biasEn ? bias[j] : 0));
      int64_t y =
          int64_t{ops::quant::multiplyByQuantizedMultiplier(x, mult[jj], shift[jj])} + outZp;
      y = std::min<int64_t>(std::max<int64_t>(y, cmin), cmax);
      y = std::min<int64_t>(std::max<int64_t>(y, tmin), tmax);
      want[i * N + j] = y;
    }
  }
  // Output area poisoned so that unwritten bytes show.
  std::fill(m.begin() + kO, m.begin() + kO + M * N * ob + 64, 0xA5);

  // Command stream: A gathered k-major into INP, B into WGT, parameters into PRM; GEMM(s),
  // REQUANT_STORE, DMA_STORE, END.
  const ElemWidth ew = wide ? ElemWidth::kW16 : ElemWidth::kW8;
  const uint32_t inpAddr = static_cast<uint32_t>(rnd(0, 64)) * 32,
                 wgtAddr = static_cast<uint32_t>(rnd(0, 64)) * 32;
  const uint32_t accAddr = static_cast<uint32_t>(rnd(0, 32)) * 64,
                 outAddr = static_cast<uint32_t>(rnd(0, 32)) * 64;
  std::vector<Command> s;
  s.push_back(cmd(load(Buffer::kInp, ew, kA, eb, K * eb, inpAddr, kR * eb, eb, 1, K, M)));
  s.push_back(cmd(load(Buffer::kWgt, ew, kB, N * eb, 0, wgtAddr, kC * eb, 0, N, K, 1)));
  s.push_back(cmd(load(Buffer::kPrm, ElemWidth::kW8, kP, 0, 0, 0, 0, 0, kPrmBytes, 1, 1), false,
                  false, false, true));
  const uint32_t k1 = K > 1 && rng() % 2 ? static_cast<uint32_t>(rnd(1, K - 1)) : K;
  Gemm g;
  g.mode = wide ? GemmMode::kInt16 : GemmMode::kInt8;
  g.aSigned = as;
  g.bSigned = bs;
  g.m = M;
  g.n = N;
  g.aZp = azp;
  g.bZp = bzp;
  g.inpAddr = inpAddr;
  g.wgtAddr = wgtAddr;
  g.accAddr = accAddr;
  g.k = k1;
  s.push_back(cmd(g, true));
  if (k1 < K) {
    g.accumulate = true;
    g.inpAddr = inpAddr + k1 * kR * eb;
    g.wgtAddr = wgtAddr + k1 * kC * eb;
    g.k = K - k1;
    s.push_back(cmd(g));
  }
  appendOutputStage(s, {ow, os, perChannel, biasEn, false, outZp, cmin, cmax}, accAddr, outAddr, M,
                    N, kO);
  End e;
  e.irq = true;
  e.tag = static_cast<uint16_t>(rng());
  s.push_back(cmd(e));

  std::ostringstream what;
  what << "GEMM M=" << M << " K=" << K << " (split " << k1 << ") N=" << N
       << (wide ? " int16" : " int8") << " as=" << as << " bs=" << bs << " azp=" << azp
       << " bzp=" << bzp << " out w" << ob * 8 << (os ? "s" : "u")
       << (perChannel ? " per-channel" : " per-tensor");
  if (auto st2 = npu.submit(s); !st2.ok()) {
    f.fail(what.str() + ": " + st2.error());
    return;
  }
  if (!npu.waitIrq(400000)) {
    f.fail(what.str() + ": no interrupt; " + errText(npu));
    npu.softReset();
    return;
  }
  const uint32_t irq = npu.read(reg::kIrqStatus);
  npu.write(reg::kIrqStatus, irq);
  if (irq != reg::kIrqStatusDone || npu.read(reg::kLastTag) != e.tag) {
    f.fail(what.str() + ": IRQ_STATUS=" + std::to_string(irq) + "; " + errText(npu));
    npu.softReset();
    return;
  }
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      const int64_t got = getN(m, kO + (i * N + j) * ob, ob, os);
      if (got != want[i * N + j]) {
        f.fail(what.str() + ": out[" + std::to_string(i) + "][" + std::to_string(j) +
               "] = " + std::to_string(got) + ", want " + std::to_string(want[i * N + j]));
        return;
      }
    }
  }
  if (m[kO + M * N * ob] != 0xA5) f.fail(what.str() + ": wrote past the output");
  macs += uint64_t{M} * N * K;
}

// --- acc64: int16 GEMMs whose sums leave int32 -------------------------------------------------
// The 16x8 case (int16 activations, 8-bit weights: as bytes with GEMM wgt8, signed or now
// and then unsigned, or sign-extended to int16 as ISA 1.1 had to) or int16 x int16, now and
// then int8 x int8: K = 4096 with full-scale values whose signs lean one way per
// row and column (so the sums reach 2^33..2^42), split into 2..4 accumulating acc64 GEMMs,
// ACC sometimes preloaded with int64 values by DMA; REQUANT_STORE acc64 to int16 (or 8/32-bit)
// outputs against an int64 C++ model using multiplyByQuantizedMultiplier64, and the int64
// ACC rows themselves stored with DMA_STORE and compared.
constexpr uint32_t kA64 = 0x10000, kB64 = 0x30000, kPre64 = 0x50000, kP64 = 0x52000, kO64 = 0x54000,
                   kAcc64Out = 0x58000;

// K: 4096 on a 16x16 array; larger arrays halve it per doubling, so the operands (K x R
// and K x C of up to 2 bytes) keep their 128 KiB places in DRAM and in the buffers.
constexpr uint32_t kAcc64K = 4096 * 16 / (kR > kC ? (kR > 16 ? kR : 16) : (kC > 16 ? kC : 16));

void acc64Case(Npu& npu, std::mt19937_64& rng, Failures& f, uint64_t& macs, uint64_t& beyondInt32,
               uint64_t& wgt8Tiles) {
  auto rnd = [&](int64_t a, int64_t b) {
    return a + static_cast<int64_t>(rng() % static_cast<uint64_t>(b - a + 1));
  };
  auto& m = npu.mem().mem();
  const uint32_t M = static_cast<uint32_t>(rnd(1, kR)), N = static_cast<uint32_t>(rnd(1, kC)),
                 K = kAcc64K;
  // 0..2: 16x8 with wgt8 (2: unsigned weights), 3: 16x8 widened, 4..6: 16x16, 7: 8x8
  const int kind = static_cast<int>(rng() % 8);
  const bool wide = kind != 7, int8Weights = kind < 4, wgt8 = kind < 3, bSigned = kind != 2;
  const uint32_t eb = wide ? 2 : 1, wb = wgt8 ? 1 : eb;  // activation / weight bytes
  const int64_t aMax = wide ? 32767 : 127, bMax = wide && !int8Weights ? 32767 : 127;
  // Operands as the buffers want them (INP k-major over all R lanes, WGT over all C lanes),
  // so each loads with one contiguous DMA.
  std::vector<int64_t> A(kR * K), B(K * kC);
  int rowSign[kR], colSign[kC];
  for (auto& v : rowSign) v = rng() % 2 ? 1 : -1;
  for (auto& v : colSign) v = rng() % 2 ? 1 : -1;
  auto fullScale = [&](int sign, int64_t max) {
    const int64_t mag = rng() % 4 ? max - rnd(0, max / 8) : rnd(0, max);
    const int s2 = rng() % 4 ? sign : -sign;
    return s2 > 0 ? mag : -mag - (mag == max ? 1 : 0);  // reaches -32768 / -128 too
  };
  for (uint32_t t = 0; t < K; ++t) {
    for (uint32_t i = 0; i < kR; ++i) {
      A[i * K + t] = fullScale(rowSign[i], aMax);
      putN(m, kA64 + (t * kR + i) * eb, A[i * K + t], static_cast<int>(eb));
    }
    for (uint32_t j = 0; j < kC; ++j) {
      B[t * kC + j] = bSigned ? fullScale(colSign[j], bMax) : 255 - rnd(0, rng() % 4 ? 31 : 255);
      putN(m, kB64 + (t * kC + j) * wb, B[t * kC + j], static_cast<int>(wb));
    }
  }
  // ACC: preloaded (int64 values, all GEMMs accumulate) or overwritten by the first GEMM.
  const bool preload = rng() % 2;
  const uint32_t accAddr =
      static_cast<uint32_t>(rnd(0, 48)) * 64 + static_cast<uint32_t>(rnd(0, 1)) * 8;
  std::vector<uint64_t> acc(M * kC, 0);
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < kC; ++j) {
      acc[i * kC + j] = static_cast<uint64_t>(rnd(-(int64_t{1} << 40), int64_t{1} << 40));
      putN(m, kPre64 + (i * kC + j) * 8, static_cast<int64_t>(acc[i * kC + j]), 8);
    }
  }
  if (!preload) std::fill(acc.begin(), acc.end(), 0);
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      int64_t sum = 0;
      for (uint32_t t = 0; t < K; ++t) sum += A[i * K + t] * B[t * kC + j];
      acc[i * kC + j] += static_cast<uint64_t>(sum);
      beyondInt32 += static_cast<int64_t>(acc[i * kC + j]) != static_cast<int32_t>(acc[i * kC + j]);
    }
  }
  // Requant parameters: scales that bring such sums into int16.
  const ElemWidth ow = rng() % 4 ? ElemWidth::kW16 : static_cast<ElemWidth>(rng() % 3);
  const bool os = ow == ElemWidth::kW16 || rng() % 2;
  const int ob = 1 << static_cast<int>(ow);
  const int64_t tmin = ow == ElemWidth::kW32 ? (os ? INT32_MIN : 0)
                       : os                  ? -(int64_t{1} << (8 * ob - 1))
                                             : 0;
  const int64_t tmax = ow == ElemWidth::kW32 ? INT32_MAX
                       : os                  ? (int64_t{1} << (8 * ob - 1)) - 1
                                             : (int64_t{1} << (8 * ob)) - 1;
  const bool perChannel = rng() % 2, biasEn = rng() % 2;
  int32_t bias[kC], mult[kC];
  int shift[kC];
  for (uint32_t j = 0; j < kC; ++j) {
    bias[j] = static_cast<int32_t>(rng() % 2 ? rnd(INT32_MIN, INT32_MAX) : rnd(-100000, 100000));
    mult[j] = static_cast<int32_t>(rng() % 8 ? rnd(int64_t{1} << 30, (int64_t{1} << 31) - 1)
                                             : rnd(0x7FFF0000, INT32_MAX));
    shift[j] = static_cast<int>(rng() % 4 ? rnd(-31, -12) : rnd(-31, 14));
    put32(m, kP64 + 4 * j, static_cast<uint32_t>(bias[j]));
    put32(m, kP64 + kPrmMult + 4 * j, static_cast<uint32_t>(mult[j]));
    m[kP64 + kPrmShift + j] = static_cast<uint8_t>(shift[j]);
  }
  const int32_t outZp =
      ow == ElemWidth::kW32 || rng() % 2 ? 0 : static_cast<int32_t>(rnd(-50, 50) + (os ? 0 : 100));
  int32_t cmin = static_cast<int32_t>(tmin), cmax = static_cast<int32_t>(tmax);
  if (rng() % 4 == 0) {
    cmin = static_cast<int32_t>(std::max<int64_t>(tmin, -20000));
    cmax = static_cast<int32_t>(std::min<int64_t>(tmax, 20000));
  }
  std::vector<int64_t> want(M * N);
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      const uint32_t jj = perChannel ? j : 0;
      const auto x = static_cast<int64_t>(acc[i * kC + j] +
                                          static_cast<uint64_t>(int64_t{biasEn ? bias[j] : 0}));
      int64_t y =
          int64_t{ops::quant::multiplyByQuantizedMultiplier64(x, mult[jj], shift[jj])} + outZp;
      y = std::min<int64_t>(std::max<int64_t>(y, cmin), cmax);
      want[i * N + j] = std::min<int64_t>(std::max<int64_t>(y, tmin), tmax);
    }
  }
  std::fill(m.begin() + kO64, m.begin() + kO64 + M * N * ob + 64, 0xA5);
  std::fill(m.begin() + kAcc64Out, m.begin() + kAcc64Out + M * N * 8 + 64, 0x5A);

  const uint32_t inpBytes = K * kR * eb, wgtBytes = K * kC * wb;
  std::vector<Command> s;
  s.push_back(cmd(load(Buffer::kInp, ElemWidth::kW32, kA64, 0, 0, 0, 0, 0, inpBytes / 4, 1, 1)));
  s.push_back(cmd(load(Buffer::kWgt, ElemWidth::kW32, kB64, 0, 0, 0, 0, 0, wgtBytes / 4, 1, 1)));
  s.push_back(cmd(load(Buffer::kPrm, ElemWidth::kW8, kP64, 0, 0, 0, 0, 0, kPrmBytes, 1, 1)));
  if (preload) {
    s.push_back(cmd(
        load(Buffer::kAcc, ElemWidth::kW8, kPre64, kC * 8, 0, accAddr, kC * 8, 0, kC * 8, M, 1)));
  }
  s.back().deps.pushNext = true;
  // K split into 2..4 parts at random points.
  const uint32_t parts = static_cast<uint32_t>(rnd(2, 4));
  std::vector<uint32_t> cuts{0, K};
  while (cuts.size() < parts + 1) {
    const uint32_t c = static_cast<uint32_t>(rnd(1, K - 1));
    if (std::find(cuts.begin(), cuts.end(), c) == cuts.end()) cuts.push_back(c);
  }
  std::sort(cuts.begin(), cuts.end());
  for (uint32_t p = 0; p < parts; ++p) {
    Gemm g;
    g.mode = wide ? GemmMode::kInt16 : GemmMode::kInt8;
    g.acc64 = true;
    g.wgt8 = wgt8;
    g.aSigned = true;
    g.bSigned = bSigned;
    g.accumulate = preload || p > 0;
    g.m = M;
    g.n = N;
    g.k = cuts[p + 1] - cuts[p];
    g.inpAddr = cuts[p] * kR * eb;
    g.wgtAddr = cuts[p] * kC * wb;
    g.accAddr = accAddr;
    s.push_back(cmd(g, p == 0));
  }
  appendOutputStage(s, {ow, os, perChannel, biasEn, true, outZp, cmin, cmax}, accAddr, 0, M, N,
                    kO64);
  DmaStore sa;  // the int64 ACC rows (no token needed: REQUANT_STORE completed after the GEMMs)
  sa.bufId = Buffer::kAcc;
  sa.elemWidth = ElemWidth::kW8;
  sa.dramAddr = kAcc64Out;
  sa.dramStride1 = N * 8;
  sa.bufAddr = accAddr;
  sa.bufStride1 = kC * 8;
  sa.count0 = N * 8;
  sa.count1 = M;
  s.push_back(cmd(sa));
  End e;
  e.irq = true;
  e.tag = static_cast<uint16_t>(rng());
  s.push_back(cmd(e));

  std::ostringstream what;
  what << "acc64 GEMM M=" << M << " K=" << K << " in " << parts << " parts N=" << N
       << (kind == 7     ? " int8x8"
           : wgt8        ? (bSigned ? " int16x8 wgt8" : " int16xu8 wgt8")
           : int8Weights ? " int16x8 widened"
                         : " int16x16")
       << (preload ? " preloaded" : "") << " out w" << ob * 8 << (os ? "s" : "u")
       << (perChannel ? " per-channel" : " per-tensor");
  if (auto st2 = npu.submit(s); !st2.ok()) {
    f.fail(what.str() + ": " + st2.error());
    return;
  }
  if (!npu.waitIrq(1000000)) {
    f.fail(what.str() + ": no interrupt; " + errText(npu));
    npu.softReset();
    return;
  }
  const uint32_t irq = npu.read(reg::kIrqStatus);
  npu.write(reg::kIrqStatus, irq);
  if (irq != reg::kIrqStatusDone || npu.read(reg::kLastTag) != e.tag) {
    f.fail(what.str() + ": IRQ_STATUS=" + std::to_string(irq) + "; " + errText(npu));
    npu.softReset();
    return;
  }
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      const int64_t gotAcc = getN(m, kAcc64Out + (i * N + j) * 8, 8, true);
      if (gotAcc != static_cast<int64_t>(acc[i * kC + j])) {
        f.fail(what.str() + ": ACC[" + std::to_string(i) + "][" + std::to_string(j) +
               "] = " + std::to_string(gotAcc) + ", want " +
               std::to_string(static_cast<int64_t>(acc[i * kC + j])));
        return;
      }
      const int64_t got = getN(m, kO64 + (i * N + j) * ob, ob, os);
      if (got != want[i * N + j]) {
        f.fail(what.str() + ": out[" + std::to_string(i) + "][" + std::to_string(j) +
               "] = " + std::to_string(got) + ", want " + std::to_string(want[i * N + j]));
        return;
      }
    }
  }
  if (m[kO64 + M * N * ob] != 0xA5 || m[kAcc64Out + M * N * 8] != 0x5A)
    f.fail(what.str() + ": wrote past the output");
  macs += uint64_t{M} * N * K;
  wgt8Tiles += wgt8;
}

// --- DENSIFY -----------------------------------------------------------------------------------
constexpr uint32_t kDesc = 0x50000, kSeg = 0x51000, kIdx = 0x52000, kVal = 0x53000,
                   kDense = 0x60000;

// A CSR matrix (DENSE rows, SPARSE_CSR columns). corrupt: one index out of range.
void densifyCase(Npu& npu, std::mt19937_64& rng, Failures& f, bool corrupt) {
  auto& m = npu.mem().mem();
  const uint32_t rows = 1 + static_cast<uint32_t>(rng() % 20),
                 cols = 1 + static_cast<uint32_t>(rng() % 30);
  const int eb = 1 << (rng() % 3);
  std::vector<int64_t> dense(rows * cols, 0);
  std::vector<uint32_t> seg{0}, idx;
  std::vector<int64_t> vals;
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t c = 0; c < cols; ++c) {
      if (rng() % 3 == 0) {
        const int64_t v = static_cast<int64_t>(rng() % (uint64_t{1} << (8 * eb - 1))) + 1;
        dense[r * cols + c] = v;
        idx.push_back(c);
        vals.push_back(v);
      }
    }
    seg.push_back(static_cast<uint32_t>(idx.size()));
  }
  if (corrupt && idx.empty()) {
    // Needs one stored value to corrupt.
    idx.push_back(0);
    vals.push_back(1);
    for (size_t r = 1; r < seg.size(); ++r) seg[r] = 1;
    dense[0] = 1;
  }
  if (corrupt) idx[rng() % idx.size()] = cols;
  const uint32_t desc[24] = {2,
                             0,
                             static_cast<uint32_t>(vals.size()),
                             0,
                             0,
                             0,
                             0,
                             0,
                             0,
                             0,
                             rows,
                             0,
                             0,
                             0,
                             0,
                             0,
                             1,
                             1,
                             cols,
                             0,
                             kSeg,
                             static_cast<uint32_t>(seg.size()),
                             kIdx,
                             static_cast<uint32_t>(idx.size())};
  for (int w = 0; w < 24; ++w) put32(m, kDesc + 4 * w, desc[w]);
  for (size_t i = 0; i < seg.size(); ++i) put32(m, kSeg + 4 * i, seg[i]);
  for (size_t i = 0; i < idx.size(); ++i) put32(m, kIdx + 4 * i, idx[i]);
  for (size_t i = 0; i < vals.size(); ++i) putN(m, kVal + i * eb, vals[i], eb);
  std::fill(m.begin() + kDense, m.begin() + kDense + rows * cols * eb + 16, 0xC3);

  Densify d;
  d.elemWidth = static_cast<ElemWidth>(eb == 1 ? 0 : eb == 2 ? 1 : 2);
  d.descAddr = kDesc;
  d.valuesAddr = kVal;
  d.outAddr = kDense;
  d.outSize = rows * cols * eb;
  End e;
  e.irq = true;
  const uint32_t slot = npu.tail();
  if (auto s = npu.submit({cmd(d), cmd(e)}); !s.ok()) {
    f.fail("densify submit: " + s.error());
    return;
  }
  const std::string what = "DENSIFY " + std::to_string(rows) + "x" + std::to_string(cols) +
                           " eb=" + std::to_string(eb) + (corrupt ? " (corrupt index)" : "");
  if (!npu.waitIrq(400000)) {
    f.fail(what + ": no interrupt; " + errText(npu));
    npu.softReset();
    return;
  }
  const uint32_t irq = npu.read(reg::kIrqStatus);
  if (corrupt) {
    if (irq != reg::kIrqStatusError ||
        npu.read(reg::kErrCode) != static_cast<uint32_t>(ErrCode::kDensifyMeta) ||
        npu.read(reg::kErrInfo) != 8 || npu.read(reg::kErrAddr) != npu.slotAddress(slot)) {
      f.fail(what + ": want densify_meta / index error; " + errText(npu));
    }
    for (uint32_t i = 0; i < rows * cols * eb + 16; ++i) {
      if (m[kDense + i] != 0xC3) {
        f.fail(what + ": bad metadata wrote the output");
        break;
      }
    }
    npu.softReset();
    return;
  }
  npu.write(reg::kIrqStatus, irq);
  if (irq != reg::kIrqStatusDone) {
    f.fail(what + ": " + errText(npu));
    npu.softReset();
    return;
  }
  for (uint32_t i = 0; i < rows * cols; ++i) {
    if (getN(m, kDense + i * eb, eb, false) != dense[i]) {
      f.fail(what + ": element " + std::to_string(i) + " = " +
             std::to_string(getN(m, kDense + i * eb, eb, false)) + ", want " +
             std::to_string(dense[i]));
      return;
    }
  }
  if (m[kDense + rows * cols * eb] != 0xC3) f.fail(what + ": wrote past the output");
}

// --- Faults ----------------------------------------------------------------------------------
void faultCase(Npu& npu, std::mt19937_64& rng, Failures& f, int kind) {
  const uint32_t slot0 = npu.tail();
  End e;
  e.irq = true;
  uint32_t wantCode = 0, wantAddr = 0, wantInfo = 0;
  std::string what;
  const uint64_t t0 = npu.cycle();
  uint32_t wd = 0;
  if (kind == 0) {
    // A GEMM whose k is 0 (out of range), or one with wgt8 under mode int8 (ISA 1.2's
    // constraint): bad_field at its slot, bit of k or of wgt8.
    Gemm g;
    const bool wgt8Int8 = rng() % 2;
    g.wgt8 = wgt8Int8;
    CommandWords w = encode(Command{Deps{}, g});
    if (!wgt8Int8) w[4] &= ~0xFFFFu;
    DmaLoad l = load(Buffer::kInp, ElemWidth::kW8, kA, 0, 0, 0, 0, 0, 16, 1, 1);
    std::vector<CommandWords> words{encode(cmd(l)), w, encode(cmd(e))};
    (void)npu.submitWords(words);
    what = wgt8Int8 ? "corrupt command (wgt8 with mode int8)" : "corrupt command (k = 0)";
    if (wgt8Int8 && check(w).bit != 4 * 32 + 17)
      f.fail("wgt8 with mode int8: check() names bit " + std::to_string(check(w).bit));
    wantCode = static_cast<uint32_t>(ErrCode::kBadField);
    wantAddr = npu.slotAddress((slot0 + 1) % npu.slots());
    wantInfo = static_cast<uint32_t>(check(w).bit);
  } else if (kind == 1) {
    // A GEMM that waits for a load that never comes: watchdog.
    wd = 500 + static_cast<uint32_t>(rng() % 500);
    npu.write(reg::kWatchdog, wd);
    Gemm g;
    (void)npu.submit({cmd(g, true), cmd(e)});
    what = "dependency deadlock";
    wantCode = static_cast<uint32_t>(ErrCode::kWatchdog);
    wantAddr = npu.slotAddress(slot0);
  } else if (kind == 2) {
    // A load from beyond the end of DRAM: bus error at the first beat past it.
    const uint32_t end = static_cast<uint32_t>(npu.mem().mem().size());
    const uint32_t a = end - 32 - static_cast<uint32_t>(rng() % 32);
    (void)npu.submit(
        {cmd(load(Buffer::kWgt, ElemWidth::kW8, a, 0, 0, 0, 0, 0, 100, 1, 1)), cmd(e)});
    what = "DMA load past DRAM";
    wantCode = static_cast<uint32_t>(ErrCode::kBusError);
    wantAddr = end;
    wantInfo = AxiMemModel::kDecErr;
  } else if (kind == 4) {
    // A soft reset while a long load and a long store are moving data: the engines finish
    // the bursts they started (the AXI model checks every W beat arrives), then the NPU is
    // idle with HEAD 0 and the next job runs normally.
    DmaStore s;
    s.bufId = Buffer::kInp;
    s.elemWidth = ElemWidth::kW32;
    s.dramAddr = 0x80000;
    s.count0 = 8192;
    s.count1 = 2;
    s.dramStride1 = 32768;
    s.bufStride1 = 32768;
    (void)npu.submit(
        {cmd(load(Buffer::kWgt, ElemWidth::kW32, 0x10000, 32768, 0, 0, 32768, 0, 8192, 2, 1)),
         cmd(s), cmd(e)});
    for (uint64_t i = 0, n = 100 + rng() % 1500; i < n; ++i) npu.step();
    npu.softReset();
    for (int i = 0; i < 2000 && !npu.mem().idle(); ++i) npu.step();
    if (!npu.mem().idle()) f.fail("soft reset during DMA: bus transactions left hanging");
    if (!(npu.read(reg::kStatus) & reg::kStatusIdle) || npu.read(reg::kRingHead) != 0 ||
        npu.top().irq_o) {
      f.fail("soft reset during DMA did not return to idle; " + errText(npu));
    }
    return;
  } else if (kind == 5) {
    // acc64 footprints count 8-byte elements: a GEMM or REQUANT_STORE whose int32 ACC
    // footprint ends exactly at the end of ACC runs without acc64 and is dma_oob with it.
    const uint32_t accBytes = kAccBufBytes;  // nnc_npu_top's AccBytes
    Command c32, c64;
    if (rng() % 2) {
      Gemm g;
      g.m = 1 + static_cast<uint32_t>(rng() % kR);
      g.n = 1 + static_cast<uint32_t>(rng() % kC);
      g.accAddr = accBytes - ((g.m - 1) * kC + g.n) * 4;
      c32 = cmd(g);
      g.acc64 = true;
      c64 = cmd(g);
      what = "acc64 GEMM past ACC";
    } else {
      RequantStore r;
      r.rows = 1 + static_cast<uint32_t>(rng() % 16);
      r.accAddr = accBytes - r.rows * kC * 4;
      c32 = cmd(r);
      r.acc64 = true;
      c64 = cmd(r);
      what = "acc64 REQUANT_STORE past ACC";
    }
    (void)npu.submit({c32, cmd(e)});
    if (!npu.waitIrq(200000) || npu.read(reg::kIrqStatus) != reg::kIrqStatusDone) {
      f.fail(what + ": the int32 footprint must fit; " + errText(npu));
    }
    npu.write(reg::kIrqStatus, reg::kIrqStatusDone | reg::kIrqStatusError);
    const uint32_t slot = npu.tail();
    (void)npu.submit({c64, cmd(e)});
    wantCode = static_cast<uint32_t>(ErrCode::kDmaOob);
    wantAddr = npu.slotAddress(slot);
    wantInfo = static_cast<uint32_t>(Buffer::kAcc);
  } else {
    // A buffer footprint past the end of ACC: dma_oob naming the buffer.
    DmaStore s;
    s.bufId = Buffer::kAcc;
    s.dramAddr = kO;
    s.bufAddr = kAccBufBytes - 8;
    s.count0 = 16;
    (void)npu.submit({cmd(s), cmd(e)});
    what = "store past ACC";
    wantCode = static_cast<uint32_t>(ErrCode::kDmaOob);
    wantAddr = npu.slotAddress(slot0);
    wantInfo = static_cast<uint32_t>(Buffer::kAcc);
  }
  if (!npu.waitIrq(200000)) {
    f.fail(what + ": no interrupt; " + errText(npu));
  } else {
    const uint32_t irq = npu.read(reg::kIrqStatus), st = npu.read(reg::kStatus);
    const uint32_t code = npu.read(reg::kErrCode), addr = npu.read(reg::kErrAddr),
                   info = npu.read(reg::kErrInfo);
    if (irq != reg::kIrqStatusError || !(st & reg::kStatusError) || code != wantCode ||
        addr != wantAddr || (kind != 1 && info != wantInfo)) {
      std::ostringstream os;
      os << what << ": IRQ_STATUS=" << irq << " STATUS=0x" << std::hex << st
         << " ERR_CODE=" << std::dec << code << " ERR_ADDR=0x" << std::hex << addr << " ERR_INFO=0x"
         << info << ", want code " << std::dec << wantCode << " addr 0x" << std::hex << wantAddr
         << " info 0x" << wantInfo;
      f.fail(os.str());
    }
    if (kind == 1 && npu.cycle() - t0 < wd) f.fail(what + ": watchdog fired early");
  }
  npu.softReset();
  if (kind == 1) npu.write(reg::kWatchdog, 100000);
  if (!(npu.read(reg::kStatus) & reg::kStatusIdle) || npu.read(reg::kErrCode) != 0 ||
      npu.read(reg::kRingHead) != 0) {
    f.fail(what + ": soft reset did not return to idle; " + errText(npu));
  }
}

TestbenchResult runNpuTop(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t iterations = opt.iterations ? opt.iterations : 40;
  std::mt19937_64 rng(opt.seed);
  Npu npu(opt, 1 << 20, rng());
  Failures f;
  npu.mem().setTiming(80, 1, 6);

  // Identification registers.
  if (npu.read(reg::kId) != reg::kIdValue) f.fail("ID register");
  if (npu.read(reg::kVersion) != kIsaVersion) f.fail("VERSION register");
  const uint32_t config = kArrayRows << reg::kConfigRowsLsb | kArrayCols << reg::kConfigColsLsb |
                          log2Of(kInpBufBytes >> 10) << reg::kConfigBufKibLog2Lsb;
  if (npu.read(reg::kConfig) != config) f.fail("CONFIG register");
  npu.read(0xFF0);
  if (npu.lastResp() != 2) f.fail("a read of an unmapped register must answer SLVERR");
  npu.setupRing(64, 100000);

  uint64_t macs = 0, gemms = 0, acc64s = 0, beyondInt32 = 0, wgt8s = 0, densifies = 0, faults = 0;
  const uint64_t c0 = npu.cycle();
  for (uint64_t it = 0; it < iterations && f.first.size() < 3; ++it) {
    const uint64_t before = f.count;
    gemmCase(npu, rng, f, macs);
    ++gemms;
    acc64Case(npu, rng, f, macs, beyondInt32, wgt8s);
    ++acc64s;
    densifyCase(npu, rng, f, false);
    ++densifies;
    switch (it % 7) {
      case 0:
        faultCase(npu, rng, f, 0);
        break;
      case 1:
        faultCase(npu, rng, f, 5);
        break;  // acc64 dma_oob early: CI runs 8 iterations
      case 2:
        faultCase(npu, rng, f, 1);
        break;
      case 3:
        faultCase(npu, rng, f, 2);
        break;
      case 4:
        faultCase(npu, rng, f, 3);
        break;
      case 5:
        faultCase(npu, rng, f, 4);
        break;
      default:
        densifyCase(npu, rng, f, true);
        break;
    }
    ++faults;
    if (f.count != before) break;
    res.iterations = it + 1;
  }
  for (const auto& v : npu.mem().violations()) f.fail("AXI protocol: " + v);
  const uint32_t perfCycles = npu.read(reg::kPerfCycles), perfMacs = npu.read(reg::kPerfMacs);
  res.cycles = npu.cycle();
  std::ostringstream os;
  if (acc64s > 0 && beyondInt32 == 0)
    f.fail("acc64: no sum left the int32 range (the case tests nothing)");
  if (acc64s >= 8 && wgt8s == 0)
    f.fail("acc64: no wgt8 tile in 8 or more (the 16x8 path untested)");
  os << gemms << " GEMM+requant tiles and " << acc64s << " acc64 K=" << kAcc64K << " tiles ("
     << wgt8s << " wgt8, " << beyondInt32 << " int64 sums beyond int32) (" << macs
     << " MACs) exact vs ops/quant, " << densifies << " densify jobs, " << faults
     << " faults (bad field, acc64 dma_oob, watchdog, bus error, dma_oob, soft reset during DMA, "
        "bad "
     << "metadata) handled as documented; " << (npu.cycle() - c0) << " cycles (PERF_CYCLES "
     << perfCycles << ", PERF_MACS " << perfMacs << ")";
  // Every constant the CONFIG registers report reads as the spec has it. After the timed
  // part, so the figures do not depend on how many such registers there are.
  for (const reg::ConfigReport& c : reg::kConfigReports) {
    const uint32_t v = (npu.read(c.offset) & c.mask) >> c.lsb;
    if (v != c.value)
      f.fail(std::string("CONFIG register reports ") + c.constant + " = " + std::to_string(v));
  }
  return finish(res, f, os.str());
}

// --- bench_gemm --------------------------------------------------------------------------------
TestbenchResult runBenchGemm(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint32_t mTiles =
      static_cast<uint32_t>(opt.iterations ? std::min<uint64_t>(opt.iterations, 16) : 16);
  const uint32_t M = mTiles * kR, K = 1024, N = 256, nTiles = N / kC;
  constexpr uint32_t kAIn = 0x100000, kBIn = 0x200000, kAccOut = 0x300000;
  std::mt19937_64 rng(opt.seed);
  Npu npu(opt, 4 << 20, rng());
  npu.mem().setTiming(100, 1, 2);
  Failures f;
  auto& m = npu.mem().mem();
  // Operands, laid out by the "compiler" as the buffers want them: INP tile i k-major
  // (element (r, t) at i*K*R + t*R + r), WGT tile j (element (t, c) at j*K*C + t*C + c).
  std::vector<int8_t> A(M * K), B(K * N);
  for (auto& v : A) v = static_cast<int8_t>(rng());
  for (auto& v : B) v = static_cast<int8_t>(rng());
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t t = 0; t < K; ++t)
      m[kAIn + (i / kR) * K * kR + t * kR + i % kR] = static_cast<uint8_t>(A[i * K + t]);
  }
  for (uint32_t t = 0; t < K; ++t) {
    for (uint32_t j = 0; j < N; ++j)
      m[kBIn + (j / kC) * K * kC + t * kC + j % kC] = static_cast<uint8_t>(B[t * N + j]);
  }
  npu.setupRing(1024, 0);
  End e;
  e.irq = true;
  // Job 1: operands into the buffers.
  const uint32_t aBytes = M * K, bBytes = K * N;
  (void)npu.submit({cmd(load(Buffer::kInp, ElemWidth::kW32, kAIn, aBytes / 4, 0, 0, aBytes / 4, 0,
                             aBytes / 16, 4, 1)),
                    cmd(load(Buffer::kWgt, ElemWidth::kW32, kBIn, bBytes / 4, 0, 0, bBytes / 4, 0,
                             bBytes / 16, 4, 1)),
                    cmd(e)});
  if (!npu.waitIrq(2000000)) {
    f.fail("operand load did not finish; " + errText(npu));
    return finish(res, f, "");
  }
  npu.write(reg::kIrqStatus, reg::kIrqStatusDone | reg::kIrqStatusError);
  // Job 2: the GEMM tiles, results cycling through the 64 ACC tiles.
  std::vector<Command> tiles;
  for (uint32_t i = 0; i < mTiles; ++i) {
    for (uint32_t j = 0; j < nTiles; ++j) {
      Gemm g;
      g.aSigned = g.bSigned = true;
      g.m = kR;
      g.n = kC;
      g.k = K;
      g.inpAddr = i * K * kR;
      g.wgtAddr = j * K * kC;
      g.accAddr = ((i * nTiles + j) % 64) * kR * kC * 4;
      tiles.push_back(cmd(g));
    }
  }
  tiles.push_back(cmd(e));
  npu.write(reg::kCtrl, reg::kCtrlIrqEn | reg::kCtrlPerfClear);
  const uint64_t c0 = npu.cycle();
  // CPU time, not wall time: the machine may be shared.
  const std::clock_t w0 = std::clock();
  (void)npu.submit(tiles);
  const bool ok = npu.waitIrq(100000000);
  const std::clock_t w1 = std::clock();
  const uint64_t cycles = npu.cycle() - c0;
  if (!ok || npu.read(reg::kIrqStatus) != reg::kIrqStatusDone) {
    f.fail("GEMM job did not finish; " + errText(npu));
    return finish(res, f, "");
  }
  const uint32_t busy = npu.read(reg::kPerfComputeBusy), perfMacs = npu.read(reg::kPerfMacs);
  npu.write(reg::kIrqStatus, reg::kIrqStatusDone | reg::kIrqStatusError);
  // Job 3: the last 64 tiles' results out of ACC, checked against C++.
  const uint32_t accTiles = std::min<uint32_t>(64, mTiles * nTiles);
  DmaStore st;
  st.bufId = Buffer::kAcc;
  st.elemWidth = ElemWidth::kW32;
  st.dramAddr = kAccOut;
  st.count0 = 64 * kR * kC;
  (void)npu.submit({cmd(st), cmd(e)});
  if (!npu.waitIrq(2000000)) f.fail("ACC store did not finish; " + errText(npu));
  for (uint32_t tIdx = mTiles * nTiles - accTiles; tIdx < mTiles * nTiles && f.first.empty();
       ++tIdx) {
    const uint32_t ti = tIdx / nTiles, tj = tIdx % nTiles, slot = tIdx % 64;
    for (uint32_t r = 0; r < kR; ++r) {
      for (uint32_t c = 0; c < kC; ++c) {
        int32_t s = 0;
        for (uint32_t t = 0; t < K; ++t)
          s += int32_t{A[(ti * kR + r) * K + t]} * int32_t{B[t * N + tj * kC + c]};
        const int64_t got = getN(m, kAccOut + (slot * kR * kC + r * kC + c) * 4, 4, true);
        if (got != s) {
          f.fail("tile (" + std::to_string(ti) + "," + std::to_string(tj) + ") [" +
                 std::to_string(r) + "][" + std::to_string(c) + "] = " + std::to_string(got) +
                 ", want " + std::to_string(s));
          break;
        }
      }
    }
  }
  const double ideal = double(M) * K * N / (kR * kC);
  const double secs = double(w1 - w0) / CLOCKS_PER_SEC;
  res.cycles = npu.cycle();
  res.iterations = mTiles * nTiles;
  std::ostringstream os;
  os.precision(4);
  os << "int8 GEMM " << M << "x" << K << "x" << N << " on " << kR << "x" << kC << ": " << cycles
     << " cycles, ideal " << uint64_t(ideal) << ", utilization " << 100.0 * ideal / double(cycles)
     << "% (compute busy " << busy << ", PERF_MACS " << perfMacs << "); "
     << double(cycles) / secs / 1e6 << " M simulated cycles/s (" << secs << " s CPU); last "
     << accTiles << " tiles exact";
  return finish(res, f, os.str());
}

static TestbenchRegistrar regTop{TestbenchDef{
    "npu_top",
    "Whole NPU: GEMM+requant tiles vs ops/quant, DENSIFY, and faults through the job protocol",
    &runNpuTop, 8}};
static TestbenchRegistrar regBench{TestbenchDef{
    "bench_gemm",
    "Benchmark: int8 GEMM (16*iterations)x1024x256 resident on chip: utilization and cycles/s",
    &runBenchGemm, 2}};

}  // namespace
}  // namespace nncosim::testbench
