// The host's share is on the books: every byte the host packs, copies and unpacks between
// NPU steps, the CPU steps' operand bytes, and the modelled time of all of it.
#include <gtest/gtest.h>

#include "driver/api/nnapi_driver.h"
#include "driver/runtime/interpreter_device.h"
#include "ops/executor.h"
#include "verify/models/demo_network.h"

namespace nncosim::driver {
namespace {

TEST(HostBooks, EveryNpuStepCarriesTheBytesItsBindingsMove) {
  InterpreterDevice dev;
  NnapiDriver drv(&dev);
  const hal::Model m = verify::demoNetwork();
  auto prepared = drv.prepareModel(m, hal::ExecutionPreference::FAST_SINGLE_ANSWER);
  ASSERT_TRUE(prepared.ok()) << prepared.error();
  auto r = (*prepared)->execute(verify::demoInputs(m));
  ASSERT_TRUE(r.ok()) << r.error();
  const ModelPlan& plan = *(*prepared)->plan();
  HostWork sum;
  double nanos = 0;
  for (const auto& s : r->report.steps) {
    const PlannedOperation& po = plan.operations[s.operation];
    if (s.target == Target::kNpu) {
      // Written: each input binding's device bytes; read: each output buffer.
      // A resident binding (a tensor that stays in device DRAM between NPU steps) moves
      // nothing.
      uint64_t in = 0, out = 0;
      bool moves = !po.step.epilogue.results.empty();
      for (const Binding& b : po.step.inputs) {
        if (b.resident) continue;
        const uint64_t bytes = ops::Shape::of(m.main.operands[b.operand]).bytes();
        in += b.layout.deviceBytes(bytes);
        moves = true;
      }
      // Read back: a raw output buffer as it is, a rearranged one unpacked to the
      // operand's bytes, and a hybrid step's results raw.
      for (const Binding& b : po.step.outputs) {
        if (b.resident) continue;
        out += b.layout.kind == TensorLayout::Kind::kRaw
                   ? po.step.buffers[b.buffer].bytes
                   : ops::Shape::of(m.main.operands[b.operand]).bytes();
        moves = true;
      }
      for (size_t b : po.step.epilogue.results) out += po.step.buffers[b].bytes;
      EXPECT_EQ(s.host.bytes.packed + s.host.bytes.copiedIn, in) << s.operation;
      EXPECT_EQ(s.host.bytes.unpacked + s.host.bytes.copiedOut, out) << s.operation;
      EXPECT_EQ(s.host.bytes.cpuBytes, 0u);
      // The compiler's estimate, which its mapping choice uses, is what the runtime moved.
      const HostBytes& planned = po.step.report.hostBytes;
      EXPECT_EQ(planned.packed, s.host.bytes.packed) << s.operation;
      EXPECT_EQ(planned.copiedIn, s.host.bytes.copiedIn) << s.operation;
      EXPECT_EQ(planned.unpacked, s.host.bytes.unpacked) << s.operation;
      EXPECT_EQ(planned.copiedOut, s.host.bytes.copiedOut) << s.operation;
      EXPECT_EQ(planned.sourceBytes, s.host.bytes.sourceBytes) << s.operation;
      EXPECT_EQ(planned.betweenNpuSteps, s.host.bytes.betweenNpuSteps) << s.operation;
      EXPECT_LE(s.host.bytes.betweenNpuSteps, s.host.bytes.layoutBytes()) << s.operation;
      EXPECT_EQ(s.host.bytes.layoutBytes() > 0, moves) << s.operation;
    } else {
      EXPECT_EQ(s.host.bytes.layoutBytes(), 0u) << s.operation;
      EXPECT_GT(s.host.bytes.cpuBytes, 0u) << s.operation;
      EXPECT_GT(s.host.cpuNanos, 0u) << s.operation;
      // The demo's CPU steps are short: their time is the fastest of warm re-runs, and the
      // first run is kept apart.
      EXPECT_GT(s.host.cpuColdNanos, 0u) << s.operation;
    }
    EXPECT_DOUBLE_EQ(s.hostNanos, r->report.hostModel.nanos(s.host)) << s.operation;
    sum += s.host;
    nanos += s.hostNanos;
  }
  EXPECT_EQ(r->report.host.bytes.dramBytes(), sum.bytes.dramBytes());
  EXPECT_DOUBLE_EQ(r->report.hostNanos, nanos);
  EXPECT_GT(r->report.uploadBytes, 0u);  // the weights, once
  EXPECT_DOUBLE_EQ(r->timing.endToEndMicros, r->timing.npuMicros + nanos / 1000.0);
  // A second execution finds the constants resident: nothing uploaded again.
  auto again = (*prepared)->execute(verify::demoInputs(m));
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->report.uploadBytes, 0u);
  // The CPU steps' re-runs leave the outputs as the reference computes them.
  std::vector<hal::TensorValue> want;
  ops::Executor reference(m);
  ASSERT_TRUE(reference.run(verify::demoInputs(m), want).ok());
  ASSERT_EQ(again->outputs.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(again->outputs[i].bytes, want[i].bytes) << "output " << i;
  EXPECT_EQ(again->report.host.bytes.layoutBytes(), r->report.host.bytes.layoutBytes());
  EXPECT_EQ(again->report.host.bytes.betweenNpuSteps, r->report.host.bytes.betweenNpuSteps);
}

// A convolution chain on the NPU: the tensors between its steps stay in device DRAM (one
// buffer from producer to consumer, nothing packed or unpacked there), the results are
// the reference's bit for bit, and the cross-check still compares every step (reading the
// resident tensors back off the books). Fusion off: fused, the demo's chain is one step.
TEST(HostBooks, TensorsBetweenNpuStepsStayOnTheDevice) {
  const hal::Model m = verify::demoNetwork();
  for (bool check : {false, true}) {
    InterpreterDevice dev;
    NnapiDriver drv(&dev);
    auto prepared = drv.prepareModel(m, hal::ExecutionPreference::FAST_SINGLE_ANSWER, false);
    ASSERT_TRUE(prepared.ok()) << prepared.error();
    const ModelPlan& plan = *(*prepared)->plan();
    uint32_t residentPairs = 0;
    for (size_t k = 0; k < plan.operations.size(); ++k) {
      const PlannedOperation& po = plan.operations[k];
      if (po.placement.target != Target::kNpu) continue;
      for (const Binding& b : po.step.inputs) {
        if (!b.resident) continue;
        ++residentPairs;
        // Its producer's output binding: the same layout at the same arena offset.
        bool found = false;
        for (size_t p = 0; p < k; ++p)
          for (const Binding& o : plan.operations[p].step.outputs)
            if (o.operand == b.operand) {
              found = true;
              EXPECT_EQ(o.layout, b.layout);
              EXPECT_EQ(plan.operations[p].arenaOffset[o.buffer], po.arenaOffset[b.buffer]);
            }
        EXPECT_TRUE(found) << "operand " << b.operand;
      }
    }
    EXPECT_GT(residentPairs, 0u) << "the demo network keeps no tensor on the device";
    ExecuteOptions eo;
    eo.crossCheck = check;
    auto r = (*prepared)->execute(verify::demoInputs(m), eo);
    ASSERT_TRUE(r.ok()) << r.error();
    ops::Executor ref(m);
    std::vector<hal::TensorValue> want;
    ASSERT_TRUE(ref.run(verify::demoInputs(m), want).ok());
    ASSERT_EQ(r->outputs.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r->outputs[i].bytes, want[i].bytes);
    if (check) EXPECT_EQ(r->report.mismatches, 0u);
    // The books: the planned host bytes are what the runtime moved, with or without check.
    for (const auto& s : r->report.steps)
      if (s.target == Target::kNpu) {
        const HostBytes& planned = plan.operations[s.operation].step.report.hostBytes;
        EXPECT_EQ(planned.layoutBytes(), s.host.bytes.layoutBytes()) << s.operation;
        EXPECT_EQ(planned.betweenNpuSteps, s.host.bytes.betweenNpuSteps) << s.operation;
      }
  }
}

TEST(HostBooks, TheHostModelTurnsBytesIntoTime) {
  HostModel h;
  h.clockMHz = 1000;
  h.copyBytesPerCycle = 8;
  h.packBytesPerCycle = 2;
  h.cpuScale = 3;
  HostWork w;
  w.bytes.packed = 200;     // 100 cycles
  w.bytes.copiedIn = 80;    // 10 cycles
  w.bytes.unpacked = 20;    // 10 cycles
  w.bytes.copiedOut = 160;  // 20 cycles
  w.cpuNanos = 50;          // x3
  EXPECT_DOUBLE_EQ(h.nanos(w), 140.0 + 150.0);
  std::string error;
  EXPECT_TRUE(h.set("clock_mhz=500", &error));
  EXPECT_DOUBLE_EQ(h.passNanos(w.bytes), 280.0);
  EXPECT_FALSE(h.set("clock_mhz=-1", &error));
  EXPECT_NE(error.find("positive"), std::string::npos);
  EXPECT_FALSE(h.set("warp=2", &error));
  EXPECT_NE(error.find("unknown host model key"), std::string::npos);
}

}  // namespace
}  // namespace nncosim::driver
