#include "frontend/run_report.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "hal/json_values.h"
#include "ops/shape.h"

namespace nncosim::frontend {
namespace {

using nlohmann::json;

double utilization(const driver::ExecutionReport::Step& s, const RunSummary& r) {
  if (s.target != driver::Target::kNpu || s.stats.cycles == 0) return 0;
  return static_cast<double>(s.macs) / (static_cast<double>(s.stats.cycles) * r.rows * r.cols);
}

uint64_t dramBytes(const driver::ExecutionReport::Step& s) {
  return s.stats.counters.dmaReadBytes + s.stats.counters.dmaWriteBytes;
}

std::string checkText(const driver::ExecutionReport::Step& s, bool checked) {
  if (s.target != driver::Target::kNpu) return "-";
  if (!checked) return "off";
  return s.mismatch.empty() ? "ok" : "MISMATCH";
}

struct Totals {
  uint64_t macs = 0, npuMacs = 0, cycles = 0, dram = 0;
  // The array's timeline (the ISA model's counters; 0 from the SoC) and the depthwise
  // layers' MACs and the cycles charged to them (docs/driver.md, "The depthwise layers'
  // 70 %"): their DWCONVs with the array idle and their steps' starts, or a depthwise step
  // without GEMMs whole; only with a timeline (the SoC's counters have none: 0 there).
  uint64_t arrayBeats = 0, idleDwconv = 0, idleBeforeGemm = 0;
  bool timeline = false;
  uint64_t depthwiseMacs = 0, depthwiseCycles = 0;
  int npu = 0, cpu = 0, mismatches = 0;
  double deviceMicros = 0, hostMicros = 0, endToEndMicros = 0;  // host: the modelled host's
  double utilization = 0, endToEndUtilization = 0;              // of device / end-to-end time
};

// The modelled host time before a step's job (packing and copies in) and after it.
double hostBeforeNanos(const driver::ExecutionReport& rep, const driver::ExecutionReport::Step& s) {
  driver::HostBytes in;
  in.packed = s.host.bytes.packed;
  in.copiedIn = s.host.bytes.copiedIn;
  return rep.hostModel.passNanos(in);
}

std::string upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

template <typename Dma>
uint64_t dmaBytes(const Dma& d) {
  return uint64_t{d.count0} * d.count1 * d.count2 << static_cast<uint32_t>(d.elemWidth);
}

// A trace slice's name: the opcode and the fields that say how much work it is.
std::string commandLabel(const firmware::Command& c) {
  std::ostringstream os;
  os << upper(firmware::toString(c.opcode()));
  if (const auto* d = std::get_if<firmware::DmaLoad>(&c.args)) {
    os << " " << upper(firmware::toString(d->bufId)) << " " << dmaBytes(*d) << " B";
    if (d->fill) os << " fill";
  } else if (const auto* d = std::get_if<firmware::DmaStore>(&c.args)) {
    os << " " << upper(firmware::toString(d->bufId)) << " " << dmaBytes(*d) << " B";
  } else if (const auto* g = std::get_if<firmware::Gemm>(&c.args)) {
    os << " m=" << g->m << " n=" << g->n << " k=" << g->k;
  } else if (const auto* q = std::get_if<firmware::RequantStore>(&c.args)) {
    os << " rows=" << q->rows;
  } else if (const auto* d = std::get_if<firmware::Densify>(&c.args)) {
    os << " " << d->outSize << " B";
  } else if (const auto* y = std::get_if<firmware::Sync>(&c.args)) {
    os << " " << upper(firmware::toString(y->execQueue));
  }
  return os.str();
}

Totals totalsOf(const RunSummary& r) {
  Totals t;
  for (const auto& s : r.report->steps) {
    t.macs += s.macs;
    if (s.target == driver::Target::kNpu) {
      ++t.npu;
      t.npuMacs += s.macs;
      t.cycles += s.stats.cycles;
      t.dram += dramBytes(s);
      if (!s.mismatch.empty()) ++t.mismatches;
      const driver::InterpreterCounters& k = s.stats.counters;
      t.arrayBeats += k.arrayBeats;
      t.idleDwconv += k.idleDwconv;
      t.idleBeforeGemm += k.idleBeforeGemm;
      t.timeline = t.timeline || k.arrayBeats > 0 || k.dwconvBusy > 0;
      if (s.depthwiseMacs) {
        t.depthwiseMacs += s.depthwiseMacs;
        t.depthwiseCycles += k.arrayBeats ? k.idleDwconv + k.idleBeforeGemm : s.stats.cycles;
      }
    } else {
      ++t.cpu;
    }
  }
  if (!t.timeline) t.depthwiseCycles = 0;
  t.deviceMicros = t.cycles / r.clockMHz;
  t.hostMicros = r.report->hostNanos / 1000.0;
  t.endToEndMicros = t.deviceMicros + t.hostMicros;
  const double peak = static_cast<double>(r.rows) * r.cols;  // MACs per device cycle
  if (t.cycles)
    t.utilization = static_cast<double>(t.npuMacs) / (static_cast<double>(t.cycles) * peak);
  if (t.endToEndMicros > 0)
    t.endToEndUtilization = static_cast<double>(t.npuMacs) / (t.endToEndMicros * r.clockMHz * peak);
  return t;
}

}  // namespace

void printRunTable(std::ostream& os, const RunSummary& r) {
  if (!r.report) return;
  // Wide enough for the longest operation name of the run (QUANTIZED_16BIT_LSTM is 20).
  int opWidth = 20;
  for (const auto& s : r.report->steps)
    opWidth =
        std::max(opWidth, static_cast<int>(std::string_view(hal::toString(s.type)).size()) + 2);
  os << std::left << std::setw(5) << "step" << std::setw(opWidth) << "operation" << std::setw(6)
     << "where" << std::right << std::setw(12) << "MACs" << std::setw(11) << "cycles"
     << std::setw(7) << "util" << std::setw(12) << "DRAM bytes" << std::setw(12) << "host bytes"
     << std::setw(10) << "host us" << std::setw(11) << "energy uJ" << std::setw(9) << "check"
     << "  note\n";
  for (const auto& s : r.report->steps) {
    const bool npu = s.target == driver::Target::kNpu;
    std::ostringstream util;
    if (npu)
      util << std::fixed << std::setprecision(1) << 100.0 * utilization(s, r) << "%";
    else
      util << "-";
    os << std::left << std::setw(5) << s.operation << std::setw(opWidth) << hal::toString(s.type)
       << std::setw(6) << (npu ? "npu" : "cpu") << std::right << std::setw(12) << s.macs
       << std::setw(11) << (npu ? std::to_string(s.stats.cycles) : std::string("-")) << std::setw(7)
       << util.str() << std::setw(12) << (npu ? std::to_string(dramBytes(s)) : std::string("-"))
       << std::setw(12) << s.host.bytes.dramBytes() << std::setw(10) << std::fixed
       << std::setprecision(2) << s.hostNanos / 1000.0 << std::setw(11) << s.energy.total() / 1e6
       << std::setw(9) << checkText(s, r.checked) << "  "
       << (s.mismatch.empty() ? s.note : s.mismatch) << "\n";
  }
  const Totals t = totalsOf(r);
  const driver::ExecutionReport& rep = *r.report;
  os << std::fixed << std::setprecision(1);
  os << "total: " << t.npu << " steps on the NPU, " << t.cpu << " on the CPU; " << t.macs
     << " MACs (" << t.npuMacs << " on the NPU)\n";
  os << "  end to end " << t.endToEndMicros << " us = device " << t.cycles << " cycles ("
     << t.deviceMicros << " us at " << r.clockMHz << " MHz) + host " << t.hostMicros
     << " us (modelled; " << (rep.host.passNanos + rep.host.cpuNanos) / 1000.0
     << " us measured here";
  if (rep.host.cpuColdNanos > 0)
    os << "; short CPU kernels at the fastest of 5 warm runs, their first runs "
       << rep.host.cpuColdNanos / 1000.0 << " us";
  os << ")\n";
  os << "  MAC utilization " << 100.0 * t.endToEndUtilization << "% of the end-to-end time ("
     << 100.0 * t.utilization << "% of the device cycles alone)\n";
  if (t.arrayBeats && t.cycles) {
    // The ISA model's timeline (the SoC counts no beats).
    os << "  array (the ISA model's timeline): GEMM beats " << t.arrayBeats << " cycles ("
       << 100.0 * static_cast<double>(t.arrayBeats) / static_cast<double>(t.cycles)
       << "% of the device cycles); idle while DWCONVs run " << t.idleDwconv
       << ", before the jobs' first GEMMs " << t.idleBeforeGemm << "\n";
    if (t.depthwiseMacs && t.depthwiseCycles)
      os << "  depthwise layers: " << t.depthwiseMacs << " MACs, " << t.depthwiseCycles
         << " cycles charged to them (their DWCONVs with the array idle, their jobs' starts): "
         << 100.0 * static_cast<double>(t.depthwiseMacs) /
                (static_cast<double>(t.depthwiseCycles) * r.rows * r.cols)
         << "% of the array\n";
  }
  os << "  DRAM: NPU " << t.dram << " bytes, host " << rep.host.bytes.dramBytes()
     << " bytes; host layout passes " << rep.host.bytes.layoutBytes() << " bytes (packed "
     << rep.host.bytes.packed << ", copied " << rep.host.bytes.copiedIn + rep.host.bytes.copiedOut
     << ", unpacked " << rep.host.bytes.unpacked << "), of them between NPU steps "
     << rep.host.bytes.betweenNpuSteps << "\n";
  const driver::EnergyBreakdown& e = rep.energy;
  os << std::setprecision(2) << "  energy " << e.total() / 1e6 << " uJ (MACs " << e.mac / 1e6
     << ", SRAM " << e.sram / 1e6 << ", NPU DRAM " << e.dram / 1e6 << ", command fetch "
     << e.fetch / 1e6 << ", clock and leakage " << e.cycles / 1e6 << ", host DRAM " << e.host / 1e6
     << "; the host core's own energy is not modelled)\n"
     << std::setprecision(1);
  if (rep.uploadBytes)
    os << "  constants uploaded once per preparation: " << rep.uploadBytes
       << " bytes (first execution, not in the steps)\n";
  os << "  " << rep.hostModel.describe() << " (docs/driver.md)\n";
  os << std::setprecision(2) << "wall " << r.wallSeconds << " s";
  if (r.wallSeconds > 0 && t.cycles)
    os << ", " << t.cycles / r.wallSeconds / 1e6 << " M simulated cycles/s";
  if (r.checked)
    os << "; cross-check: "
       << (t.mismatches ? std::to_string(t.mismatches) + " NPU steps MISMATCH"
                        : std::string("every NPU step bit-exact"));
  os << "\n";
}

json runReportJson(const RunSummary& r) {
  json j;
  j["model"] = r.model;
  j["backend"] = r.backend;
  j["preference"] = r.preference;
  j["soc"] = r.soc;
  j["array"] = {r.rows, r.cols};
  j["clock_mhz"] = r.clockMHz;
  j["dram_bytes_per_cycle"] = r.dramBytesPerCycle;
  j["validations"] = {{"model", r.modelValidations},
                      {"operation_signatures", r.signatureValidations}};
  j["wall_seconds"] = r.wallSeconds;
  j["checked"] = r.checked;
  json steps = json::array();
  if (r.report) {
    for (const auto& s : r.report->steps) {
      const bool npu = s.target == driver::Target::kNpu;
      json e = {{"step", s.operation},
                {"operation", std::string(hal::toString(s.type))},
                {"where", npu ? "npu" : "cpu"},
                {"macs", s.macs},
                {"note", s.note}};
      if (npu) {
        e["cycles"] = s.stats.cycles;
        e["estimated_cycles"] = s.estimatedCycles;
        e["start_cycle"] = s.startCycle;
        e["utilization"] = utilization(s, r);
        e["dram_read_bytes"] = s.stats.counters.dmaReadBytes;
        e["dram_write_bytes"] = s.stats.counters.dmaWriteBytes;
        e["counters"] = {{"load_busy", s.stats.counters.loadBusy},
                         {"load_stall", s.stats.counters.loadStall},
                         {"compute_busy", s.stats.counters.computeBusy},
                         {"compute_stall", s.stats.counters.computeStall},
                         {"store_busy", s.stats.counters.storeBusy},
                         {"store_stall", s.stats.counters.storeStall},
                         {"densify_busy", s.stats.counters.densifyBusy},
                         {"macs", s.stats.counters.macs},
                         {"array_beats", s.stats.counters.arrayBeats},
                         {"dwconv_busy", s.stats.counters.dwconvBusy},
                         {"idle_dwconv", s.stats.counters.idleDwconv},
                         {"idle_before_gemm", s.stats.counters.idleBeforeGemm}};
        e["depthwise_macs"] = s.depthwiseMacs;
        e["jobs"] = s.stats.jobs;
        e["commands"] = s.stats.counters.commands;  // END of each job included
        e["check"] = checkText(s, r.checked);
        if (!s.mismatch.empty()) e["mismatch"] = s.mismatch;
      }
      e["energy_pj"] = {{"total", s.energy.total()}, {"mac", s.energy.mac},
                        {"sram", s.energy.sram},     {"dram", s.energy.dram},
                        {"fetch", s.energy.fetch},   {"cycles", s.energy.cycles},
                        {"host_dram", s.energy.host}};
      e["host"] = {{"packed_bytes", s.host.bytes.packed},
                   {"copied_in_bytes", s.host.bytes.copiedIn},
                   {"unpacked_bytes", s.host.bytes.unpacked},
                   {"copied_out_bytes", s.host.bytes.copiedOut},
                   {"between_npu_steps_bytes", s.host.bytes.betweenNpuSteps},
                   {"dram_bytes", s.host.bytes.dramBytes()},
                   {"measured_pass_ns", s.host.passNanos},
                   {"measured_cpu_ns", s.host.cpuNanos},
                   {"measured_cpu_cold_ns", s.host.cpuColdNanos},
                   {"model_ns", s.hostNanos}};
      steps.push_back(std::move(e));
    }
    const Totals t = totalsOf(r);
    j["totals"] = {{"npu_steps", t.npu},
                   {"cpu_steps", t.cpu},
                   {"macs", t.macs},
                   {"npu_macs", t.npuMacs},
                   {"npu_cycles", t.cycles},
                   {"dram_bytes", t.dram},
                   {"mismatches", t.mismatches},
                   {"utilization", t.utilization},
                   {"device_us", t.deviceMicros},
                   {"host_model_us", t.hostMicros},
                   {"end_to_end_us", t.endToEndMicros},
                   {"utilization_end_to_end", t.endToEndUtilization},
                   {"depthwise_macs", t.depthwiseMacs},
                   {"depthwise_cycles", t.depthwiseCycles},
                   {"host_dram_bytes", r.report->host.bytes.dramBytes()},
                   {"host_layout_bytes", r.report->host.bytes.layoutBytes()},
                   {"host_bytes_between_npu_steps", r.report->host.bytes.betweenNpuSteps},
                   {"host_measured_ns", r.report->host.passNanos + r.report->host.cpuNanos},
                   {"host_cpu_cold_ns", r.report->host.cpuColdNanos},
                   {"upload_bytes", r.report->uploadBytes},
                   {"energy_uj", r.report->energy.total() / 1e6}};
    j["host_model"] = {{"clock_mhz", r.report->hostModel.clockMHz},
                       {"copy_bytes_per_cycle", r.report->hostModel.copyBytesPerCycle},
                       {"pack_bytes_per_cycle", r.report->hostModel.packBytesPerCycle},
                       {"cpu_scale", r.report->hostModel.cpuScale}};
  }
  j["steps"] = steps;
  json outs = json::array();
  for (const auto& o : r.outputs)
    outs.push_back(
        {{"type", std::string(hal::toString(o.type))},
         {"dimensions", o.dimensions},
         {"data", nlohmann::json::parse(
                      hal::bytesToValues(o.bytes.data(), o.bytes.size(), o.type).dump())}});
  j["outputs"] = outs;
  return j;
}

hal::Status writeRunReport(const RunSummary& r, const std::string& path) {
  const json j = runReportJson(r);
  std::ofstream out(path);
  if (!out) return hal::fail(path, ": cannot write");
  out << j.dump(1) << "\n";
  return out ? hal::Status::Ok() : hal::Status(hal::fail(path, ": write failed"));
}

hal::Status writeRunTrace(const RunSummary& r, const std::string& path) {
  // Chrome trace events in microseconds on the end-to-end timeline: each step takes its
  // device time (at the NPU's clock) and its modelled host time, one after the other.
  // pid 1 = NPU (a thread per unit, and one of steps), pid 2 = host (CPU steps; packing and
  // copies around NPU steps).
  static const char* kUnits[] = {"load", "compute", "store", "densify"};
  json events = json::array();
  events.push_back(
      {{"ph", "M"}, {"pid", 1}, {"name", "process_name"}, {"args", {{"name", "NPU"}}}});
  events.push_back(
      {{"ph", "M"}, {"pid", 2}, {"name", "process_name"}, {"args", {{"name", "host (modelled)"}}}});
  for (int u = 0; u < 4; ++u)
    events.push_back({{"ph", "M"},
                      {"pid", 1},
                      {"tid", u + 1},
                      {"name", "thread_name"},
                      {"args", {{"name", kUnits[u]}}}});
  events.push_back({{"ph", "M"},
                    {"pid", 1},
                    {"tid", 0},
                    {"name", "thread_name"},
                    {"args", {{"name", "steps"}}}});
  events.push_back({{"ph", "M"},
                    {"pid", 2},
                    {"tid", 1},
                    {"name", "thread_name"},
                    {"args", {{"name", "CPU steps"}}}});
  events.push_back({{"ph", "M"},
                    {"pid", 2},
                    {"tid", 2},
                    {"name", "thread_name"},
                    {"args", {{"name", "packing and copies"}}}});
  const double us = 1.0 / r.clockMHz;  // one cycle
  if (r.report) {
    const driver::ExecutionReport& rep = *r.report;
    double cursor = 0;
    // NPU steps in order with the trace time their job clock starts at.
    std::vector<std::pair<const driver::ExecutionReport::Step*, double>> npuSteps;
    for (const auto& s : rep.steps) {
      const std::string name =
          std::to_string(s.operation) + " " + std::string(hal::toString(s.type));
      const json hostArgs = {{"model_ns", s.hostNanos},
                             {"dram_bytes", s.host.bytes.dramBytes()},
                             {"measured_ns", s.host.passNanos + s.host.cpuNanos}};
      if (s.target == driver::Target::kNpu) {
        const double before = hostBeforeNanos(rep, s) / 1000.0,
                     after = s.hostNanos / 1000.0 - before;
        if (before > 0)
          events.push_back({{"ph", "X"},
                            {"pid", 2},
                            {"tid", 2},
                            {"name", name + " in"},
                            {"ts", cursor},
                            {"dur", before},
                            {"args", hostArgs}});
        cursor += before;
        events.push_back({{"ph", "X"},
                          {"pid", 1},
                          {"tid", 0},
                          {"name", name},
                          {"ts", cursor},
                          {"dur", s.stats.cycles * us},
                          {"args", {{"cycles", s.stats.cycles}, {"macs", s.macs}}}});
        npuSteps.push_back({&s, cursor});
        cursor += s.stats.cycles * us;
        if (after > 0)
          events.push_back({{"ph", "X"},
                            {"pid", 2},
                            {"tid", 2},
                            {"name", name + " out"},
                            {"ts", cursor},
                            {"dur", after},
                            {"args", hostArgs}});
        cursor += std::max(after, 0.0);
      } else {
        const double dur = s.hostNanos / 1000.0;
        events.push_back({{"ph", "X"},
                          {"pid", 2},
                          {"tid", 1},
                          {"name", name},
                          {"ts", cursor},
                          {"dur", dur},
                          {"args", hostArgs}});
        cursor += dur;
      }
    }
    // Command slices sit on the job clock (NPU cycles only): each belongs to the last NPU
    // step that started at or before it (steps run one after the other) and moves with it.
    for (const auto& c : r.commands) {
      auto after =
          std::upper_bound(npuSteps.begin(), npuSteps.end(), c.start,
                           [](uint64_t t, const auto& p) { return t < p.first->startCycle; });
      json args = {{"command", firmware::disassemble(c.command)}, {"cycles", c.end - c.start}};
      double shift = 0;
      if (after != npuSteps.begin()) {
        const auto& [step, ts] = *(after - 1);
        args["step"] =
            std::to_string(step->operation) + " " + std::string(hal::toString(step->type));
        shift = ts - step->startCycle * us;
      }
      events.push_back({{"ph", "X"},
                        {"pid", 1},
                        {"tid", c.unit + 1},
                        {"name", commandLabel(c.command)},
                        {"ts", c.start * us + shift},
                        {"dur", (c.end - c.start) * us},
                        {"args", std::move(args)}});
    }
  }
  std::ofstream out(path);
  if (!out) return hal::fail(path, ": cannot write");
  out << json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump() << "\n";
  return out ? hal::Status::Ok() : hal::Status(hal::fail(path, ": write failed"));
}

}  // namespace nncosim::frontend
