// Summaries of a conformance run: the console table, the --json summary and JUnit XML.
#pragma once

#include <ostream>
#include <string>

#include "verify/conformance/runner.h"
#include "hal/result.h"

namespace nncosim::verify {

struct ConformanceTotals {
  int total = 0, passed = 0, failed = 0, unsupported = 0;
  int integerTests = 0, bitExact = 0;  // bit-exact among passed integer-output tests
  int expectFailure = 0, expectFailureRejected = 0;
  int npuTests = 0, npuSteps = 0;
};
ConformanceTotals totals(const ConformanceRun& run);

// By-operation table, failures (up to maxFailures) and the totals line.
void printSummary(std::ostream& os, const ConformanceRun& run, size_t maxFailures);
// One line per test, "FILE:TEST STATUS NPU_STEPS DIGEST", in run order: two runs behave
// the same when their files are identical (scripts/behaviour_digest.sh).
hal::Status writeDigests(const ConformanceRun& run, const std::string& path);
hal::Status writeJsonSummary(const ConformanceRun& run, const std::string& path,
                             const std::string& backend);
hal::Status writeJUnit(const ConformanceRun& run, const std::string& path);

}  // namespace nncosim::verify
