// Backend factories for the command line: "ref" (software reference), "isa" (the
// driver's compiler on the ISA interpreter), "sim" (the driver on the simulated SoC).
#pragma once

#include <memory>
#include <string>

#include "driver/backend/backend.h"
#include "hal/capabilities.h"
#include "hal/result.h"

namespace nncosim::cli {

struct BackendOptions {
  hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
  std::string wavesPath;                 // sim only
  std::vector<std::string> socSettings;  // sim only: key=value overrides
  std::string socConfigFile;             // sim only
};

// The names this build offers, e.g. "ref, isa, sim".
std::string backendNames();
// sim when this build has the hardware, else isa.
std::string defaultBackend();
bool backendExists(const std::string& name);
// Creates a backend (the simulated device elaborates on first use, in the calling process).
hal::Result<std::unique_ptr<driver::Backend>> makeBackend(const std::string& name, const BackendOptions& options);
// The SoC configuration description ("" when the backend has none).
std::string describeSoc(const BackendOptions& options);

}  // namespace nncosim::cli
