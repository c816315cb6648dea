#include "cli/backends.h"

#include "driver/backend/npu_backend.h"
#include "driver/backend/reference_backend.h"
#ifdef NNCOSIM_HAVE_HW
#include "driver/soc/sim_npu_device.h"
#include "sim/device.h"
#endif

namespace nncosim::cli {
namespace {

#ifdef NNCOSIM_HAVE_HW
hal::Result<sim::SocConfig> socConfig(const BackendOptions& o) {
  sim::SocConfig cfg;
  if (!o.socConfigFile.empty()) {
    auto c = sim::SocConfig::fromFile(o.socConfigFile);
    if (!c) return hal::Error{c.error()};
    cfg = *c;
  }
  for (const auto& kv : o.socSettings) NNC_TRY(cfg.set(kv));
  return cfg;
}
#endif

}  // namespace

std::string backendNames() {
#ifdef NNCOSIM_HAVE_HW
  return "ref, isa, sim";
#else
  return "ref, isa";
#endif
}

std::string defaultBackend() {
#ifdef NNCOSIM_HAVE_HW
  return "sim";
#else
  return "isa";
#endif
}

bool backendExists(const std::string& name) {
  return name == "ref" || name == "isa"
#ifdef NNCOSIM_HAVE_HW
         || name == "sim"
#endif
      ;
}

hal::Result<std::unique_ptr<driver::Backend>> makeBackend(const std::string& name, const BackendOptions& o) {
  driver::LoweringOptions lo;
  lo.preference = o.preference;
  if (name == "ref") return std::unique_ptr<driver::Backend>(std::make_unique<driver::ReferenceBackend>());
  if (name == "isa") {
    auto dev = std::make_shared<driver::InterpreterDevice>(lo.npu);
    return std::unique_ptr<driver::Backend>(
        std::make_unique<driver::NpuBackend>("isa", [dev]() -> driver::NpuDevice& { return *dev; }, lo));
  }
#ifdef NNCOSIM_HAVE_HW
  if (name == "sim") {
    auto cfg = socConfig(o);
    if (!cfg) return hal::Error{cfg.error()};
    sim::DeviceOptions dopt;
    dopt.wavesPath = o.wavesPath;
    auto device = sim::Device::open(*cfg, dopt);
    if (!device) return hal::Error{device.error()};
    auto dev = std::make_shared<driver::SimNpuDevice>(**device);
    lo.npu = dev->config();
    return std::unique_ptr<driver::Backend>(
        std::make_unique<driver::NpuBackend>("sim", [dev]() -> driver::NpuDevice& { return *dev; }, lo));
  }
#endif
  return hal::fail("unknown backend '", name, "' (available: ", backendNames(), ")");
}

std::string describeSoc(const BackendOptions& o) {
#ifdef NNCOSIM_HAVE_HW
  auto cfg = socConfig(o);
  return cfg ? cfg->describe() : cfg.error();
#else
  (void)o;
  return "";
#endif
}

}  // namespace nncosim::cli
