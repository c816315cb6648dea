// nncosim.testbenches() and nncosim.testbench(name, ...): `nncosim testbench` from Python,
// each run in a worker process (python/worker_host.h): the soc testbench elaborates an SoC
// of its own configuration, which this process's SoC, if it has one, cannot give it.
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "python/bindings.h"
#include "python/errors.h"
#include "python/json_objects.h"
#include "python/worker_host.h"
#ifdef NNCOSIM_HAVE_HW
#include "testbench/testbench.h"
#endif

namespace nncosim::python {
namespace {

constexpr const char* kNoHardware =
    "this build has no hardware (configured with NNCOSIM_BUILD_HW=OFF)";

py::dict testbenches() {
  py::dict d;
#ifdef NNCOSIM_HAVE_HW
  for (const auto& [name, def] : testbench::testbenchRegistry()) d[py::str(name)] = def.description;
#endif
  return d;
}

#ifdef NNCOSIM_HAVE_HW
// In the worker: the request's testbench with its options, the result as JSON.
std::string testbenchJob(const std::string& request) {
  const auto q = nlohmann::json::parse(request);
  const std::string name = q.at("name");
  const testbench::TestbenchDef& def = testbench::testbenchRegistry().at(name);
  testbench::TestbenchOptions opt;
  opt.seed = q.at("seed");
  opt.iterations = q.at("iterations");
  opt.wavesPath = q.at("waves");
  opt.verbose = q.at("verbose");
  const testbench::TestbenchResult r = def.run(opt);
  return nlohmann::json{{"name", name},        {"passed", r.passed},
                        {"seed", r.seed},      {"iterations", r.iterations},
                        {"cycles", r.cycles},  {"mismatches", r.mismatches},
                        {"summary", r.summary}}
      .dump();
}
#endif

py::object runTestbench(const std::string& name, uint64_t seed, uint64_t iterations, bool ci,
                        const std::optional<std::filesystem::path>& waves, bool verbose) {
#ifndef NNCOSIM_HAVE_HW
  throw Error(std::string("testbench: ") + kNoHardware);
#else
  const auto& reg = testbench::testbenchRegistry();
  auto it = reg.find(name);
  if (it == reg.end())
    throw Error("unknown testbench '" + name + "' (nncosim.testbenches() lists them)");
  const nlohmann::json request = {
      {"name", name},
      {"seed", seed},
      {"iterations", ci && iterations == 0 ? it->second.ciIterations : iterations},
      {"waves", waves ? waves->string() : std::string()},
      {"verbose", verbose}};
  return toPython(nlohmann::json::parse(runJob("testbench", request.dump(), "testbench " + name)));
#endif
}

}  // namespace

void bindTestbench(py::module_& m) {
#ifdef NNCOSIM_HAVE_HW
  registerJob("testbench", &testbenchJob);
#endif
  m.def("testbenches", &testbenches, "the cosim testbenches: name -> description");
  m.def("testbench", &runTestbench, py::arg("name"), py::arg("seed") = 1, py::arg("iterations") = 0,
        py::arg("ci") = false, py::arg("waves") = py::none(), py::arg("verbose") = false,
        "run a cosim testbench as `nncosim testbench NAME` does (iterations=0: its default; "
        "ci=True: its CI budget; waves: an FST file), in a worker process; returns {name, "
        "passed, seed, iterations, cycles, mismatches, summary}");
}

}  // namespace nncosim::python
