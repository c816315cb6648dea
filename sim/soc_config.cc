#include "sim/soc_config.h"

#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

namespace nncosim::sim {
namespace {

// One table of keys: name, setter from an unsigned/double value, getter for printing.
struct Key {
  const char* name;
  const char* doc;
  std::function<hal::Status(SocConfig&, double)> set;
  std::function<double(const SocConfig&)> get;
};

template <typename T>
Key uintKey(const char* name, const char* doc, T SocConfig::*field, double lo, double hi) {
  return Key{name, doc,
             [=](SocConfig& c, double v) -> hal::Status {
               if (v < lo || v > hi || v != static_cast<double>(static_cast<uint64_t>(v)))
                 return hal::fail(name, ": ", v, " must be an integer in [", lo, ", ", hi, "]");
               c.*field = static_cast<T>(v);
               return hal::Status::Ok();
             },
             [=](const SocConfig& c) { return static_cast<double>(c.*field); }};
}

// A size the RTL fixes when it is built: any other value fails here, naming the built size,
// rather than when the device is opened (until the array size becomes a build parameter).
Key builtKey(const char* name, const char* doc, uint32_t SocConfig::*field, uint32_t built) {
  return Key{name, doc,
             [=](SocConfig& c, double v) -> hal::Status {
               if (v != built)
                 return hal::fail(name, ": ", v, " is not the built size ", built,
                                  " (the RTL's MAC array is ", firmware::kArrayRows, "x",
                                  firmware::kArrayCols, ", fixed at build time)");
               c.*field = built;
               return hal::Status::Ok();
             },
             [=](const SocConfig& c) { return static_cast<double>(c.*field); }};
}

// A buffer capacity: a power of two from 1 KiB up to what the buffer address reaches.
Key bufferKey(const char* name, const char* doc, uint32_t SocConfig::*field) {
  return Key{name, doc,
             [=](SocConfig& c, double v) -> hal::Status {
               const double hi = static_cast<double>(uint64_t{1} << firmware::kBufAddrBits);
               const auto u = static_cast<uint64_t>(v);
               if (v < 1024 || v > hi || static_cast<double>(u) != v || (u & (u - 1)) != 0)
                 return hal::fail(name, ": ", v, " must be a power of two in [1024, ", hi, "]");
               c.*field = static_cast<uint32_t>(u);
               return hal::Status::Ok();
             },
             [=](const SocConfig& c) { return static_cast<double>(c.*field); }};
}

const std::vector<Key>& keys() {
  static const std::vector<Key> k = {
      builtKey("array_rows", "MAC array rows", &SocConfig::arrayRows, firmware::kArrayRows),
      builtKey("array_cols", "MAC array columns", &SocConfig::arrayCols, firmware::kArrayCols),
      bufferKey("inp_buf_bytes", "INP buffer bytes (isa; sim: the built size)",
                &SocConfig::inpBufBytes),
      bufferKey("wgt_buf_bytes", "WGT buffer bytes (isa; sim: the built size)",
                &SocConfig::wgtBufBytes),
      bufferKey("acc_buf_bytes", "ACC buffer bytes (isa; sim: the built size)",
                &SocConfig::accBufBytes),
      bufferKey("out_buf_bytes", "OUT buffer bytes (isa; sim: the built size)",
                &SocConfig::outBufBytes),
      bufferKey("prm_buf_bytes", "PRM buffer bytes (isa; sim: the built size)",
                &SocConfig::prmBufBytes),
      uintKey("dram_base", "DRAM base address", &SocConfig::dramBase, 0, 1ull << 47),
      uintKey("dram_bytes", "DRAM size in bytes", &SocConfig::dramBytes, 4096, 16ull << 30),
      uintKey("dram_latency_cycles", "DRAM latency (cycles to the first beat)",
              &SocConfig::dramLatencyCycles, 0, 100000),
      uintKey("dram_bytes_per_cycle", "DRAM bandwidth (bytes per cycle)",
              &SocConfig::dramBytesPerCycle, 1, 4096),
      uintKey("dram_read_qos",
              "DRAM answers reads by ARQOS, command fetches first (1) or in request order (0)",
              &SocConfig::dramReadQos, 0, 1),
      uintKey("npu_reg_base", "NPU register block base address", &SocConfig::npuRegBase, 0,
              1ull << 47),
      uintKey("quantum_cycles", "NPU cycles between SystemC synchronisations",
              &SocConfig::quantumCycles, 1, 1000000),
      uintKey("watchdog_cycles", "cycles without progress before the watchdog ends a job (0 = off)",
              &SocConfig::watchdogCycles, 0, 1ull << 32),
      uintKey("fault_write_xor",
              "fault injection: XOR mask on the first byte of every NPU DRAM write burst (0 = off)",
              &SocConfig::faultWriteXor, 0, 255),
      Key{"clock_mhz", "NPU clock frequency (MHz)",
          [](SocConfig& c, double v) -> hal::Status {
            if (!(v > 0 && v <= 10000))
              return hal::fail("clock_mhz: ", v, " must be in (0, 10000]");
            c.clockMHz = v;
            return hal::Status::Ok();
          },
          [](const SocConfig& c) { return c.clockMHz; }},
  };
  return k;
}

}  // namespace

hal::Status SocConfig::set(const std::string& keyValue) {
  const auto eq = keyValue.find('=');
  if (eq == std::string::npos) return hal::fail("config '", keyValue, "': expected key=value");
  const std::string key = keyValue.substr(0, eq), value = keyValue.substr(eq + 1);
  for (const auto& k : keys()) {
    if (key != k.name) continue;
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0') {
      // Accept hex integers too (addresses).
      const unsigned long long x = std::strtoull(value.c_str(), &end, 0);
      if (value.empty() || *end != '\0')
        return hal::fail("config ", key, ": '", value, "' is not a number");
      return k.set(*this, static_cast<double>(x));
    }
    return k.set(*this, v);
  }
  std::string known;
  for (const auto& k : keys()) known += std::string(known.empty() ? "" : ", ") + k.name;
  return hal::fail("config: unknown key '", key, "' (known: ", known, ")");
}

hal::Result<SocConfig> SocConfig::fromFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return hal::fail(path, ": cannot open config file");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception& e) {
    return hal::fail(path, ": malformed JSON: ", e.what());
  }
  if (!j.is_object()) return hal::fail(path, ": expected a JSON object of config keys");
  SocConfig c;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_number()) return hal::fail(path, ": ", it.key(), ": expected a number");
    std::ostringstream kv;
    kv.precision(17);
    kv << it.key() << "=" << it->get<double>();
    if (auto st = c.set(kv.str()); !st.ok()) return hal::fail(path, ": ", st.error());
  }
  return c;
}

std::vector<std::string> SocConfig::buffersNotBuilt() const {
  const std::pair<const char*, std::pair<uint32_t, uint32_t>> all[] = {
      {"inp_buf_bytes", {inpBufBytes, firmware::kInpBufBytes}},
      {"wgt_buf_bytes", {wgtBufBytes, firmware::kWgtBufBytes}},
      {"acc_buf_bytes", {accBufBytes, firmware::kAccBufBytes}},
      {"out_buf_bytes", {outBufBytes, firmware::kOutBufBytes}},
      {"prm_buf_bytes", {prmBufBytes, firmware::kPrmBufBytes}}};
  std::vector<std::string> out;
  for (const auto& [name, v] : all)
    if (v.first != v.second)
      out.push_back(std::string(name) + " " + std::to_string(v.first) + " (built " +
                    std::to_string(v.second) + ")");
  return out;
}

std::string SocConfig::describe() const {
  std::ostringstream os;
  os << "SoC: " << arrayRows << "x" << arrayCols << " MAC array at " << clockMHz << " MHz; DRAM "
     << (dramBytes >> 20) << " MiB, latency " << dramLatencyCycles << " cycles, "
     << dramBytesPerCycle << " B/cycle, reads " << (dramReadQos ? "by ARQOS" : "in order")
     << "; quantum " << quantumCycles << " cycles; watchdog " << watchdogCycles << " cycles";
  for (const std::string& b : buffersNotBuilt()) os << "; " << b;
  // Said in every run's output: a faulty run must never pass for a real one.
  if (faultWriteXor)
    os << "; FAULT INJECTED: NPU DRAM writes XOR 0x" << std::hex << faultWriteXor << std::dec
       << " on each burst's first byte";
  return os.str();
}

std::string SocConfig::toJson() const {
  nlohmann::json j;
  for (const auto& k : keys()) j[k.name] = k.get(*this);
  return j.dump();
}

}  // namespace nncosim::sim
