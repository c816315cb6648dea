// Testbench `mac_array`: the 16x16 output-stationary MAC array (rtl/nnc_mac_array.sv) on
// random GEMM tiles (random K, zero points, signedness, 8- and 16-bit operands, int16 x
// int8), checked against an exact C++ model, first streaming long-K tiles back to back to
// measure utilization, then random tiles under random stalls on both ports.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_mac_array.h"
#include "firmware/isa_generated.h"
#include "testbench/testbench.h"
#include "testbench/wide_port.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace nncosim::testbench {
namespace {

constexpr int kRows = firmware::kArrayRows,
              kCols = firmware::kArrayCols;  // nnc_mac_array's defaults
constexpr int kAccWidth = 48;                // nnc_pkg::AccWidth

int64_t signExtend(uint64_t v, unsigned bits) {
  const uint64_t m = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((v ^ m) - m);
}

struct Tile {
  int k = 0;
  bool actWide = false, wgtWide = false, actSigned = false, wgtSigned = false;
  int32_t actZp = 0, wgtZp = 0;
  std::vector<uint16_t> act;  // [r * k + kk], raw operand bits
  std::vector<uint16_t> wgt;  // [kk * kCols + c]
  std::vector<int64_t> want;  // [r * kCols + c]

  std::string describe() const {
    std::ostringstream s;
    s << "K=" << k << " act " << (actWide ? 16 : 8) << "-bit " << (actSigned ? "s" : "u") << " zp "
      << actZp << ", wgt " << (wgtWide ? 16 : 8) << "-bit " << (wgtSigned ? "s" : "u") << " zp "
      << wgtZp;
    return s.str();
  }
};

// The operand value the array multiplies: the raw bits read as (u)int8/(u)int16.
int64_t operand(uint16_t raw, bool wide, bool isSigned) {
  if (wide) return isSigned ? static_cast<int16_t>(raw) : raw;
  return isSigned ? static_cast<int8_t>(raw & 0xff) : (raw & 0xff);
}

void computeExpected(Tile& t) {
  t.want.assign(kRows * kCols, 0);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) {
      int64_t sum = 0;
      for (int kk = 0; kk < t.k; ++kk)
        sum += (operand(t.act[r * t.k + kk], t.actWide, t.actSigned) - t.actZp) *
               (operand(t.wgt[kk * kCols + c], t.wgtWide, t.wgtSigned) - t.wgtZp);
      t.want[r * kCols + c] = sum;
    }
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  Tile tile(int k) {
    Tile t;
    t.k = k;
    // int8 x int8, int16 x int16, and int16 x int8 (the 16x8 mode's wgt8 GEMMs).
    const uint64_t widths = pick(10);
    t.actWide = widths < 5;
    t.wgtWide = widths < 3;
    t.actSigned = pick(2);
    t.wgtSigned = pick(2);
    t.actZp = zeroPoint(t.actWide, t.actSigned);
    t.wgtZp = pick(3) == 0 ? 0 : zeroPoint(t.wgtWide, t.wgtSigned);  // per-channel weights: 0
    const int style = static_cast<int>(pick(4));  // 0: extremes only, else uniform
    t.act.resize(static_cast<size_t>(kRows) * k);
    t.wgt.resize(static_cast<size_t>(k) * kCols);
    for (auto& v : t.act) v = value(t.actWide, style);
    for (auto& v : t.wgt) v = value(t.wgtWide, style);
    computeExpected(t);
    return t;
  }
  int randomK() {
    switch (pick(4)) {
      case 0:
        return 1 + static_cast<int>(pick(16));  // shorter than the drain
      case 1:
        return 17 + static_cast<int>(pick(48));
      case 2:
        return 64 + static_cast<int>(pick(448));
      default:
        return 1 + static_cast<int>(pick(100));
    }
  }
  uint64_t pick(uint64_t n) { return rng_() % n; }

 private:
  int32_t zeroPoint(bool wide, bool isSigned) {
    if (pick(4) == 0) return 0;
    if (wide)
      return isSigned ? static_cast<int32_t>(pick(65536)) - 32768
                      : static_cast<int32_t>(pick(65536));
    return isSigned ? static_cast<int32_t>(pick(256)) - 128 : static_cast<int32_t>(pick(256));
  }
  uint16_t value(bool wide, int style) {
    const uint16_t v = static_cast<uint16_t>(rng_());
    if (style == 0) {
      static const uint16_t e8[] = {0x00, 0x7f, 0x80, 0xff},
                            e16[] = {0x0000, 0x7fff, 0x8000, 0xffff};
      return wide ? e16[pick(4)] : e8[pick(4)];
    }
    // In 8-bit mode the array ignores bits 15:8: put garbage there.
    return v;
  }

  std::mt19937_64 rng_;
};

class Harness {
 public:
  explicit Harness(const TestbenchOptions& opt) : flow_(opt.seed * 0x9e3779b97f4a7c15ULL + 1) {
    ctx_ = std::make_unique<VerilatedContext>();
    ctx_->fatalOnError(false);
    if (!opt.wavesPath.empty()) ctx_->traceEverOn(true);
    dut_ = std::make_unique<Vnnc_mac_array>(ctx_.get(), "mac_array");
    if (!opt.wavesPath.empty()) {
      fst_ = std::make_unique<VerilatedFstC>();
      dut_->trace(fst_.get(), 99);
      fst_->open(opt.wavesPath.c_str());
    }
    dut_->clk_i = 0;
    dut_->rst_ni = 0;
    dut_->in_valid_i = 0;
    dut_->out_ready_i = 0;
    dut_->eval();
    tick();
    tick();
    dut_->rst_ni = 1;
  }
  ~Harness() {
    if (fst_) fst_->close();
    dut_->final();
  }

  struct RunStats {
    uint64_t cycles = 0;  // first beat accepted .. last row drained
    uint64_t macs = 0;
  };

  // Streams the tiles, checks every drained row; inStall/outStall: probability (in 1/8)
  // of a bubble on the input / a held output in a cycle.
  RunStats run(std::deque<Tile> tiles, int inStall, int outStall) {
    RunStats st;
    std::deque<Tile*> inFlight;
    std::deque<Tile> owned = std::move(tiles);
    size_t nextTile = 0;
    int beat = 0;
    int drainRow = 0;
    uint64_t start = 0;
    bool started = false;
    size_t drained = 0;
    const uint64_t limit = cycles_ + 200000 + [&] {
      uint64_t k = 0;
      for (const auto& t : owned) k += t.k * 8 + 64;
      return k;
    }();
    while (drained < owned.size() && cycles_ < limit) {
      const bool haveBeat = nextTile < owned.size();
      const bool valid = haveBeat && !(inStall && static_cast<int>(flow_() % 8) < inStall);
      const bool ready = !(outStall && static_cast<int>(flow_() % 8) < outStall);
      dut_->in_valid_i = valid;
      dut_->out_ready_i = ready;
      if (haveBeat) drive(owned[nextTile], beat);
      dut_->eval();

      if (dut_->out_valid_o && ready) checkRow(inFlight, drainRow, drained);
      if (valid && dut_->in_ready_o) {
        if (!started) {
          started = true;
          start = cycles_;
        }
        if (beat == 0) inFlight.push_back(&owned[nextTile]);
        st.macs += static_cast<uint64_t>(kRows) * kCols;
        if (++beat == owned[nextTile].k) {
          beat = 0;
          ++nextTile;
        }
      }
      tick();
    }
    st.cycles = cycles_ - start;
    if (drained < owned.size())
      fail("timeout: " + std::to_string(drained) + " of " + std::to_string(owned.size()) +
           " tiles drained");
    // Once everything drained the array must say so.
    dut_->in_valid_i = 0;
    dut_->eval();
    if (!dut_->idle_o) fail("idle_o low after the last tile drained");
    tiles_ += owned.size();
    return st;
  }

  uint64_t cycles() const { return cycles_; }
  uint64_t tiles() const { return tiles_; }
  uint64_t mismatches() const { return mismatches_; }
  const std::vector<std::string>& firstMismatches() const { return first_; }
  bool rtlError() const { return ctx_->gotError(); }

 private:
  void drive(const Tile& t, int k) {
    for (int r = 0; r < kRows; ++r) putBits(dut_->in_act_i, r * 16, 16, t.act[r * t.k + k]);
    for (int c = 0; c < kCols; ++c) putBits(dut_->in_wgt_i, c * 16, 16, t.wgt[k * kCols + c]);
    dut_->in_last_i = k == t.k - 1;
    dut_->in_act_wide_i = t.actWide;
    dut_->in_wgt_wide_i = t.wgtWide;
    dut_->in_act_signed_i = t.actSigned;
    dut_->in_wgt_signed_i = t.wgtSigned;
    dut_->in_act_zp_i = static_cast<uint32_t>(t.actZp) & 0x1ffff;
    dut_->in_wgt_zp_i = static_cast<uint32_t>(t.wgtZp) & 0x1ffff;
  }

  void checkRow(std::deque<Tile*>& inFlight, int& row, size_t& drained) {
    if (inFlight.empty()) {
      fail("a row drained with no tile in flight");
      return;
    }
    const Tile& t = *inFlight.front();
    const std::string where =
        "tile " + std::to_string(drained) + " (" + t.describe() + ") row " + std::to_string(row);
    if (dut_->out_row_o != row) fail(where + ": out_row_o is " + std::to_string(dut_->out_row_o));
    if (static_cast<bool>(dut_->out_last_o) != (row == kRows - 1))
      fail(where + ": out_last_o is " + std::to_string(dut_->out_last_o));
    for (int c = 0; c < kCols; ++c) {
      const int64_t got = signExtend(getBits(dut_->out_acc_o, c * kAccWidth, kAccWidth), kAccWidth);
      const int64_t want = t.want[row * kCols + c];
      if (got != want)
        fail(where + " col " + std::to_string(c) + ": got " + std::to_string(got) + ", want " +
             std::to_string(want));
    }
    if (++row == kRows) {
      row = 0;
      inFlight.pop_front();
      ++drained;
    }
  }

  void tick() {
    dut_->clk_i = 1;
    dut_->eval();
    if (fst_) fst_->dump(time_);
    time_ += 5;
    ctx_->timeInc(5);  // RTL assertion messages carry the time
    dut_->clk_i = 0;
    dut_->eval();
    if (fst_) fst_->dump(time_);
    time_ += 5;
    ctx_->timeInc(5);
    ++cycles_;
  }

  void fail(const std::string& m) {
    ++mismatches_;
    if (first_.size() < 4) first_.push_back(m);
  }

  std::mt19937_64 flow_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vnnc_mac_array> dut_;
  std::unique_ptr<VerilatedFstC> fst_;
  uint64_t time_ = 0, cycles_ = 0, tiles_ = 0, mismatches_ = 0;
  std::vector<std::string> first_;
};

TestbenchResult run(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t randomTiles = opt.iterations ? opt.iterations : 400;
  Generator gen(opt.seed);
  Harness h(opt);

  // 1. Utilization: long-K tiles back to back, no stalls.
  constexpr int kBenchTiles = 8, kBenchK = 256;
  std::deque<Tile> bench;
  for (int i = 0; i < kBenchTiles; ++i) bench.push_back(gen.tile(kBenchK));
  const auto b = h.run(std::move(bench), 0, 0);
  const double utilLong =
      static_cast<double>(b.macs) / (static_cast<double>(b.cycles) * kRows * kCols);

  // 2. Random tiles: the first quarter free running, then stalls on one side, then both.
  uint64_t macs = 0, cycles = 0;
  const uint64_t perChunk = std::max<uint64_t>(1, randomTiles / 4);
  for (uint64_t done = 0, chunk = 0; done < randomTiles; ++chunk) {
    std::deque<Tile> tiles;
    for (uint64_t i = 0; i < perChunk && done < randomTiles; ++i, ++done)
      tiles.push_back(gen.tile(gen.randomK()));
    static const int inStall[] = {0, 3, 0, 2}, outStall[] = {0, 0, 3, 2};
    const auto s = h.run(std::move(tiles), inStall[chunk % 4], outStall[chunk % 4]);
    macs += s.macs;
    cycles += s.cycles;
  }

  res.cycles = h.cycles();
  res.iterations = h.tiles();
  res.mismatches = h.mismatches();
  if (h.rtlError()) ++res.mismatches;
  res.passed = res.mismatches == 0;
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  if (res.passed) {
    s << h.tiles() << " tiles (" << kRows << "x" << kCols << ", random K/zp/sign/width) exact; "
      << "utilization " << 100.0 * utilLong << "% streaming K=" << kBenchK << " (" << b.cycles
      << " cycles for " << kBenchTiles << " tiles), "
      << 100.0 * static_cast<double>(macs) / (static_cast<double>(cycles) * kRows * kCols)
      << "% over the random mix with stalls";
  } else {
    s << res.mismatches << " mismatches" << (h.rtlError() ? " (RTL assertion failed)" : "");
    for (const auto& m : h.firstMismatches()) s << "; " << m;
  }
  res.summary = s.str();
  if (opt.verbose) VL_PRINTF("mac_array: %s\n", res.summary.c_str());
  return res;
}

TestbenchRegistrar reg{TestbenchDef{
    "mac_array",
    "16x16 MAC array vs exact GEMM model; reports utilization (iterations = random tiles)",
    &run,
    60,
}};

}  // namespace
}  // namespace nncosim::testbench
