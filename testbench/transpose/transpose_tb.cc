// Testbench `transpose`: the transposer between INP and the MAC array (rtl/nnc_transpose.sv)
// against the transpose of each block, every beat and its last flag. Three parts:
//  - free flow: 64 full blocks (16 vectors of 16 elements) with the input always valid and
//    the output always ready must stream one beat per cycle after the first block fills
//    (the two banks overlap filling and streaming); the cycles are in the summary;
//  - random blocks: 1..16 vectors (short blocks end with in_last_i), 1..16 beats, random
//    elements with 0 and 0xffff favoured, under stream_flow.h's stalls on both sides; the
//    lanes a short block did not write must read as zero, whatever the bank held before;
//    in half the blocks most inputs are pairs (in_pair_i: two lanes' vectors at once, as
//    the window fetch sends them since ISA 1.10), a pair closing a block now and then;
//  - a corrupt beat count (0) must end with the unit's assertion, the documented error.
// `transpose_yosys` runs the first two on the unit as Yosys 0.23 elaborates it (Yosys drops
// assertions, so not the third).
#include <cstdint>
#include <deque>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_transpose.h"
#ifdef NNC_HAVE_YOSYS_TRANSPOSE
#include "Vnnc_transpose_yosys.h"
#endif
#include "firmware/isa_generated.h"
#include "testbench/stream_flow.h"
#include "testbench/testbench.h"
#include "testbench/verilated_model.h"
#include "testbench/wide_port.h"

namespace nncosim::testbench {
namespace {

constexpr int kLanes = firmware::kArrayRows;  // nnc_transpose's default Lanes and Elems
constexpr int kElems = firmware::kArrayRows;
constexpr int kElemW = 16;

struct Block {
  std::vector<std::vector<uint16_t>> vec;  // 1..kLanes vectors of kElems elements
  int beats;                               // 1..kElems
  // Beat k, lane r: element k of vector r, zero for lanes the block did not write.
  uint16_t expected(int k, int r) const {
    return r < static_cast<int>(vec.size()) ? vec[static_cast<size_t>(r)][static_cast<size_t>(k)]
                                            : 0;
  }
};

template <typename Dut>
constexpr bool kIsYosys = false;
#ifdef NNC_HAVE_YOSYS_TRANSPOSE
template <>
constexpr bool kIsYosys<Vnnc_transpose_yosys> = true;
#endif

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}
  Block full() { return make(kLanes, kElems); }
  Block random() {
    const int n = pick(2) ? kLanes : 1 + static_cast<int>(pick(kLanes));
    const int beats = pick(2) ? kElems : 1 + static_cast<int>(pick(kElems));
    return make(n, beats);
  }

 private:
  uint64_t pick(uint64_t n) { return rng_() % n; }
  uint16_t element() {
    switch (pick(8)) {
      case 0:
        return 0;
      case 1:
        return 0xffff;
      default:
        return static_cast<uint16_t>(rng_());
    }
  }
  Block make(int n, int beats) {
    Block b;
    b.beats = beats;
    b.vec.resize(static_cast<size_t>(n));
    for (auto& v : b.vec) {
      v.resize(kElems);
      for (auto& e : v) e = element();
    }
    return b;
  }
  std::mt19937_64 rng_;
};

// Dut: the Verilated RTL, or the same unit as Yosys reads it (transpose_yosys).
template <typename Dut>
class Harness {
 public:
  explicit Harness(const TestbenchOptions& opt) : dut_(opt.wavesPath) {
    dut_.context().fatalOnError(false);
    dut_->clk_i = 0;
    dut_->rst_ni = 0;
    dut_->in_valid_i = 0;
    dut_->out_ready_i = 0;
    dut_->eval();
    tick();
    tick();
    dut_->rst_ni = 1;
  }

  // Sends `blocks` and checks every beat; valid/ready per cycle from `flow` (null: always
  // both). `pairs`: in odd blocks two of three inputs carry two vectors. Returns false on a
  // timeout.
  bool stream(const std::vector<Block>& blocks, StreamFlow* flow, bool pairs = false) {
    uint64_t vectorsTotal = 0;
    for (const Block& b : blocks) vectorsTotal += b.vec.size();
    size_t inBlock = 0, inVec = 0;  // the next vector to send
    size_t outBlock = 0;
    int outBeat = 0;
    uint64_t sent = 0;
    const uint64_t limit = cycles + 64 + 8 * (vectorsTotal + blocks.size() * kElems);
    while (outBlock < blocks.size()) {
      if (cycles > limit) return false;
      const StreamFlow::Cycle c = flow ? flow->next(sent) : StreamFlow::Cycle{true, true};
      const bool haveInput = inBlock < blocks.size();
      dut_->in_valid_i = c.valid && haveInput;
      dut_->out_ready_i = c.ready;
      bool pair = false;
      if (haveInput) {
        const Block& b = blocks[inBlock];
        pair = pairs && (inBlock & 1) && inVec + 1 < b.vec.size() && sent % 3 != 0;
        for (int k = 0; k < kElems; ++k) {
          putBits(dut_->in_vec_i, k * kElemW, kElemW, b.vec[inVec][k]);
          if (pair) putBits(dut_->in_vec2_i, k * kElemW, kElemW, b.vec[inVec + 1][k]);
        }
        dut_->in_pair_i = pair;
        const bool lastVec = inVec + (pair ? 2 : 1) == b.vec.size();
        // A full block closes by itself; say so anyway half of the time (both are legal).
        dut_->in_last_i = lastVec && (b.vec.size() < kLanes || (sent & 1));
        dut_->in_beats_i = static_cast<uint8_t>(lastVec ? b.beats : (sent % (kElems + 1)));
      }
      dut_->eval();
      if (dut_->out_valid_o && c.ready) {
        const Block& b = blocks[outBlock];
        const bool wantLast = outBeat + 1 == b.beats;
        if (static_cast<bool>(dut_->out_last_o) != wantLast) {
          ++mismatches;
          if (log.wants()) {
            std::ostringstream m;
            m << "block " << blocksChecked << " beat " << outBeat
              << ": last=" << int{dut_->out_last_o} << ", want " << wantLast << " (" << b.beats
              << " beats)";
            log.add(m.str());
          }
        }
        for (int r = 0; r < kLanes; ++r) {
          const auto got = static_cast<uint16_t>(getBits(dut_->out_beat_o, r * kElemW, kElemW));
          const uint16_t want = b.expected(outBeat, r);
          ++elementsChecked;
          zeroLanesChecked += r >= static_cast<int>(b.vec.size());
          if (got != want) {
            ++mismatches;
            if (log.wants()) {
              std::ostringstream m;
              m << "block " << blocksChecked << " (" << b.vec.size() << " vectors, " << b.beats
                << " beats) beat " << outBeat << " lane " << r << ": got 0x" << std::hex << got
                << ", want 0x" << want;
              log.add(m.str());
            }
          }
        }
        if (wantLast || dut_->out_last_o) {
          ++outBlock;
          ++blocksChecked;
          outBeat = 0;
        } else {
          ++outBeat;
        }
      }
      if (dut_->in_valid_i && dut_->in_ready_o) {
        ++sent;
        pairsSent += pair;
        inVec += pair ? 2 : 1;
        if (inVec == blocks[inBlock].vec.size()) {
          ++inBlock;
          inVec = 0;
        }
      }
      tick();
    }
    dut_->in_valid_i = 0;
    dut_->out_ready_i = 0;
    return true;
  }

  // One vector closing a block of 0 beats: the unit's assertion must report it.
  bool corruptBeatCountReported() {
    dut_->in_valid_i = 1;
    dut_->in_pair_i = 0;
    dut_->in_last_i = 1;
    dut_->in_beats_i = 0;
    dut_->eval();
    const bool accepted = dut_->in_ready_o;
    tick();
    dut_->in_valid_i = 0;
    tick();
    return accepted && dut_.context().gotError();
  }
  bool assertionFailed() { return dut_.context().gotError(); }

  uint64_t cycles = 0, mismatches = 0, elementsChecked = 0, zeroLanesChecked = 0, blocksChecked = 0,
           pairsSent = 0;
  MismatchLog log;

 private:
  void tick() {
    dut_.cycle();
    ++cycles;
  }
  VerilatedModel<Dut> dut_;
};

template <typename Dut>
TestbenchResult run(const TestbenchOptions& opt) {
  constexpr bool kAssertions = !kIsYosys<Dut>;
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t blocks = opt.iterations ? opt.iterations : 20000;
  Generator gen(opt.seed);
  Harness<Dut> h(opt);
  std::ostringstream s;
  bool ok = true;

  // Free flow: after the first block's 16 vectors, one beat per cycle.
  constexpr int kFreeBlocks = 64;
  std::vector<Block> free;
  for (int i = 0; i < kFreeBlocks; ++i) free.push_back(gen.full());
  const uint64_t start = h.cycles;
  ok &= h.stream(free, nullptr);
  const uint64_t freeCycles = h.cycles - start;
  const uint64_t freeBeats = uint64_t{kFreeBlocks} * kElems;
  const uint64_t freeBound = freeBeats + kLanes + 1;  // fill of the first block, then streaming
  if (freeCycles > freeBound) {
    ++h.mismatches;
    s << "free flow took " << freeCycles << " cycles for " << freeBeats << " beats (at most "
      << freeBound << "); ";
  }

  std::vector<Block> random;
  for (uint64_t i = 0; i < blocks; ++i) random.push_back(gen.random());
  uint64_t vectors = 0;
  for (const Block& b : random) vectors += b.vec.size();
  StreamFlow flow(opt.seed ^ 0x7a57ULL, vectors);
  ok &= h.stream(random, &flow, true);
  if (!ok) {
    ++h.mismatches;
    s << "timeout: " << h.blocksChecked << " of " << kFreeBlocks + blocks << " blocks came out; ";
  }
  if (h.assertionFailed()) {
    ++h.mismatches;
    s << "RTL assertion failed on legal input; ";
  } else if (kAssertions && !h.corruptBeatCountReported()) {
    ++h.mismatches;
    s << "a block of 0 beats was not reported; ";
  }

  res.cycles = h.cycles;
  res.iterations = h.blocksChecked;
  res.mismatches = h.mismatches;
  res.passed = res.mismatches == 0;
  if (res.passed) {
    s << h.blocksChecked << " blocks transposed exactly (" << h.elementsChecked << " elements, "
      << h.zeroLanesChecked << " of them unwritten lanes reading zero; " << h.pairsSent
      << " inputs of two vectors); free flow " << freeBeats << " beats in " << freeCycles
      << " cycles; "
      << (kAssertions ? "a beat count of 0 reported by the assertion; "
                      : "(Yosys's elaboration: no assertions) ")
      << h.cycles << " cycles";
  } else {
    s << res.mismatches << " mismatches";
    h.log.appendTo(s);
  }
  res.summary = s.str();
  if (opt.verbose) VL_PRINTF("transpose: %s\n", res.summary.c_str());
  return res;
}

TestbenchRegistrar reg{TestbenchDef{
    "transpose",
    "INP-to-array transposer (window mode's pixel vectors to channel beats) vs the transposed "
    "blocks, with stalls (iterations = random blocks)",
    &run<Vnnc_transpose>,
    3000,
}};

#ifdef NNC_HAVE_YOSYS_TRANSPOSE
// The same streams through the transposer as Yosys 0.23 elaborates it (rtl/CMakeLists.txt):
// its banks become a Yosys memory, the reading this checks.
TestbenchRegistrar regYosys{TestbenchDef{
    "transpose_yosys",
    "transposer as Yosys reads it (its elaborated netlist, Verilated) vs the transposed blocks "
    "(iterations = random blocks)",
    &run<Vnnc_transpose_yosys>,
    3000,
}};
#endif

}  // namespace
}  // namespace nncosim::testbench
