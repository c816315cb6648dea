// The backends a Python process prepares its models on. Every prepare() with the same
// backend and settings shares one: its driver keeps one prepared model's constants
// resident on the device and knows whose they are. The simulated SoC elaborates once per
// process (sim/device.h) and a second driver on it would not know what the first left in
// device memory, so a process has at most one sim backend: a prepare() that asks for
// another SoC configuration or host model is refused, naming what differs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frontend/backends.h"

namespace nncosim::python {

struct BackendRequest {
  std::string name;                       // ref | isa | sim
  std::vector<std::string> socSettings;   // sim: key=value, as `nncosim run --set`
  std::string socConfigFile;              // sim: as `nncosim run --config`
  std::vector<std::string> hostSettings;  // key=value, as `nncosim run --host`
};

// The process's backend for `request`, opened on first use; throws Error with the CLI's
// message when it cannot open, or when a sim backend with other settings runs already.
std::shared_ptr<frontend::Backend> sharedBackend(const BackendRequest& request);

}  // namespace nncosim::python
