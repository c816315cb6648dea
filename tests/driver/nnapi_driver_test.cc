#include "driver/nnapi_driver.h"

#include <gtest/gtest.h>

#include "driver/models/demo_network.h"
#include "ops/executor.h"

namespace nncosim::driver {
namespace {

TEST(NnapiDriverTest, CapabilitiesAreMeasured) {
  InterpreterDevice dev;
  NnapiDriver drv(dev, 1000.0);
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
  NnapiDriver drv(dev, 1000.0);
  const hal::Model m = demoNetwork();
  auto s = drv.getSupportedOperations(m);
  ASSERT_TRUE(s.ok()) << s.error();
  ASSERT_EQ(s->size(), m.main.operations.size());
  for (const auto& op : *s) EXPECT_TRUE(op.supported);
  EXPECT_TRUE((*s)[0].onNpu);   // CONV_2D
  EXPECT_FALSE((*s)[7].onNpu);  // SOFTMAX
  EXPECT_FALSE((*s)[7].reason.empty());
}

TEST(NnapiDriverTest, PrepareAndExecuteMatchTheReference) {
  InterpreterDevice dev;
  NnapiDriver drv(dev, 1000.0);
  const hal::Model m = demoNetwork();
  auto prepared = drv.prepareModel(m, hal::ExecutionPreference::LOW_POWER);
  ASSERT_TRUE(prepared.ok()) << prepared.error();
  hal::Request req;
  for (const auto& v : demoInputs(m)) req.inputs.push_back({false, v.dimensions, v.bytes});
  auto r = (*prepared)->execute(req);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->outputShapes.size(), 1u);
  EXPECT_EQ(r->outputShapes[0].dimensions, (std::vector<uint32_t>{1, 10}));
  EXPECT_GT(r->timing.npuCycles, 0u);
  EXPECT_EQ(r->timing.stepCycles.size(), m.main.operations.size());

  ops::Executor ref(m);
  std::vector<hal::TensorValue> expected;
  ASSERT_TRUE(ref.run(demoInputs(m), expected).ok());
  EXPECT_EQ(r->outputs[0].bytes, expected[0].bytes);  // every NPU step bit-exact
}

TEST(NnapiDriverTest, InvalidModelsAreRejected) {
  InterpreterDevice dev;
  NnapiDriver drv(dev, 1000.0);
  hal::Model m = demoNetwork();
  m.main.operations[0].inputs[1] = 999;
  EXPECT_FALSE(drv.getSupportedOperations(m).ok());
  EXPECT_FALSE(drv.prepareModel(m, hal::ExecutionPreference::LOW_POWER).ok());
}

}  // namespace
}  // namespace nncosim::driver
