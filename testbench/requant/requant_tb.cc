// Testbench `requant`: the requant unit (rtl/nnc_requant.sv) against the reference's
// fixed-point primitives (ops/quant/fixed_point.h), bit for bit, on seeded random beats that
// favour edge values (INT32_MIN/MAX, every shift, zero and INT32_MIN multipliers, empty and
// inverted activation ranges, every output type), with random stalls on both sides. Half
// the beats take each path:
//  - int32 (acc64 = 0): multiplyByQuantizedMultiplier; wrapping bias add, garbage in bits
//    63:32 of the accumulator;
//  - int64 (acc64 = 1): multiplyByQuantizedMultiplier64; sums up to +-2^47 (the MAC
//    array's) and beyond (int64 extremes: the bias add and the product wrap), every shift
//    of [-31, 14] and some outside it (clamped), multipliers at the Q15 reduction's cap.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_requant.h"
#ifdef NNC_HAVE_YOSYS_REQUANT
#include "Vnnc_requant_yosys.h"
#endif
#include "firmware/isa_generated.h"
#include "ops/quant/fixed_point.h"
#include "testbench/out_type.h"
#include "testbench/stream_flow.h"
#include "testbench/testbench.h"
#include "testbench/wide_port.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace nncosim::testbench {
namespace {

constexpr int kLanes = firmware::kArrayCols;  // nnc_requant's default Lanes

struct Lane {
  int64_t acc;  // in int32 mode only bits 31:0 count
  int32_t bias, mult;
  int shift;  // the int8 the unit takes
};
struct Beat {
  Lane lane[kLanes];
  int32_t zp, actMin, actMax;
  int outType;
  bool acc64;
};

// The unit's contract in terms of the reference primitives (see nnc_requant.sv's header).
int32_t model(const Lane& l, const Beat& b) {
  namespace q = ops::quant;
  int32_t scaled;
  if (b.acc64) {  // int64 sum, wrapping; the shift clamped into the 64-bit form's domain
    const auto x =
        static_cast<int64_t>(static_cast<uint64_t>(l.acc) + static_cast<uint64_t>(int64_t{l.bias}));
    scaled = q::multiplyByQuantizedMultiplier64(x, l.mult, std::min(std::max(l.shift, -31), 14));
  } else {  // the reference's int32 accumulator: wrapping
    const auto x =
        static_cast<int32_t>(static_cast<uint32_t>(l.acc) + static_cast<uint32_t>(l.bias));
    scaled = q::multiplyByQuantizedMultiplier(x, l.mult, l.shift);
  }
  int64_t y = static_cast<int64_t>(scaled) + b.zp;
  y = y < b.actMin ? b.actMin : (y > b.actMax ? b.actMax : y);  // fixed_point.h's clamp order
  y = saturateToType(y, b.outType);
  return static_cast<int32_t>(y);
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  Beat beat() {
    Beat b;
    b.acc64 = pick(2);
    for (auto& l : b.lane) l = b.acc64 ? lane64() : lane32();
    b.outType = static_cast<int>(pick(kOutTypes));
    const int64_t* lo = kTypeMin;
    const int64_t* hi = kTypeMax;
    switch (pick(8)) {
      case 0:
        b.zp = int32();
        break;
      case 1:
        b.zp = edge32();
        break;
      case 2:
        b.zp = static_cast<int32_t>(range(-32768, 65535));
        break;
      default:
        b.zp = static_cast<int32_t>(range(lo[b.outType] < -128 ? -128 : lo[b.outType],
                                          hi[b.outType] > 255 ? 255 : hi[b.outType]));
    }
    switch (pick(6)) {
      case 0:  // random, possibly inverted
        b.actMin = int32();
        b.actMax = int32();
        break;
      case 1: {  // a random sub-range of the type
        int64_t x = range(lo[b.outType], hi[b.outType]), y = range(lo[b.outType], hi[b.outType]);
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
        b.actMin = static_cast<int32_t>(lo[b.outType]);
        b.actMax = static_cast<int32_t>(hi[b.outType]);
    }
    return b;
  }

 private:
  // int32 path: the low 32 bits of acc are the accumulator, the rest is garbage.
  Lane lane32() {
    Lane l;
    switch (pick(6)) {
      case 0:
        l.acc = edge32();
        break;
      case 1:
        l.acc = range(-256, 256);
        break;
      default:
        l.acc = int32() >> pick(32);
    }
    l.acc =
        static_cast<int64_t>((static_cast<uint64_t>(rng_()) << 32) | static_cast<uint32_t>(l.acc));
    l.bias = bias();
    l.mult = mult();
    // Every shift the unit defines, with the common small right shifts more often.
    l.shift = pick(3) ? static_cast<int>(range(-31, 31)) : -static_cast<int>(pick(12));
    // INT32_MIN * INT32_MIN saturates: make it happen (shift 0, sum INT32_MIN).
    if (pick(50) == 0) {
      l.acc = INT32_MIN;
      l.bias = 0;
      l.mult = INT32_MIN;
      l.shift = 0;
    }
    return l;
  }

  // int64 path: the sums a 48-bit array produces (accumulated in int64), near the int32
  // limits, and int64 extremes (the bias add and the product wrap).
  Lane lane64() {
    Lane l;
    switch (pick(10)) {
      case 0:
        l.acc = edge32();
        break;
      case 1:
        l.acc = pick(2) ? (int64_t{1} << 47) - 1 - static_cast<int64_t>(pick(4))
                        : -(int64_t{1} << 47) + static_cast<int64_t>(pick(4));
        break;
      case 2:
        l.acc = range(-(int64_t{1} << 34), int64_t{1} << 34);
        break;  // beyond int32
      case 3:
        l.acc = range(-256, 256);
        break;
      case 4: {
        static const int64_t e[] = {INT64_MIN,     INT64_MIN + 1,       INT64_MAX,
                                    INT64_MAX - 1, -(int64_t{1} << 62), int64_t{1} << 62};
        l.acc = pick(2) ? e[pick(6)] : static_cast<int64_t>(rng_());
        break;
      }
      default:
        l.acc = range(-(int64_t{1} << 47), (int64_t{1} << 47) - 1);
    }
    l.bias = bias();
    switch (pick(8)) {
      case 0:
        l.mult = mult();
        break;
      case 1:
        l.mult = static_cast<int32_t>(range(0x7FFF0000 - 2, INT32_MAX));
        break;  // the cap
      case 2:
        l.mult = static_cast<int32_t>(range(INT32_MIN, -1));
        break;
      default:
        l.mult = static_cast<int32_t>(range(int64_t{1} << 30, (int64_t{1} << 31) - 1));
    }
    // Every shift of [-31, 14], now and then an int8 outside it (clamped).
    l.shift =
        pick(16) ? static_cast<int>(range(-31, 14)) : static_cast<int>(static_cast<int8_t>(rng_()));
    return l;
  }

  int32_t bias() {
    switch (pick(6)) {
      case 0:
        return edge32();
      case 1:
        return 0;
      case 2:
        return int32();
      default:
        return int32() >> (8 + pick(24));
    }
  }
  int32_t mult() {
    switch (pick(10)) {
      case 0:
        return 0;
      case 1:
        return INT32_MIN;
      case 2:
        return INT32_MAX;
      case 3:
        return 1 << 30;
      case 4:
        return int32();
      default:
        return static_cast<int32_t>(range(int64_t{1} << 30, (int64_t{1} << 31) - 1));
    }
  }

  int32_t edge32() {
    static const int32_t e[] = {INT32_MIN,     INT32_MIN + 1, -1,      0,         1,
                                INT32_MAX - 1, INT32_MAX,     1 << 30, -(1 << 30)};
    return e[pick(sizeof e / sizeof e[0])];
  }
  int32_t int32() { return static_cast<int32_t>(static_cast<uint32_t>(rng_())); }
  uint64_t pick(uint64_t n) { return rng_() % n; }
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
  }

  std::mt19937_64 rng_;
};

// Dut: the Verilated RTL, or the same unit as Yosys reads it (requant_yosys).
template <typename Dut>
TestbenchResult run(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t cases = opt.iterations ? opt.iterations : 250000;
  const uint64_t beats = (cases + kLanes - 1) / kLanes;

  auto ctx = std::make_unique<VerilatedContext>();
  ctx->fatalOnError(false);
  if (!opt.wavesPath.empty()) ctx->traceEverOn(true);
  auto dut = std::make_unique<Dut>(ctx.get(), "requant");
  std::unique_ptr<VerilatedFstC> fst;
  if (!opt.wavesPath.empty()) {
    fst = std::make_unique<VerilatedFstC>();
    dut->trace(fst.get(), 99);
    fst->open(opt.wavesPath.c_str());
  }
  uint64_t time = 0;
  auto tick = [&]() {
    dut->clk_i = 1;
    dut->eval();
    if (fst) fst->dump(time);
    time += 5;
    ctx->timeInc(5);  // RTL assertion messages carry the time
    dut->clk_i = 0;
    dut->eval();
    if (fst) fst->dump(time);
    time += 5;
    ctx->timeInc(5);
    ++res.cycles;
  };

  Generator gen(opt.seed);
  StreamFlow flow(opt.seed ^ 0x5eedf10dULL, beats);
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
  uint64_t sent = 0, received = 0, checked = 0, checked64 = 0;
  Beat next = gen.beat();
  // Phases of flow control: free running, then random stalls on either side.
  const uint64_t maxCycles = beats * 8 + 1000;
  while (received < beats && res.cycles < maxCycles) {
    const auto [valid, ready] = flow.next(sent);
    dut->in_valid_i = valid;
    dut->out_ready_i = ready;
    for (int l = 0; l < kLanes; ++l) {
      const Lane& ln = next.lane[l];
      putBits(dut->in_acc_i, l * 64, 64, static_cast<uint64_t>(ln.acc));
      putBits(dut->in_bias_i, l * 32, 32, static_cast<uint32_t>(ln.bias));
      putBits(dut->in_mult_i, l * 32, 32, static_cast<uint32_t>(ln.mult));
      putBits(dut->in_shift_i, l * 8, 8, static_cast<uint64_t>(ln.shift) & 0xff);
    }
    dut->in_zp_i = static_cast<uint32_t>(next.zp);
    dut->in_act_min_i = static_cast<uint32_t>(next.actMin);
    dut->in_act_max_i = static_cast<uint32_t>(next.actMax);
    dut->in_out_type_i = static_cast<uint8_t>(next.outType);
    dut->in_acc64_i = next.acc64;
    dut->eval();

    if (dut->out_valid_o && ready) {
      if (inFlight.empty()) {
        ++res.mismatches;
        firstMismatches.add("output beat with no input");
      } else {
        const Beat& b = inFlight.front();
        for (int l = 0; l < kLanes; ++l) {
          const int32_t got = static_cast<int32_t>(getBits(dut->out_data_o, l * 32, 32));
          const int32_t want = model(b.lane[l], b);
          ++checked;
          checked64 += b.acc64;
          if (got != want) {
            ++res.mismatches;
            if (firstMismatches.wants()) {
              const Lane& ln = b.lane[l];
              std::ostringstream m;
              m << "beat " << received << " lane " << l << ": acc=" << ln.acc
                << (b.acc64 ? "(int64)" : "(int32)") << " bias=" << ln.bias << " mult=" << ln.mult
                << " shift=" << ln.shift << " zp=" << b.zp << " act=[" << b.actMin << ","
                << b.actMax << "] " << kOutTypeName[b.outType] << " -> got " << got << ", want "
                << want;
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
  if (fst) fst->close();
  dut->final();

  res.iterations = checked;
  std::ostringstream s;
  if (received < beats) {
    ++res.mismatches;
    s << "timeout: " << received << " of " << beats << " beats came out after " << res.cycles
      << " cycles; ";
  }
  if (ctx->gotError()) {
    ++res.mismatches;
    s << "RTL assertion failed; ";
  }
  res.passed = res.mismatches == 0;
  if (res.passed) {
    s << checked << " lane results bit-exact vs ops/quant: " << checked - checked64
      << " int32 (multiplyByQuantizedMultiplier), " << checked64
      << " int64 (multiplyByQuantizedMultiplier64) (" << beats << " beats of " << kLanes
      << " lanes, " << res.cycles << " cycles)";
  } else {
    s << res.mismatches << " mismatches";
    firstMismatches.appendTo(s);
  }
  res.summary = s.str();
  if (opt.verbose) VL_PRINTF("requant: %s\n", res.summary.c_str());
  return res;
}

TestbenchRegistrar reg{TestbenchDef{
    "requant",
    "requant unit vs ops/quant fixed point, bit for bit (iterations = lane results)",
    &run<Vnnc_requant>,
    20000,
}};

#ifdef NNC_HAVE_YOSYS_REQUANT
// The same checks on the unit as Yosys 0.23 elaborates it (rtl/CMakeLists.txt: read, proc,
// flatten, opt, memory, written back as Verilog and Verilated): what synthesis starts from
// must compute what the RTL does. It caught Yosys reading the parameter pipeline (an
// unpacked array of a packed struct) as one element.
TestbenchRegistrar regYosys{TestbenchDef{
    "requant_yosys",
    "requant unit as Yosys reads it (its elaborated netlist, Verilated) vs ops/quant, bit for bit",
    &run<Vnnc_requant_yosys>,
    20000,
}};
#endif

}  // namespace
}  // namespace nncosim::testbench
