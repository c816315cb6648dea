// nncosim conformance PATH...: runs NNAPI conformance vectors on a backend and judges
// them by the NNAPI criteria and, separately, bit-exactness.
#include <unistd.h>

#include <fstream>
#include <regex>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "frontend/backends.h"
#include "cli/options.h"
#include "verify/conformance/report.h"
#include "verify/conformance/runner.h"

namespace nncosim::cli {

int cmdConformance(const Args& args) {
  po::options_description desc("conformance options");
  std::vector<std::string> paths;
  std::string backend = "ref", filter, shard, jsonPath, junitPath, floorPath, digestsPath;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  size_t maxFailures = 40;
  double timeout = 120;
  desc.add_options()("paths", po::value(&paths)->multitoken(), "vector files or folders")(
      "backend", po::value(&backend)->default_value("ref"),
      "ref (software reference), isa (driver on the ISA interpreter), sim (driver on the simulated "
      "SoC)")("filter", po::value(&filter),
              "ECMAScript regex on FILE:TEST; only matching tests run")(
      "jobs,j", po::value(&jobs)->default_value(jobs), "worker processes (0: run in this process)")(
      "shard", po::value(&shard),
      "K/N: run the K-th (1-based) of N disjoint, stable slices of the files")(
      "json", po::value(&jsonPath), "write the summary as JSON")("junit", po::value(&junitPath),
                                                                 "write JUnit XML")(
      "digests", po::value(&digestsPath),
      "write one line per test: FILE:TEST STATUS NPU_STEPS OUTPUT_DIGEST (a behaviour "
      "fingerprint)")("floor", po::value(&floorPath),
                      "JSON {\"<backend>\": {\"passed\": N, \"bit_exact\": M}}: fail when below it "
                      "instead of on any failure")(
      "max-failures", po::value(&maxFailures)->default_value(40), "failures listed on the console")(
      "timeout", po::value(&timeout)->default_value(120),
      "seconds before a single test counts as hung");
  po::positional_options_description pos;
  pos.add("paths", -1);
  po::variables_map vm;
  int exit = 0;
  const char* usage =
      "nncosim conformance PATH... [--backend ref|isa|sim] [--filter REGEX] [--jobs N] [--shard "
      "K/N] "
      "[--json FILE] [--junit FILE] [--floor FILE]";
  (void)0;
  if (!parseOptions(args, usage, desc, pos, vm, &exit)) return exit;
  if (paths.empty()) {
    std::cerr << "nncosim conformance: no vector path given\nusage: " << usage << "\n";
    return kExitUsage;
  }
  verify::ConformanceOptions opt;
  opt.filter = filter;
  opt.jobs = jobs;
  opt.testTimeoutSeconds = timeout;
  opt.progress = ::isatty(2);
  if (!shard.empty()) {
    int k = 0, n = 0;
    char extra = 0;
    if (std::sscanf(shard.c_str(), "%d/%d%c", &k, &n, &extra) != 2 || n < 1 || k < 1 || k > n) {
      std::cerr << "nncosim conformance: --shard wants K/N with 1 <= K <= N, got '" << shard
                << "'\n";
      return kExitUsage;
    }
    opt.shardIndex = k - 1;
    opt.shardCount = n;
  }
  try {
    if (!filter.empty()) std::regex(filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    std::cerr << "nncosim conformance: --filter: bad regex '" << filter << "': " << e.what()
              << "\n";
    return kExitUsage;
  }
  if (!frontend::backendExists(backend)) {
    std::cerr << "nncosim conformance: unknown backend '" << backend
              << "' (available: " << frontend::backendNames() << ")\n";
    return kExitUsage;
  }
  // Each worker process opens its own backend (the simulated SoC elaborates once per process).
  verify::DriverFactory factory = [backend]() -> std::shared_ptr<driver::NnapiDriver> {
    auto b = frontend::openBackend(backend, frontend::BackendOptions{});
    if (!b) {
      std::fprintf(stderr, "nncosim conformance: %s\n", b.error().c_str());
      std::exit(kExitFailure);
    }
    std::shared_ptr<frontend::Backend> owner = std::move(*b);
    return std::shared_ptr<driver::NnapiDriver>(owner, &owner->driver());  // keeps the device alive
  };
  for (const auto& p : paths)
    if (::access(p.c_str(), R_OK) != 0) {
      std::cerr << "nncosim conformance: " << p << ": cannot read\n";
      return kExitFailure;
    }

  const auto run = verify::runConformance(paths, opt, factory);
  verify::printSummary(std::cout, run, maxFailures);
  if (!jsonPath.empty())
    if (auto st = verify::writeJsonSummary(run, jsonPath, backend); !st.ok()) {
      std::cerr << st.error() << "\n";
      return kExitFailure;
    }
  if (!digestsPath.empty())
    if (auto st = verify::writeDigests(run, digestsPath); !st.ok()) {
      std::cerr << st.error() << "\n";
      return kExitFailure;
    }
  if (!junitPath.empty())
    if (auto st = verify::writeJUnit(run, junitPath); !st.ok()) {
      std::cerr << st.error() << "\n";
      return kExitFailure;
    }
  const auto t = verify::totals(run);
  if (!floorPath.empty()) {
    std::ifstream in(floorPath);
    nlohmann::json floor;
    try {
      in >> floor;
    } catch (const std::exception& e) {
      std::cerr << floorPath << ": malformed floor file: " << e.what() << "\n";
      return kExitFailure;
    }
    const auto f = floor.value(backend, nlohmann::json::object());
    const int minPassed = f.value("passed", 0), minExact = f.value("bit_exact", 0);
    bool ok = true;
    if (t.passed < minPassed) {
      std::cerr << "FLOOR: " << t.passed << " passed, below the floor of " << minPassed << "\n";
      ok = false;
    }
    if (t.bitExact < minExact) {
      std::cerr << "FLOOR: " << t.bitExact << " bit-exact, below the floor of " << minExact << "\n";
      ok = false;
    }
    if (ok)
      std::cout << "floor held: passed " << t.passed << " >= " << minPassed << ", bit-exact "
                << t.bitExact << " >= " << minExact << "\n";
    return ok && run.fileErrors.empty() ? kExitOk : kExitFailure;
  }
  return t.failed == 0 && run.fileErrors.empty() ? kExitOk : kExitFailure;
}

}  // namespace nncosim::cli
