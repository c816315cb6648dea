#include "python/run_result.h"

#include <iomanip>
#include <filesystem>
#include <sstream>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "python/bindings.h"
#include "python/errors.h"
#include "python/json_objects.h"

namespace nncosim::python {
namespace {

const nlohmann::json& totals(const Report& r) {
  static const nlohmann::json kNone = nlohmann::json::object();  // ref: no steps, no totals
  auto it = r.run->json.find("totals");
  return it == r.run->json.end() ? kNone : *it;
}

// A number from the totals, 0 when the run has none (ref).
double total(const Report& r, const char* key) {
  const auto& t = totals(r);
  auto it = t.find(key);
  return it == t.end() ? 0.0 : it->get<double>();
}

std::string table(const Report& r) {
  const frontend::RunSummary& s = r.run->summary;
  std::ostringstream os;
  if (s.report) {
    frontend::printRunTable(os, s);
  } else {  // what `nncosim run --backend ref` prints instead of a table
    os << "every step ran on the software reference (" << r.run->operations << " steps, "
       << s.wallSeconds << " s)\n";
  }
  return os.str();
}

py::object plot(const Report& r, const py::object& path, const py::kwargs& options) {
  // The drawing lives in Python (matplotlib), beside the package: nncosim/plots.py.
  return py::module_::import("nncosim.plots")
      .attr("plot_report")(toPython(r.run->json), path, **options);
}

}  // namespace

void bindResult(py::module_& m) {
  py::class_<Report>(m, "Report",
                     "The report of a run, as `nncosim run --report` writes it: to_dict(), "
                     "steps(), totals, table(), save(), save_trace(), plot().")
      .def(
          "to_dict", [](const Report& r) { return toPython(r.run->json); },
          "the --report JSON as a dict: model, backend, soc, array, clock_mhz, "
          "dram_bytes_per_cycle, checked, steps, totals, host_model, outputs")
      .def(
          "steps", [](const Report& r) { return toPython(r.run->json["steps"]); },
          "one dict per step: step, operation, where (npu|cpu), macs, note, cycles, "
          "start_cycle, utilization, dram_read_bytes, dram_write_bytes, counters (unit busy and "
          "stall cycles), jobs, commands, check (ok|MISMATCH|off), energy_pj, host (bytes and "
          "model_ns: the host's share); NPU-only keys are absent on CPU steps")
      .def_property_readonly(
          "totals", [](const Report& r) { return toPython(totals(r)); },
          "npu_steps, cpu_steps, macs, npu_cycles, dram_bytes, utilization, device_us, "
          "host_model_us, end_to_end_us, utilization_end_to_end, energy_uj, ... ({} on ref)")
      .def_property_readonly(
          "cycles", [](const Report& r) { return r.run->result.report.npuCycles; },
          "device cycles of every NPU step")
      .def_property_readonly(
          "end_to_end_us", [](const Report& r) { return total(r, "end_to_end_us"); },
          "device time at the clock + the modelled host's time")
      .def_property_readonly(
          "utilization", [](const Report& r) { return total(r, "utilization"); },
          "MAC utilization of the device cycles alone")
      .def_property_readonly(
          "utilization_end_to_end",
          [](const Report& r) { return total(r, "utilization_end_to_end"); },
          "MAC utilization of the end-to-end time")
      .def_property_readonly(
          "energy_uj", [](const Report& r) { return total(r, "energy_uj"); },
          "energy of the run on the energy model, microjoules")
      .def_property_readonly(
          "mismatches", [](const Report& r) { return r.run->result.report.mismatches; },
          "NPU steps whose cross-check failed")
      .def_property_readonly("checked", [](const Report& r) { return r.run->summary.checked; })
      .def_property_readonly("backend", [](const Report& r) { return r.run->summary.backend; })
      .def_property_readonly("wall_seconds",
                             [](const Report& r) { return r.run->summary.wallSeconds; })
      .def("table", &table, "the step table and totals `nncosim run` prints")
      .def(
          "save",
          [](const Report& r, const std::filesystem::path& path) {
            okOrThrow(frontend::writeRunReport(r.run->summary, path.string()));
          },
          py::arg("path"), "write the --report JSON")
      .def(
          "save_trace",
          [](const Report& r, const std::filesystem::path& path) {
            okOrThrow(frontend::writeRunTrace(r.run->summary, path.string()));
          },
          py::arg("path"), "write the --trace Chrome trace-event JSON (opens in Perfetto)")
      .def("plot", &plot, py::arg("path") = py::none(),
           "draw the step cycles by unit, the MAC utilization per step and the roofline "
           "(nncosim.plots.plot_report); with a path, save them as one PNG")
      .def("__str__", &table)
      .def("__repr__", [](const Report& r) {
        const auto& rep = r.run->result.report;
        std::ostringstream os;
        os << "<nncosim.Report " << r.run->summary.model << " on " << r.run->summary.backend << ": "
           << rep.npuSteps << " NPU steps, " << rep.cpuSteps << " CPU steps, " << rep.npuCycles
           << " cycles>";
        return os.str();
      });
  py::class_<Result>(m, "Result", "What run() returns: outputs (arrays) and report.")
      .def_readonly("outputs", &Result::outputs, "one numpy.ndarray per model output")
      .def_readonly("named_outputs", &Result::namedOutputs,
                    "the outputs by output operand name (named outputs only)")
      .def_readonly("report", &Result::report)
      .def("__repr__", [](const Result& r) {
        return "<nncosim.Result " + std::to_string(py::len(r.outputs)) + " outputs, " +
               std::to_string(r.report.run->result.report.npuCycles) + " cycles>";
      });
}

}  // namespace nncosim::python
