// ADD, SUB and MUL on the elementwise unit (ELTWISE, ISA 1.7): lowering + ISA interpreter ==
// the ops reference, bit for bit, over random layers: uint8 and int8 (int16 ADD/SUB in the
// 16x8 mode), random scales and zero points, fused activations, constant and runtime inputs,
// and every broadcast the unit takes (scalars, per-channel vectors, [1, H, W, C] over a
// batch, [N, 1, 1, C] over the pixels, on either side); on the real buffers and on a tiny
// NPU that cuts the layer into many chunks and jobs.
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
  bool repeats = false;
};

// A random quantized ADD, SUB or MUL the reference accepts.
Layer randomLayer(std::mt19937& g) {
  auto range = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  auto real = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(g); };
  const int kind = range(0, 2);
  const OperationType op = kind == 0   ? OperationType::ADD
                           : kind == 1 ? OperationType::SUB
                                       : OperationType::MUL;
  const bool wide = op != OperationType::MUL && range(0, 4) == 0;
  const OperandType t = wide ? kI16 : range(0, 1) ? kS8 : kU8;
  const int qlo = wide ? -32768 : t == kS8 ? -128 : 0, qhi = wide ? 32767 : t == kS8 ? 127 : 255;
  const uint32_t n = static_cast<uint32_t>(range(1, 2)), h = static_cast<uint32_t>(range(1, 40)),
                 w = static_cast<uint32_t>(range(1, 40)), c = static_cast<uint32_t>(range(1, 70));
  std::vector<uint32_t> full = {n, h, w, c}, other = full;
  const int pattern = range(0, 6);  // 0-2 the same shape
  switch (pattern) {
    case 3:
      other = {1};
      break;  // a scalar
    case 4:
      other = {c};
      break;  // per channel
    case 5:
      other = {1, h, w, c};
      break;  // over the batch
    case 6:
      other = {n, 1, 1, c};
      break;  // over the pixels
    default:
      break;
  }
  const bool swap = pattern >= 3 && range(0, 1);  // the repeated input first
  auto zp = [&]() { return wide ? 0 : range(qlo, qhi); };
  const float sa = real(0.005f, 0.2f), sb = range(0, 3) ? real(0.005f, 0.2f) : sa;
  const float so = op == OperationType::MUL ? real(0.01f, 1.0f) * sa * sb * 50 : real(0.01f, 0.4f);
  const int act = range(0, 3);
  OneOpModel m;
  m.quant16x8(wide);
  auto values = [&](const std::vector<uint32_t>& d) {
    size_t e = 1;
    for (uint32_t x : d) e *= x;
    std::vector<int32_t> v(e);
    for (int32_t& x : v) x = range(qlo, qhi);
    return v;
  };
  auto operand = [&](const std::vector<uint32_t>& d, float scale, int32_t z, bool constant) {
    const std::vector<int32_t> v = values(d);
    if (wide) {
      std::vector<int16_t> x(v.begin(), v.end());
      return constant ? m.constant(t, d, x, scale, z) : m.input(t, d, x, scale, z);
    }
    if (t == kS8) {
      std::vector<int8_t> x(v.begin(), v.end());
      return constant ? m.constant(t, d, x, scale, z) : m.input(t, d, x, scale, z);
    }
    std::vector<uint8_t> x(v.begin(), v.end());
    return constant ? m.constant(t, d, x, scale, z) : m.input(t, d, x, scale, z);
  };
  const bool otherConst = range(0, 2) == 0;
  const int32_t za = zp(), zb = zp(), zo = zp();
  uint32_t a, b;
  if (swap) {
    a = operand(other, sa, za, otherConst);
    b = operand(full, sb, zb, false);
  } else {
    a = operand(full, sa, za, false);
    b = operand(other, sb, zb, otherConst);
  }
  const uint32_t out = m.output(t, full, so, zo);
  m.op(op, {a, b, m.i32(act)}, {out});
  std::ostringstream what;
  what << hal::toString(op) << " " << hal::toString(t) << " [" << n << "," << h << "," << w << ","
       << c << "] pattern " << pattern << (swap ? " (repeated first)" : "")
       << (otherConst ? " constant" : "") << " act " << act;
  return {what.str(), m.build(), m.inputs(), pattern >= 3};
}

std::string compare(const Layer& l, const LoweringOptions& o, NpuRun& run) {
  std::vector<hal::TensorValue> want;
  const std::string err = referenceRun(l.model, l.inputs, want);
  if (!err.empty()) return "reference: " + err;
  run = npuRun(l.model, l.inputs, o);
  if (!run.error.empty()) return run.error;
  if (run.outputs.size() != 1 || run.outputs[0] != want[0].bytes) {
    for (size_t i = 0; i < want[0].bytes.size() && i < run.outputs[0].size(); ++i)
      if (run.outputs[0][i] != want[0].bytes[i])
        return "byte " + std::to_string(i) + ": npu " + std::to_string(run.outputs[0][i]) +
               ", reference " + std::to_string(want[0].bytes[i]);
    return "output size differs";
  }
  return "";
}

TEST(EltwiseLowering, RandomAddSubMulAreBitExact) {
  std::mt19937 g(5);
  int checked = 0, repeated = 0, multiChunk = 0, multiJob = 0, wide = 0;
  for (int i = 0; i < 300; ++i) {
    const Layer l = randomLayer(g);
    LoweringOptions o;
    if (i % 3 == 2) o.npu = tinyNpu();  // 512-element chunks
    if (i % 5 == 4) o.maxJobCommands = 40;
    NpuRun run;
    const std::string err = compare(l, o, run);
    ASSERT_EQ(err, "") << "case " << i << " (" << l.what << ")";
    EXPECT_NE(run.step.report.mapping.find("ELTWISE"), std::string::npos) << l.what;
    // Timing does not depend on data or addresses: the compile-time estimate is exact.
    EXPECT_EQ(run.estimatedCycles, run.stats.cycles) << l.what;
    ++checked;
    repeated += l.repeats;
    multiChunk += run.step.report.steps > 1;
    multiJob += run.step.report.jobs > 1;
    wide += l.what.find("QUANT16") != std::string::npos;
  }
  std::printf(
      "[ ELTWISE ] %d random layers bit-exact (%d broadcast, %d int16, %d multi-chunk, "
      "%d multi-job)\n",
      checked, repeated, wide, multiChunk, multiJob);
  EXPECT_GT(repeated, 50);
  EXPECT_GT(multiChunk, 30);
  EXPECT_GT(multiJob, 5);
  EXPECT_GT(wide, 20);
}

// What the unit does not take stays on the CPU with its reason.
TEST(EltwiseLowering, UnsupportedLayersNameTheirReason) {
  OneOpModel m;
  const uint32_t a = m.input(kU8, {1, 4, 1, 3}, std::vector<uint8_t>(12, 1), 0.5f, 0);
  const uint32_t b = m.input(kU8, {1, 1, 5, 3}, std::vector<uint8_t>(15, 2), 0.5f, 0);
  const uint32_t out = m.output(kU8, {1, 4, 5, 3}, 0.5f, 0);
  m.op(OperationType::ADD, {a, b, m.i32(0)}, {out});
  const hal::Model model = m.build();
  const auto step = lowerOperation(model, 0, declaredShapes(model), LoweringOptions{});
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.error().find("both inputs broadcast"), std::string::npos) << step.error();

  OneOpModel f;
  const uint32_t x = f.floats({4}, {1, 2, 3, 4});
  const uint32_t y = f.floats({4}, {1, 2, 3, 4});
  const uint32_t z = f.outFloats({4});
  f.op(OperationType::MUL, {x, y, f.i32(0)}, {z});
  const hal::Model fm = f.build();
  const auto fs = lowerOperation(fm, 0, declaredShapes(fm), LoweringOptions{});
  ASSERT_FALSE(fs.ok());
  EXPECT_NE(fs.error().find("quantized only"), std::string::npos) << fs.error();
}

}  // namespace
}  // namespace nncosim::driver::test
