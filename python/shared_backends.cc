#include "python/shared_backends.h"

#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "driver/compiler/host_model.h"
#include "python/errors.h"
#include "python/worker_host.h"

namespace nncosim::python {
namespace {

struct Opened {
  std::shared_ptr<frontend::Backend> backend;
  std::string socJson, socDescription;
  driver::HostModel host;
};

// Process-wide: backends outlive every Python object, so prepared models never see their
// driver go away (the process's exit ends them, as it ends the CLI's).
std::map<std::string, Opened>& opened() {
  static auto* backends = new std::map<std::string, Opened>;
  return *backends;
}

// The host model `settings` give; false when one is invalid (openBackend names it).
bool hostModel(const std::vector<std::string>& settings, driver::HostModel* host) {
  for (const auto& kv : settings) {
    std::string error;
    if (!host->set(kv, &error)) return false;
  }
  return true;
}

std::string hostKey(const driver::HostModel& h) {
  std::ostringstream os;
  os.precision(17);
  os << h.clockMHz << "/" << h.copyBytesPerCycle << "/" << h.packBytesPerCycle << "/" << h.cpuScale
     << "/" << h.corePowerW;
  return os.str();
}

// "dram_latency_cycles 40 -> 80, host clock_mhz 2000 -> 1000"
std::string differences(const Opened& running, const std::string& socJson,
                        const driver::HostModel& host) {
  std::ostringstream os;
  auto add = [&os](const std::string& key, const std::string& was, const std::string& is) {
    if (was != is) os << (os.tellp() > 0 ? ", " : "") << key << " " << was << " -> " << is;
  };
  auto num = [](double x) {  // 40, not 40.0; 0x80000000 as 2147483648
    std::ostringstream n;
    n.precision(15);
    n << x;
    return n.str();
  };
  auto value = [&num](const nlohmann::json& v) {
    return v.is_number() ? num(v.get<double>()) : v.dump();
  };
  const auto a = nlohmann::json::parse(running.socJson), b = nlohmann::json::parse(socJson);
  for (auto it = a.begin(); it != a.end(); ++it)
    add(it.key(), value(it.value()), b.contains(it.key()) ? value(b[it.key()]) : "(none)");
  const driver::HostModel& h = running.host;
  add("host clock_mhz", num(h.clockMHz), num(host.clockMHz));
  add("host copy_bytes_per_cycle", num(h.copyBytesPerCycle), num(host.copyBytesPerCycle));
  add("host pack_bytes_per_cycle", num(h.packBytesPerCycle), num(host.packBytesPerCycle));
  add("host cpu_scale", num(h.cpuScale), num(host.cpuScale));
  add("host core_power_w", num(h.corePowerW), num(host.corePowerW));
  return os.str();
}

}  // namespace

std::shared_ptr<frontend::Backend> sharedBackend(const BackendRequest& r) {
  if (!frontend::backendExists(r.name))
    throw Error("unknown backend '" + r.name + "' (available: " + frontend::backendNames() + ")");
  frontend::BackendOptions o;
  o.socSettings = r.socSettings;
  o.socConfigFile = r.socConfigFile;
  o.hostSettings = r.hostSettings;
  driver::HostModel host;
  if (!hostModel(r.hostSettings, &host))  // let openBackend word the error, as the CLI does
    return std::shared_ptr<frontend::Backend>(valueOrThrow(frontend::openBackend(r.name, o)));
  if (r.name != "sim") {
    // The ISA model takes the SoC's DRAM and clock settings (as `nncosim run --backend isa`);
    // the reference has nothing to configure.
    if (r.name == "ref" && (!r.socSettings.empty() || !r.socConfigFile.empty()))
      throw Error("config: the ref backend has no SoC to configure (isa and sim have)");
    std::string key = r.name + " " + hostKey(host) + " " + r.socConfigFile;
    for (const auto& kv : r.socSettings) key += " " + kv;
    Opened& b = opened()[key];
    if (!b.backend) {
      b.backend = valueOrThrow(frontend::openBackend(r.name, o));
      b.host = host;
    }
    return b.backend;
  }
  const auto soc = valueOrThrow(frontend::resolveSoc(o));
  auto it = opened().find("sim");
  if (it == opened().end()) {
    startWorkerHost();  // workers must start from a process without an SoC
    Opened b;
    b.backend = valueOrThrow(frontend::openBackend(r.name, o));
    b.socJson = soc.json;
    b.socDescription = soc.description;
    b.host = host;
    return opened().emplace("sim", std::move(b)).first->second.backend;
  }
  const Opened& running = it->second;
  if (running.socJson == soc.json && hostKey(running.host) == hostKey(host)) return running.backend;
  throw Error(
      "the simulated SoC elaborates once per process, and this process runs it with other "
      "settings: " +
      differences(running, soc.json, host) + " (running: " + running.socDescription +
      "; asked for: " + soc.description +
      "). Prepare on sim with the settings of the first prepare, or in another process "
      "(multiprocessing with the 'spawn' start method)");
}

}  // namespace nncosim::python
