// Whole models: partition reasons, the plan per execution preference, the device-memory
// plan, and mixed NPU/CPU execution against the reference.
#include <gtest/gtest.h>

#include <random>

#include "tests/driver/compiler_test_util.h"

namespace nncosim::driver::test {
namespace {

constexpr OperandType kU8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType kI32 = OperandType::TENSOR_INT32;
constexpr OperandType kF32 = OperandType::TENSOR_FLOAT32;

template <typename T>
std::vector<T> randomValues(size_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(d(g));
  return v;
}

// in [1,10,10,8] -> CONV_2D 3x3 SAME 8->24 (relu) -> DEPTHWISE 3x3 stride 2 (24)
// -> RELU (CPU) -> FULLY_CONNECTED 600 -> 10 -> out [1,10]; all uint8.
struct SmallNet {
  hal::Model model;
  std::vector<hal::TensorValue> inputs;
};

SmallNet smallNet(uint32_t batches = 1) {
  OneOpModel m;
  const uint32_t in = m.input(kU8, {batches, 10, 10, 8},
                              randomValues<uint8_t>(batches * 800, 1, 0, 255), 0.05f, 128);
  const uint32_t w1 =
      m.constant(kU8, {24, 3, 3, 8}, randomValues<uint8_t>(24 * 72, 2, 0, 255), 0.01f, 127);
  const uint32_t b1 =
      m.constant(kI32, {24}, randomValues<int32_t>(24, 3, -500, 500), 0.05f * 0.01f);
  const uint32_t t1 = m.output(kU8, {batches, 10, 10, 24}, 0.1f, 0);  // made temporary below
  m.op(OperationType::CONV_2D, {in, w1, b1, m.i32(1), m.i32(1), m.i32(1), m.i32(1)}, {t1});
  const uint32_t w2 =
      m.constant(kU8, {1, 3, 3, 24}, randomValues<uint8_t>(216, 4, 0, 255), 0.02f, 130);
  const uint32_t b2 = m.constant(kI32, {24}, randomValues<int32_t>(24, 5, -500, 500), 0.1f * 0.02f);
  const uint32_t t2 = m.output(kU8, {batches, 5, 5, 24}, 0.08f, 120);
  m.op(OperationType::DEPTHWISE_CONV_2D,
       {t1, w2, b2, m.i32(1), m.i32(2), m.i32(2), m.i32(1), m.i32(0)}, {t2});
  const uint32_t t3 = m.output(kU8, {batches, 5, 5, 24}, 0.08f, 120);
  m.op(OperationType::RELU, {t2}, {t3});
  const uint32_t w3 =
      m.constant(kU8, {10, 600}, randomValues<uint8_t>(6000, 6, 0, 255), 0.01f, 125);
  const uint32_t b3 =
      m.constant(kI32, {10}, randomValues<int32_t>(10, 7, -2000, 2000), 0.08f * 0.01f);
  const uint32_t out = m.output(kU8, {batches, 10}, 0.5f, 100);
  m.op(OperationType::FULLY_CONNECTED, {t3, w3, b3, m.i32(0)}, {out});
  SmallNet net{m.build(), m.inputs()};
  // Only the last output is a model output; the others are temporaries.
  hal::Subgraph& g = net.model.main;
  for (uint32_t t : {t1, t2, t3}) g.operands[t].lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
  g.outputIndexes = {out};
  return net;
}

TEST(ModelPlan, MixedModelRunsBitExactWithReusedDeviceMemory) {
  for (uint32_t batches : {1u, 3u}) {
    SmallNet net = smallNet(batches);
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(net.model, net.inputs, want), "");
    auto plan = compileModel(net.model, LoweringOptions{});
    ASSERT_TRUE(plan.ok()) << plan.error();
    ASSERT_EQ(plan->operations.size(), 4u);
    EXPECT_EQ(plan->operations[0].placement.target, Target::kNpu);
    EXPECT_EQ(plan->operations[1].placement.target, Target::kNpu);
    EXPECT_EQ(plan->operations[2].placement.target, Target::kCpu);
    EXPECT_NE(plan->operations[2].placement.reason.find("no NPU mapping"), std::string::npos);
    EXPECT_EQ(plan->operations[3].placement.target, Target::kNpu);
    // Activations of different steps share bytes; constants never do.
    EXPECT_LT(plan->arenaBytes, plan->requestedBytes);
    EXPECT_GE(plan->arenaBytes, plan->constantBytes);

    InterpreterDevice device;
    NpuExecutor ex(net.model, *plan, device);
    for (int run = 0; run < 2; ++run) {  // constants are uploaded once
      std::vector<hal::TensorValue> got;
      ExecutionReport report;
      ASSERT_TRUE(ex.run(net.inputs, got, &report).ok());
      EXPECT_EQ(report.npuSteps, 3);
      EXPECT_EQ(report.cpuSteps, 1);
      EXPECT_GT(report.npuCycles, 0u);
      ASSERT_EQ(got.size(), 1u);
      EXPECT_EQ(got[0].bytes, want[0].bytes) << report.describe();
    }
  }
}

TEST(ModelPlan, PreferencesChangeThePlanNotTheResult) {
  SmallNet net = smallNet(2);
  std::vector<hal::TensorValue> want;
  ASSERT_EQ(referenceRun(net.model, net.inputs, want), "");
  std::vector<StepReport> conv;
  for (auto pref :
       {hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::ExecutionPreference::SUSTAINED_SPEED,
        hal::ExecutionPreference::LOW_POWER}) {
    LoweringOptions o;
    o.npu = test::array16();  // its slot and traffic counts are for a 16x16 array
    o.preference = pref;
    auto plan = compileModel(net.model, o);
    ASSERT_TRUE(plan.ok());
    InterpreterDevice device(o.npu);
    NpuExecutor ex(net.model, *plan, device);
    std::vector<hal::TensorValue> got;
    ASSERT_TRUE(ex.run(net.inputs, got).ok());
    EXPECT_EQ(got[0].bytes, want[0].bytes) << hal::toString(pref);
    conv.push_back(plan->operations[0].step.report);
    EXPECT_NE(plan->describe().find(std::string(hal::toString(pref))), std::string::npos);
  }
  EXPECT_EQ(conv[0].bufferSlots, 2u);
  EXPECT_EQ(conv[2].bufferSlots, 1u);  // LOW_POWER: no double buffering
  EXPECT_EQ(conv[2].outSlots, 1u);
}

// FAST_SINGLE_ANSWER keeps the fastest plan, LOW_POWER the one of the least traffic.
// (FAST's plan here, three slots of three steps per phase, finds each step's pixels still in
// its slot from the phase before, so it loads no more than LOW_POWER; its extra commands
// are its extra reads.)
TEST(ModelPlan, PreferencesTradeCyclesAgainstDramTraffic) {
  OneOpModel m;
  const uint32_t in =
      m.input(kU8, {1, 14, 14, 256}, randomValues<uint8_t>(14 * 14 * 256, 8, 0, 255), 0.05f, 128);
  const uint32_t w =
      m.constant(kU8, {256, 1, 1, 256}, randomValues<uint8_t>(256 * 256, 9, 0, 255), 0.01f, 127);
  const uint32_t b =
      m.constant(kI32, {256}, randomValues<int32_t>(256, 10, -500, 500), 0.05f * 0.01f);
  const uint32_t out = m.output(kU8, {1, 14, 14, 256}, 0.5f, 0);
  m.op(OperationType::CONV_2D, {in, w, b, m.i32(1), m.i32(1), m.i32(1), m.i32(0)}, {out});
  const hal::Model model = m.build();
  std::vector<NpuRun> runs;
  for (auto pref :
       {hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::ExecutionPreference::SUSTAINED_SPEED,
        hal::ExecutionPreference::LOW_POWER}) {
    LoweringOptions o;
    o.npu = test::array16();  // its slot and traffic counts are for a 16x16 array
    o.preference = pref;
    runs.push_back(npuRun(model, m.inputs(), o));
    ASSERT_EQ(runs.back().error, "");
    std::printf("  %s\n", runs.back().step.report.describe().c_str());
  }
  const auto& fast = runs[0].stats.counters;
  const auto& sustained = runs[1].stats.counters;
  const auto& low = runs[2].stats.counters;
  EXPECT_LT(fast.cycles, low.cycles);
  EXPECT_LT(sustained.cycles, low.cycles);
  EXPECT_LE(fast.cycles, sustained.cycles);  // FAST keeps the fastest candidate plan
  EXPECT_GE(fast.dmaReadBytes, low.dmaReadBytes);
  EXPECT_GE(sustained.dmaReadBytes, low.dmaReadBytes);
  EXPECT_EQ(runs[0].outputs, runs[2].outputs);
}

TEST(Partitioner, ReasonsForTheCpu) {
  OneOpModel m;
  // A float convolution, a quantized one with a runtime filter, an eligible one, an ADD.
  const uint32_t fin = m.input(kF32, {1, 4, 4, 2}, std::vector<float>(32, 1.0f));
  const uint32_t fw = m.constant(kF32, {2, 1, 1, 2}, std::vector<float>(4, 1.0f));
  const uint32_t fb = m.constant(kF32, {2}, std::vector<float>(2, 0.0f));
  const uint32_t fout = m.output(kF32, {1, 4, 4, 2});
  m.op(OperationType::CONV_2D, {fin, fw, fb, m.i32(1), m.i32(1), m.i32(1), m.i32(0)}, {fout});
  const uint32_t qin = m.input(kU8, {1, 4, 4, 2}, std::vector<uint8_t>(32, 1), 0.5f, 0);
  const uint32_t qw = m.input(kU8, {2, 1, 1, 2}, std::vector<uint8_t>(4, 1), 0.5f, 0);
  const uint32_t qb = m.constant(kI32, {2}, std::vector<int32_t>(2, 0), 0.25f);
  const uint32_t qout = m.output(kU8, {1, 4, 4, 2}, 1.0f, 0);
  m.op(OperationType::CONV_2D, {qin, qw, qb, m.i32(1), m.i32(1), m.i32(1), m.i32(0)}, {qout});
  const uint32_t cw = m.constant(kU8, {2, 1, 1, 2}, std::vector<uint8_t>(4, 1), 0.5f, 0);
  const uint32_t cout = m.output(kU8, {0, 0, 0, 0}, 1.0f, 0);  // unknown shape
  m.op(OperationType::CONV_2D, {qin, cw, qb, m.i32(1), m.i32(1), m.i32(1), m.i32(0)}, {cout});
  const uint32_t cout2 = m.output(kU8, {1, 4, 4, 2}, 1.0f, 0);
  m.op(OperationType::CONV_2D, {qin, cw, qb, m.i32(1), m.i32(1), m.i32(1), m.i32(0)}, {cout2});
  const uint32_t aout = m.output(kU8, {1, 4, 4, 2}, 1.0f, 0);
  m.op(OperationType::MAXIMUM, {qin, qin}, {aout});
  const uint32_t eout = m.output(kU8, {1, 4, 4, 2}, 1.0f, 0);
  m.op(OperationType::ADD, {qin, qin, m.i32(0)}, {eout});
  const hal::Model model = m.build();
  const Partition p = partition(model);
  ASSERT_EQ(p.operations.size(), 6u);
  EXPECT_NE(p.operations[0].reason.find("integer"), std::string::npos) << p.operations[0].reason;
  EXPECT_NE(p.operations[1].reason.find("filter is not a constant"), std::string::npos)
      << p.operations[1].reason;
  EXPECT_NE(p.operations[2].reason.find("unknown"), std::string::npos) << p.operations[2].reason;
  EXPECT_EQ(p.operations[3].target, Target::kNpu);
  EXPECT_EQ(p.operations[3].engine, ops::Placement::kMacArray);
  EXPECT_NE(p.operations[4].reason.find("no NPU mapping"), std::string::npos);
  EXPECT_EQ(p.operations[5].target, Target::kNpu);  // ADD: the elementwise unit (ISA 1.7)
  EXPECT_EQ(p.npuOperations(), 2);
  EXPECT_NE(p.describe().find("#5 ADD  npu (elementwise unit)"), std::string::npos) << p.describe();
  EXPECT_NE(p.describe().find("#3 CONV_2D  npu (MAC array)"), std::string::npos) << p.describe();
}

TEST(DramPlan, OverlappingLifetimesNeverShareBytes) {
  std::mt19937 g(5);
  std::vector<DramRequest> req;
  for (int i = 0; i < 200; ++i) {
    DramRequest r;
    r.bytes = 1 + g() % 5000;
    r.first = g() % 20;
    r.last = r.first + g() % 5;
    req.push_back(r);
  }
  const DramPlan plan = planDram(req);
  for (size_t a = 0; a < req.size(); ++a)
    for (size_t b = a + 1; b < req.size(); ++b) {
      if (req[a].last < req[b].first || req[b].last < req[a].first) continue;
      const bool disjoint = plan.offsets[a] + req[a].bytes <= plan.offsets[b] ||
                            plan.offsets[b] + req[b].bytes <= plan.offsets[a];
      EXPECT_TRUE(disjoint) << a << " " << b;
    }
  EXPECT_LT(plan.arenaBytes, plan.requestedBytes);
  for (uint64_t off : plan.offsets) EXPECT_EQ(off % kDeviceAlignment, 0u);
}

}  // namespace
}  // namespace nncosim::driver::test
