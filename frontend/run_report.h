// The outputs of a run (`nncosim run`, the Python module's reports): the per-step table,
// the --report JSON and the --trace Chrome trace-event JSON (one track per NPU unit
// holding a slice per command, one track of steps, one for the CPU fallback).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/runtime/npu_device.h"
#include "driver/runtime/npu_executor.h"
#include "hal/result.h"
#include "hal/tensor_value.h"

namespace nncosim::frontend {

struct RunSummary {
  std::string model, backend, preference, soc;
  uint32_t rows = 16, cols = 16;
  double clockMHz = 1000;
  double dramBytesPerCycle = 0;  // the device's DRAM bandwidth (Backend::dramBytesPerCycle)
  double wallSeconds = 0;
  bool checked = false;
  const driver::ExecutionReport* report = nullptr;       // null for the ref backend
  std::vector<driver::NpuDevice::CommandSpan> commands;  // the run's, on the job clock
  std::vector<hal::TensorValue> outputs;
  // How often this run validated the model (structure) and operation signatures (with
  // the declared shapes): the driver's one validation per preparation, on the books.
  uint64_t modelValidations = 0, signatureValidations = 0;
};

void printRunTable(std::ostream& os, const RunSummary& s);
// The --report JSON: the run, its steps, totals and outputs (docs/python.md lists the keys).
nlohmann::json runReportJson(const RunSummary& s);
hal::Status writeRunReport(const RunSummary& s, const std::string& path);
hal::Status writeRunTrace(const RunSummary& s, const std::string& path);

}  // namespace nncosim::frontend
