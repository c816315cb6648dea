// MAX_POOL_2D, and the AVERAGE_POOL_2D layers the depthwise unit does not take, on the pooling
// unit (POOL, ISA 1.7): lowering + ISA interpreter == the ops reference, bit for bit, over
// random layers: uint8, int8 and int16 (16x8 mode), filters up to 15x15, strides 1..3,
// explicit padding (MAX windows clipped by it), every fused activation; on the real buffers
// and on a tiny NPU that cuts rows into column blocks and the layer into many jobs.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "tests/driver/compiler_test_util.h"

namespace nncosim::driver::test {
namespace {

constexpr OperandType kU8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType kS8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr OperandType kI16 = OperandType::TENSOR_QUANT16_SYMM;

struct Layer {
  std::string what;
  hal::Model model;
  std::vector<hal::TensorValue> inputs;
};

Layer randomPool(std::mt19937& g, bool avg) {
  auto range = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  const bool wide = range(0, 3) == 0;
  const OperandType t = wide ? kI16 : range(0, 1) ? kS8 : kU8;
  const int qlo = wide ? -32768 : t == kS8 ? -128 : 0, qhi = wide ? 32767 : t == kS8 ? 127 : 255;
  const int fh = range(0, 4) ? range(1, 4) : range(5, 15),
            fw = range(0, 4) ? range(1, 4) : range(5, 15);
  const int sh = range(1, 3), sw = range(1, 3);
  // AVG comes here only where the depthwise unit does not take it: int16, a filter over 7,
  // or a row stride of 3; unclipped windows. MAX: padding too, except for int16.
  const bool pad = !avg && !wide && range(0, 2) == 0;
  const int pt = pad ? range(0, fh - 1) : 0, pb = pad ? range(0, fh - 1) : 0;
  const int pl = pad ? range(0, fw - 1) : 0, pr = pad ? range(0, fw - 1) : 0;
  const uint32_t n = static_cast<uint32_t>(range(1, 2));
  const uint32_t h = static_cast<uint32_t>(range(fh, fh + 20)),
                 w = static_cast<uint32_t>(range(fw, fw + 40));
  const uint32_t c = static_cast<uint32_t>(range(1, 40));
  const uint32_t oh = (h + pt + pb - fh) / sh + 1, ow = (w + pl + pr - fw) / sw + 1;
  const float scale = std::uniform_real_distribution<float>(0.01f, 0.3f)(g);
  const int32_t zp = wide ? 0 : range(qlo, qhi);
  const int act = range(0, 3);
  OneOpModel m;
  m.quant16x8(wide);
  const size_t e = size_t{n} * h * w * c;
  uint32_t in;
  if (wide) {
    std::vector<int16_t> v(e);
    for (int16_t& x : v) x = static_cast<int16_t>(range(qlo, qhi));
    in = m.input(t, {n, h, w, c}, v, scale, zp);
  } else if (t == kS8) {
    std::vector<int8_t> v(e);
    for (int8_t& x : v) x = static_cast<int8_t>(range(qlo, qhi));
    in = m.input(t, {n, h, w, c}, v, scale, zp);
  } else {
    std::vector<uint8_t> v(e);
    for (uint8_t& x : v) x = static_cast<uint8_t>(range(qlo, qhi));
    in = m.input(t, {n, h, w, c}, v, scale, zp);
  }
  const uint32_t out = m.output(t, {n, oh, ow, c}, scale, zp);
  m.op(avg ? OperationType::AVERAGE_POOL_2D : OperationType::MAX_POOL_2D,
       {in, m.i32(pl), m.i32(pr), m.i32(pt), m.i32(pb), m.i32(sw), m.i32(sh), m.i32(fw), m.i32(fh),
        m.i32(act)},
       {out});
  std::ostringstream what;
  what << (avg ? "AVG " : "MAX ") << hal::toString(t) << " [" << n << "," << h << "," << w << ","
       << c << "] filter " << fh << "x" << fw << " stride " << sh << "x" << sw << " pad " << pt
       << "/" << pb << "/" << pl << "/" << pr << " act " << act;
  return {what.str(), m.build(), m.inputs()};
}

void runMany(bool avg, uint32_t seed) {
  std::mt19937 g(seed);
  int onUnit = 0, wide = 0, refused = 0, jobs = 0, exact = 0;
  for (int i = 0; i < 240; ++i) {
    const Layer l = randomPool(g, avg);
    LoweringOptions o;
    if (i % 3 == 2) o.npu = tinyNpu();
    if (i % 5 == 4) o.maxJobCommands = 60;
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(l.model, l.inputs, want), "") << l.what;
    NpuRun run = npuRun(l.model, l.inputs, o);
    if (!run.error.empty()) {
      // Every layer here fits the real buffers; the tiny NPU's 1 KiB INP may not hold a
      // large window twice, and the step says so.
      if (i % 3 == 2 && run.error.find("exceeds half of INP") != std::string::npos) {
        ++refused;
        continue;
      }
      ADD_FAILURE() << l.what << (i % 3 == 2 ? " (tiny NPU)" : "") << ": " << run.error;
      continue;
    }
    ASSERT_EQ(run.outputs.size(), 1u);
    ASSERT_EQ(run.outputs[0], want[0].bytes) << l.what << " (" << run.step.report.mapping << ")";
    EXPECT_EQ(run.estimatedCycles, run.stats.cycles) << l.what;
    ++exact;
    const bool pool = run.step.report.mapping.find("POOL on the pooling unit") != std::string::npos;
    onUnit += pool;
    wide += l.what.find("QUANT16") != std::string::npos;
    jobs += run.step.report.jobs > 1;
  }
  std::printf(
      "[ POOL %s ] 240 random layers: %d bit-exact, %d of them on the pooling unit (%d "
      "int16, %d multi-job); %d refused by the tiny NPU (window over half its INP)\n",
      avg ? "AVG" : "MAX", exact, onUnit, wide, jobs, refused);
  EXPECT_EQ(exact + refused, 240);
  EXPECT_GT(onUnit, avg ? 80 : 200);
  EXPECT_GT(wide, 20);
  EXPECT_GT(jobs, 5);
}

TEST(PoolLowering, RandomMaxPoolsAreBitExactOnThePoolingUnit) { runMany(false, 3); }

TEST(PoolLowering, AveragePoolsTheDepthwiseUnitDoesNotTakeRunOnThePoolingUnit) { runMany(true, 4); }

// What neither unit takes stays on the CPU with its reasons.
TEST(PoolLowering, ClippedAverageWindowsNameBothUnitsReasons) {
  OneOpModel m;
  const uint32_t in = m.input(kU8, {1, 5, 5, 3}, std::vector<uint8_t>(75, 7), 0.5f, 0);
  const uint32_t out = m.output(kU8, {1, 5, 5, 3}, 0.5f, 0);
  m.op(OperationType::AVERAGE_POOL_2D,
       {in, m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(3), m.i32(3),
        m.i32(0)},
       {out});
  const hal::Model model = m.build();
  const Partition p = partition(model);
  ASSERT_EQ(p.operations.size(), 1u);
  EXPECT_EQ(p.operations[0].target, Target::kCpu);
  EXPECT_NE(p.operations[0].reason.find("depthwise unit: windows clipped"), std::string::npos)
      << p.operations[0].reason;
  EXPECT_NE(p.operations[0].reason.find("pooling unit: windows clipped"), std::string::npos)
      << p.operations[0].reason;
}

}  // namespace
}  // namespace nncosim::driver::test
