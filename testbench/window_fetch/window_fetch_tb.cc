// Testbench `window_fetch`: GEMM window mode's A operand (rtl/nnc_window_fetch.sv: the
// sequencer, the bank credit and the transposer together) against A(i, t) gathered here
// from a model of INP (one-cycle read latency, 32-byte reads at any byte address, wrapping
// at the buffer's size, zero data in the cycles after no read):
//   A(i, t) = INP[base + i*lane_stride + (j % taps)*tap_stride + (j / taps)*tile_stride + c*eb]
//   j = t / vec, c = t % vec, for i < m (lanes i >= m zero)
// Two parts:
//  - free flow: 32 back-to-back int8 windows of full blocks (m = vec = 16, 3 taps, k = 96),
//    each started as soon as the unit takes it, the output always ready: the beats must
//    stream at one per cycle after the first block's fill, across window boundaries;
//  - random windows (int8 and int16; m, vec, taps, k, strides as in `window_seq`), the
//    output stalled one cycle in three in half of them, random gaps between starts.
// Every beat is checked in order, and the unit must end empty. `window_fetch_yosys` runs the
// same on the unit as Yosys 0.23 elaborates it (with its sequencer and transposer).
#include <cstdint>
#include <deque>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_window_fetch.h"
#ifdef NNC_HAVE_YOSYS_WINDOW_FETCH
#include "Vnnc_window_fetch_yosys.h"
#endif
#include "firmware/isa_generated.h"
#include "testbench/stream_flow.h"
#include "testbench/testbench.h"
#include "testbench/verilated_model.h"
#include "testbench/window.h"
#include "testbench/wide_port.h"

namespace nncosim::testbench {
namespace {

constexpr uint32_t kRows = firmware::kArrayRows;
constexpr uint32_t kInpBytes = firmware::kInpBufBytes;

class Inp {
 public:
  explicit Inp(std::mt19937_64& rng) : bytes_(kInpBytes) {
    for (auto& b : bytes_) b = static_cast<uint8_t>(rng());
  }
  uint8_t at(uint64_t addr) const { return bytes_[addr % kInpBytes]; }

 private:
  std::vector<uint8_t> bytes_;
};

// The beats of one window: lane i of beat t in beats[t][i].
std::vector<std::vector<uint16_t>> beatsOf(const Window& w, const Inp& inp) {
  const uint32_t eb = w.wide ? 2 : 1;
  std::vector<std::vector<uint16_t>> beats(w.k, std::vector<uint16_t>(kRows, 0));
  for (uint32_t t = 0; t < w.k; ++t) {
    const uint32_t j = t / w.vec, c = t % w.vec;
    for (uint32_t i = 0; i < w.m; ++i) {
      const uint64_t e = uint64_t{windowVectorAddress(w, i, j)} +
                         uint64_t{c} * eb;  // within one read: no wrap at the field width
      beats[t][i] = w.wide ? static_cast<uint16_t>(inp.at(e) | (inp.at(e + 1) << 8)) : inp.at(e);
    }
  }
  return beats;
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}
  Window full() {
    Window w = random();
    w.wide = false;
    w.m = w.vec = kRows;
    w.taps = 3;
    w.k = 2 * kRows * 3;
    return w;
  }
  Window random() {
    Window w;
    w.wide = pick(2);
    w.base = static_cast<uint32_t>(rng_()) & kWindowAddrMask;
    w.m = pick(2) ? kRows : 1 + static_cast<uint32_t>(pick(kRows));
    w.vec = pick(2) ? kRows : 1 + static_cast<uint32_t>(pick(kRows));
    w.taps = pick(2) ? 3 : 1 + static_cast<uint32_t>(pick(9));
    w.k = pick(2) ? w.vec * w.taps * (1 + static_cast<uint32_t>(pick(3)))
                  : 1 + static_cast<uint32_t>(pick(300));
    w.laneStride = pick(2) ? w.vec * (w.wide ? 2 : 1) * (1 + static_cast<uint32_t>(pick(2)))
                           : static_cast<uint32_t>(rng_()) & kWindowAddrMask;
    w.tapStride = static_cast<uint32_t>(rng_()) & 0xfffu;
    w.tileStride = static_cast<uint32_t>(rng_()) & kWindowAddrMask;
    return w;
  }
  uint64_t pick(uint64_t n) { return rng_() % n; }
  std::mt19937_64& rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
};

// Dut: the Verilated RTL, or the same unit as Yosys reads it (window_fetch_yosys).
template <typename Dut>
class Harness {
 public:
  Harness(const TestbenchOptions& opt, const Inp& inp) : dut_(opt.wavesPath), inp_(inp) {
    dut_.context().fatalOnError(false);
    dut_->clk_i = 0;
    dut_->rst_ni = 0;
    dut_->start_i = 0;
    dut_->out_ready_i = 0;
    dut_->eval();
    tick();
    tick();
    dut_->rst_ni = 1;
  }

  // Runs `windows` through the unit; stalls: output ready low one cycle in three where a
  // window's flag says so; gaps: idle cycles before a start. Returns false on a timeout.
  bool stream(const std::vector<Window>& windows, const std::vector<bool>& stalls, bool gaps,
              std::mt19937_64& rng) {
    std::deque<std::vector<uint16_t>> want;  // beats expected, in order
    std::deque<size_t> owner;                // the window of each
    size_t next = 0;
    uint64_t beatsLeft = 0;
    for (const Window& w : windows) beatsLeft += w.k;
    const uint64_t limit = cycles + 200 + 40 * beatsLeft;
    int gap = 0;
    while (beatsLeft > 0 || !want.empty()) {
      if (cycles > limit) return false;
      const bool offer = next < windows.size() && gap == 0;
      dut_->start_i = offer;
      if (offer) drive(windows[next]);
      const size_t current = owner.empty() ? next : owner.front();
      dut_->out_ready_i = !(current < stalls.size() && stalls[current]) || rng() % 3 != 0;
      dut_->eval();
      if (offer && dut_->idle_o) {
        for (auto& b : beatsOf(windows[next], inp_)) {
          want.push_back(std::move(b));
          owner.push_back(next);
        }
        ++next;
        gap = gaps ? static_cast<int>(rng() % 4) : 0;
      } else if (gap > 0) {
        --gap;
      }
      if (dut_->out_valid_o && dut_->out_ready_i) {
        if (want.empty()) {
          ++mismatches;
          log.add("a beat with none expected");
        } else {
          for (uint32_t i = 0; i < kRows; ++i) {
            const auto got = static_cast<uint16_t>(getBits(dut_->out_act_o, i * 16, 16));
            ++lanesChecked;
            if (got != want.front()[i]) {
              ++mismatches;
              if (log.wants()) {
                const Window& w = windows[owner.front()];
                std::ostringstream m;
                m << "window " << owner.front() << " (" << (w.wide ? "int16" : "int8") << ", m "
                  << w.m << ", vec " << w.vec << ", taps " << w.taps << ", k " << w.k << ") lane "
                  << i << ": got 0x" << std::hex << got << ", want 0x" << want.front()[i];
                log.add(m.str());
              }
            }
          }
          want.pop_front();
          owner.pop_front();
          --beatsLeft;
          ++beats;
        }
      }
      const bool read = dut_->inp_re_o;
      const uint32_t raddr = dut_->inp_raddr_o;
      tick();
      // The read's data in the next cycle (zero when there was none).
      for (uint32_t b = 0; b < 2 * kRows; ++b)
        putBits(dut_->inp_rdata_i, b * 8, 8, read ? inp_.at(uint64_t{raddr} + b) : 0);
      if (read) ++reads;
    }
    dut_->start_i = 0;
    dut_->out_ready_i = 0;
    dut_->eval();
    return true;
  }
  bool empty() { return dut_->empty_o; }
  bool assertionFailed() { return dut_.context().gotError(); }

  uint64_t cycles = 0, mismatches = 0, lanesChecked = 0, beats = 0, reads = 0;
  MismatchLog log;

 private:
  void drive(const Window& w) {
    dut_->wide_i = w.wide;
    driveWindow(dut_, w);
  }
  void tick() {
    dut_.cycle();
    ++cycles;
  }
  VerilatedModel<Dut> dut_;
  const Inp& inp_;
};

template <typename Dut>
TestbenchResult run(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t windows = opt.iterations ? opt.iterations : 4000;
  Generator gen(opt.seed);
  const Inp inp(gen.rng());
  Harness<Dut> h(opt, inp);
  std::ostringstream s;
  bool ok = true;

  constexpr int kFree = 32;
  std::vector<Window> free;
  for (int i = 0; i < kFree; ++i) free.push_back(gen.full());
  const uint64_t start = h.cycles;
  ok &= h.stream(free, {}, false, gen.rng());
  const uint64_t freeCycles = h.cycles - start;
  const uint64_t freeBeats = uint64_t{kFree} * free[0].k;
  const uint64_t freeBound = freeBeats + kRows + 2;  // the first block's fill and read latency
  if (freeCycles > freeBound) {
    ++h.mismatches;
    s << "free flow took " << freeCycles << " cycles for " << freeBeats << " beats (at most "
      << freeBound << "); ";
  }

  std::vector<Window> random;
  std::vector<bool> stalls;
  for (uint64_t i = 0; i < windows; ++i) {
    random.push_back(gen.random());
    stalls.push_back(gen.pick(2));
  }
  ok &= h.stream(random, stalls, true, gen.rng());
  if (!ok) {
    ++h.mismatches;
    s << "timeout after " << h.beats << " beats; ";
  }
  if (ok && !h.empty()) {
    ++h.mismatches;
    s << "not empty at the end; ";
  }
  if (h.assertionFailed()) {
    ++h.mismatches;
    s << "RTL assertion failed (the transposer refused a read's data?); ";
  }

  res.cycles = h.cycles;
  res.iterations = windows;
  res.mismatches = h.mismatches;
  res.passed = res.mismatches == 0;
  if (res.passed) {
    s << kFree + windows << " windows, " << h.beats << " beats exact (" << h.lanesChecked
      << " lanes, " << h.reads << " INP reads); free flow " << freeBeats << " beats in "
      << freeCycles << " cycles across " << kFree << " back-to-back windows; " << h.cycles
      << " cycles";
  } else {
    s << res.mismatches << " mismatches";
    h.log.appendTo(s);
  }
  res.summary = s.str();
  if (opt.verbose) VL_PRINTF("window_fetch: %s\n", res.summary.c_str());
  return res;
}

TestbenchRegistrar reg{TestbenchDef{
    "window_fetch",
    "window mode's A operand (sequencer, bank credit, transposer) vs A gathered from a model "
    "of INP, with stalls (iterations = random windows)",
    &run<Vnnc_window_fetch>,
    600,
}};

#ifdef NNC_HAVE_YOSYS_WINDOW_FETCH
TestbenchRegistrar regYosys{TestbenchDef{
    "window_fetch_yosys",
    "window fetch as Yosys reads it (its elaborated netlist, with the sequencer and transposer, "
    "Verilated) vs A gathered from a model of INP (iterations = random windows)",
    &run<Vnnc_window_fetch_yosys>,
    600,
}};
#endif

}  // namespace
}  // namespace nncosim::testbench
