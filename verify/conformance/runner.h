// The conformance runner: runs every test of a set of vector files through an
// NnapiDriver (prepareModel, execute), in forked worker processes (a crash or hang in one
// test fails that test only, and a simulated device elaborates once per worker), and
// collects the outcomes.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "driver/api/nnapi_driver.h"
#include "hal/vector_file.h"

namespace nncosim::verify {

enum class TestStatus { kPassed, kFailed, kUnsupported };

struct TestOutcome {
  std::string file;
  std::string name;
  TestStatus status = TestStatus::kFailed;
  bool expectFailure = false;
  bool integerOutputs = false;
  bool bitExact = false;
  int npuSteps = 0;
  std::vector<std::string> operations;  // distinct operation types used (any subgraph)
  std::string reason;                   // failure or unsupported reason
  std::string
      outputDigest;  // FNV-1a 64 of every output (type, dimensions, bytes); "" when none ran
};

// Runs one test through `driver` and judges it.
TestOutcome runTest(const hal::ConformanceTest& test, driver::NnapiDriver& driver);

struct ConformanceOptions {
  std::string filter;  // ECMAScript regex on "file:name"; empty = all
  int jobs = 1;        // worker processes; 0 = run in this process
  int shardIndex = 0;  // 0-based K of N
  int shardCount = 1;
  double testTimeoutSeconds = 120;  // a test running longer fails as hung
  bool progress = false;            // progress bar on stderr
};

// Makes the driver of a worker (called once in each worker process); the pointer keeps
// whatever owns the driver and its device alive.
using DriverFactory = std::function<std::shared_ptr<driver::NnapiDriver>()>;

struct ConformanceRun {
  std::vector<TestOutcome> outcomes;    // in file order, then test order
  std::vector<std::string> fileErrors;  // files that could not be read
  double seconds = 0;
  int files = 0;
};

ConformanceRun runConformance(const std::vector<std::string>& paths,
                              const ConformanceOptions& options, const DriverFactory& makeDriver);

}  // namespace nncosim::verify
