// Settings dicts as the CLI's key=value lists: {"dram_latency_cycles": 80} becomes
// "dram_latency_cycles=80", so SocConfig and HostModel parse them, and word their errors,
// exactly as for `nncosim run --set` and `--host`.
#pragma once

#include <string>
#include <vector>

#include <pybind11/pybind11.h>

namespace nncosim::python {

namespace py = pybind11;

// None -> {}; a dict -> "key=value" per item (strings as they are, other values by repr);
// anything else -> Error naming `argument`.
std::vector<std::string> keyValues(py::handle settings, const char* argument);

}  // namespace nncosim::python
