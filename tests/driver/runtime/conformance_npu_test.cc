// Every conformance test with at least one NPU-eligible operation: the model compiled and
// executed with its NPU steps on the ISA interpreter gives the reference's outputs bit for
// bit (and so passes wherever the reference passes).
#include <gtest/gtest.h>

#include <chrono>
#include <map>

#include "driver/compiler/model_plan.h"
#include "driver/runtime/interpreter_device.h"
#include "driver/runtime/npu_executor.h"
#include "driver/runtime/step_runner.h"
#include "hal/vector_file.h"
#include "ops/executor.h"

namespace nncosim::driver {
namespace {

TEST(ConformanceOnNpu, EveryEligibleTestIsBitExactWithTheReference) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::string> files = hal::listVectorFiles(NNC_CONFORMANCE_DIR);
  if (files.empty()) GTEST_SKIP() << "no conformance vectors at " << NNC_CONFORMANCE_DIR;
  int eligible = 0, exact = 0, npuSteps = 0, cpuSteps = 0;
  std::map<std::string, int> byOperation;
  for (const std::string& path : files) {
    auto vf = hal::readVectorFile(path);
    if (!vf.ok()) continue;  // unreadable files are the conformance runner's business
    for (const hal::ConformanceTest& t : vf->tests) {
      // The compiler takes validated models (NnapiDriver::prepareModel validates).
      if (t.expectFailure || !ops::validateOperations(t.model).ok()) continue;
      const Partition part = partition(t.model);
      if (part.npuOperations() == 0) continue;
      std::vector<hal::TensorValue> want;
      ops::Executor ref(t.model);
      if (!ref.run(t.inputs, want).ok()) continue;
      ++eligible;
      for (const OperationPlacement& p : part.operations)
        if (p.target == Target::kNpu) ++byOperation[std::string(hal::toString(p.type))];
      LoweringOptions options;
      options.preference = static_cast<hal::ExecutionPreference>(eligible % 3);
      auto plan = compileModel(t.model, options);
      ASSERT_TRUE(plan.ok()) << t.name << ": " << plan.error();
      InterpreterDevice device(options.npu);
      NpuExecutor ex(t.model, *plan, device);
      std::vector<hal::TensorValue> got;
      ExecutionReport report;
      hal::Status st = ex.run(t.inputs, got, &report);
      if (!st.ok()) {
        ADD_FAILURE() << t.name << " (" << path << "): " << st.error();
        continue;
      }
      npuSteps += report.npuSteps;
      cpuSteps += report.cpuSteps;
      bool same = got.size() == want.size();
      for (size_t i = 0; same && i < want.size(); ++i)
        same = got[i].bytes == want[i].bytes && got[i].dimensions == want[i].dimensions;
      if (same) {
        ++exact;
      } else {
        ADD_FAILURE() << t.name << " (" << path << "): NPU outputs differ from the reference\n"
                      << report.describe();
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[ conformance on the NPU ] %d eligible tests, %d bit-exact; %d NPU steps, %d CPU steps; "
      "%.1f s\n",
      eligible, exact, npuSteps, cpuSteps, seconds);
  for (const auto& [op, n] : byOperation) std::printf("    %-24s %d tests\n", op.c_str(), n);
  EXPECT_GT(eligible, 0);
}

}  // namespace
}  // namespace nncosim::driver
