// nncosim.Result and nncosim.Report: what run() returns. The report is the one
// `nncosim run --report` writes (frontend/run_report.h): to_dict() is that JSON, steps()
// its per-step records, totals its totals, table() the printed table, save() and
// save_trace() the --report and --trace files, plot() the pictures (nncosim/plots.py).
#pragma once

#include <memory>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include "driver/api/nnapi_driver.h"
#include "frontend/run_report.h"

namespace nncosim::python {

namespace py = pybind11;

// One run: the driver's result and the summary the report functions read. Never copied
// or moved: summary.report points into result.
struct RunRecord {
  RunRecord() = default;
  RunRecord(const RunRecord&) = delete;
  RunRecord& operator=(const RunRecord&) = delete;
  driver::ExecutionResult result;
  frontend::RunSummary summary;
  size_t operations = 0;  // of the main subgraph
  nlohmann::json json;    // runReportJson(summary), made once
};

struct Report {
  std::shared_ptr<const RunRecord> run;
};

struct Result {
  py::list outputs;       // one array per model output
  py::dict namedOutputs;  // by output operand name (named outputs only)
  Report report;
};

}  // namespace nncosim::python
