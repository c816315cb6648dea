// Testbench `eltwise`: the elementwise unit's datapath (rtl/nnc_eltwise.sv) against the
// reference's quantized ADD, SUB and MUL arithmetic (ops/elementwise/add.cc and mul.cc, on
// ops/quant/fixed_point.h), bit for bit, with random stalls on both sides. Seeded random
// beats: uint8, int8 and int16 (ADD/SUB with 15 bits of headroom) operands with edge
// values; multipliers and shifts either derived from random scales as the reference derives
// them or drawn over every value the unit defines (shifts -31..+31, Q31 multipliers at
// their bounds); activation ranges empty, inverted, partial and full; every output type.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_eltwise.h"
#include "firmware/isa_generated.h"
#include "ops/quant/fixed_point.h"
#include "testbench/out_type.h"
#include "testbench/stream_flow.h"
#include "testbench/testbench.h"
#include "testbench/verilated_model.h"
#include "testbench/wide_port.h"

namespace nncosim::testbench {
namespace {

constexpr int kLanes = firmware::kArrayCols;  // nnc_eltwise's default Lanes

enum Op : int { kAdd, kSub, kMul };
const char* kOpName[] = {"ADD", "SUB", "MUL"};

struct Beat {
  Op op;
  int inType;  // kOutU8, kOutI8 or kOutI16: the operands' type
  int16_t a[kLanes], b[kLanes];
  int32_t aZp, bZp;
  int left;                       // ADD / SUB headroom
  int32_t aMult, bMult, outMult;  // bMult already negated for SUB
  int aShift, bShift, outShift;
  int32_t zp, actMin, actMax;
  int outType;
};

// wrap32 of an int64 / uint32 computation: the unit's (and, on valid inputs, the
// reference's) int32 arithmetic.
int32_t wrap32(uint64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

// add.cc's and mul.cc's per-element arithmetic, in the unit's terms (see nnc_eltwise.sv).
int32_t model(const Beat& b, int lane) {
  namespace q = ops::quant;
  const int32_t x = wrap32(static_cast<uint64_t>(int64_t{b.a[lane]} - b.aZp));
  const int32_t y = wrap32(static_cast<uint64_t>(int64_t{b.b[lane]} - b.bZp));
  int32_t s;
  if (b.op == kMul) {
    s = wrap32(static_cast<uint64_t>(static_cast<uint32_t>(x)) * static_cast<uint32_t>(y));
  } else {
    const int32_t sx = q::multiplyByQuantizedMultiplier(
        wrap32(uint64_t{static_cast<uint32_t>(x)} << b.left), b.aMult, b.aShift);
    const int32_t sy = q::multiplyByQuantizedMultiplier(
        wrap32(uint64_t{static_cast<uint32_t>(y)} << b.left), b.bMult, b.bShift);
    s = wrap32(static_cast<uint64_t>(static_cast<uint32_t>(sx)) + static_cast<uint32_t>(sy));
  }
  const int32_t r = q::multiplyByQuantizedMultiplier(s, b.outMult, b.outShift);
  int64_t v = int64_t{r} + b.zp;
  v = v < b.actMin ? b.actMin : (v > b.actMax ? b.actMax : v);  // fixed_point.h's clamp order
  v = saturateToType(v, b.outType);
  return static_cast<int32_t>(v);
}

// A real multiplier as a Q31 value and a shift, as the reference's quantizeMultiplier
// (frexp, then rounding the mantissa to 31 bits).
void quantize(double real, int32_t& mult, int& shift) {
  int e = 0;
  const double m = std::frexp(real, &e);
  auto q = static_cast<int64_t>(std::llround(m * 2147483648.0));
  if (q == (int64_t{1} << 31)) {
    q /= 2;
    ++e;
  }
  mult = static_cast<int32_t>(q);
  shift = e;
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  Beat beat() {
    Beat b{};
    b.op = static_cast<Op>(pick(4) == 0 ? kSub : (pick(3) == 0 ? kMul : kAdd));
    b.inType = b.op == kMul ? static_cast<int>(pick(2)) : static_cast<int>(pick(3));
    const int64_t lo = kTypeMin[b.inType], hi = kTypeMax[b.inType];
    // int16 is QUANT16_SYMM: zero point 0.
    b.aZp = b.inType == kOutI16 ? 0 : static_cast<int32_t>(range(lo, hi));
    b.bZp = b.inType == kOutI16 ? 0 : static_cast<int32_t>(range(lo, hi));
    for (int l = 0; l < kLanes; ++l) {
      b.a[l] = value(lo, hi, b.aZp);
      b.b[l] = value(lo, hi, b.bZp);
    }
    if (pick(4) == 0) {  // broadcasting: one b for every lane
      for (int l = 1; l < kLanes; ++l) b.b[l] = b.b[0];
    }
    b.left = b.inType == kOutI16 ? 15 : 20;
    if (pick(2)) {
      realistic(b);
    } else {
      b.aMult = mult();
      b.bMult = mult();
      b.outMult = mult();
      b.aShift = shift();
      b.bShift = shift();
      b.outShift = shift();
    }
    if (b.op == kSub) b.bMult = -b.bMult;  // add.cc's negateSecond
    b.outType = pick(4) ? b.inType : static_cast<int>(pick(kOutTypes));
    const int64_t tlo = kTypeMin[b.outType], thi = kTypeMax[b.outType];
    b.zp = b.outType == kOutI16 || b.outType == kOutI32
               ? 0
               : static_cast<int32_t>(
                     range(std::max<int64_t>(tlo, -128), std::min<int64_t>(thi, 255)));
    if (pick(16) == 0) b.zp = static_cast<int32_t>(static_cast<uint32_t>(rng_()));
    switch (pick(6)) {
      case 0:  // random, possibly inverted
        b.actMin = static_cast<int32_t>(static_cast<uint32_t>(rng_()));
        b.actMax = static_cast<int32_t>(static_cast<uint32_t>(rng_()));
        break;
      case 1: {  // a fused ReLU-like sub-range of the type
        int64_t x = range(tlo, thi), y = range(tlo, thi);
        if (x > y) std::swap(x, y);
        b.actMin = static_cast<int32_t>(x);
        b.actMax = static_cast<int32_t>(y);
        break;
      }
      case 2:
        b.actMin = INT32_MIN;
        b.actMax = INT32_MAX;
        break;
      default:
        b.actMin = static_cast<int32_t>(tlo);
        b.actMax = static_cast<int32_t>(thi);
    }
    return b;
  }

 private:
  // Scales as a model has them; the multipliers as add.cc / mul.cc derive them.
  void realistic(Beat& b) {
    const double s1 = scale(), s2 = scale(), so = scale();
    if (b.op == kMul) {
      quantize(s1 * s2 / so, b.outMult, b.outShift);
      b.aMult = b.bMult = 0;
      b.aShift = b.bShift = 0;
      // The reference takes real multipliers below one; above, the unit's left shift.
      b.outShift = std::min(b.outShift, 31);
      return;
    }
    const double twiceMax = 2 * std::max(s1, s2);
    quantize(s1 / twiceMax, b.aMult, b.aShift);
    quantize(s2 / twiceMax, b.bMult, b.bShift);
    quantize(twiceMax / ((1 << b.left) * so), b.outMult, b.outShift);
    b.outShift = std::max(b.outShift, -31);
  }
  double scale() {
    return std::ldexp(1.0 + static_cast<double>(pick(1000)) / 1000.0, -static_cast<int>(pick(10)));
  }
  int16_t value(int64_t lo, int64_t hi, int32_t zp) {
    switch (pick(8)) {
      case 0:
        return static_cast<int16_t>(lo);
      case 1:
        return static_cast<int16_t>(hi);
      case 2:
        return static_cast<int16_t>(zp);
      default:
        return static_cast<int16_t>(range(lo, hi));
    }
  }
  int32_t mult() {
    static const int32_t e[] = {0, 1 << 30, INT32_MAX, (1 << 30) + 1, INT32_MAX - 1};
    if (pick(6) == 0) return e[pick(sizeof e / sizeof e[0])];
    return static_cast<int32_t>(range(int64_t{1} << 30, INT32_MAX));
  }
  // Every shift the unit defines, the common small right shifts more often.
  int shift() { return pick(3) ? static_cast<int>(range(-31, 31)) : -static_cast<int>(pick(12)); }
  uint64_t pick(uint64_t n) { return rng_() % n; }
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
  }

  std::mt19937_64 rng_;
};

TestbenchResult run(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t cases = opt.iterations ? opt.iterations : 200000;
  const uint64_t beats = (cases + kLanes - 1) / kLanes;

  VerilatedModel<Vnnc_eltwise> dut(opt.wavesPath);
  dut.context().fatalOnError(false);
  auto tick = [&]() {
    dut.cycle();
    ++res.cycles;
  };

  Generator gen(opt.seed);
  StreamFlow flow(opt.seed ^ 0xe17e15eULL, beats);
  dut->clk_i = 0;
  dut->rst_ni = 0;
  dut->in_valid_i = 0;
  dut->out_ready_i = 0;
  dut->eval();
  tick();
  tick();
  dut->rst_ni = 1;

  std::deque<Beat> inFlight;
  MismatchLog firstMismatches;
  uint64_t sent = 0, received = 0, checked = 0, unclamped = 0, perOp[3] = {0, 0, 0};
  Beat next = gen.beat();
  const uint64_t maxCycles = beats * 8 + 1000;
  while (received < beats && res.cycles < maxCycles) {
    // Quarters: back to back, random input gaps, random output stalls, both.
    const auto [valid, ready] = flow.next(sent);
    dut->in_valid_i = valid;
    dut->out_ready_i = ready;
    for (int l = 0; l < kLanes; ++l) {
      putBits(dut->in_a_i, l * 16, 16, static_cast<uint16_t>(next.a[l]));
      putBits(dut->in_b_i, l * 16, 16, static_cast<uint16_t>(next.b[l]));
    }
    dut->in_mul_i = next.op == kMul;
    dut->in_left_i = static_cast<uint8_t>(next.left);
    dut->in_a_zp_i = static_cast<uint32_t>(next.aZp);
    dut->in_b_zp_i = static_cast<uint32_t>(next.bZp);
    dut->in_a_mult_i = static_cast<uint32_t>(next.aMult);
    dut->in_b_mult_i = static_cast<uint32_t>(next.bMult);
    dut->in_out_mult_i = static_cast<uint32_t>(next.outMult);
    dut->in_a_shift_i = static_cast<uint8_t>(next.aShift & 0x3f);
    dut->in_b_shift_i = static_cast<uint8_t>(next.bShift & 0x3f);
    dut->in_out_shift_i = static_cast<uint8_t>(next.outShift & 0x3f);
    dut->in_zp_i = static_cast<uint32_t>(next.zp);
    dut->in_act_min_i = static_cast<uint32_t>(next.actMin);
    dut->in_act_max_i = static_cast<uint32_t>(next.actMax);
    dut->in_out_type_i = static_cast<uint8_t>(next.outType);
    dut->eval();

    if (dut->out_valid_o && ready) {
      if (inFlight.empty()) {
        ++res.mismatches;
        firstMismatches.add("output beat with no input");
      } else {
        const Beat& b = inFlight.front();
        for (int l = 0; l < kLanes; ++l) {
          const auto got = static_cast<int32_t>(getBits(dut->out_data_o, l * 32, 32));
          const int32_t want = model(b, l);
          ++checked;
          ++perOp[b.op];
          // Results strictly inside the clamps: the arithmetic, not a bound, decided them.
          const int64_t lo = std::max<int64_t>(b.actMin, kTypeMin[b.outType]);
          const int64_t hi = std::min<int64_t>(b.actMax, kTypeMax[b.outType]);
          unclamped += want > lo && want < hi;
          if (got != want) {
            ++res.mismatches;
            if (firstMismatches.wants()) {
              std::ostringstream m;
              m << "beat " << received << " lane " << l << " " << kOpName[b.op] << " "
                << kOutTypeName[b.inType] << ": a=" << b.a[l] << " (zp " << b.aZp
                << ") b=" << b.b[l] << " (zp " << b.bZp << ") left=" << b.left
                << " a_mult=" << b.aMult << "/" << b.aShift << " b_mult=" << b.bMult << "/"
                << b.bShift << " out_mult=" << b.outMult << "/" << b.outShift << " zp=" << b.zp
                << " act=[" << b.actMin << "," << b.actMax << "] " << kOutTypeName[b.outType]
                << " -> got " << got << ", want " << want;
              firstMismatches.add(m.str());
            }
          }
        }
        inFlight.pop_front();
      }
      ++received;
    }
    if (valid && dut->in_ready_o) {
      inFlight.push_back(next);
      ++sent;
      next = gen.beat();
    }
    tick();
  }

  res.iterations = checked;
  std::ostringstream s;
  if (received < beats) {
    ++res.mismatches;
    s << "timeout: " << received << " of " << beats << " beats came out after " << res.cycles
      << " cycles; ";
  }
  if (dut.context().gotError()) {
    ++res.mismatches;
    s << "RTL assertion failed; ";
  }
  res.passed = res.mismatches == 0;
  if (res.passed) {
    s << checked
      << " lane results bit-exact vs ops/elementwise's quantized arithmetic: " << perOp[kAdd]
      << " ADD, " << perOp[kSub] << " SUB, " << perOp[kMul] << " MUL, " << unclamped
      << " of them inside the clamps (" << beats << " beats of " << kLanes << " lanes, "
      << res.cycles << " cycles)";
  } else {
    s << res.mismatches << " mismatches";
    firstMismatches.appendTo(s);
  }
  res.summary = s.str();
  if (opt.verbose) VL_PRINTF("eltwise: %s\n", res.summary.c_str());
  return res;
}

TestbenchRegistrar reg{TestbenchDef{
    "eltwise",
    "elementwise unit (ADD/SUB/MUL datapath) vs ops/elementwise arithmetic, bit for bit "
    "(iterations = lane results)",
    &run,
    20000,
}};

}  // namespace
}  // namespace nncosim::testbench
