#include "frontend/backends.h"

#include "driver/isa_model/isa_interpreter.h"
#include "driver/runtime/interpreter_device.h"
#ifdef NNCOSIM_HAVE_HW
#include "driver/runtime/soc/sim_npu_device.h"
#include "driver/runtime/soc/soc_cost_model.h"
#include "sim/device.h"
#endif

namespace nncosim::frontend {
namespace {

#ifdef NNCOSIM_HAVE_HW
hal::Result<sim::SocConfig> socConfig(const BackendOptions& o) {
  sim::SocConfig cfg;
  if (!o.socConfigFile.empty()) {
    NNC_ASSIGN_OR_RETURN(auto c, sim::SocConfig::fromFile(o.socConfigFile));
    cfg = c;
  }
  for (const auto& kv : o.socSettings) NNC_TRY(cfg.set(kv));
  return cfg;
}

#endif

constexpr std::pair<const char*, hal::ExecutionPreference> kPreferences[] = {
    {"low_power", hal::ExecutionPreference::LOW_POWER},
    {"fast_single_answer", hal::ExecutionPreference::FAST_SINGLE_ANSWER},
    {"sustained_speed", hal::ExecutionPreference::SUSTAINED_SPEED},
};

constexpr std::pair<const char*, driver::ConvMapping> kMappings[] = {
    {"auto", driver::ConvMapping::kAuto},
    {"host-im2col", driver::ConvMapping::kHostIm2col},
    {"dma-im2col", driver::ConvMapping::kDmaIm2col},
    {"shifted-windows", driver::ConvMapping::kShiftedWindows},
    {"output-blocks", driver::ConvMapping::kOutputBlocks},
    {"window", driver::ConvMapping::kWindow},
    {"dwconv", driver::ConvMapping::kDepthwiseUnit},
    {"raw-window", driver::ConvMapping::kRawWindow},
};

}  // namespace

std::optional<driver::ConvMapping> convMappingFromName(const std::string& name) {
  for (const auto& [n, m] : kMappings)
    if (name == n) return m;
  return std::nullopt;
}

std::string convMappingNames() {
  std::string names;
  for (const auto& [n, m] : kMappings) names += std::string(names.empty() ? "" : ", ") + n;
  return names;
}

std::optional<hal::ExecutionPreference> preferenceFromName(const std::string& name) {
  for (const auto& [n, p] : kPreferences)
    if (name == n) return p;
  return std::nullopt;
}

const char* preferenceName(hal::ExecutionPreference preference) {
  for (const auto& [n, p] : kPreferences)
    if (preference == p) return n;
  return "?";
}

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

hal::Result<SocSettings> resolveSoc(const BackendOptions& o) {
#ifdef NNCOSIM_HAVE_HW
  NNC_ASSIGN_OR_RETURN(auto cfg, socConfig(o));
  return SocSettings{cfg.toJson(), cfg.describe()};
#else
  return hal::fail("this build has no simulated SoC (configured with NNCOSIM_BUILD_HW=OFF)");
#endif
}

hal::Result<std::unique_ptr<Backend>> openBackend(const std::string& name,
                                                  const BackendOptions& o) {
  auto b = std::unique_ptr<Backend>(new Backend);
  b->name_ = name;
  driver::DriverOptions dopt;
  dopt.lowering.convMapping = o.convMapping;
  dopt.lowering.fuseLayers = o.fuseLayers;
  dopt.lowering.blockJoin = o.blockJoin;
  for (const auto& kv : o.hostSettings) {
    std::string error;
    if (!dopt.lowering.host.set(kv, &error)) return hal::fail("--host: ", error);
  }
  if (name == "ref") {
    b->driver_ = std::make_unique<driver::NnapiDriver>(nullptr, dopt);
    return b;
  }
  if (name == "isa") {
    driver::CostModel cost;
    uint64_t dramBytes = 256ull << 20;
#ifdef NNCOSIM_HAVE_HW
    // The SoC's settings apply to its model as well (a design-space sweep runs on it): DRAM
    // latency and bandwidth (costModelFor), DRAM size and the clock times are quoted at.
    NNC_ASSIGN_OR_RETURN(auto cfg, socConfig(o));
    if (cfg.faultWriteXor)
      return hal::fail(
          "config fault_write_xor: the ISA model injects no faults (the sim backend does)");
    cost = driver::costModelFor(cfg);
    dopt.lowering.cost = cost;
    dramBytes = cfg.dramBytes;
    dopt.clockMHz = cfg.clockMHz;
    if (!o.socSettings.empty() || !o.socConfigFile.empty())
      b->soc_ = "ISA model of the " + cfg.describe();
#else
    if (!o.socSettings.empty() || !o.socConfigFile.empty())
      return hal::fail(
          "config: this build has no SoC (NNCOSIM_BUILD_HW=OFF) to take settings from");
#endif
    driver::NpuConfig npu;
#ifdef NNCOSIM_HAVE_HW
    npu.inpBytes = cfg.inpBufBytes;
    npu.wgtBytes = cfg.wgtBufBytes;
    npu.accBytes = cfg.accBufBytes;
    npu.outBytes = cfg.outBufBytes;
    npu.prmBytes = cfg.prmBufBytes;
#endif
    b->device_ = std::make_unique<driver::InterpreterDevice>(npu, dramBytes, cost);
    b->dramBytesPerCycle_ = cost.busBytesPerCycle;
    b->driver_ = std::make_unique<driver::NnapiDriver>(b->device_.get(), dopt);
    return b;
  }
#ifdef NNCOSIM_HAVE_HW
  if (name == "sim") {
    NNC_ASSIGN_OR_RETURN(auto cfg, socConfig(o));
    if (const auto other = cfg.buffersNotBuilt(); !other.empty())
      return hal::fail("config ", other.front(),
                       ": the RTL's buffers are fixed when it is built (the isa backend models "
                       "other sizes)");
    sim::DeviceOptions devOpt;
    devOpt.wavesPath = o.wavesPath;
    NNC_ASSIGN_OR_RETURN(auto device, sim::Device::open(cfg, devOpt));
    b->soc_ = cfg.describe();
    b->dramBytesPerCycle_ = cfg.dramBytesPerCycle;
    b->device_ = std::make_unique<driver::SimNpuDevice>(*device);
    dopt.clockMHz = cfg.clockMHz;
    dopt.lowering.cost = driver::costModelFor(cfg);
    b->driver_ = std::make_unique<driver::NnapiDriver>(b->device_.get(), dopt);
    return b;
  }
#endif
  return hal::fail("unknown backend '", name, "' (available: ", backendNames(), ")");
}

}  // namespace nncosim::frontend
