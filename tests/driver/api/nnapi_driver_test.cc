#include "driver/api/nnapi_driver.h"

#include <gtest/gtest.h>

#include "driver/runtime/interpreter_device.h"
#include "hal/validation.h"
#include "ops/executor.h"
#include "verify/models/demo_network.h"

namespace nncosim::driver {
namespace {

TEST(NnapiDriverTest, CapabilitiesAreMeasured) {
  InterpreterDevice dev;
  NnapiDriver drv(&dev);
  const auto& caps = drv.getCapabilities();
  EXPECT_GT(drv.calibrationNpuMicros(), 0);
  EXPECT_GT(drv.calibrationCpuMicros(), 0);
  // quant8 is the measured NPU/CPU ratio; float work runs on the reference (1.0).
  EXPECT_FLOAT_EQ(caps.quantized8Performance.execTime,
                  static_cast<float>(drv.calibrationNpuMicros() / drv.calibrationCpuMicros()));
  EXPECT_FLOAT_EQ(caps.float32Performance.execTime, 1.0f);
  ASSERT_EQ(caps.operandPerformance.size(), static_cast<size_t>(hal::kNumOperandTypes));
  // TENSOR_QUANT16_SYMM: the 16x8-mode layer's own measured ratio.
  const auto& wide = drv.calibration16x8();
  EXPECT_GT(wide.npuMicros, 0);
  EXPECT_GT(wide.cpuMicros, 0);
  for (const auto& [type, perf] : caps.operandPerformance)
    if (type == hal::OperandType::TENSOR_QUANT16_SYMM)
      EXPECT_FLOAT_EQ(perf.execTime, static_cast<float>(wide.npuMicros / wide.cpuMicros));
}

TEST(NnapiDriverTest, SupportedOperationsSayWhereEachRuns) {
  InterpreterDevice dev;
  NnapiDriver drv(&dev);
  const hal::Model m = verify::demoNetwork();
  auto s = drv.getSupportedOperations(m);
  ASSERT_TRUE(s.ok()) << s.error();
  ASSERT_EQ(s->size(), m.main.operations.size());
  for (const auto& op : *s) EXPECT_TRUE(op.supported);
  EXPECT_TRUE((*s)[0].onNpu);   // CONV_2D
  EXPECT_FALSE((*s)[7].onNpu);  // SOFTMAX
  EXPECT_FALSE((*s)[7].reason.empty());
  EXPECT_EQ((*s)[0].reason, "on the MAC array");  // and where on the NPU
  EXPECT_EQ((*s)[4].reason, "on the densify unit");
}

TEST(NnapiDriverTest, PrepareAndExecuteMatchTheReference) {
  InterpreterDevice dev;
  NnapiDriver drv(&dev);
  const hal::Model m = verify::demoNetwork();
  auto prepared = drv.prepareModel(m, hal::ExecutionPreference::LOW_POWER);
  ASSERT_TRUE(prepared.ok()) << prepared.error();
  hal::Request req;
  for (const auto& v : verify::demoInputs(m)) req.inputs.push_back({false, v.dimensions, v.bytes});
  auto r = (*prepared)->execute(req);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->outputShapes.size(), 1u);
  EXPECT_EQ(r->outputShapes[0].dimensions, (std::vector<uint32_t>{1, 10}));
  EXPECT_GT(r->timing.npuCycles, 0u);
  EXPECT_EQ(r->timing.stepCycles.size(), m.main.operations.size());

  ops::Executor ref(m);
  std::vector<hal::TensorValue> expected;
  ASSERT_TRUE(ref.run(verify::demoInputs(m), expected).ok());
  EXPECT_EQ(r->outputs[0].bytes, expected[0].bytes);  // every NPU step bit-exact
}

TEST(NnapiDriverTest, InvalidModelsAreRejected) {
  InterpreterDevice dev;
  NnapiDriver drv(&dev);
  hal::Model m = verify::demoNetwork();
  m.main.operations[0].inputs[1] = 999;
  EXPECT_FALSE(drv.getSupportedOperations(m).ok());
  EXPECT_FALSE(drv.prepareModel(m, hal::ExecutionPreference::LOW_POWER).ok());
}

// One preparation validates the model once: its structure once, each operation's
// signature (declared shapes) once; compiling and executing add no validation of their
// own, only the executors' checks of each CPU operation with the execution's shapes.
TEST(NnapiDriverTest, OnePreparationValidatesOnce) {
  InterpreterDevice dev;
  NnapiDriver drv(&dev);
  const hal::Model m = verify::demoNetwork();
  const uint64_t models0 = hal::modelValidations();
  const ops::SignatureValidations sig0 = ops::signatureValidations();
  auto prepared = drv.prepareModel(m, hal::ExecutionPreference::FAST_SINGLE_ANSWER);
  ASSERT_TRUE(prepared.ok()) << prepared.error();
  EXPECT_EQ(hal::modelValidations() - models0, 1u);
  EXPECT_EQ(ops::signatureValidations().declared - sig0.declared, m.main.operations.size());
  EXPECT_EQ(ops::signatureValidations().actual, sig0.actual);
  for (int run = 0; run < 2; ++run) {
    auto r = (*prepared)->execute(verify::demoInputs(m));
    ASSERT_TRUE(r.ok()) << r.error();
  }
  EXPECT_EQ(hal::modelValidations() - models0, 1u);
  EXPECT_EQ(ops::signatureValidations().declared - sig0.declared, m.main.operations.size());
}

// Two prepared models take turns on one device: each execution finds its own constants
// (the driver re-uploads a model that is not resident) and stays bit-exact.
TEST(NnapiDriverTest, PreparedModelsShareTheDevice) {
  InterpreterDevice dev;
  NnapiDriver drv(&dev);
  const hal::Model m = verify::demoNetwork();
  auto a = drv.prepareModel(m, hal::ExecutionPreference::FAST_SINGLE_ANSWER);
  auto b = drv.prepareModel(m, hal::ExecutionPreference::LOW_POWER);
  ASSERT_TRUE(a.ok() && b.ok());
  ops::Executor ref(m);
  std::vector<hal::TensorValue> expected;
  ASSERT_TRUE(ref.run(verify::demoInputs(m), expected).ok());
  for (auto* p : {a->get(), b->get(), a->get(), a->get(), b->get()}) {
    auto r = p->execute(verify::demoInputs(m));
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->outputs[0].bytes, expected[0].bytes);
    EXPECT_GT(r->timing.npuCycles, 0u);
  }
}

// A driver without an NPU runs everything on the reference.
TEST(NnapiDriverTest, WithoutAnNpuEverythingRunsOnTheReference) {
  NnapiDriver drv(nullptr);
  const hal::Model m = verify::demoNetwork();
  auto s = drv.getSupportedOperations(m);
  ASSERT_TRUE(s.ok()) << s.error();
  for (const auto& op : *s) EXPECT_FALSE(op.onNpu);
  auto prepared = drv.prepareModel(m, hal::ExecutionPreference::FAST_SINGLE_ANSWER);
  ASSERT_TRUE(prepared.ok()) << prepared.error();
  EXPECT_EQ((*prepared)->plan(), nullptr);
  auto r = (*prepared)->execute(verify::demoInputs(m));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->report.npuSteps, 0);
  EXPECT_EQ(r->report.cpuSteps, static_cast<int>(m.main.operations.size()));
  ops::Executor ref(m);
  std::vector<hal::TensorValue> expected;
  ASSERT_TRUE(ref.run(verify::demoInputs(m), expected).ok());
  EXPECT_EQ(r->outputs[0].bytes, expected[0].bytes);
}

}  // namespace
}  // namespace nncosim::driver
