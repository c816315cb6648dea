#include "verify/conformance/report.h"

#include <fstream>
#include <iomanip>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

namespace nncosim::verify {
namespace {

struct OpCount {
  int total = 0, passed = 0, failed = 0, unsupported = 0;
};

std::map<std::string, OpCount> byOperation(const ConformanceRun& run) {
  std::map<std::string, OpCount> m;
  for (const auto& o : run.outcomes)
    for (const auto& op : o.operations) {
      auto& c = m[op];
      ++c.total;
      if (o.status == TestStatus::kPassed)
        ++c.passed;
      else if (o.status == TestStatus::kFailed)
        ++c.failed;
      else
        ++c.unsupported;
    }
  return m;
}

std::string xmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') out += c;
    }
  }
  return out;
}

std::string suiteName(const std::string& file) {
  std::filesystem::path p(file);
  return p.parent_path().filename().string() + "." + p.stem().string();
}

}  // namespace

ConformanceTotals totals(const ConformanceRun& run) {
  ConformanceTotals t;
  for (const auto& o : run.outcomes) {
    ++t.total;
    if (o.status == TestStatus::kPassed)
      ++t.passed;
    else if (o.status == TestStatus::kFailed)
      ++t.failed;
    else
      ++t.unsupported;
    if (o.integerOutputs) {
      ++t.integerTests;
      if (o.bitExact) ++t.bitExact;
    }
    if (o.expectFailure) {
      ++t.expectFailure;
      if (o.status == TestStatus::kPassed) ++t.expectFailureRejected;
    }
    if (o.npuSteps > 0) {
      ++t.npuTests;
      t.npuSteps += o.npuSteps;
    }
  }
  return t;
}

void printSummary(std::ostream& os, const ConformanceRun& run, size_t maxFailures) {
  os << std::left << std::setw(34) << "operation" << std::right << std::setw(7) << "tests"
     << std::setw(8) << "passed" << std::setw(8) << "failed" << std::setw(13) << "unsupported"
     << "\n";
  for (const auto& [op, c] : byOperation(run))
    os << std::left << std::setw(34) << op << std::right << std::setw(7) << c.total << std::setw(8)
       << c.passed << std::setw(8) << c.failed << std::setw(13) << c.unsupported << "\n";
  size_t shown = 0, failures = 0;
  for (const auto& o : run.outcomes) {
    if (o.status != TestStatus::kFailed) continue;
    ++failures;
    if (shown++ == 0) os << "\nfailures:\n";
    if (shown <= maxFailures) os << "  " << o.name << " (" << o.file << "): " << o.reason << "\n";
  }
  if (failures > maxFailures)
    os << "  ... and " << failures - maxFailures << " more (see --json)\n";
  for (const auto& e : run.fileErrors) os << "file error: " << e << "\n";
  const auto t = totals(run);
  os << "\n"
     << t.total << " tests in " << run.files << " files: " << t.passed << " passed, " << t.failed
     << " failed, " << t.unsupported << " unsupported; bit-exact " << t.bitExact << "/"
     << t.integerTests << " integer-output tests; expectFailure rejected "
     << t.expectFailureRejected << "/" << t.expectFailure;
  if (t.npuTests) os << "; " << t.npuTests << " tests used the NPU (" << t.npuSteps << " steps)";
  os << "; " << std::fixed << std::setprecision(1) << run.seconds << " s\n";
}

hal::Status writeDigests(const ConformanceRun& run, const std::string& path) {
  std::ofstream out(path);
  if (!out) return hal::fail(path, ": cannot write");
  static const char* kStatus[] = {"passed", "failed", "unsupported"};
  for (const auto& o : run.outcomes)
    out << o.file << ":" << o.name << " " << kStatus[static_cast<int>(o.status)] << " "
        << o.npuSteps << " " << (o.outputDigest.empty() ? "-" : o.outputDigest) << "\n";
  return out ? hal::Status::Ok() : hal::Status(hal::fail(path, ": write failed"));
}

hal::Status writeJsonSummary(const ConformanceRun& run, const std::string& path,
                             const std::string& backend) {
  using nlohmann::json;
  const auto t = totals(run);
  json j;
  j["backend"] = backend;
  j["total"] = t.total;
  j["passed"] = t.passed;
  j["failed"] = t.failed;
  j["unsupported"] = t.unsupported;
  j["bit_exact"] = t.bitExact;
  j["integer_output_tests"] = t.integerTests;
  j["expect_failure"] = t.expectFailure;
  j["expect_failure_rejected"] = t.expectFailureRejected;
  j["npu_tests"] = t.npuTests;
  j["npu_steps"] = t.npuSteps;
  j["seconds"] = run.seconds;
  j["files"] = run.files;
  json ops = json::object();
  for (const auto& [op, c] : byOperation(run))
    ops[op] = {{"total", c.total},
               {"passed", c.passed},
               {"failed", c.failed},
               {"unsupported", c.unsupported}};
  j["by_operation"] = ops;
  json failures = json::array(), unsupported = json::array(), inexact = json::array();
  for (const auto& o : run.outcomes) {
    if (o.status == TestStatus::kFailed)
      failures.push_back({{"test", o.name}, {"file", o.file}, {"reason", o.reason}});
    if (o.status == TestStatus::kUnsupported)
      unsupported.push_back({{"test", o.name}, {"reason", o.reason}});
    if (o.integerOutputs && !o.bitExact) inexact.push_back(o.name);
  }
  j["failures"] = failures;
  j["unsupported_tests"] = unsupported;
  j["not_bit_exact"] = inexact;
  j["file_errors"] = run.fileErrors;
  std::ofstream out(path);
  if (!out) return hal::fail(path, ": cannot write");
  out << j.dump(1) << "\n";
  return out ? hal::Status::Ok() : hal::Status(hal::fail(path, ": write failed"));
}

hal::Status writeJUnit(const ConformanceRun& run, const std::string& path) {
  std::ofstream out(path);
  if (!out) return hal::fail(path, ": cannot write");
  const auto t = totals(run);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"nncosim conformance\" tests=\"" << t.total << "\" failures=\""
      << t.failed << "\" skipped=\"" << t.unsupported << "\" time=\"" << run.seconds << "\">\n";
  std::string current;
  for (const auto& o : run.outcomes) {
    const std::string suite = suiteName(o.file);
    if (suite != current) {
      if (!current.empty()) out << " </testsuite>\n";
      out << " <testsuite name=\"" << xmlEscape(suite) << "\">\n";
      current = suite;
    }
    out << "  <testcase classname=\"" << xmlEscape(suite) << "\" name=\"" << xmlEscape(o.name)
        << "\"";
    if (o.status == TestStatus::kPassed) {
      out << "/>\n";
    } else if (o.status == TestStatus::kFailed) {
      out << "><failure message=\"" << xmlEscape(o.reason) << "\"/></testcase>\n";
    } else {
      out << "><skipped message=\"" << xmlEscape(o.reason) << "\"/></testcase>\n";
    }
  }
  if (!current.empty()) out << " </testsuite>\n";
  out << "</testsuites>\n";
  return out ? hal::Status::Ok() : hal::Status(hal::fail(path, ": write failed"));
}

}  // namespace nncosim::verify
