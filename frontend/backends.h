// The backends of the `nncosim` command and the Python module, each an NnapiDriver on a
// device: "ref" (a driver without an NPU: everything on the software reference), "isa"
// (the ISA model, driver/isa_model/), "sim" (the Verilated NPU in the simulated SoC).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "driver/api/nnapi_driver.h"
#include "hal/capabilities.h"
#include "hal/result.h"

namespace nncosim::frontend {

struct BackendOptions {
  hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
  driver::ConvMapping convMapping = driver::ConvMapping::kAuto;  // difftest --mapping
  bool fuseLayers = true;  // run --no-fuse: every operation its own step
  // difftest --overlapped: fused steps in overlapped blocks wherever they fit.
  driver::LoweringOptions::BlockJoin blockJoin = driver::LoweringOptions::BlockJoin::kAuto;
  std::vector<std::string> hostSettings;  // host model key=value (driver/compiler/host_model.h)
  std::string wavesPath;                  // sim only
  // SoC key=value overrides and file: sim, and isa (its DRAM latency, bandwidth, size,
  // clock and buffer sizes follow them; the array is the build's on both, and sim refuses
  // buffer sizes other than its RTL's).
  std::vector<std::string> socSettings;
  std::string socConfigFile;
};

// A driver and the device it owns.
class Backend {
 public:
  const std::string& name() const { return name_; }
  driver::NnapiDriver& driver() { return *driver_; }
  // The SoC configuration description ("" when the backend has none).
  const std::string& socDescription() const { return soc_; }
  // The DRAM bandwidth the device's timing assumes, reads and writes together (0 for ref):
  // the roofline's bandwidth line of a run's report.
  double dramBytesPerCycle() const { return dramBytesPerCycle_; }

 private:
  friend hal::Result<std::unique_ptr<Backend>> openBackend(const std::string&,
                                                           const BackendOptions&);
  std::string name_, soc_;
  double dramBytesPerCycle_ = 0;
  std::unique_ptr<driver::NpuDevice> device_;
  std::unique_ptr<driver::NnapiDriver> driver_;
};

// `nncosim run --preference`'s names: low_power, fast_single_answer, sustained_speed.
std::optional<hal::ExecutionPreference> preferenceFromName(const std::string& name);
const char* preferenceName(hal::ExecutionPreference preference);

// `nncosim difftest --mapping`'s names: auto, host-im2col, dma-im2col, shifted-windows,
// output-blocks.
std::optional<driver::ConvMapping> convMappingFromName(const std::string& name);
// Every mapping name, comma-separated ("auto, host-im2col, ...").
std::string convMappingNames();

// The names this build offers, e.g. "ref, isa, sim".
std::string backendNames();
// sim when this build has the hardware, else isa.
std::string defaultBackend();
bool backendExists(const std::string& name);
// The SoC a sim backend with `options` runs (socConfigFile, then socSettings): its
// configuration as JSON text (what sim::Device compares: the SoC elaborates once per
// process) and the line a run prints. Fails as openBackend would, and in builds without
// the hardware.
struct SocSettings {
  std::string json, description;
};
hal::Result<SocSettings> resolveSoc(const BackendOptions& options);
// Opens a backend (the simulated SoC elaborates here, once per process).
hal::Result<std::unique_ptr<Backend>> openBackend(const std::string& name,
                                                  const BackendOptions& options);

}  // namespace nncosim::frontend
