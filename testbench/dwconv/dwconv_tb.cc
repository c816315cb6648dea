// Testbench `dwconv`: the depthwise unit (rtl/nnc_dwconv.sv) against the depthwise formula
// computed here over models of INP and WGT (one-cycle read latency, reads at any byte
// address, wrapping at the buffer's size):
//   acc(i, j) = sum over fy < fh, fx < fw of
//               (INP[inp_addr + fy*row_stride + (i*sw + fx*dw)*C + j] - a_zp) *
//               (WGT[wgt_addr + (fy*fw + fx)*C + j] - b_zp)      (int32, wrapping)
// for lanes i < m and channels j < C, rows drained in order, two per cycle (ISA 1.11). Two
// parts:
//  - free flow: 64 back-to-back 3x3 stride-1 tiles of 16 lanes, then 64 of stride 2, each
//    started as soon as the unit takes it, the output always ready: cycles against the
//    bound of the unit's reads and taps (a filter row's span, kVecPerRead vectors per read,
//    or its taps, whichever is longer);
//  - random tiles (m 1..R, filters 1..7 x 1..7 with 3x3 favoured, strides and dilations 1
//    or 2, signed and unsigned operands, zero points), the output stalled one cycle in
//    three in half of them, random gaps between starts; a start with an out-of-range field
//    at the end must fail the unit's assertion.
// Beside the array (ISA 1.14): INP reads wait for inp_gnt_i, which the random part denies
// one cycle in three in half of its stretches (the GEMMs' reads); the unit keeps its weight
// vectors, so the free flow's tiles, all of one weight address, must read WGT only for the
// first tile's taps; and the random part writes WGT beats (the DMA) now and then, between
// tiles or beside tiles whose weights they miss, into the span of weights a later tile of
// the same address reads: a kept vector that survived such a write would mismatch.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_dwconv.h"
#include "firmware/isa_generated.h"
#include "testbench/stream_flow.h"
#include "testbench/testbench.h"
#include "testbench/verilated_model.h"
#include "testbench/wide_port.h"

namespace nncosim::testbench {
namespace {

constexpr uint32_t kRows = firmware::kArrayRows, kCols = firmware::kArrayCols;
// Pixel vectors per INP read: nnc_npu_top's INP line (kInpLineVectors * Rows bytes, the
// unit's default InpReadBytes) over a vector's Cols bytes.
constexpr uint32_t kVecPerRead = firmware::kInpLineVectors * kRows / kCols;
constexpr uint32_t kInpBytes = firmware::kInpBufBytes, kWgtBytes = firmware::kWgtBufBytes;
constexpr uint32_t kMaxTaps = 7;
constexpr uint32_t kWgtBeat = firmware::kAxiDataBytes;  // a DMA write's bytes

class Buffer {
 public:
  Buffer(std::mt19937_64& rng, uint32_t size) : bytes_(size) {
    for (auto& b : bytes_) b = static_cast<uint8_t>(rng());
  }
  uint8_t at(uint64_t addr) const { return bytes_[addr % bytes_.size()]; }
  void set(uint64_t addr, uint8_t v) { bytes_[addr % bytes_.size()] = v; }

 private:
  std::vector<uint8_t> bytes_;
};

struct Tile {
  uint32_t inpAddr = 0, rowStride = 0, wgtAddr = 0, m = kRows, fh = 3, fw = 3, sw = 1, dw = 1;
  bool aSigned = true, bSigned = true;
  int32_t aZp = 0, bZp = 0;
  uint32_t span() const { return (m - 1) * sw + (fw - 1) * dw + 1; }
};

// The tile's sums: row i, channel j in rows[i][j].
std::vector<std::vector<uint32_t>> sumsOf(const Tile& t, const Buffer& inp, const Buffer& wgt) {
  std::vector<std::vector<uint32_t>> rows(t.m, std::vector<uint32_t>(kCols, 0));
  auto value = [](uint8_t b, bool isSigned) {
    return isSigned ? int64_t{static_cast<int8_t>(b)} : int64_t{b};
  };
  for (uint32_t i = 0; i < t.m; ++i)
    for (uint32_t j = 0; j < kCols; ++j) {
      int64_t s = 0;
      for (uint32_t fy = 0; fy < t.fh; ++fy)
        for (uint32_t fx = 0; fx < t.fw; ++fx) {
          const uint64_t a = uint64_t{t.inpAddr} + uint64_t{fy} * t.rowStride +
                             (uint64_t{i} * t.sw + uint64_t{fx} * t.dw) * kCols + j;
          const uint64_t w = uint64_t{t.wgtAddr} + (uint64_t{fy} * t.fw + fx) * kCols + j;
          s += (value(inp.at(a), t.aSigned) - t.aZp) * (value(wgt.at(w), t.bSigned) - t.bZp);
        }
      rows[i][j] = static_cast<uint32_t>(static_cast<uint64_t>(s));
    }
  return rows;
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}
  Tile full(uint32_t stride) {
    Tile t = random();
    t.m = kRows;
    t.fh = t.fw = 3;
    t.sw = stride;
    t.dw = 1;
    return t;
  }
  Tile random() {
    Tile t;
    t.m = pick(2) ? kRows : 1 + static_cast<uint32_t>(pick(kRows));
    t.fh = pick(2) ? 3 : 1 + static_cast<uint32_t>(pick(kMaxTaps));
    t.fw = pick(2) ? 3 : 1 + static_cast<uint32_t>(pick(kMaxTaps));
    t.sw = 1 + static_cast<uint32_t>(pick(2));
    t.dw = pick(4) ? 1 : 2;
    t.aSigned = pick(2);
    t.bSigned = pick(2);
    t.aZp = pick(2) ? 0 : static_cast<int32_t>(pick(511)) - 255;
    t.bZp = pick(2) ? 0 : static_cast<int32_t>(pick(511)) - 255;
    t.inpAddr = static_cast<uint32_t>(pick(kInpBytes));
    t.rowStride = pick(2) ? t.span() * kCols : static_cast<uint32_t>(pick(kInpBytes));
    // A few weight addresses, often the previous tile's: the kept vectors are reused, and
    // the writes below land in spans a later tile reads.
    if (pools_.empty())
      for (int i = 0; i < 6; ++i) pools_.push_back(static_cast<uint32_t>(pick(kWgtBytes - 4096)));
    t.wgtAddr = pick(2) ? lastWgt_ : pools_[pick(pools_.size())];
    lastWgt_ = t.wgtAddr;
    return t;
  }
  // A WGT beat's address near the pools' spans.
  uint32_t writeAddr() {
    if (pools_.empty()) return static_cast<uint32_t>(pick(kWgtBytes - 64));
    return pools_[pick(pools_.size())] + static_cast<uint32_t>(pick(kMaxTaps * kMaxTaps * kCols));
  }
  uint64_t pick(uint64_t n) { return rng_() % n; }
  std::mt19937_64& rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
  std::vector<uint32_t> pools_;
  uint32_t lastWgt_ = 0;
};

class Harness {
 public:
  Harness(const TestbenchOptions& opt, const Buffer& inp, Buffer& wgt)
      : dut_(opt.wavesPath), inp_(inp), wgt_(wgt) {
    dut_.context().fatalOnError(false);
    dut_->clk_i = 0;
    dut_->rst_ni = 0;
    dut_->start_i = 0;
    dut_->out_ready_i = 0;
    dut_->inp_gnt_i = 1;
    dut_->wgt_we_i = 0;
    dut_->eval();
    tick();
    tick();
    dut_->rst_ni = 1;
  }

  // Runs `tiles` through the unit; stalls: output ready low one cycle in three where a
  // tile's flag says so, and the INP grant likewise; gaps: idle cycles before a start;
  // gen: WGT writes now and then (none when null). False on a timeout.
  bool stream(const std::vector<Tile>& tiles, const std::vector<bool>& stalls, bool gaps,
              std::mt19937_64& rng, Generator* gen = nullptr) {
    std::deque<std::vector<uint32_t>> want;  // rows expected, in order
    std::deque<size_t> owner;
    size_t next = 0;
    uint64_t rowsLeft = 0;
    for (const Tile& t : tiles) rowsLeft += t.m;
    uint64_t work = 0;
    for (const Tile& t : tiles) work += uint64_t{t.fh} * (t.span() + t.fw) + t.m;
    const uint64_t limit = cycles + 200 + 4 * work;
    int gap = 0;
    while (rowsLeft > 0) {
      if (cycles > limit) return false;
      const bool offer = next < tiles.size() && gap == 0;
      dut_->start_i = offer;
      if (offer) drive(tiles[next]);
      const size_t current = owner.empty() ? next : owner.front();
      const bool stalled = current < stalls.size() && stalls[current];
      dut_->out_ready_i = !stalled || rng() % 3 != 0;
      dut_->inp_gnt_i = !stalled || rng() % 3 != 0;
      // A WGT beat one cycle in 8, unless it meets the weights of a tile in flight (that
      // would race) or of the one offered now.
      uint32_t wa = 0;
      bool we = false;
      if (gen != nullptr && rng() % 8 == 0) {
        // Half of them into the span of the last started tile's weights (the kept ones).
        const Tile* last = next > 0 ? &tiles[next - 1] : nullptr;
        wa = last != nullptr && rng() % 2
                 ? last->wgtAddr + static_cast<uint32_t>(rng() % (last->fh * last->fw * kCols))
                 : gen->writeAddr();
        we = true;
        auto meets = [&](const Tile& t) {
          const uint64_t lo = t.wgtAddr, hi = lo + uint64_t{t.fh} * t.fw * kCols;
          return wa < hi && lo < uint64_t{wa} + kWgtBeat;
        };
        for (size_t k : owner) we &= !meets(tiles[k]);
        if (offer) we &= !meets(tiles[next]);
      }
      dut_->wgt_we_i = we;
      dut_->wgt_waddr_i = wa;
      dut_->eval();
      if (offer && dut_->idle_o) {
        for (auto& r : sumsOf(tiles[next], inp_, wgt_)) {
          want.push_back(std::move(r));
          owner.push_back(next);
        }
        ++next;
        // Now and then a long gap: the unit drains and the writes reach the kept weights.
        gap = gaps ? static_cast<int>(rng() % 8 == 0 ? 40 : rng() % 4) : 0;
      } else if (gap > 0) {
        --gap;
      }
      if (dut_->out_valid_o && dut_->out_ready_i) {
        if (want.empty()) {
          ++mismatches;
          log.add("a row with none expected");
        } else {
          // A pair: rows `row` and row + 1 (when < m; its half is zero otherwise).
          const size_t tile = owner.front();
          const Tile& t = tiles[tile];
          const uint32_t row =
              t.m - static_cast<uint32_t>(std::count(owner.begin(), owner.end(), tile));
          if (dut_->out_row_o != row || bool(dut_->out_last_o) != (row + 2 >= t.m)) {
            ++mismatches;
            log.add("tile " + std::to_string(tile) + ": row " + std::to_string(dut_->out_row_o) +
                    " (last " + std::to_string(dut_->out_last_o) + "), want " +
                    std::to_string(row));
          }
          for (uint32_t half = 0; half < 2; ++half) {
            const bool real = row + half < t.m;
            for (uint32_t j = 0; j < kCols; ++j) {
              const auto got =
                  static_cast<uint32_t>(getBits(dut_->out_acc_o, (half * kCols + j) * 32, 32));
              const uint32_t expect = real ? want.front()[j] : 0;
              ++sumsChecked;
              if (got != expect) {
                ++mismatches;
                if (log.wants()) {
                  std::ostringstream m;
                  m << "tile " << tile << " (m " << t.m << ", " << t.fh << "x" << t.fw
                    << ", stride " << t.sw << ", dilation " << t.dw << ", zp " << t.aZp << "/"
                    << t.bZp << ") row " << row + half << " channel " << j << ": got "
                    << static_cast<int32_t>(got) << ", want " << static_cast<int32_t>(expect);
                  log.add(m.str());
                }
              }
            }
            if (real) {
              want.pop_front();
              owner.pop_front();
              --rowsLeft;
              ++rows;
            }
          }
        }
      }
      const bool ri = dut_->inp_re_o && dut_->inp_gnt_i, rw = dut_->wgt_re_o;
      const uint32_t ai = dut_->inp_raddr_o, aw = dut_->wgt_raddr_o;
      tick();
      for (uint32_t b = 0; b < kVecPerRead * kCols; ++b)
        putBits(dut_->inp_rdata_i, b * 8, 8, ri ? inp_.at(uint64_t{ai} + b) : 0);
      for (uint32_t b = 0; b < 2 * kCols; ++b)
        putBits(dut_->wgt_rdata_i, b * 8, 8, rw ? wgt_.at(uint64_t{aw} + b) : 0);
      // The write lands after the cycle's read (which returned the bytes before it).
      if (we) {
        for (uint32_t b = 0; b < kWgtBeat; ++b)
          wgt_.set(uint64_t{wa} + b, static_cast<uint8_t>(rng()));
        ++wgtWrites;
      }
      inpReads += ri;
      wgtReads += rw;
    }
    dut_->wgt_we_i = 0;
    dut_->start_i = 0;
    dut_->out_ready_i = 0;
    dut_->eval();
    return true;
  }
  // A start with `t`'s fields (out of range ones too) while idle.
  void startOnly(const Tile& t) {
    dut_->start_i = 1;
    drive(t);
    dut_->eval();
    tick();
    dut_->start_i = 0;
    for (int i = 0; i < 4; ++i) tick();
  }
  bool busy() { return dut_->busy_o; }
  bool assertionFailed() { return dut_.context().gotError(); }

  uint64_t cycles = 0, mismatches = 0, sumsChecked = 0, rows = 0, inpReads = 0, wgtReads = 0,
           wgtWrites = 0;
  MismatchLog log;

 private:
  void drive(const Tile& t) {
    dut_->inp_addr_i = t.inpAddr;
    dut_->row_stride_i = t.rowStride;
    dut_->wgt_addr_i = t.wgtAddr;
    dut_->m_i = t.m;
    dut_->fh_i = t.fh;
    dut_->fw_i = t.fw;
    dut_->sw_i = t.sw;
    dut_->dw_i = t.dw;
    dut_->a_signed_i = t.aSigned;
    dut_->b_signed_i = t.bSigned;
    dut_->a_zp_i = static_cast<uint32_t>(t.aZp) & 0x1ffffu;
    dut_->b_zp_i = static_cast<uint32_t>(t.bZp) & 0x1ffffu;
  }
  void tick() {
    dut_.cycle();
    ++cycles;
  }
  VerilatedModel<Vnnc_dwconv> dut_;
  const Buffer& inp_;
  Buffer& wgt_;
};

TestbenchResult run(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t tiles = opt.iterations ? opt.iterations : 3000;
  Generator gen(opt.seed);
  const Buffer inp(gen.rng(), kInpBytes);
  Buffer wgt(gen.rng(), kWgtBytes);
  Harness h(opt, inp, wgt);
  std::ostringstream s;
  bool ok = true;

  // Free flow: per tile, its filter rows (each the span's reads, kVecPerRead vectors at a
  // time, or its taps, whichever is longer) or its drain, whichever is longer; the fill of
  // the first row and the last tile's drain once.
  constexpr int kFree = 64;
  uint64_t freeCycles[2] = {0, 0}, freeBound[2] = {0, 0};
  uint64_t freeWgtReads[2] = {0, 0};
  for (uint32_t stride : {1u, 2u}) {
    std::vector<Tile> free;
    for (int i = 0; i < kFree; ++i) free.push_back(gen.full(stride));
    for (Tile& t : free) t.wgtAddr = stride * 1024;  // one channel tile's weights
    const uint64_t start = h.cycles, reads0 = h.wgtReads;
    ok &= h.stream(free, {}, false, gen.rng());
    // The first tile reads its nine weight vectors; the others use the kept ones.
    freeWgtReads[stride - 1] = h.wgtReads - reads0;
    if (freeWgtReads[stride - 1] != 9) {
      ++h.mismatches;
      s << "stride " << stride << " free flow read WGT " << freeWgtReads[stride - 1]
        << " times (9 weight vectors kept for all " << kFree << " tiles); ";
    }
    const Tile& t = free[0];
    const uint64_t reads = (t.span() + kVecPerRead - 1) / kVecPerRead;
    freeCycles[stride - 1] = h.cycles - start;
    // A tile's rows drain two per cycle while the next accumulates, under a 3x3 tile's 9
    // beats; three line buffers hide a row's read latency.
    freeBound[stride - 1] =
        uint64_t{kFree} *
            std::max<uint64_t>(t.fh * std::max<uint64_t>(reads, t.fw), (t.m + 1) / 2) +
        reads + t.m + 4;
    if (freeCycles[stride - 1] > freeBound[stride - 1]) {
      ++h.mismatches;
      s << "stride " << stride << " free flow took " << freeCycles[stride - 1]
        << " cycles (at most " << freeBound[stride - 1] << "); ";
    }
  }

  std::vector<Tile> random;
  std::vector<bool> stalls;
  for (uint64_t i = 0; i < tiles; ++i) {
    random.push_back(gen.random());
    stalls.push_back(gen.pick(2));
  }
  ok &= h.stream(random, stalls, true, gen.rng(), &gen);
  if (!ok) {
    ++h.mismatches;
    s << "timeout after " << h.rows << " rows; ";
  }
  if (ok && h.busy()) {
    ++h.mismatches;
    s << "busy at the end; ";
  }
  if (h.assertionFailed()) {
    ++h.mismatches;
    s << "RTL assertion failed during valid tiles; ";
  }
  // An out-of-range start (a filter row of no taps) must fail the assertion.
  Tile bad = gen.random();
  bad.fw = 0;  // a filter of no taps
  h.startOnly(bad);
  const bool caught = h.assertionFailed();
  if (!caught) {
    ++h.mismatches;
    s << "a start with fw = 0 passed the range assertion; ";
  }

  res.cycles = h.cycles;
  res.iterations = tiles;
  res.mismatches = h.mismatches;
  res.passed = res.mismatches == 0;
  if (res.passed) {
    s << 2 * kFree + tiles << " row tiles, " << h.rows << " rows exact (" << h.sumsChecked
      << " sums, " << h.inpReads << " INP reads, " << h.wgtReads << " WGT reads, " << h.wgtWrites
      << " WGT beats written beside them; INP grant denied in half the "
      << "stretches); free flow 3x3 m=" << kRows << ": " << kFree << " tiles in " << freeCycles[0]
      << " cycles at stride 1 (bound " << freeBound[0] << "), " << freeCycles[1]
      << " at stride 2 (bound " << freeBound[1] << "), " << freeWgtReads[0] << " and "
      << freeWgtReads[1]
      << " WGT reads (weights kept); a filter of no taps fails the range assertion; " << h.cycles
      << " cycles";
  } else {
    s << res.mismatches << " mismatches (" << h.rows << " rows, " << h.sumsChecked
      << " sums checked)";
    h.log.appendTo(s);
  }
  res.summary = s.str();
  if (opt.verbose) VL_PRINTF("dwconv: %s\n", res.summary.c_str());
  return res;
}

TestbenchRegistrar reg{TestbenchDef{
    "dwconv",
    "depthwise unit (line buffers, per-PE activations, result banks) vs the depthwise formula "
    "over models of INP and WGT, with stalls (iterations = random row tiles)",
    &run,
    600,
}};

}  // namespace
}  // namespace nncosim::testbench
