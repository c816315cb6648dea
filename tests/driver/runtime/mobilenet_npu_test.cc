// End to end: a generated MobileNet-v1 (scripts/gen_mobilenet_v1.py, small variants)
// compiled for the NPU and run on the ISA interpreter gives the reference's outputs bit
// for bit, with every convolution, depthwise convolution and the classifier on the NPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include "driver/compiler/model_plan.h"
#include "driver/runtime/interpreter_device.h"
#include "driver/runtime/npu_executor.h"
#include "driver/runtime/step_runner.h"
#include "hal/json_values.h"
#include "hal/model_file.h"
#include "ops/executor.h"

namespace nncosim::driver {
namespace {

namespace fs = std::filesystem;

struct Generated {
  hal::Model model;
  std::vector<hal::TensorValue> inputs;
};

// Runs the generator; nullopt-like failure message when it cannot.
std::string generate(const std::string& args, const fs::path& dir, Generated* out) {
  const fs::path model = dir / "mobilenet.json", inputs = dir / "inputs.json";
  const std::string cmd = "python3 " NNC_SOURCE_DIR "/scripts/gen_mobilenet_v1.py -o " +
                          model.string() + " --inputs-out " + inputs.string() + " " + args +
                          " > /dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return "generator failed: " + cmd;
  auto m = hal::readModelFile(model.string());
  if (!m.ok()) return m.error();
  auto j = hal::readJsonFile(inputs.string());
  if (!j.ok()) return j.error();
  const hal::Operand& o = m->main.operands[m->main.inputIndexes[0]];
  hal::TensorValue v;
  v.type = o.type;
  v.dimensions = o.dimensions;
  auto bytes = hal::valuesToBytes((*j)["inputs"][0]["data"], o.type, "inputs");
  if (!bytes.ok()) return bytes.error();
  v.bytes = std::move(*bytes);
  out->model = std::move(*m);
  out->inputs = {std::move(v)};
  return "";
}

TEST(MobileNetOnNpu, SmallVariantsAreBitExact) {
  if (std::system("python3 --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const fs::path dir = fs::temp_directory_path() / ("nnc_mobilenet_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const std::string args : {"--size 96 --width-multiplier 0.25 --classes 10 --seed 3",
                                 "--size 64 --width-multiplier 0.5 --classes 16 --unsigned"}) {
    Generated g;
    const std::string err = generate(args, dir, &g);
    ASSERT_EQ(err, "") << args;
    std::vector<hal::TensorValue> want;
    ops::Executor ref(g.model);
    ASSERT_TRUE(ref.run(g.inputs, want).ok());
    for (auto pref :
         {hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::ExecutionPreference::LOW_POWER}) {
      LoweringOptions o;
      o.preference = pref;
      auto plan = compileModel(g.model, o);
      ASSERT_TRUE(plan.ok()) << plan.error();
      InterpreterDevice device(o.npu);
      NpuExecutor ex(g.model, *plan, device);
      std::vector<hal::TensorValue> got;
      ExecutionReport report;
      hal::Status st = ex.run(g.inputs, got, &report);
      ASSERT_TRUE(st.ok()) << st.error();
      // Everything but the dequantize and the softmax: the global average pool on the
      // depthwise unit, the classifier reading its output on the device.
      EXPECT_EQ(report.cpuSteps, 2) << report.describe();
      EXPECT_EQ(report.npuSteps, static_cast<int>(g.model.main.operations.size()) - 2);
      EXPECT_EQ(report.host.bytes.betweenNpuSteps, 0u) << report.describe();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i].bytes, want[i].bytes) << args;
      std::printf("[ MobileNet %s, %s ] %d NPU steps, %llu cycles\n", args.c_str(),
                  hal::toString(pref).data(), report.npuSteps,
                  static_cast<unsigned long long>(report.npuCycles));
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nncosim::driver
