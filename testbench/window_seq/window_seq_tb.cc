// Testbench `window_seq`: the window sequencer (rtl/nnc_window_seq.sv) against window
// mode's address formula, computed here with multiplications (the unit uses running sums):
// for blocks j < ceil(k / vec) and vectors i < m,
//   addr = base + i*lane_stride + (j % taps)*tap_stride + (j / taps)*tile_stride  (mod 2^20)
// with the block's first/last flags and beat count (vec, the last block the rest of k); a
// read covers vectors i and i + 1 of a block when both fit the 2R bytes one read returns
// (lane_stride + vec * element bytes <= 2R, ISA 1.10), the pair flag set.
// Random windows (m, vec 1..16 with 16 favoured, taps 1..127 with 1 and 3 favoured, k up to
// 600, strides up to their field widths so that addresses wrap), the reader's ready low one
// cycle in three in half of the windows, and a start with a different window held high
// while the unit is busy, which it must ignore. Last, a window of m = 0 must end with the
// unit's assertion.
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_window_seq.h"
#include "firmware/isa_generated.h"
#include "testbench/stream_flow.h"
#include "testbench/testbench.h"
#include "testbench/verilated_model.h"
#include "testbench/window.h"

namespace nncosim::testbench {
namespace {

constexpr uint32_t kRows = firmware::kArrayRows;

struct Request {
  uint32_t addr;
  bool first, last, pair;
  uint32_t beats;
  bool operator==(const Request& o) const {
    return addr == o.addr && first == o.first && last == o.last && pair == o.pair &&
           beats == o.beats;
  }
};

std::vector<Request> expected(const Window& w) {
  std::vector<Request> out;
  const uint32_t blocks = (w.k + w.vec - 1) / w.vec;
  for (uint32_t j = 0; j < blocks; ++j) {
    const uint32_t beats = j + 1 == blocks ? w.k - j * w.vec : w.vec;
    for (uint32_t i = 0; i < w.m;) {
      const bool pair = windowPairs(w) && i + 1 < w.m;
      const uint32_t n = pair ? 2 : 1;
      out.push_back({windowVectorAddress(w, i, j), i == 0, i + n == w.m, pair, beats});
      i += n;
    }
  }
  return out;
}

std::string describe(const Request& r) {
  std::ostringstream s;
  s << "addr 0x" << std::hex << r.addr << std::dec << (r.first ? " first" : "")
    << (r.last ? " last" : "") << (r.pair ? " pair" : "") << " beats " << r.beats;
  return s.str();
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}
  Window window() {
    Window w;
    w.base = static_cast<uint32_t>(rng_()) & kWindowAddrMask;
    w.m = pick(2) ? kRows : 1 + static_cast<uint32_t>(pick(kRows));
    w.vec = pick(2) ? kRows : 1 + static_cast<uint32_t>(pick(kRows));
    switch (pick(4)) {
      case 0:
        w.taps = 1;
        break;
      case 1:
        w.taps = 3;
        break;
      default:
        w.taps = 1 + static_cast<uint32_t>(pick(127));
    }
    w.k = pick(3) ? w.vec * w.taps * (1 + static_cast<uint32_t>(pick(4)))
                  : 1 + static_cast<uint32_t>(pick(600));
    if (w.k > 600) w.k = 1 + w.k % 600;
    w.wide = pick(4) == 0;
    switch (pick(3)) {
      case 0:  // pixel vectors side by side, or every other one
        w.laneStride = w.vec * (w.wide ? 2 : 1) * (1 + static_cast<uint32_t>(pick(2)));
        break;
      case 1:  // a few-channel image's windows, overlapping
        w.laneStride = static_cast<uint32_t>(pick(2 * kRows));
        break;
      default:
        w.laneStride = static_cast<uint32_t>(rng_()) & kWindowAddrMask;
    }
    w.tapStride = static_cast<uint32_t>(rng_()) & 0xfffu;
    w.tileStride = static_cast<uint32_t>(rng_()) & kWindowAddrMask;
    return w;
  }
  uint64_t pick(uint64_t n) { return rng_() % n; }

 private:
  std::mt19937_64 rng_;
};

TestbenchResult run(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t windows = opt.iterations ? opt.iterations : 5000;
  VerilatedModel<Vnnc_window_seq> dut(opt.wavesPath);
  dut.context().fatalOnError(false);
  auto tick = [&]() {
    dut.cycle();
    ++res.cycles;
  };
  dut->clk_i = 0;
  dut->rst_ni = 0;
  dut->start_i = 0;
  dut->rd_ready_i = 0;
  dut->eval();
  tick();
  tick();
  dut->rst_ni = 1;

  Generator gen(opt.seed);
  std::mt19937_64 stall(opt.seed ^ 0x5e9ULL);
  MismatchLog log;
  uint64_t requests = 0, wrapped = 0, ignoredStarts = 0, checkedWindows = 0, pairs = 0;
  std::ostringstream s;
  for (uint64_t n = 0; n < windows; ++n) {
    const Window w = gen.window();
    const std::vector<Request> want = expected(w);
    for (const Request& r : want) wrapped += r.addr < w.base;
    // Start: one cycle with start_i high while idle.
    driveWindow(dut, w);
    dut->start_i = 1;
    dut->rd_ready_i = 0;
    dut->eval();
    if (!dut->idle_o) {
      ++res.mismatches;
      log.add("window " + std::to_string(n) + ": not idle at its start");
    }
    tick();
    const bool stalls = gen.pick(2);
    const bool heldStart = gen.pick(2);
    const Window other = gen.window();  // what a start while busy would load
    size_t got = 0;
    const uint64_t limit = res.cycles + 8 + 4 * want.size();
    while (got < want.size() && res.cycles < limit) {
      dut->rd_ready_i = !stalls || stall() % 3 != 0;
      // A start with the last read is taken (back to back); before it, it must be ignored.
      const bool hold = heldStart && !(got + 1 == want.size() && dut->rd_ready_i);
      dut->start_i = hold;
      if (hold) driveWindow(dut, other);
      dut->eval();
      ignoredStarts += hold && dut->rd_valid_o;
      if (dut->rd_valid_o && dut->rd_ready_i) {
        const Request r{dut->rd_addr_o, static_cast<bool>(dut->rd_first_o),
                        static_cast<bool>(dut->rd_last_o), static_cast<bool>(dut->rd_pair_o),
                        dut->rd_beats_o};
        pairs += r.pair;
        if (!(r == want[got])) {
          ++res.mismatches;
          if (log.wants()) {
            std::ostringstream m;
            m << "window " << n << " (m " << w.m << ", vec " << w.vec << ", taps " << w.taps
              << ", k " << w.k << ") request " << got << ": " << describe(r) << ", want "
              << describe(want[got]);
            log.add(m.str());
          }
        }
        ++got;
        ++requests;
      }
      tick();
    }
    dut->start_i = 0;
    dut->rd_ready_i = 0;
    dut->eval();
    if (got < want.size()) {
      ++res.mismatches;
      log.add("window " + std::to_string(n) + ": " + std::to_string(got) + " of " +
              std::to_string(want.size()) + " requests");
      break;
    }
    if (!dut->idle_o || dut->rd_valid_o) {
      ++res.mismatches;
      log.add("window " + std::to_string(n) + ": a request beyond its " +
              std::to_string(want.size()));
      break;
    }
    ++checkedWindows;
  }

  const bool legalAssertion = dut.context().gotError();
  bool corruptReported = false;
  if (!legalAssertion) {
    Window bad = gen.window();
    bad.m = 0;
    driveWindow(dut, bad);
    dut->start_i = 1;
    dut->eval();
    tick();
    dut->start_i = 0;
    tick();
    corruptReported = dut.context().gotError();
  }
  if (legalAssertion) {
    ++res.mismatches;
    s << "RTL assertion failed on legal input; ";
  } else if (!corruptReported) {
    ++res.mismatches;
    s << "a window of m = 0 was not reported; ";
  }

  res.iterations = checkedWindows;
  res.passed = res.mismatches == 0;
  if (res.passed) {
    s << checkedWindows << " windows, " << requests << " vector reads exact (" << pairs
      << " of them reading two lanes' vectors, " << wrapped
      << " wrapped past the buffer's address width), " << ignoredStarts
      << " busy cycles with another window's start held high, ignored; a window of m = 0 reported "
         "by the assertion; "
      << res.cycles << " cycles";
  } else {
    s << res.mismatches << " mismatches";
    log.appendTo(s);
  }
  res.summary = s.str();
  if (opt.verbose) VL_PRINTF("window_seq: %s\n", res.summary.c_str());
  return res;
}

TestbenchRegistrar reg{TestbenchDef{
    "window_seq",
    "window sequencer (window mode's INP vector reads) vs the address formula, with stalls "
    "(iterations = windows)",
    &run,
    1000,
}};

}  // namespace
}  // namespace nncosim::testbench
