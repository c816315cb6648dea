// Fused steps (driver/compiler/fused_lowering.h), the tensor between two operations kept in
// INP (REQUANT_STORE to_inp, ISA 1.9). Depthwise -> pointwise: random layer pairs run as one
// fused step on a strict interpreter device, bit-exact with the reference; whole models fuse
// through compileModel and check under the executor's cross-check; tensors larger than INP
// fuse in blocks of rows, and one whose single row does not fit, or NCHW layers, are refused.
// CONV_2D -> ADD / SUB / MUL (a residual's elementwise epilogue): random pairs bit-exact,
// ResNet-like identity blocks through the executor, broadcasts refused. Inverted residuals
// (a convolution -> depthwise -> pointwise, the ADD after): random triples bit-exact as one
// step, in blocks of rows, through the executor; several images refused.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "driver/compiler/fused_lowering.h"
#include "tests/driver/compiler_test_util.h"

namespace nncosim::driver::test {
namespace {

constexpr OperandType kI32 = OperandType::TENSOR_INT32;

struct Pair {
  hal::Model model;
  std::vector<hal::TensorValue> inputs;
  std::string what;
};

// Draws for a random 8-bit model of one signedness (drawn first): values, biases, zero points.
struct RandomQuant8 {
  explicit RandomQuant8(std::mt19937& r)
      : rng(r),
        isSigned(r() % 2),
        type(isSigned ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM),
        lo(isSigned ? -128 : 0),
        hi(isSigned ? 127 : 255) {}
  int pick(int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); }
  std::vector<uint8_t> bytes(size_t count) {
    std::vector<uint8_t> v(count);
    for (uint8_t& x : v) x = static_cast<uint8_t>(pick(lo, hi));
    return v;
  }
  std::vector<int32_t> ints(size_t count, int range) {
    std::vector<int32_t> v(count);
    for (int32_t& x : v) x = pick(-range, range);
    return v;
  }
  int32_t zp() { return pick(lo + 20, hi - 20); }

  std::mt19937& rng;
  const bool isSigned;
  const OperandType type;
  const int lo, hi;
};

// Uniform integers in [lo, hi] from a test's generator (the random tests' draws).
struct Picker {
  std::mt19937& rng;
  uint32_t operator()(int lo, int hi) const {
    return static_cast<uint32_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
  }
};

// input [n, h, w, c] -> DEPTHWISE_CONV_2D f x f (stride, padding scheme, activation)
// -> CONV_2D 1x1 c -> outC; the tensor between them a temporary. `pre`: a pointwise layer
// in front (so the pair sits inside a model, its input an NPU step's output). `nchw` (no
// `pre`): both layers in NCHW, [n, c, h, w] tensors. `scales`: the two layers' output
// scales and the weights' zero points (wide: for many channels, whose sums saturate the
// defaults into a few output values).
struct PairScales {
  float mid = 0.08f, out = 0.1f;
  bool centeredWeights = false;  // weight zero points mid-range: sums without a drift
};
PairScales wideScales(uint32_t c) { return {0.5f, 0.12f * std::sqrt(static_cast<float>(c)), true}; }
Pair randomPair(std::mt19937& rng, uint32_t n, uint32_t h, uint32_t w, uint32_t c, uint32_t outC,
                uint32_t f, uint32_t stride, bool same, bool pre, bool nchw = false,
                PairScales scales = {}) {
  const float midScale = scales.mid, outScale = scales.out;
  RandomQuant8 q(rng);
  const bool isSigned = q.isSigned;
  const OperandType t = q.type;
  OneOpModel m;
  auto dims = [&](uint32_t a, uint32_t b, uint32_t ch) {
    return nchw ? std::vector<uint32_t>{n, ch, a, b} : std::vector<uint32_t>{n, a, b, ch};
  };
  uint32_t x = m.input(t, dims(h, w, pre ? 8u : c), q.bytes(size_t{n} * h * w * (pre ? 8 : c)),
                       0.05f, q.zp());
  std::vector<uint32_t> temps;
  if (pre) {
    const uint32_t w0 = m.constant(t, {c, 1, 1, 8}, q.bytes(size_t{c} * 8), 0.02f, q.zp());
    const uint32_t b0 = m.constant(kI32, {c}, q.ints(c, 300), 0.05f * 0.02f);
    const uint32_t y = m.output(t, {n, h, w, c}, 0.06f, q.zp());
    m.op(OperationType::CONV_2D, {x, w0, b0, m.i32(1), m.i32(1), m.i32(1), m.i32(1)}, {y});
    temps.push_back(y);
    x = y;
  }
  const uint32_t oh = same ? (h + stride - 1) / stride : (h - f) / stride + 1;
  const uint32_t ow = same ? (w + stride - 1) / stride : (w - f) / stride + 1;
  const float inScale = pre ? 0.06f : 0.05f;
  auto weightZp = [&] { return scales.centeredWeights ? (q.lo + q.hi + 1) / 2 : q.zp(); };
  const uint32_t wd = m.constant(t, {1, f, f, c}, q.bytes(size_t{f} * f * c), 0.03f, weightZp());
  const uint32_t bd = m.constant(kI32, {c}, q.ints(c, 500), inScale * 0.03f);
  const uint32_t mid = m.output(t, dims(oh, ow, c), midScale, q.zp());
  const int32_t act = q.pick(0, 3) == 0 ? 0 : q.pick(1, 3);  // none, relu, relu1, relu6
  std::vector<uint32_t> dwArgs = {x,
                                  wd,
                                  bd,
                                  m.i32(same ? 1 : 2),
                                  m.i32(static_cast<int32_t>(stride)),
                                  m.i32(static_cast<int32_t>(stride)),
                                  m.i32(1),
                                  m.i32(act)};
  if (nchw) dwArgs.push_back(m.flag(true));
  m.op(OperationType::DEPTHWISE_CONV_2D, dwArgs, {mid});
  temps.push_back(mid);
  const uint32_t wp = m.constant(t, {outC, 1, 1, c}, q.bytes(size_t{outC} * c), 0.02f, weightZp());
  const uint32_t bp = m.constant(kI32, {outC}, q.ints(outC, 800), midScale * 0.02f);
  const uint32_t out = m.output(t, dims(oh, ow, outC), outScale, q.zp());
  std::vector<uint32_t> pwArgs = {mid, wp, bp, m.i32(1), m.i32(1), m.i32(1), m.i32(act % 2)};
  if (nchw) pwArgs.push_back(m.flag(true));
  m.op(OperationType::CONV_2D, pwArgs, {out});
  Pair p{m.build(), m.inputs(), ""};
  hal::Subgraph& g = p.model.main;
  for (uint32_t tmp : temps) g.operands[tmp].lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
  g.outputIndexes = {out};
  p.what = std::string(isSigned ? "int8" : "uint8") + " [" + std::to_string(n) + "," +
           std::to_string(h) + "," + std::to_string(w) + "," + std::to_string(c) + "] dw " +
           std::to_string(f) + "x" + std::to_string(f) + " s" + std::to_string(stride) +
           (same ? " SAME" : " VALID") + " act " + std::to_string(act) + " -> pw " +
           std::to_string(outC) + (pre ? " (after a pointwise layer)" : "");
  return p;
}

// The reference's outputs of a pair, and its fused step on a 16x16 array.
hal::Result<CompiledStep> referenceAndFused(
    const Pair& p, std::vector<hal::TensorValue>& want,
    hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER) {
  if (const std::string e = referenceRun(p.model, p.inputs, want); !e.empty())
    return hal::fail("reference: ", e);
  LoweringOptions o;
  o.npu = array16();
  o.preference = preference;
  return lowerFusedDepthwisePointwise(p.model, 0, 1, declaredShapes(p.model), o);
}

// Runs a pair's fused step on a strict interpreter device: its output is the reference's,
// and its estimate the run's timing (the same interpreter, timing only).
void expectBitExactRun(const CompiledStep& step, const Pair& p,
                       const std::vector<hal::TensorValue>& want, const NpuConfig& npu) {
  InterpreterDevice dev(npu, 64ull << 20);
  std::vector<std::vector<uint8_t>> out;
  auto stats = runStep(dev, step, {p.inputs[0].bytes}, out);
  ASSERT_TRUE(stats.ok()) << stats.error();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], want[0].bytes);
  EXPECT_EQ(step.report.estimatedCycles, stats->cycles);
}

// compileModel's plan of a pair on a 16x16 array, with fused steps or without.
hal::Result<ModelPlan> planOn16x16(const Pair& p, bool fuse) {
  LoweringOptions o;
  o.npu = array16();
  o.fuseLayers = fuse;
  return compileModel(p.model, o);
}

// Runs `plan` on an interpreter device with the executor's cross-check: nothing mismatches,
// the last operation is checked, the output is the reference's; `report` for more checks.
void expectCheckedRun(const Pair& p, const ModelPlan& plan,
                      const std::vector<hal::TensorValue>& want, ExecutionReport& report) {
  InterpreterDevice device(plan.options.npu);
  NpuExecutor ex(p.model, plan, device);
  ex.setCrossCheck(true);
  std::vector<hal::TensorValue> got;
  ASSERT_TRUE(ex.run(p.inputs, got, &report).ok());
  EXPECT_EQ(report.mismatches, 0u) << report.describe();
  ASSERT_EQ(report.steps.size(), p.model.main.operations.size());
  EXPECT_TRUE(report.steps.back().checked);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].bytes, want[0].bytes);
}

// Every random pair as one fused step: the job's output equals the reference's, the
// tensor between the layers never in DRAM (no binding, no buffer of its size).
TEST(FusedLowering, RandomDepthwisePointwisePairsAreBitExact) {
  std::mt19937 rng(21);
  const Picker pick{rng};
  int fused = 0;
  for (int i = 0; i < 40; ++i) {
    const uint32_t f = pick(0, 3) == 0 ? 5 : 3, stride = pick(1, 2);
    const bool same = pick(0, 2) != 0;
    const uint32_t h = pick(f, 19), w = pick(f, 37);
    const uint32_t c = 8 * pick(1, 9), outC = 8 * pick(1, 7), n = pick(0, 4) == 0 ? 2 : 1;
    Pair p = randomPair(rng, n, h, w, c, outC, f, stride, same, false);
    SCOPED_TRACE(p.what);
    std::vector<hal::TensorValue> want;
    auto step = referenceAndFused(p, want);
    ASSERT_TRUE(step.ok()) << step.error();
    ASSERT_EQ(step->fused, std::vector<uint32_t>{1});
    ASSERT_EQ(step->inputs.size(), 1u);
    ASSERT_EQ(step->outputs.size(), 1u);
    EXPECT_EQ(step->outputs[0].operand, p.model.main.outputIndexes[0]);
    expectBitExactRun(*step, p, want, array16());
    ++fused;
  }
  EXPECT_EQ(fused, 40);
}

// Through compileModel and the executor (cross-check on): a pair behind a pointwise layer
// fuses, the second operation has no step of its own, nothing mismatches, and the output
// equals the reference and the unfused plan's.
TEST(FusedLowering, ModelsFuseAndTheCrossCheckSeesTheChain) {
  std::mt19937 rng(5);
  for (int i = 0; i < 6; ++i) {
    Pair p = randomPair(rng, 1, 14, 14, 32 + 16 * (i % 3), 32, 3, 1 + i % 2, true, true);
    SCOPED_TRACE(p.what);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
    for (bool fuse : {true, false}) {
      auto plan = planOn16x16(p, fuse);
      ASSERT_TRUE(plan.ok()) << plan.error();
      ASSERT_EQ(plan->operations.size(), 3u);
      for (const PlannedOperation& po : plan->operations)
        ASSERT_EQ(po.placement.target, Target::kNpu);
      EXPECT_EQ(plan->operations[2].fusedInto.has_value(), fuse) << plan->describe();
      if (fuse && plan->operations[1].fusedInto) {
        // The pointwise layer in front joined too (an inverted residual's three layers).
        EXPECT_EQ(*plan->operations[1].fusedInto, 0u);
        EXPECT_EQ(*plan->operations[2].fusedInto, 0u);
        EXPECT_EQ(plan->operations[0].step.fused, (std::vector<uint32_t>{1, 2}));
      } else if (fuse) {
        EXPECT_EQ(*plan->operations[2].fusedInto, 1u);
        EXPECT_EQ(plan->operations[1].step.fused, std::vector<uint32_t>{2});
        EXPECT_TRUE(plan->operations[2].step.commands.empty());
        // The first layer's output is read in place (resident) by the fused step.
        ASSERT_EQ(plan->operations[1].step.inputs.size(), 1u);
        EXPECT_TRUE(plan->operations[1].step.inputs[0].resident);
      }
      SCOPED_TRACE(fuse ? "fused" : "unfused");
      ExecutionReport report;
      expectCheckedRun(p, *plan, want, report);
      EXPECT_EQ(report.npuSteps, 3);
    }
  }
}

// LOW_POWER chooses by estimated energy: the pair fuses (its tensor's DRAM round trip is
// most of what fusion saves) and stays bit-exact.
TEST(FusedLowering, LowPowerFusesByEnergy) {
  std::mt19937 rng(13);
  Pair p = randomPair(rng, 1, 28, 28, 64, 64, 3, 1, true, true);
  std::vector<hal::TensorValue> want;
  ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
  LoweringOptions o;
  o.npu = array16();
  o.preference = hal::ExecutionPreference::LOW_POWER;
  auto plan = compileModel(p.model, o);
  ASSERT_TRUE(plan.ok()) << plan.error();
  ASSERT_TRUE(plan->operations[2].fusedInto.has_value()) << plan->describe();
  LoweringOptions apart = o;
  apart.fuseLayers = false;
  auto unfused = compileModel(p.model, apart);
  ASSERT_TRUE(unfused.ok()) << unfused.error();
  EXPECT_LT(estimatedEnergyPj(p.model, plan->operations[1].step, o),
            estimatedEnergyPj(p.model, unfused->operations[1].step, o) +
                estimatedEnergyPj(p.model, unfused->operations[2].step, o));
  InterpreterDevice device(o.npu);
  NpuExecutor ex(p.model, *plan, device);
  std::vector<hal::TensorValue> got;
  ASSERT_TRUE(ex.run(p.inputs, got).ok());
  EXPECT_EQ(got[0].bytes, want[0].bytes);
}

// Overlapped blocks (ISA 1.14, block_pipeline.h): MobileNet-v1's 56 x 56 x 128 pair runs
// the next block's DWCONVs beside the GEMMs, each block's tensor in its own copy in INP and
// the depthwise half in its own part of ACC (the plan FAST_SINGLE_ANSWER picks by its
// estimate); bit-exact on the strict interpreter device (which faults on a race between
// the blocks' halves), and most of the DWCONVs' cycles under GEMM beats.
TEST(FusedLowering, OverlappedBlocksAreBitExact) {
  std::mt19937 rng(14);
  Pair p = randomPair(rng, 1, 56, 56, 128, 128, 3, 1, true, false, false, wideScales(128));
  std::vector<hal::TensorValue> want;
  auto step = referenceAndFused(p, want);
  ASSERT_TRUE(step.ok()) << step.error();
  const std::string& m = step->report.mapping;
  EXPECT_NE(m.find("(overlapped"), std::string::npos) << m;
  EXPECT_EQ(splitJobs(step->commands).size(), 1u);
  std::set<uint8_t> values(want[0].bytes.begin(), want[0].bytes.end());
  EXPECT_GT(values.size(), 32u);  // a wrong block's tensor shows
  expectBitExactRun(*step, p, want, array16());
  InterpreterDevice dev(array16(), 64ull << 20);
  std::vector<std::vector<uint8_t>> out;
  auto stats = runStep(dev, *step, {p.inputs[0].bytes}, out);
  ASSERT_TRUE(stats.ok()) << stats.error();
  const InterpreterCounters& k = stats->counters;
  EXPECT_GT(k.dwconvBusy, 0u);
  EXPECT_LT(2 * k.idleDwconv, k.dwconvBusy) << k.idleDwconv << " of " << k.dwconvBusy;
}

// Random pairs forced into overlapped blocks (LoweringOptions::BlockJoin::kOverlapped):
// 3x3 and 5x5 filters, strides 1 and 2, SAME and VALID, 16-96 channels, several blocks
// each (most of them: rows too short for two blocks of whole row tiles have no such plan);
// bit-exact on the strict interpreter device, which faults on any race between a block's
// pointwise GEMMs and the next block's DWCONVs, REQUANT_STOREs and loads beside them.
TEST(FusedLowering, RandomOverlappedPairsAreBitExact) {
  std::mt19937 rng(15);
  auto draw = [&](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  int overlapped = 0;
  for (int i = 0; i < 12; ++i) {
    const uint32_t h = draw(16, 48), w = draw(8, 40), c = draw(16, 96), outC = draw(16, 96);
    const uint32_t f = draw(0, 2) ? 3 : 5, stride = draw(1, 2);
    Pair p = randomPair(rng, 1, h, w, c, outC, f, stride, draw(0, 1), false, false, wideScales(c));
    SCOPED_TRACE(p.what);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
    std::set<uint8_t> values(want[0].bytes.begin(), want[0].bytes.end());
    EXPECT_GT(values.size(), 16u);  // a wrong block's tensor shows
    LoweringOptions o;
    o.npu = array16();
    o.blockJoin = LoweringOptions::BlockJoin::kOverlapped;
    auto step = lowerFusedDepthwisePointwise(p.model, 0, 1, declaredShapes(p.model), o);
    // Rows too short for two blocks of whole row tiles have no overlapped plan.
    if (!step.ok() && step.error().find("no overlapped blocks fit") != std::string::npos) continue;
    ASSERT_TRUE(step.ok()) << step.error();
    const std::string& m = step->report.mapping;
    ASSERT_NE(m.find("(overlapped"), std::string::npos) << m;
    expectBitExactRun(*step, p, want, array16());
    ++overlapped;
  }
  EXPECT_GE(overlapped, 9) << overlapped;
}

// A tensor larger than INP's part for it fuses in blocks of output rows, a job each (a
// block across a batch boundary, an odd last block, stride 2), bit-exact; a tensor of which
// not even one row tile of rows fits is refused, and the plan keeps the two steps.
TEST(FusedLowering, LargeTensorsFuseInBlocksOfRows) {
  std::mt19937 rng(9);
  struct Case {
    uint32_t n, h, w, c, stride, blocks, pipelinedBlocks;
  };
  // 112 x 112 x 32: 392 KiB, 3 blocks a job each; 3 x 25 x 48 x 96: 2 blocks of 38 rows,
  // the first ending in the second image; 160 x 160 x 32 at stride 2: 80 x 80 x 32, 200 KiB,
  // 2 blocks. FAST_SINGLE_ANSWER pipelines smaller blocks in one job (block_pipeline.h: 5,
  // 5 and 8 of them; the strict interpreter device finds no race
  // between the blocks);
  // LOW_POWER keeps the blocks a job each.
  for (const Case& c : {Case{1, 112, 112, 32, 1, 3, 5}, Case{3, 25, 48, 96, 1, 2, 5},
                        Case{1, 160, 160, 32, 2, 2, 8}}) {
    Pair p = randomPair(rng, c.n, c.h, c.w, c.c, 16, 3, c.stride, true, false);
    SCOPED_TRACE(p.what);
    for (auto pref :
         {hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::ExecutionPreference::LOW_POWER}) {
      std::vector<hal::TensorValue> want;
      auto step = referenceAndFused(p, want, pref);
      ASSERT_TRUE(step.ok()) << step.error();
      const std::string& m = step->report.mapping;
      const bool pipelined = pref == hal::ExecutionPreference::FAST_SINGLE_ANSWER;
      EXPECT_EQ(m.find("(pipelined") != std::string::npos, pipelined) << m;
      const uint32_t blocks = pipelined ? c.pipelinedBlocks : c.blocks;
      EXPECT_NE(m.find("in " + std::to_string(blocks) + " blocks of"), std::string::npos) << m;
      EXPECT_EQ(splitJobs(step->commands).size(), pipelined ? 1u : blocks) << m;
      EXPECT_EQ(step->report.jobs, splitJobs(step->commands).size());
      expectBitExactRun(*step, p, want, array16());
    }
  }
  // Pipelined blocks under a short job budget: several jobs of whole blocks, each loading
  // the pointwise weights itself, bit-exact with no race.
  {
    Pair p = randomPair(rng, 1, 112, 112, 32, 16, 3, 1, true, false);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
    LoweringOptions o;
    o.npu = array16();
    o.maxJobCommands = 1200;
    auto step = lowerFusedDepthwisePointwise(p.model, 0, 1, declaredShapes(p.model), o);
    ASSERT_TRUE(step.ok()) << step.error();
    EXPECT_NE(step->report.mapping.find("(pipelined"), std::string::npos) << step->report.mapping;
    const auto jobs = splitJobs(step->commands);
    EXPECT_GT(jobs.size(), 1u);
    for (const auto& job : jobs) EXPECT_LE(job.size(), 1200u);
    expectBitExactRun(*step, p, want, array16());
  }
  // 3 x 1600 x 128: one row is 200 KiB.
  Pair p = randomPair(rng, 1, 3, 1600, 128, 16, 3, 1, true, false);
  LoweringOptions o;
  o.npu = array16();
  auto step = lowerFusedDepthwisePointwise(p.model, 0, 1, declaredShapes(p.model), o);
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.error().find("fit in INP"), std::string::npos) << step.error();
  auto plan = compileModel(p.model, o);
  ASSERT_TRUE(plan.ok()) << plan.error();
  EXPECT_FALSE(plan->operations[1].fusedInto.has_value());
  // NCHW layers (the tensor's rows would be sized from other dimensions) are refused, and
  // the two steps run apart, bit-exact.
  Pair q = randomPair(rng, 1, 12, 14, 32, 16, 3, 1, true, false, true);
  std::vector<hal::TensorValue> want;
  auto fused = referenceAndFused(q, want);
  ASSERT_FALSE(fused.ok());
  EXPECT_NE(fused.error().find("NCHW"), std::string::npos) << fused.error();
  auto apart = compileModel(q.model, o);
  ASSERT_TRUE(apart.ok()) << apart.error();
  EXPECT_FALSE(apart->operations[1].fusedInto.has_value());
  InterpreterDevice device(o.npu);
  NpuExecutor ex(q.model, *apart, device);
  std::vector<hal::TensorValue> got;
  ASSERT_TRUE(ex.run(q.inputs, got).ok());
  EXPECT_EQ(got[0].bytes, want[0].bytes);
}

// A convolution and the elementwise operation after it. Without `chain`: input x
// [n, h, w, cin] -> CONV_2D f x f (stride, SAME) -> y; `type`(y, r), or (r, y) with `swap`,
// r a model input of y's shape. With `chain` (stride 1): x -> CONV_2D 1x1 -> r, r -> CONV_2D
// f x f -> y, `type`(y, r): a ResNet identity block, r read by both.
Pair randomConvEltwise(std::mt19937& rng, uint32_t n, uint32_t h, uint32_t w, uint32_t cin,
                       uint32_t cout, uint32_t f, uint32_t stride, OperationType type, bool swap,
                       bool chain) {
  RandomQuant8 q(rng);
  const bool isSigned = q.isSigned;
  const OperandType t = q.type;
  const uint32_t oh = (h + stride - 1) / stride, ow = (w + stride - 1) / stride;
  OneOpModel m;
  uint32_t x = m.input(t, {n, h, w, cin}, q.bytes(size_t{n} * h * w * cin), 0.05f, q.zp());
  std::vector<uint32_t> temps;
  uint32_t r = 0;
  float inScale = 0.05f;
  if (chain) {
    const uint32_t w0 =
        m.constant(t, {cout, 1, 1, cin}, q.bytes(size_t{cout} * cin), 0.02f, q.zp());
    const uint32_t b0 = m.constant(kI32, {cout}, q.ints(cout, 300), 0.05f * 0.02f);
    r = m.output(t, {n, h, w, cout}, 0.06f, q.zp());
    m.op(OperationType::CONV_2D, {x, w0, b0, m.i32(1), m.i32(1), m.i32(1), m.i32(1)}, {r});
    temps.push_back(r);
    x = r;
    inScale = 0.06f;
  } else {
    r = m.input(t, {n, oh, ow, cout}, q.bytes(size_t{n} * oh * ow * cout), 0.06f, q.zp());
  }
  const uint32_t cy = chain ? cout : cin;
  const uint32_t wc =
      m.constant(t, {cout, f, f, cy}, q.bytes(size_t{cout} * f * f * cy), 0.02f, q.zp());
  const uint32_t bc = m.constant(kI32, {cout}, q.ints(cout, 800), inScale * 0.02f);
  const uint32_t y = m.output(t, {n, oh, ow, cout}, 0.08f, q.zp());
  const int32_t convAct = q.pick(0, 1);
  m.op(OperationType::CONV_2D,
       {x, wc, bc, m.i32(1), m.i32(static_cast<int32_t>(stride)),
        m.i32(static_cast<int32_t>(stride)), m.i32(convAct)},
       {y});
  temps.push_back(y);
  const int32_t act = q.pick(0, 3);  // none, relu, relu1, relu6
  const float outScale = type == OperationType::MUL ? 0.3f : 0.1f;
  const uint32_t out = m.output(t, {n, oh, ow, cout}, outScale, q.zp());
  m.op(type, {swap ? r : y, swap ? y : r, m.i32(act)}, {out});
  Pair p{m.build(), m.inputs(), ""};
  hal::Subgraph& g = p.model.main;
  for (uint32_t tmp : temps) g.operands[tmp].lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
  g.outputIndexes = {out};
  p.what = std::string(isSigned ? "int8" : "uint8") + " [" + std::to_string(n) + "," +
           std::to_string(h) + "," + std::to_string(w) + "," + std::to_string(cin) + "] conv " +
           std::to_string(f) + "x" + std::to_string(f) + " s" + std::to_string(stride) + " -> " +
           std::to_string(cout) + ", " + std::string(hal::toString(type)) +
           (swap ? " (other, conv)" : " (conv, other)") + " act " + std::to_string(act) +
           (chain ? " (identity block)" : "");
  return p;
}

// uint8 input [1, h, w, 16] -> CONV_2D 1x1 -> y; ADD(y, r), or ADD(r, y) with `otherFirst`,
// activation `act`: r the operand `other` adds to `m` (after the input x).
template <typename MakeOther>
hal::Model convThenAdd(OneOpModel& m, uint32_t h, uint32_t w, const MakeOther& other,
                       bool otherFirst, int32_t act) {
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM;
  const uint32_t x = m.input(t, {1, h, w, 16}, std::vector<uint8_t>(h * w * 16, 3), 0.05f, 10);
  const uint32_t r = other();
  const uint32_t wc = m.constant(t, {16, 1, 1, 16}, std::vector<uint8_t>(256, 130), 0.02f, 128);
  const uint32_t bc = m.constant(kI32, {16}, std::vector<int32_t>(16, 5), 0.001f);
  const uint32_t y = m.output(t, {1, h, w, 16}, 0.08f, 5);
  m.op(OperationType::CONV_2D, {x, wc, bc, m.i32(1), m.i32(1), m.i32(1), m.i32(0)}, {y});
  const uint32_t out = m.output(t, {1, h, w, 16}, 0.1f, 3);
  m.op(OperationType::ADD, {otherFirst ? r : y, otherFirst ? y : r, m.i32(act)}, {out});
  hal::Model model = m.build();
  model.main.operands[y].lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
  model.main.outputIndexes = {out};
  return model;
}

// Every random convolution + ADD / SUB / MUL as one step: the elementwise operation's output
// equals the reference's; the step reads the convolution's input and the other operand and
// writes the elementwise output only (the convolution's never in DRAM).
TEST(FusedLowering, RandomConvEltwisePairsAreBitExact) {
  std::mt19937 rng(31);
  const Picker pick{rng};
  const OperationType types[] = {OperationType::ADD, OperationType::SUB, OperationType::MUL};
  int packed = 0;
  for (int i = 0; i < 30; ++i) {
    // (A strided 1x1 layer has no window mapping.)
    const uint32_t f = pick(0, 1) ? 1 : 3, stride = f == 3 && pick(0, 2) == 0 ? 2 : 1;
    const uint32_t h = pick(3, 17), w = pick(3, 23), n = pick(0, 4) == 0 ? 2 : 1;
    const uint32_t cin = 8 * pick(1, 8), cout = 8 * pick(1, 9);
    Pair p = randomConvEltwise(rng, n, h, w, cin, cout, f, stride, types[i % 3], pick(0, 1), false);
    SCOPED_TRACE(p.what);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
    LoweringOptions o;
    o.npu = array16();
    auto step = lowerFusedConvEltwise(p.model, 0, 1, declaredShapes(p.model), o);
    ASSERT_TRUE(step.ok()) << step.error();
    ASSERT_EQ(step->fused, std::vector<uint32_t>{1});
    ASSERT_EQ(step->inputs.size(), 2u);
    ASSERT_EQ(step->outputs.size(), 1u);
    EXPECT_EQ(step->outputs[0].operand, p.model.main.outputIndexes[0]);
    InterpreterDevice dev(o.npu, 64ull << 20);
    std::vector<std::vector<uint8_t>> out;
    auto stats = runStep(dev, *step, {p.inputs[0].bytes, p.inputs[1].bytes}, out);
    ASSERT_TRUE(stats.ok()) << stats.error();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], want[0].bytes);
    EXPECT_EQ(step->report.estimatedCycles, stats->cycles);
    packed += step->report.mapping.find("packed rows") != std::string::npos;
  }
  // Some convolutions pack their lanes across output rows: their other input's rows load
  // per output row, as their stores store them.
  EXPECT_GT(packed, 0);
}

// ResNet-like identity blocks through compileModel and the executor (cross-check on): the
// ADD fuses into the convolution before it when that is faster, reads the first layer's
// output where it lies (resident), nothing mismatches, and the output equals the reference
// and the unfused plan's. A broadcast other operand is refused.
TEST(FusedLowering, ResidualAddsFuseIntoTheConvolution) {
  std::mt19937 rng(17);
  int fusedPlans = 0;
  for (int i = 0; i < 6; ++i) {
    Pair p = randomConvEltwise(rng, 1, 14, 14, 32, 16 * (2 + i % 3), i % 2 ? 3 : 1, 1,
                               OperationType::ADD, i % 3 == 2, true);
    SCOPED_TRACE(p.what);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
    for (bool fuse : {true, false}) {
      auto plan = planOn16x16(p, fuse);
      ASSERT_TRUE(plan.ok()) << plan.error();
      ASSERT_EQ(plan->operations.size(), 3u);
      const bool fused = plan->operations[2].fusedInto.has_value();
      if (!fuse) {
        EXPECT_FALSE(fused);
      }
      if (fused) {
        ++fusedPlans;
        EXPECT_EQ(*plan->operations[2].fusedInto, 1u);
        EXPECT_EQ(plan->operations[1].step.fused, std::vector<uint32_t>{2});
        ASSERT_EQ(plan->operations[1].step.inputs.size(), 2u);
        for (const Binding& b : plan->operations[1].step.inputs) {
          EXPECT_TRUE(b.resident);
        }
      }
      SCOPED_TRACE(fuse ? "fused" : "unfused");
      ExecutionReport report;
      expectCheckedRun(p, *plan, want, report);
      EXPECT_EQ(report.host.bytes.betweenNpuSteps, 0u);
    }
  }
  EXPECT_GT(fusedPlans, 0);
  // The other operand broadcast over the pixels: ELTWISE's epilogue takes equal shapes.
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM;
  OneOpModel m;
  const hal::Model model = convThenAdd(
      m, 4, 4,
      [&] {
        return m.input(t, {1, 1, 1, 16}, std::vector<uint8_t>(16, 7), 0.05f, 10);
      },
      false, 0);
  LoweringOptions o;
  o.npu = array16();
  auto step = lowerFusedConvEltwise(model, 0, 1, declaredShapes(model), o);
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.error().find("broadcast"), std::string::npos) << step.error();

  // A constant other operand of the full shape: packed into the step's constants.
  std::vector<uint8_t> cv(480);
  for (size_t i = 0; i < cv.size(); ++i) cv[i] = static_cast<uint8_t>(i * 7);
  OneOpModel k;
  const hal::Model withConstant = convThenAdd(
      k, 5, 6,
      [&] {
        return k.constant(t, {1, 5, 6, 16}, cv, 0.05f, 10);
      },
      true, 1);
  std::vector<hal::TensorValue> want;
  ASSERT_EQ(referenceRun(withConstant, k.inputs(), want), "");
  auto fused = lowerFusedConvEltwise(withConstant, 0, 1, declaredShapes(withConstant), o);
  ASSERT_TRUE(fused.ok()) << fused.error();
  ASSERT_EQ(fused->inputs.size(), 1u);
  InterpreterDevice dev(o.npu, 64ull << 20);
  std::vector<std::vector<uint8_t>> got;
  auto stats = runStep(dev, *fused, {k.inputs()[0].bytes}, got);
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(got[0], want[0].bytes);
}

// MobileNet-v2's inverted residual block, its expansion left out: x -> CONV_2D 1x1 -> r;
// r -> DEPTHWISE_CONV_2D 3x3 (stride 1, SAME) -> mid -> CONV_2D 1x1 -> y; ADD(y, r) (or
// (r, y) with `swap`) -> out.
Pair randomInvertedResidual(std::mt19937& rng, uint32_t h, uint32_t w, uint32_t c, bool swap) {
  RandomQuant8 q(rng);
  const bool isSigned = q.isSigned;
  const OperandType t = q.type;
  OneOpModel m;
  const uint32_t x = m.input(t, {1, h, w, c}, q.bytes(size_t{h} * w * c), 0.05f, q.zp());
  const uint32_t w0 = m.constant(t, {c, 1, 1, c}, q.bytes(size_t{c} * c), 0.02f, q.zp());
  const uint32_t b0 = m.constant(kI32, {c}, q.ints(c, 300), 0.05f * 0.02f);
  const uint32_t r = m.output(t, {1, h, w, c}, 0.06f, q.zp());
  m.op(OperationType::CONV_2D, {x, w0, b0, m.i32(1), m.i32(1), m.i32(1), m.i32(1)}, {r});
  const uint32_t wd = m.constant(t, {1, 3, 3, c}, q.bytes(size_t{9} * c), 0.03f, q.zp());
  const uint32_t bd = m.constant(kI32, {c}, q.ints(c, 500), 0.06f * 0.03f);
  const uint32_t mid = m.output(t, {1, h, w, c}, 0.08f, q.zp());
  m.op(OperationType::DEPTHWISE_CONV_2D,
       {r, wd, bd, m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(3)}, {mid});
  const uint32_t wp = m.constant(t, {c, 1, 1, c}, q.bytes(size_t{c} * c), 0.02f, q.zp());
  const uint32_t bp = m.constant(kI32, {c}, q.ints(c, 800), 0.08f * 0.02f);
  const uint32_t y = m.output(t, {1, h, w, c}, 0.07f, q.zp());
  m.op(OperationType::CONV_2D, {mid, wp, bp, m.i32(1), m.i32(1), m.i32(1), m.i32(0)}, {y});
  const uint32_t out = m.output(t, {1, h, w, c}, 0.1f, q.zp());
  m.op(OperationType::ADD, {swap ? r : y, swap ? y : r, m.i32(0)}, {out});
  Pair p{m.build(), m.inputs(), ""};
  hal::Subgraph& g = p.model.main;
  for (uint32_t tmp : {r, mid, y})
    g.operands[tmp].lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
  g.outputIndexes = {out};
  p.what = std::string(isSigned ? "int8" : "uint8") + " [1," + std::to_string(h) + "," +
           std::to_string(w) + "," + std::to_string(c) + "] inverted residual" +
           (swap ? " (r, y)" : " (y, r)");
  return p;
}

// The residual ADD after a fused depthwise -> pointwise step joins it: one step of three
// operations (the pointwise half's elementwise epilogue), bit-exact as a step of its own and
// through the executor's cross-check, the middle and last operations without steps.
TEST(FusedLowering, InvertedResidualsFuseTheirAdd) {
  std::mt19937 rng(23);
  int joined = 0;
  for (int i = 0; i < 6; ++i) {
    // 28 x 28 x 48 runs in blocks of rows (a job each), the other input per block.
    const uint32_t h = i < 2 ? 28 : 7 + 3 * i, c = i < 2 ? 48 : 16 * (1 + i % 3);
    Pair p = randomInvertedResidual(rng, h, h, c, i % 2);
    SCOPED_TRACE(p.what);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
    LoweringOptions o;
    o.npu = array16();
    // The three operations as one step: reads r twice (the depthwise input and the ADD's).
    auto step = lowerFusedDepthwisePointwise(p.model, 1, 2, declaredShapes(p.model), o, 3);
    ASSERT_TRUE(step.ok()) << step.error();
    EXPECT_EQ(step->fused, (std::vector<uint32_t>{2, 3}));
    ASSERT_EQ(step->inputs.size(), 2u);
    // Only an ADD, SUB or MUL joins (another operation of the same operands is refused).
    hal::Model other = p.model;
    other.main.operations[3].type = OperationType::MAXIMUM;
    auto refused = lowerFusedDepthwisePointwise(other, 1, 2, declaredShapes(other), o, 3);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("not an ADD, SUB or MUL"), std::string::npos) << refused.error();
    auto plan = compileModel(p.model, o);
    ASSERT_TRUE(plan.ok()) << plan.error();
    const bool fused = plan->operations[3].fusedInto.has_value();
    if (fused) {
      ++joined;
      EXPECT_EQ(*plan->operations[3].fusedInto, 1u);
      EXPECT_EQ(*plan->operations[2].fusedInto, 1u);
      EXPECT_EQ(plan->operations[1].step.fused, (std::vector<uint32_t>{2, 3}));
    }
    ExecutionReport report;
    expectCheckedRun(p, *plan, want, report);
    EXPECT_EQ(report.cpuSteps, 0);
    // Without the cross-check the middle operation has no value at all, and none is needed.
    InterpreterDevice device(o.npu);
    NpuExecutor plain(p.model, *plan, device);
    std::vector<hal::TensorValue> again;
    ASSERT_TRUE(plain.run(p.inputs, again).ok());
    EXPECT_EQ(again[0].bytes, want[0].bytes);
  }
  EXPECT_GT(joined, 0);
}

// input [1, h, w, inC] -> CONV_2D (1x1, or 3x3 stride 2 SAME with `stem`) -> expC ->
// DEPTHWISE_CONV_2D f x f (stride, padding, ReLU6) -> CONV_2D 1x1 -> outC, and with `add`
// (outC = inC, stride 1, no stem) the ADD of the block's input: MobileNet-v2's inverted
// residual, or its stem and first pair.
Pair randomTriple(std::mt19937& rng, uint32_t h, uint32_t w, uint32_t inC, uint32_t expC,
                  uint32_t outC, uint32_t f, uint32_t stride, bool same, bool stem, bool add) {
  RandomQuant8 q(rng);
  const OperandType t = q.type;
  OneOpModel m;
  const uint32_t x = m.input(t, {1, h, w, inC}, q.bytes(size_t{h} * w * inC), 0.05f, q.zp());
  const uint32_t k = stem ? 3 : 1, s0 = stem ? 2 : 1;
  const uint32_t eh = stem ? (h + 1) / 2 : h, ew = stem ? (w + 1) / 2 : w;
  const uint32_t w0 =
      m.constant(t, {expC, k, k, inC}, q.bytes(size_t{expC} * k * k * inC), 0.02f, q.zp());
  const uint32_t b0 = m.constant(kI32, {expC}, q.ints(expC, 300), 0.05f * 0.02f);
  const uint32_t e = m.output(t, {1, eh, ew, expC}, 0.06f, q.zp());
  m.op(OperationType::CONV_2D,
       {x, w0, b0, m.i32(1), m.i32(static_cast<int32_t>(s0)), m.i32(static_cast<int32_t>(s0)),
        m.i32(3)},
       {e});
  const uint32_t oh = same ? (eh + stride - 1) / stride : (eh - f) / stride + 1;
  const uint32_t ow = same ? (ew + stride - 1) / stride : (ew - f) / stride + 1;
  const uint32_t wd = m.constant(t, {1, f, f, expC}, q.bytes(size_t{f} * f * expC), 0.03f, q.zp());
  const uint32_t bd = m.constant(kI32, {expC}, q.ints(expC, 500), 0.06f * 0.03f);
  const uint32_t mid = m.output(t, {1, oh, ow, expC}, 0.08f, q.zp());
  m.op(OperationType::DEPTHWISE_CONV_2D,
       {e, wd, bd, m.i32(same ? 1 : 2), m.i32(static_cast<int32_t>(stride)),
        m.i32(static_cast<int32_t>(stride)), m.i32(1), m.i32(3)},
       {mid});
  const uint32_t wp =
      m.constant(t, {outC, 1, 1, expC}, q.bytes(size_t{outC} * expC), 0.02f, q.zp());
  const uint32_t bp = m.constant(kI32, {outC}, q.ints(outC, 800), 0.08f * 0.02f);
  const uint32_t y = m.output(t, {1, oh, ow, outC}, 0.07f, q.zp());
  m.op(OperationType::CONV_2D, {mid, wp, bp, m.i32(1), m.i32(1), m.i32(1), m.i32(0)}, {y});
  std::vector<uint32_t> temps = {e, mid};
  uint32_t out = y;
  if (add) {
    out = m.output(t, {1, oh, ow, outC}, 0.1f, q.zp());
    m.op(OperationType::ADD, {y, x, m.i32(0)}, {out});
    temps.push_back(y);
  }
  Pair p{m.build(), m.inputs(), ""};
  hal::Subgraph& g = p.model.main;
  for (uint32_t tmp : temps) g.operands[tmp].lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
  g.outputIndexes = {out};
  p.what = std::string(q.isSigned ? "int8" : "uint8") + " [1," + std::to_string(h) + "," +
           std::to_string(w) + "," + std::to_string(inC) + "] " + (stem ? "3x3 s2" : "1x1") +
           " -> " + std::to_string(expC) + ", dw " + std::to_string(f) + "x" + std::to_string(f) +
           " s" + std::to_string(stride) + (same ? " SAME" : " VALID") + " -> " +
           std::to_string(outC) + (add ? " + ADD" : "");
  return p;
}

// Random inverted residuals as one step (lowerFusedInvertedResidual) on a strict interpreter
// device: the output is the reference's, the estimate the run's cycles, and neither
// expanded tensor is bound. Large ones run in blocks of rows, their halos recomputed. The
// expansion writes a channel tile's rows with one REQUANT_STORE in segments (ISA 1.13)
// where the rows allow (an even width), else one per image row.
TEST(FusedLowering, RandomInvertedResidualsAreBitExact) {
  std::mt19937 rng(31);
  const Picker pick{rng};
  int blocked = 0, segmented = 0;
  for (int i = 0; i < 24; ++i) {
    const bool stem = i % 6 == 5, add = !stem && i % 3 == 0;
    const uint32_t f = pick(0, 3) == 0 ? 5 : 3, stride = add ? 1 : pick(1, 2);
    const bool same = add || pick(0, 2) != 0;
    // Every fourth large enough for blocks of rows (its tensors pass INP).
    const uint32_t h = i % 4 == 1 ? pick(40, 60) : pick(f + 1, 20);
    const uint32_t w = i % 4 == 1 ? pick(40, 60) : pick(f + 1, 30);
    const uint32_t inC = stem ? 3 : 8 * pick(1, 4), expC = 16 * pick(1, 6);
    const uint32_t outC = add ? inC : 8 * pick(1, 5);
    Pair p = randomTriple(rng, h, w, inC, expC, outC, f, stride, same, stem, add);
    SCOPED_TRACE(p.what);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
    LoweringOptions o;
    o.npu = array16();
    std::optional<uint32_t> eltwise;
    if (add) eltwise = 3;
    auto step = lowerFusedInvertedResidual(p.model, 0, 1, 2, declaredShapes(p.model), o, eltwise);
    ASSERT_TRUE(step.ok()) << step.error();
    EXPECT_EQ(step->fused, add ? (std::vector<uint32_t>{1, 2, 3}) : (std::vector<uint32_t>{1, 2}));
    // The ADD's other input is the block's input again (bound twice, read per block).
    ASSERT_EQ(step->inputs.size(), add ? 2u : 1u);
    ASSERT_EQ(step->outputs.size(), 1u);
    EXPECT_EQ(step->outputs[0].operand, p.model.main.outputIndexes[0]);
    const std::vector<hal::Operation>& ops = p.model.main.operations;
    for (const std::vector<Binding>* bs : {&step->inputs, &step->outputs})
      for (const Binding& b : *bs)
        for (uint32_t between : {ops[0].outputs[0], ops[1].outputs[0]})
          EXPECT_NE(b.operand, between);
    blocked += step->report.mapping.find(" blocks of ") != std::string::npos;
    const bool segments =
        std::any_of(step->commands.begin(), step->commands.end(), [](const firmware::Command& c) {
          const auto* r = std::get_if<firmware::RequantStore>(&c.args);
          return r && r->segments;
        });
    segmented += segments;
    InterpreterDevice dev(o.npu, 64ull << 20);
    std::vector<std::vector<uint8_t>> out;
    std::vector<std::vector<uint8_t>> in(step->inputs.size(), p.inputs[0].bytes);
    auto stats = runStep(dev, *step, in, out);
    ASSERT_TRUE(stats.ok()) << stats.error();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], want[0].bytes);
    EXPECT_EQ(step->report.estimatedCycles, stats->cycles);
  }
  EXPECT_GE(blocked, 3);
  EXPECT_GE(segmented, 6);
}

// Random inverted residuals forced into overlapped blocks (BlockJoin::kOverlapped: block
// k + 1's expansion and DWCONVs among block k's projection GEMMs, the depthwise output in
// two copies): 1x1 and stem expansions, 3x3 and 5x5, strides 1 and 2, SAME and VALID, as
// one job on the strict interpreter device, which faults on any race between the blocks;
// every value the reference's, the estimate the run's cycles. With an ADD after it there is
// no such plan (its other input loads per block).
TEST(FusedLowering, RandomOverlappedInvertedResidualsAreBitExact) {
  std::mt19937 rng(47);
  const Picker pick{rng};
  int overlapped = 0;
  for (int i = 0; i < 16; ++i) {
    const bool stem = i % 4 == 3;
    const uint32_t f = pick(0, 3) == 0 ? 5 : 3, stride = pick(1, 2);
    const bool same = pick(0, 2) != 0;
    // Large enough for blocks: the expanded tensor passes INP.
    const uint32_t h = pick(56, 96) * (stem ? 2 : 1), w = pick(40, 72) * (stem ? 2 : 1);
    const uint32_t inC = stem ? 3 : 8 * pick(1, 4), expC = 16 * pick(3, 6), outC = 8 * pick(1, 5);
    Pair p = randomTriple(rng, h, w, inC, expC, outC, f, stride, same, stem, false);
    SCOPED_TRACE(p.what);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
    LoweringOptions o;
    o.npu = array16();
    o.blockJoin = LoweringOptions::BlockJoin::kOverlapped;
    auto step = lowerFusedInvertedResidual(p.model, 0, 1, 2, declaredShapes(p.model), o);
    // Tensors that fit whole have no blocks to overlap; rows too wide for a row step of
    // blocks (odd widths) none at all.
    if (!step.ok() && (step.error().find("no overlapped blocks fit") != std::string::npos ||
                       step.error().find("not even") != std::string::npos))
      continue;
    ASSERT_TRUE(step.ok()) << step.error();
    const std::string& m = step->report.mapping;
    ASSERT_NE(m.find("(overlapped"), std::string::npos) << m;
    EXPECT_EQ(splitJobs(step->commands).size(), 1u);
    expectBitExactRun(*step, p, want, o.npu);
    ++overlapped;
  }
  EXPECT_GE(overlapped, 9) << overlapped;
  // With the ADD: refused.
  Pair p = randomTriple(rng, 48, 48, 16, 64, 16, 3, 1, true, false, true);
  LoweringOptions o;
  o.npu = array16();
  o.blockJoin = LoweringOptions::BlockJoin::kOverlapped;
  auto step = lowerFusedInvertedResidual(p.model, 0, 1, 2, declaredShapes(p.model), o, 3);
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.error().find("no overlapped blocks with the ADD"), std::string::npos)
      << step.error();
}

// Through compileModel and the executor's cross-check: the expansion step takes the fused
// depthwise step after it when the estimate says so (its output no CPU step and no model
// output), and every value matches; several images keep the pair.
TEST(FusedLowering, InvertedResidualsFuseThroughTheExecutor) {
  std::mt19937 rng(37);
  int triples = 0;
  for (int i = 0; i < 6; ++i) {
    const bool add = i % 2 == 0, stem = i == 5;
    Pair p = randomTriple(rng, stem ? 56 : 28, stem ? 56 : 28, stem ? 3 : 24, 96 + 48 * (i % 2),
                          stem ? 16 : 24, 3, add ? 1 : 2, true, stem, add);
    SCOPED_TRACE(p.what);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
    auto plan = planOn16x16(p, true);
    ASSERT_TRUE(plan.ok()) << plan.error();
    if (plan->operations[1].fusedInto) {
      ++triples;
      EXPECT_EQ(*plan->operations[1].fusedInto, 0u);
      for (size_t k = 2; k < plan->operations.size(); ++k)
        EXPECT_EQ(plan->operations[k].fusedInto, std::optional<uint32_t>(0));
    }
    ExecutionReport report;
    expectCheckedRun(p, *plan, want, report);
    EXPECT_EQ(report.cpuSteps, 0);
  }
  EXPECT_GT(triples, 0);
}

// input [1, h, w, c[0]] -> pairs.size() depthwise -> pointwise pairs (MobileNet-v1's body):
// pair i a f x f depthwise layer (stride, SAME or VALID) over c[i] channels and a pointwise
// layer to c[i + 1], every tensor its own zero point, the tensors between them temporaries.
struct ChainPair {
  uint32_t f = 3, stride = 1;
  bool same = true;
};
Pair randomChain(std::mt19937& rng, uint32_t h, uint32_t w, const std::vector<uint32_t>& c,
                 const std::vector<ChainPair>& pairs) {
  RandomQuant8 q(rng);
  const OperandType t = q.type;
  OneOpModel m;
  uint32_t x = m.input(t, {1, h, w, c[0]}, q.bytes(size_t{h} * w * c[0]), 0.05f, q.zp());
  float scale = 0.05f;
  std::vector<uint32_t> temps;
  std::string what = std::string(q.isSigned ? "int8" : "uint8") + " [1," + std::to_string(h) + "," +
                     std::to_string(w) + "," + std::to_string(c[0]) + "]";
  for (size_t i = 0; i < pairs.size(); ++i) {
    const ChainPair& k = pairs[i];
    const uint32_t ch = c[i], f = k.f, s = k.stride;
    h = k.same ? (h + s - 1) / s : (h - f) / s + 1;
    w = k.same ? (w + s - 1) / s : (w - f) / s + 1;
    const uint32_t wd = m.constant(t, {1, f, f, ch}, q.bytes(size_t{f} * f * ch), 0.03f, q.zp());
    const uint32_t bd = m.constant(kI32, {ch}, q.ints(ch, 500), scale * 0.03f);
    const uint32_t mid = m.output(t, {1, h, w, ch}, 0.08f, q.zp());
    const int32_t act = q.pick(0, 3);
    m.op(OperationType::DEPTHWISE_CONV_2D,
         {x, wd, bd, m.i32(k.same ? 1 : 2), m.i32(static_cast<int32_t>(s)),
          m.i32(static_cast<int32_t>(s)), m.i32(1), m.i32(act)},
         {mid});
    const uint32_t oc = c[i + 1];
    const uint32_t wp = m.constant(t, {oc, 1, 1, ch}, q.bytes(size_t{oc} * ch), 0.02f, q.zp());
    const uint32_t bp = m.constant(kI32, {oc}, q.ints(oc, 800), 0.08f * 0.02f);
    scale = 0.1f + 0.01f * static_cast<float>(i);
    const uint32_t y = m.output(t, {1, h, w, oc}, scale, q.zp());
    m.op(OperationType::CONV_2D, {mid, wp, bp, m.i32(1), m.i32(1), m.i32(1), m.i32(act % 2)}, {y});
    temps.push_back(mid);
    if (i + 1 < pairs.size()) temps.push_back(y);
    x = y;
    what += " dw " + std::to_string(f) + "x" + std::to_string(f) + " s" + std::to_string(s) +
            (k.same ? " SAME" : " VALID") + " -> pw " + std::to_string(oc);
  }
  Pair p{m.build(), m.inputs(), what};
  hal::Subgraph& g = p.model.main;
  for (uint32_t tmp : temps) g.operands[tmp].lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
  g.outputIndexes = {x};
  return p;
}

// Random chains of 2-4 pairs as one step (lowerFusedChain) on a strict interpreter device
// (no races, tokens balanced): the output is the reference's, the estimate the run's
// cycles, one job, and no tensor between the first layer's input and the last one's output
// is bound.
TEST(FusedLowering, RandomChainsAreBitExact) {
  std::mt19937 rng(43);
  const Picker pick{rng};
  for (int i = 0; i < 16; ++i) {
    const uint32_t n = pick(2, 4);
    std::vector<ChainPair> pairs(n);
    std::vector<uint32_t> c{8 * pick(1, 6)};
    for (ChainPair& k : pairs) {
      k.f = pick(0, 3) == 0 ? 5 : 3;
      k.stride = pick(0, 3) == 0 ? 2 : 1;
      k.same = pick(0, 3) != 0;
      c.push_back(8 * pick(1, 6));
    }
    // Big enough for every VALID layer's filter.
    const uint32_t h = pick(22, 30), w = pick(22, 34);
    Pair p = randomChain(rng, h, w, c, pairs);
    SCOPED_TRACE(p.what);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
    LoweringOptions o;
    o.npu = array16();
    auto step = lowerFusedChain(p.model, 0, n, declaredShapes(p.model), o);
    ASSERT_TRUE(step.ok()) << step.error();
    std::vector<uint32_t> fused;
    for (uint32_t k = 1; k < 2 * n; ++k) fused.push_back(k);
    EXPECT_EQ(step->fused, fused);
    EXPECT_EQ(step->report.jobs, 1u);
    ASSERT_EQ(step->inputs.size(), 1u);
    ASSERT_EQ(step->outputs.size(), 1u);
    EXPECT_EQ(step->outputs[0].operand, p.model.main.outputIndexes[0]);
    const std::vector<hal::Operation>& ops = p.model.main.operations;
    for (const std::vector<Binding>* bs : {&step->inputs, &step->outputs})
      for (const Binding& b : *bs)
        for (uint32_t k = 0; k + 1 < ops.size(); ++k) EXPECT_NE(b.operand, ops[k].outputs[0]);
    expectBitExactRun(*step, p, want, o.npu);
  }
}

// A VALID stride-2 depthwise layer over an even height reads all rows but the last: the
// pointwise layer before it writes only those into its padded input (the last one would
// pass the channel tile's rows, into the next tile's or the tensor above them).
TEST(FusedLowering, ChainsWriteOnlyTheRowsTheNextLayerReads) {
  std::mt19937 rng(59);
  for (uint32_t c : {19u, 40u}) {
    ChainPair first, second;
    second.stride = 2;
    second.same = false;
    Pair p = randomChain(rng, 24, 40, {31, c, 47}, {first, second});
    SCOPED_TRACE(p.what);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
    LoweringOptions o;
    o.npu = array16();
    auto step = lowerFusedChain(p.model, 0, 2, declaredShapes(p.model), o);
    ASSERT_TRUE(step.ok()) << step.error();
    expectBitExactRun(*step, p, want, o.npu);
  }
}

// A chain whose tensors do not fit in INP beside each other, or of one pair, is refused.
TEST(FusedLowering, ChainsTooLargeForInpAreRefused) {
  std::mt19937 rng(47);
  Pair p = randomChain(rng, 40, 40, {96, 96, 96}, {ChainPair{}, ChainPair{}});
  LoweringOptions o;
  o.npu = array16();
  auto step = lowerFusedChain(p.model, 0, 2, declaredShapes(p.model), o);
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.error().find("do not fit in INP"), std::string::npos) << step.error();
  auto one = lowerFusedChain(p.model, 0, 1, declaredShapes(p.model), o);
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.error().find("two at least"), std::string::npos) << one.error();
}

// Through compileModel and the executor's cross-check: fused pairs that feed each other
// join into chains when the estimate says so, and every value matches the reference.
TEST(FusedLowering, ChainsFuseThroughTheExecutor) {
  std::mt19937 rng(53);
  int chains = 0;
  for (int i = 0; i < 3; ++i) {
    Pair p = randomChain(rng, 14, 14, {64, 64, 64, 64, 64},
                         {ChainPair{}, ChainPair{}, ChainPair{}, ChainPair{}});
    SCOPED_TRACE(p.what);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(p.model, p.inputs, want), "");
    auto plan = planOn16x16(p, true);
    ASSERT_TRUE(plan.ok()) << plan.error();
    const std::vector<uint32_t>& fused = plan->operations[0].step.fused;
    if (fused.size() >= 3) {
      ++chains;
      for (uint32_t k = 1; k <= fused.size(); ++k)
        EXPECT_EQ(plan->operations[k].fusedInto, std::optional<uint32_t>(0)) << plan->describe();
    }
    ExecutionReport report;
    expectCheckedRun(p, *plan, want, report);
    EXPECT_EQ(report.cpuSteps, 0);
  }
  EXPECT_EQ(chains, 3);
}

TEST(FusedLowering, InvertedResidualsOfSeveralImagesAreRefused) {
  std::mt19937 rng(41);
  Pair p = randomTriple(rng, 12, 12, 16, 64, 16, 3, 1, true, false, false);
  for (uint32_t o : {p.model.main.inputIndexes[0], p.model.main.operations[0].outputs[0],
                     p.model.main.operations[1].outputs[0], p.model.main.operations[2].outputs[0]})
    p.model.main.operands[o].dimensions[0] = 2;
  LoweringOptions opt;
  opt.npu = array16();
  auto step = lowerFusedInvertedResidual(p.model, 0, 1, 2, declaredShapes(p.model), opt);
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.error().find("2 images"), std::string::npos) << step.error();
}

}  // namespace
}  // namespace nncosim::driver::test
