// The testbench registry: every cosim testbench registers itself by name, and
// `nncosim testbench NAME` runs it. Each testbench lives in testbench/<name>/.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace nncosim::testbench {

struct TestbenchOptions {
  uint64_t seed = 1;
  uint64_t iterations = 0;  // 0 = the testbench's default
  std::string wavesPath;    // FST file; empty = no tracing
  bool verbose = false;
};

struct TestbenchResult {
  bool passed = false;
  uint64_t seed = 0;
  uint64_t iterations = 0;  // cases actually checked
  uint64_t cycles = 0;      // simulated clock cycles
  uint64_t mismatches = 0;
  std::string summary;  // one line: what was checked / the first mismatch
};

using TestbenchFn = std::function<TestbenchResult(const TestbenchOptions&)>;

struct TestbenchDef {
  std::string name;
  std::string description;
  TestbenchFn run;
  uint64_t ciIterations = 0;  // budget ctest uses to keep CI short
};

std::map<std::string, TestbenchDef>& testbenchRegistry();

// Static registration: `static TestbenchRegistrar reg{{"mac_array", "...", &run, 200}};`
// Testbench folders build as OBJECT libraries, so the registrar is never dropped by the linker.
struct TestbenchRegistrar {
  explicit TestbenchRegistrar(TestbenchDef def) { testbenchRegistry()[def.name] = std::move(def); }
};

}  // namespace nncosim::testbench
