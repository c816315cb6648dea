// The quantized LSTMs as hybrid steps (driver/compiler/lstm_lowering.cc): random layers of
// the difftest generator, every variant (batch sizes over one row tile, CIFG, peepholes,
// layer norm, projection with and without bias, clipping), compiled and run with the gate
// products on the ISA interpreter (int16 / int32 outputs of the requant unit) and the cell
// on the host, bit-exact with the reference under every preference and on a small NPU
// that forces k chunks and several phases. Runtime weights stay on the CPU with a reason.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>

#include "driver/compiler/model_plan.h"
#include "driver/runtime/interpreter_device.h"
#include "driver/runtime/npu_executor.h"
#include "driver/runtime/step_runner.h"
#include "verify/difftest/random_layers.h"
#include "hal/model_builder.h"
#include "ops/executor.h"
#include "tests/driver/compiler_test_util.h"

namespace nncosim::driver::test {
namespace {

using verify::difftest::RandomLayer;

// The REQUANT_STORE output widths of a step's commands.
std::set<firmware::ElemWidth> outWidths(const CompiledStep& step) {
  std::set<firmware::ElemWidth> w;
  for (const firmware::Command& c : step.commands)
    if (const auto* r = std::get_if<firmware::RequantStore>(&c.args)) w.insert(r->outWidth);
  return w;
}

struct HybridRun {
  std::string error;  // empty when it ran on the NPU and matched the reference bit for bit
  const CompiledStep* step = nullptr;
  ExecutionReport report;
};

// Compiles the one-operation layer, runs it on a strict interpreter device with the
// cross-check on, and compares its outputs with the reference's.
HybridRun runHybrid(const RandomLayer& L, const LoweringOptions& options, ModelPlan& plan) {
  HybridRun out;
  std::vector<hal::TensorValue> want;
  if (std::string e = referenceRun(L.model, L.inputs, want); !e.empty()) {
    out.error = "reference: " + e;
    return out;
  }
  auto compiled = compileModel(L.model, options);
  if (!compiled.ok()) {
    out.error = "compile: " + compiled.error();
    return out;
  }
  plan = std::move(*compiled);
  const PlannedOperation& po = plan.operations.at(0);
  if (po.placement.target != Target::kNpu) {
    out.error = "on the CPU: " + po.placement.reason;
    return out;
  }
  out.step = &po.step;
  InterpreterDevice device(options.npu);
  NpuExecutor ex(L.model, plan, device);
  ex.setCrossCheck(true);
  std::vector<hal::TensorValue> got;
  if (hal::Status st = ex.run(L.inputs, got, &out.report); !st.ok()) {
    out.error = "run: " + st.error();
    return out;
  }
  const ExecutionReport::Step& s = out.report.steps.at(0);
  if (s.target != Target::kNpu)
    out.error = "ran on the CPU: " + s.note;
  else if (!s.checked || !s.mismatch.empty())
    out.error = "cross-check: " + s.mismatch;
  else if (got.size() != want.size())
    out.error = "output count";
  for (size_t i = 0; out.error.empty() && i < want.size(); ++i)
    if (got[i].bytes != want[i].bytes || got[i].dimensions != want[i].dimensions)
      out.error = "output " + std::to_string(i) + " differs from the reference";
  return out;
}

verify::difftest::GeneratorOptions only(hal::OperationType t) {
  verify::difftest::GeneratorOptions g;
  g.types = {t};
  return g;
}

TEST(LstmLowering, Quantized16BitLstmGatesOnTheNpuAreBitExact) {
  uint64_t cycles = 0;
  int multiTile = 0;
  for (uint64_t i = 0; i < 60; ++i) {
    const RandomLayer L = verify::difftest::randomLayer(verify::difftest::layerSeed(21, i),
                                                        only(OperationType::QUANTIZED_16BIT_LSTM));
    LoweringOptions options;
    options.npu = test::array16();  // its tile counts are for a 16x16 array
    options.preference = static_cast<hal::ExecutionPreference>(i % 3);
    ModelPlan plan;
    const HybridRun r = runHybrid(L, options, plan);
    ASSERT_EQ(r.error, "") << L.description;
    EXPECT_EQ(outWidths(*r.step), std::set<firmware::ElemWidth>{firmware::ElemWidth::kW16})
        << L.description;
    EXPECT_TRUE(r.step->epilogue);
    EXPECT_NE(r.step->report.mapping.find("cell on the CPU"), std::string::npos);
    EXPECT_GT(r.report.steps[0].stats.cycles, 0u);
    EXPECT_EQ(r.report.npuSteps, 1);
    cycles += r.report.npuCycles;
    multiTile += r.step->report.pixelTiles > 1;
  }
  EXPECT_GT(multiTile, 3);
  std::printf("[ QUANTIZED_16BIT_LSTM ] 60 layers bit-exact, %llu NPU cycles\n",
              static_cast<unsigned long long>(cycles));
}

TEST(LstmLowering, QuantizedLstmEveryVariantIsBitExact) {
  std::map<std::string, int> variants;
  for (uint64_t i = 0; i < 120; ++i) {
    const RandomLayer L = verify::difftest::randomLayer(verify::difftest::layerSeed(22, i),
                                                        only(OperationType::QUANTIZED_LSTM));
    LoweringOptions options;
    options.preference = static_cast<hal::ExecutionPreference>(i % 3);
    ModelPlan plan;
    const HybridRun r = runHybrid(L, options, plan);
    ASSERT_EQ(r.error, "") << L.description;
    const std::set<firmware::ElemWidth> widths{firmware::ElemWidth::kW16,
                                               firmware::ElemWidth::kW32};
    EXPECT_EQ(outWidths(*r.step), widths) << L.description;
    EXPECT_GT(r.report.steps[0].stats.cycles, 0u);
    for (const char* v : {" cifg", " peephole", " layer-norm", " projection ", " projection-bias",
                          " projection-clip", " cell-clip"})
      if ((L.description + " ").find(v) != std::string::npos) ++variants[v];
    if (r.step->report.pixelTiles > 1) ++variants["batch over one row tile"];
  }
  for (const char* v : {" cifg", " peephole", " layer-norm", " projection ", " projection-bias",
                        " projection-clip", " cell-clip", "batch over one row tile"})
    EXPECT_GT(variants[v], 3) << v;
}

// The recurrent products leave the NPU as int32 because the reference saturates only
// their sum with the input products: among random layers, some recurrent products alone
// overflow int16 while the sum does not (an int16 output would get those wrong), and the
// whole operation is still bit-exact.
TEST(LstmLowering, RecurrentProductsBeyondInt16ReachTheSumUnclamped) {
  int beyond = 0, backInRange = 0;
  for (uint64_t i = 0; i < 200 && backInRange == 0; ++i) {
    const RandomLayer L = verify::difftest::randomLayer(verify::difftest::layerSeed(26, i),
                                                        only(OperationType::QUANTIZED_LSTM));
    ModelPlan plan;
    const HybridRun r = runHybrid(L, LoweringOptions{}, plan);
    ASSERT_EQ(r.error, "") << L.description;
    // runStep returns the step's results after its (no) operand outputs.
    std::vector<std::vector<uint8_t>> in{L.inputs[0].bytes, L.inputs[1].bytes}, out;
    InterpreterDevice device;
    ASSERT_TRUE(runStep(device, *r.step, in, out).ok());
    ASSERT_EQ(out.size(), 2u);
    const size_t n = out[1].size() / 4;
    for (size_t k = 0; k < n; ++k) {
      int16_t a;
      int32_t b;
      std::memcpy(&a, &out[0][2 * k], 2);
      std::memcpy(&b, &out[1][4 * k], 4);
      if (b > 32767 || b < -32768) {
        ++beyond;
        const int64_t sum = int64_t{a} + b;
        backInRange += sum <= 32767 && sum >= -32768;
      }
    }
  }
  EXPECT_GT(beyond, 0);
  EXPECT_GT(backInRange, 0);
}

// A small NPU: k chunks of 32 (inputs deeper than that stream), two gate tiles per phase.
TEST(LstmLowering, SmallNpuChunksAndPhasesStayBitExact) {
  NpuConfig small = tinyNpu();
  small.outBytes = 4096;  // int32 results need 4 bytes per OUT element
  int chunked = 0, phased = 0;
  for (uint64_t i = 0; i < 60; ++i) {
    const auto type = i % 2 ? OperationType::QUANTIZED_LSTM : OperationType::QUANTIZED_16BIT_LSTM;
    const RandomLayer L =
        verify::difftest::randomLayer(verify::difftest::layerSeed(23, i), only(type));
    LoweringOptions options;
    options.npu = small;
    options.preference = static_cast<hal::ExecutionPreference>(i % 3);
    ModelPlan plan;
    const HybridRun r = runHybrid(L, options, plan);
    ASSERT_EQ(r.error, "") << L.description;
    chunked += r.step->report.depth > r.step->report.kChunk;
    phased += r.step->report.phases > 2;
  }
  EXPECT_GT(chunked, 5);
  EXPECT_GT(phased, 5);
}

// The plan and the run table name the hybrid mapping; the executor's report has cycles.
TEST(LstmLowering, ReportsShowTheHybridStep) {
  const RandomLayer L = verify::difftest::randomLayer(verify::difftest::layerSeed(24, 0),
                                                      only(OperationType::QUANTIZED_LSTM));
  ModelPlan plan;
  const HybridRun r = runHybrid(L, LoweringOptions{}, plan);
  ASSERT_EQ(r.error, "") << L.description;
  EXPECT_NE(plan.describe().find("npu (MAC array; cell on the CPU)"), std::string::npos)
      << plan.describe();
  const std::string table = r.report.describe();
  EXPECT_NE(table.find("QUANTIZED_LSTM  npu"), std::string::npos) << table;
  EXPECT_NE(table.find("cell on the CPU"), std::string::npos) << table;
  EXPECT_GT(r.step->report.estimatedCycles, 0u);
}

// A QUANTIZED_16BIT_LSTM whose weights are model inputs: the weights cannot be compiled
// into the step, so the operation runs on the CPU and says why.
TEST(LstmLowering, RuntimeWeightsStayOnTheCpu) {
  RandomLayer L = verify::difftest::randomLayer(verify::difftest::layerSeed(25, 0),
                                                only(OperationType::QUANTIZED_16BIT_LSTM));
  hal::Model& m = L.model;
  const uint32_t w = m.main.operations[0].inputs[1];
  hal::Operand& o = m.main.operands[w];
  hal::TensorValue v;
  v.type = o.type;
  v.dimensions = o.dimensions;
  const uint8_t* bytes = m.constantData(o);
  v.bytes.assign(bytes, bytes + o.location.length);
  o.lifetime = hal::OperandLifeTime::SUBGRAPH_INPUT;
  o.location = {};
  m.main.inputIndexes.insert(m.main.inputIndexes.begin() + 1, w);
  L.inputs.insert(L.inputs.begin() + 1, v);
  const Partition part = partition(m);
  ASSERT_EQ(part.operations.size(), 1u);
  EXPECT_EQ(part.operations[0].target, Target::kCpu);
  EXPECT_NE(part.operations[0].reason.find("input 1 is not a constant"), std::string::npos)
      << part.operations[0].reason;
  // Still computed (by the reference) through the executor.
  auto plan = compileModel(m, LoweringOptions{});
  ASSERT_TRUE(plan.ok());
  InterpreterDevice device;
  NpuExecutor ex(m, *plan, device);
  std::vector<hal::TensorValue> got, want;
  ASSERT_TRUE(ex.run(L.inputs, got).ok());
  ASSERT_EQ(referenceRun(m, L.inputs, want), "");
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].bytes, want[i].bytes);
}

}  // namespace
}  // namespace nncosim::driver::test
