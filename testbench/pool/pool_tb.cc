// Testbench `pool`: the pooling unit's datapath (rtl/nnc_pool.sv) against the reference's
// quantized MAX_POOL_2D, AVERAGE_POOL_2D and MEAN arithmetic (ops/conv/max_pool_2d.cc,
// average_pool_2d.cc, ops/movement/mean.cc), bit for bit, with random stalls on both sides. Seeded
// random windows of 1 to 600 values per lane (clipped border windows are just smaller counts),
// uint8, int8 and int16 values with the type's extremes favoured, MAX, AVG and truncating AVG
// (MEAN, a third of the AVG windows), activation ranges empty, inverted, partial, the type's and
// the full int32. The AVG reciprocal is derived here as a driver would; its exactness for every
// |sum| + count/2 < 2^32 is also checked on its own over random and extreme numerators.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_pool.h"
#include "firmware/isa_generated.h"
#include "testbench/out_type.h"
#include "testbench/stream_flow.h"
#include "testbench/testbench.h"
#include "testbench/verilated_model.h"
#include "testbench/wide_port.h"

namespace nncosim::testbench {
namespace {

constexpr int kLanes = firmware::kArrayCols;  // nnc_pool's default Lanes

// The reciprocal of a window size: ceil(2^(32+l) / count), l = ceil(log2(count)).
struct Reciprocal {
  uint64_t mult;  // 33 bits
  int shift;      // 32 + l
};
Reciprocal reciprocal(uint32_t count) {
  int l = 0;
  while ((uint64_t{1} << l) < count) ++l;
  const unsigned __int128 num = static_cast<unsigned __int128>(1) << (32 + l);
  return {static_cast<uint64_t>((num + count - 1) / count), 32 + l};
}
// What the unit computes with it: floor(n * mult / 2^shift).
uint64_t divideByReciprocal(uint64_t n, const Reciprocal& r) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(n) * r.mult) >> r.shift);
}

struct Window {
  bool max;
  bool trunc;  // AVG: MEAN's truncating division
  int type;
  std::vector<int16_t> v[kLanes];  // count values per lane
  int32_t actMin, actMax;
};

// max_pool_2d.cc's and average_pool_2d.cc's per-window arithmetic, then the unit's type clamp.
int32_t model(const Window& w, int lane) {
  const std::vector<int16_t>& v = w.v[lane];
  const auto count = static_cast<int64_t>(v.size());
  int64_t r;
  if (w.max) {
    r = *std::max_element(v.begin(), v.end());
  } else {
    int64_t sum = 0;
    for (int16_t x : v) sum += x;
    // C++ division truncates toward zero (MEAN); +-count/2 makes it round half away from
    // zero (AVERAGE_POOL_2D).
    r = w.trunc ? sum / count : sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
  }
  r = r < w.actMin ? w.actMin : (r > w.actMax ? w.actMax : r);
  r = saturateToType(r, w.type);
  return static_cast<int32_t>(r);
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  Window window() {
    Window w;
    w.max = pick(2);
    w.trunc = !w.max && pick(3) == 0;
    w.type = static_cast<int>(pick(3));
    size_t count;
    switch (pick(8)) {
      case 0:
        count = 1;
        break;
      case 1:
        count = 49 + pick(2) * 15;  // 7x7 and 8x8: a global pool before a classifier
        break;
      case 2:
        count = 100 + pick(500);
        break;
      default:
        count = 1 + pick(12);  // 3x3, 2x2 and their clipped borders
    }
    const int64_t lo = kTypeMin[w.type], hi = kTypeMax[w.type];
    const int bias = static_cast<int>(pick(4));  // all high, all low, or mixed values
    for (auto& v : w.v) {
      v.resize(count);
      for (auto& x : v) {
        if (bias == 0)
          x = static_cast<int16_t>(pick(4) ? hi : range(lo, hi));
        else if (bias == 1)
          x = static_cast<int16_t>(pick(4) ? lo : range(lo, hi));
        else
          x = static_cast<int16_t>(pick(8) == 0 ? (pick(2) ? lo : hi) : range(lo, hi));
      }
    }
    switch (pick(6)) {
      case 0:  // random, possibly inverted
        w.actMin = static_cast<int32_t>(static_cast<uint32_t>(rng_()));
        w.actMax = static_cast<int32_t>(static_cast<uint32_t>(rng_()));
        break;
      case 1: {  // a fused ReLU-like sub-range of the type
        int64_t x = range(lo, hi), y = range(lo, hi);
        if (x > y) std::swap(x, y);
        w.actMin = static_cast<int32_t>(x);
        w.actMax = static_cast<int32_t>(y);
        break;
      }
      case 2:
        w.actMin = INT32_MIN;
        w.actMax = INT32_MAX;
        break;
      default:
        w.actMin = static_cast<int32_t>(lo);
        w.actMax = static_cast<int32_t>(hi);
    }
    return w;
  }
  uint64_t pick(uint64_t n) { return rng_() % n; }
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
  }
  uint64_t raw() { return rng_(); }

 private:
  std::mt19937_64 rng_;
};

// The reciprocal on its own: floor(n / d) for random and extreme n < 2^32 and window sizes
// up to 2^20. Returns the number of wrong quotients.
uint64_t checkReciprocals(Generator& gen, uint64_t n, uint64_t& checked) {
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const auto d = static_cast<uint32_t>(i % 3 == 0 ? 1 + gen.pick(1u << 20) : 1 + gen.pick(700));
    const Reciprocal r = reciprocal(d);
    const uint64_t ns[] = {gen.raw() & 0xffffffffULL,
                           0xffffffffULL,
                           0xffffffffULL - gen.pick(d),
                           uint64_t{d} * gen.pick((0xffffffffULL / d) + 1) - 1,
                           d,
                           d - 1u};
    for (uint64_t x : ns) {
      if (x > 0xffffffffULL) continue;
      ++checked;
      wrong += divideByReciprocal(x, r) != x / d;
    }
  }
  return wrong;
}

TestbenchResult run(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t cases = opt.iterations ? opt.iterations : 100000;
  const uint64_t windows = (cases + kLanes - 1) / kLanes;

  VerilatedModel<Vnnc_pool> dut(opt.wavesPath);
  dut.context().fatalOnError(false);
  auto tick = [&]() {
    dut.cycle();
    ++res.cycles;
  };

  Generator gen(opt.seed);
  uint64_t recipChecked = 0;
  const uint64_t recipWrong = checkReciprocals(gen, 20000, recipChecked);
  StreamFlow flow(opt.seed ^ 0x9001ULL, windows);
  dut->clk_i = 0;
  dut->rst_ni = 0;
  dut->in_valid_i = 0;
  dut->out_ready_i = 0;
  dut->eval();
  tick();
  tick();
  dut->rst_ni = 1;

  std::deque<Window> inFlight;
  MismatchLog firstMismatches;
  uint64_t sent = 0, received = 0, checked = 0, unclamped = 0, maxChecked = 0, truncChecked = 0,
           values = 0;
  Window next = gen.window();
  size_t pos = 0;  // the next value of `next` to send
  uint64_t maxCycles = 1000;
  while (received < windows) {
    if (res.cycles > maxCycles + values * 4) break;
    const auto [valid, ready] = flow.next(sent);
    const size_t count = next.v[0].size();
    dut->in_valid_i = valid;
    dut->out_ready_i = ready;
    for (int l = 0; l < kLanes; ++l)
      putBits(dut->in_x_i, l * 16, 16, static_cast<uint16_t>(next.v[l][pos]));
    dut->in_first_i = pos == 0;
    dut->in_last_i = pos + 1 == count;
    const Reciprocal r = reciprocal(static_cast<uint32_t>(count));
    dut->in_max_i = next.max;
    dut->in_trunc_i = next.trunc;
    dut->in_count_i = static_cast<uint32_t>(count);
    dut->in_recip_i = r.mult;  // 33 bits: a QData port
    dut->in_recip_shift_i = static_cast<uint8_t>(r.shift);
    dut->in_act_min_i = static_cast<uint32_t>(next.actMin);
    dut->in_act_max_i = static_cast<uint32_t>(next.actMax);
    dut->in_out_type_i = static_cast<uint8_t>(next.type);
    dut->eval();

    if (dut->out_valid_o && ready) {
      if (inFlight.empty()) {
        ++res.mismatches;
        firstMismatches.add("output with no window");
      } else {
        const Window& w = inFlight.front();
        for (int l = 0; l < kLanes; ++l) {
          const auto got = static_cast<int32_t>(getBits(dut->out_data_o, l * 32, 32));
          const int32_t want = model(w, l);
          ++checked;
          maxChecked += w.max;
          truncChecked += w.trunc;
          const int64_t lo = std::max<int64_t>(w.actMin, kTypeMin[w.type]);
          const int64_t hi = std::min<int64_t>(w.actMax, kTypeMax[w.type]);
          unclamped += want > lo && want < hi;
          if (got != want) {
            ++res.mismatches;
            if (firstMismatches.wants()) {
              std::ostringstream m;
              m << "window " << received << " lane " << l << " "
                << (w.max     ? "MAX"
                    : w.trunc ? "MEAN"
                              : "AVG")
                << " " << kOutTypeName[w.type] << " of " << w.v[l].size() << " values (first "
                << w.v[l][0] << ") act=[" << w.actMin << "," << w.actMax << "] -> got " << got
                << ", want " << want;
              firstMismatches.add(m.str());
            }
          }
        }
        inFlight.pop_front();
      }
      ++received;
    }
    if (valid && dut->in_ready_o) {
      ++values;
      if (++pos == count) {
        inFlight.push_back(next);
        ++sent;
        pos = 0;
        next = gen.window();
      }
    }
    tick();
  }

  res.iterations = checked;
  std::ostringstream s;
  if (received < windows) {
    ++res.mismatches;
    s << "timeout: " << received << " of " << windows << " windows came out after " << res.cycles
      << " cycles; ";
  }
  if (recipWrong) {
    res.mismatches += recipWrong;
    s << recipWrong << " of " << recipChecked << " reciprocal quotients wrong; ";
  }
  if (dut.context().gotError()) {
    ++res.mismatches;
    s << "RTL assertion failed; ";
  }
  res.passed = res.mismatches == 0;
  if (res.passed) {
    s << checked << " lane results bit-exact vs the reference's pooling arithmetic: " << maxChecked
      << " MAX, " << checked - maxChecked - truncChecked << " AVG, " << truncChecked
      << " truncating AVG (MEAN), " << unclamped << " of them inside the clamps (" << windows
      << " windows of " << kLanes << " lanes, " << values << " values, " << res.cycles
      << " cycles); " << recipChecked << " reciprocal quotients exact";
  } else {
    s << res.mismatches << " mismatches";
    firstMismatches.appendTo(s);
  }
  res.summary = s.str();
  if (opt.verbose) VL_PRINTF("pool: %s\n", res.summary.c_str());
  return res;
}

TestbenchRegistrar reg{TestbenchDef{
    "pool",
    "pooling unit (MAX/AVG window datapath) vs the reference's pooling arithmetic, bit for "
    "bit (iterations = lane results)",
    &run,
    8000,
}};

}  // namespace
}  // namespace nncosim::testbench
