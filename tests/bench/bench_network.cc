// bench_network: a whole network's simulation speed on the SoC against the bare
// Verilated loop, on exactly the command streams of a real run, side by side in one
// process.
//
// The model is compiled and executed once through the driver on the simulated SoC with
// a recording NpuDevice in between, which keeps every device write (constants, packed
// inputs), every job (its commands) and every read (the bytes the device returned).
// Then, alternating, each repetition runs
//   bare      the recorded writes and jobs on sim::BareNpu: the Verilated NPU and the
//             SoC's AXI transactors clocked from plain C++ over a flat memory;
//   soc jobs  the same writes and jobs on the SoC through SimNpuDevice (the runtime's
//             device: encoding, reset, ring, doorbell, quantum-chunked wait, counters);
//   execute   the whole execution again (PreparedModel::execute: constant upload, host
//             packing, CPU steps, the jobs), the wall `nncosim run` reports as execution;
//   prepare + execute  the model compiled afresh and executed: a process's work but for
//             loading the model, elaborating the SoC and writing the report;
// and prints the medians: NPU cycles, wall seconds, M simulated cycles/s, and each
// rate against the bare loop, by wall time and by this thread's CPU time (which other
// processes on a shared machine do not inflate). Every job's cycles must agree between
// the recorded run and both replays, and every read of a replay must return the
// recorded bytes.
//
//   bench_network [MODEL.json] [--inputs FILE.json] [--reps N] [--preference P]
//                 [--set key=value]... [--verbose]
//
// Without a model it runs the embedded demo network (ctest's bench.network_demo does, with
// one repetition, for the agreement of cycles and bytes; the figures are not checked).
// Exit status: 0 ok, 1 a run failed or the replays disagree, 2 usage.
#include "Vnnc_npu_top.h"  // Verilator before SystemC

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "driver/api/nnapi_driver.h"
#include "driver/runtime/soc/sim_npu_device.h"
#include "firmware/job.h"
#include "hal/json_values.h"
#include "hal/model_file.h"
#include "sim/bare_npu.h"
#include "sim/device.h"
#include "verify/models/demo_network.h"

using namespace nncosim;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// What the runtime did to the device, in order.
struct TraceOp {
  enum Kind { kWrite, kRun, kRead } kind = kWrite;
  uint64_t address = 0;
  std::vector<uint8_t> bytes;               // written, or what the read returned
  std::vector<firmware::Command> commands;  // kRun
  std::vector<uint8_t> ring;                // kRun: the commands as the ring holds them
  uint64_t cycles = 0;                      // kRun: the job's cycles in the recorded run
};

// An NpuDevice in front of another that records writes, jobs and reads while on.
class RecordingDevice : public driver::NpuDevice {
 public:
  explicit RecordingDevice(driver::NpuDevice& inner) : inner_(inner) {}
  void record(bool on) { on_ = on; }
  std::vector<TraceOp>& trace() { return trace_; }

  std::string name() const override { return inner_.name(); }
  driver::NpuConfig config() const override { return inner_.config(); }
  hal::Result<uint64_t> allocate(uint64_t bytes, const std::string& name) override {
    NNC_ASSIGN_OR_RETURN(auto a, inner_.allocate(bytes, name));
    end_ = std::max(end_, a + bytes);
    return a;
  }
  // The end of the highest allocation: every address a job may touch lies below.
  uint64_t allocationEnd() const { return end_; }
  void freeAll() override { inner_.freeAll(); }
  hal::Status write(uint64_t address, const void* data, size_t bytes) override {
    if (on_) {
      TraceOp op;
      op.kind = TraceOp::kWrite;
      op.address = address;
      op.bytes.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + bytes);
      trace_.push_back(std::move(op));
    }
    return inner_.write(address, data, bytes);
  }
  hal::Status read(uint64_t address, void* data, size_t bytes) override {
    NNC_TRY(inner_.read(address, data, bytes));
    if (on_) {
      TraceOp op;
      op.kind = TraceOp::kRead;
      op.address = address;
      op.bytes.assign(static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + bytes);
      trace_.push_back(std::move(op));
    }
    return hal::Status::Ok();
  }
  hal::Result<driver::JobStats> run(const std::vector<firmware::Command>& commands) override {
    auto stats = inner_.run(commands);
    if (on_ && stats.ok()) {
      TraceOp op;
      op.kind = TraceOp::kRun;
      op.commands = commands;
      NNC_ASSIGN_OR_RETURN(auto words, firmware::encodeStream(commands));
      op.ring = firmware::toBytes(words);
      op.cycles = stats->cycles;
      trace_.push_back(std::move(op));
    }
    return stats;
  }
  std::vector<UnitSpan> unitTimeline() const override { return inner_.unitTimeline(); }
  std::vector<CommandSpan> commandTimeline() const override { return inner_.commandTimeline(); }
  void resetTimeline() override { inner_.resetTimeline(); }

 private:
  driver::NpuDevice& inner_;
  bool on_ = false;
  std::vector<TraceOp> trace_;
  uint64_t end_ = 0;
};

// This thread's CPU time: on a shared machine, the rates by CPU time hold still when other
// processes take the cores (wall time then counts their share too).
double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Measure {
  uint64_t cycles = 0;
  double seconds = 0, cpu = 0;  // wall and this thread's CPU time
  double rate() const { return seconds > 0 ? cycles / seconds : 0; }
  double cpuRate() const { return cpu > 0 ? cycles / cpu : 0; }
};

// Wall and CPU time from construction to stop().
class Timer {
 public:
  Timer() : t0_(Clock::now()), c0_(threadCpuSeconds()) {}
  void stop(Measure& m) const {
    m.seconds = secondsSince(t0_);
    m.cpu = threadCpuSeconds() - c0_;
  }

 private:
  Clock::time_point t0_;
  double c0_;
};

// A replay's outcome: its measure, each job's cycles, and the first disagreement.
struct Replay {
  Measure m;
  std::vector<uint64_t> jobCycles;
  std::string error;
};

// Replays the trace through `write`, `run` (the job's cycles or an error) and `read`.
template <typename Write, typename Run, typename Read>
Replay replay(const std::vector<TraceOp>& trace, Write write, Run run, Read read) {
  Replay r;
  std::vector<uint8_t> got;
  const Timer timer;
  for (size_t i = 0; i < trace.size() && r.error.empty(); ++i) {
    const TraceOp& op = trace[i];
    switch (op.kind) {
      case TraceOp::kWrite:
        if (auto st = write(op); !st.ok()) r.error = st.error();
        break;
      case TraceOp::kRun: {
        auto c = run(op);
        if (!c.ok()) {
          r.error = "job " + std::to_string(r.jobCycles.size()) + ": " + c.error();
          break;
        }
        r.jobCycles.push_back(*c);
        r.m.cycles += *c;
        break;
      }
      case TraceOp::kRead:
        got.resize(op.bytes.size());
        if (auto st = read(op, got); !st.ok())
          r.error = st.error();
        else if (got != op.bytes)
          r.error = "the read of " + std::to_string(op.bytes.size()) + " bytes at trace entry " +
                    std::to_string(i) + " differs from the recorded run";
        break;
    }
  }
  timer.stop(r.m);
  return r;
}

// The median wall time and the median CPU time (each on its own).
Measure median(std::vector<Measure> v) {
  Measure m = v[0];
  std::sort(v.begin(), v.end(),
            [](const Measure& a, const Measure& b) { return a.seconds < b.seconds; });
  m.seconds = v[v.size() / 2].seconds;
  std::sort(v.begin(), v.end(), [](const Measure& a, const Measure& b) { return a.cpu < b.cpu; });
  m.cpu = v[v.size() / 2].cpu;
  return m;
}

// {"inputs": [{"data": [...]}, ...]} in the model's input order (as `nncosim run --inputs`).
hal::Result<std::vector<hal::TensorValue>> readInputs(const std::string& path,
                                                      const hal::Model& m) {
  NNC_ASSIGN_OR_RETURN(auto j, hal::readJsonFile(path));
  auto it = j.find("inputs");
  if (it == j.end() || !it->is_array() || it->size() != m.main.inputIndexes.size())
    return hal::fail(path, ".inputs: expected an array of ", m.main.inputIndexes.size(), " inputs");
  std::vector<hal::TensorValue> out;
  for (size_t k = 0; k < it->size(); ++k) {
    const hal::Operand& o = m.main.operands[m.main.inputIndexes[k]];
    const auto data = (*it)[k].find("data");
    if (data == (*it)[k].end()) return hal::fail(path, ".inputs[", k, "].data: missing");
    hal::TensorValue v;
    v.type = o.type;
    v.dimensions = o.dimensions;
    NNC_ASSIGN_OR_RETURN(v.bytes, hal::valuesToBytes(*data, o.type, path + ".inputs"));
    out.push_back(std::move(v));
  }
  return out;
}

// Inputs without a file: every byte from a fixed pseudo-random sequence.
std::vector<hal::TensorValue> syntheticInputs(const hal::Model& m) {
  std::vector<hal::TensorValue> out;
  uint32_t x = 12345;
  for (uint32_t idx : m.main.inputIndexes) {
    const hal::Operand& o = m.main.operands[idx];
    hal::TensorValue v;
    v.type = o.type;
    v.dimensions = o.dimensions;
    size_t n = hal::elementSize(o.type);
    for (uint32_t d : o.dimensions) n *= d;
    v.bytes.resize(n);
    for (uint8_t& b : v.bytes) b = static_cast<uint8_t>((x = x * 1103515245u + 12345u) >> 24);
    out.push_back(std::move(v));
  }
  return out;
}

int usage() {
  std::fprintf(stderr,
               "usage: bench_network [MODEL.json] [--inputs FILE.json] [--reps N] "
               "[--preference low_power|fast_single_answer|sustained_speed] [--set key=value]... "
               "[--verbose]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string modelPath, inputsPath;
  int reps = 5;
  bool verbose = false;
  hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
  sim::SocConfig cfg;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool hasValue = i + 1 < argc;
    if (a == "--inputs" && hasValue) {
      inputsPath = argv[++i];
    } else if (a == "--reps" && hasValue) {
      reps = std::atoi(argv[++i]);
      if (reps < 1) return usage();
    } else if (a == "--preference" && hasValue) {
      const std::string p = argv[++i];
      if (p == "low_power")
        preference = hal::ExecutionPreference::LOW_POWER;
      else if (p == "fast_single_answer")
        preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
      else if (p == "sustained_speed")
        preference = hal::ExecutionPreference::SUSTAINED_SPEED;
      else
        return usage();
    } else if (a == "--set" && hasValue) {
      if (auto st = cfg.set(argv[++i]); !st.ok()) {
        std::fprintf(stderr, "bench_network: --set: %s\n", st.error().c_str());
        return 2;
      }
    } else if (a == "--verbose") {
      verbose = true;
    } else if (a[0] != '-' && modelPath.empty()) {
      modelPath = a;
    } else {
      return usage();
    }
  }
  hal::Result<hal::Model> model = hal::Model{};
  const bool demo = modelPath.empty();
  if (demo) {
    model = verify::demoNetwork();
    modelPath = "demo network (embedded)";
  } else {
    model = hal::readModelFile(modelPath);
  }
  if (!model) {
    std::fprintf(stderr, "bench_network: %s\n", model.error().c_str());
    return 1;
  }
  std::vector<hal::TensorValue> inputs;
  if (inputsPath.empty()) {
    inputs = demo ? verify::demoInputs(*model) : syntheticInputs(*model);
  } else {
    auto in = readInputs(inputsPath, *model);
    if (!in) {
      std::fprintf(stderr, "bench_network: %s\n", in.error().c_str());
      return 1;
    }
    inputs = std::move(*in);
  }
  auto dev = sim::Device::open(cfg);
  if (!dev) {
    std::fprintf(stderr, "bench_network: %s\n", dev.error().c_str());
    return 1;
  }
  driver::SimNpuDevice soc(**dev);
  RecordingDevice recorder(soc);
  driver::DriverOptions dopt;
  dopt.clockMHz = cfg.clockMHz;
  driver::NnapiDriver drv(&recorder, dopt);

  auto t0 = Clock::now();
  auto prepared = drv.prepareModel(*model, preference);
  const double compileSeconds = secondsSince(t0);
  if (!prepared) {
    std::fprintf(stderr, "bench_network: %s: %s\n", modelPath.c_str(), prepared.error().c_str());
    return 1;
  }
  recorder.record(true);
  t0 = Clock::now();
  auto first = (*prepared)->execute(inputs);
  const double firstSeconds = secondsSince(t0);
  recorder.record(false);
  if (!first) {
    std::fprintf(stderr, "bench_network: execution failed: %s\n", first.error().c_str());
    return 1;
  }
  const std::vector<TraceOp>& trace = recorder.trace();
  std::vector<uint64_t> recorded;
  uint64_t commands = 0;
  for (const TraceOp& op : trace) {
    if (op.kind != TraceOp::kRun) continue;
    recorded.push_back(op.cycles);
    commands += op.commands.size();
  }
  // The bare loop's memory: the ring and the allocations, nothing more. A job's DMA stays
  // inside its buffers (the SoC's windows enforced that on the recorded run).
  sim::BareNpu bare(cfg, recorder.allocationEnd() - cfg.dramBase);

  std::vector<Measure> bareRuns, socRuns, execRuns, compileRuns;
  std::string failure;
  auto check = [&](const char* what, const Replay& r) {
    if (!failure.empty()) return;
    if (!r.error.empty()) {
      failure = std::string(what) + ": " + r.error;
      return;
    }
    for (size_t j = 0; j < recorded.size(); ++j)
      if (j >= r.jobCycles.size() || r.jobCycles[j] != recorded[j]) {
        failure = std::string(what) + ": job " + std::to_string(j) + " took " +
                  (j < r.jobCycles.size() ? std::to_string(r.jobCycles[j]) : "no") +
                  " cycles, the recorded run " + std::to_string(recorded[j]);
        return;
      }
  };
  for (int rep = 0; rep < reps && failure.empty(); ++rep) {
    const Replay b = replay(
        trace,
        [&](const TraceOp& op) { return bare.write(op.address, op.bytes.data(), op.bytes.size()); },
        [&](const TraceOp& op) -> hal::Result<uint64_t> {
          if (op.ring.size() / firmware::kCommandBytes >= firmware::kRingSlots)
            return hal::fail("does not fit the ring");
          sim::PerfCounters perf;
          const sim::JobResult jr = bare.run(op.ring, 2'000'000'000ull, &perf);
          if (!jr.completed) return hal::fail(jr.describe());
          return jr.cycles;
        },
        [&](const TraceOp& op, std::vector<uint8_t>& got) {
          return bare.read(op.address, got.data(), got.size());
        });
    check("bare loop", b);
    soc.resetTimeline();
    const Replay s = replay(
        trace,
        [&](const TraceOp& op) { return soc.write(op.address, op.bytes.data(), op.bytes.size()); },
        [&](const TraceOp& op) -> hal::Result<uint64_t> {
          NNC_ASSIGN_OR_RETURN(auto st, soc.run(op.commands));
          return st.cycles;
        },
        [&](const TraceOp& op, std::vector<uint8_t>& got) {
          return soc.read(op.address, got.data(), got.size());
        });
    check("SoC jobs", s);
    // The outputs and cycles of an execution must be the first run's.
    auto agrees = [&](const char* what, const hal::Result<driver::ExecutionResult>& x, Measure& m) {
      if (!x) {
        if (failure.empty()) failure = std::string(what) + ": " + x.error();
        return;
      }
      m.cycles = x->report.npuCycles;
      if (failure.empty() && m.cycles != first->report.npuCycles)
        failure = std::string(what) + ": " + std::to_string(m.cycles) +
                  " NPU cycles, the first run " + std::to_string(first->report.npuCycles);
      if (failure.empty() && x->outputs.size() != first->outputs.size())
        failure = std::string(what) + ": a different number of outputs";
      for (size_t k = 0; k < x->outputs.size() && failure.empty(); ++k)
        if (x->outputs[k].bytes != first->outputs[k].bytes)
          failure =
              std::string(what) + ": output " + std::to_string(k) + " differs from the first run's";
    };
    // The model's execution as `nncosim run` times it. The model prepared again below
    // took the device over, so this one uploads its constants first, as a first
    // execution does.
    Measure e;
    const Timer executing;
    auto x = (*prepared)->execute(inputs);
    executing.stop(e);
    agrees("execution", x, e);
    // Compile and execute afresh: what a process adds to the execution, but for loading
    // the model, elaborating the SoC and writing the report.
    Measure c;
    const Timer preparing;
    {
      auto again = drv.prepareModel(*model, preference);
      if (!again) {
        if (failure.empty()) failure = "prepare again: " + again.error();
      } else {
        agrees("prepare and execute", (*again)->execute(inputs), c);
      }
    }
    preparing.stop(c);
    bareRuns.push_back(b.m);
    socRuns.push_back(s.m);
    execRuns.push_back(e);
    compileRuns.push_back(c);
    if (verbose)
      std::printf(
          "rep %d: wall (CPU) s: bare %.3f (%.3f), SoC jobs %.3f (%.3f), execute %.3f (%.3f), "
          "prepare + execute %.3f (%.3f)\n",
          rep + 1, b.m.seconds, b.m.cpu, s.m.seconds, s.m.cpu, e.seconds, e.cpu, c.seconds, c.cpu);
  }
  if (!failure.empty()) {
    std::fprintf(stderr, "bench_network: %s\n", failure.c_str());
    return 1;
  }
  const Measure mb = median(bareRuns), ms = median(socRuns), me = median(execRuns),
                mc = median(compileRuns);
  std::printf("%s: %zu NPU jobs, %llu commands; medians of %d alternating runs in one process\n",
              modelPath.c_str(), recorded.size(), static_cast<unsigned long long>(commands), reps);
  std::printf("%-34s %11s %8s %11s %8s %8s %11s %8s\n", "", "NPU cycles", "wall s", "M cycles/s",
              "vs bare", "CPU s", "M cycles/s", "vs bare");
  auto row = [&](const char* name, const Measure& m) {
    std::printf("%-34s %11llu %8.3f %11.3f %8.3f %8.3f %11.3f %8.3f\n", name,
                static_cast<unsigned long long>(m.cycles), m.seconds, m.rate() / 1e6,
                m.rate() / mb.rate(), m.cpu, m.cpuRate() / 1e6, m.cpuRate() / mb.cpuRate());
  };
  row("bare Verilated loop (same jobs)", mb);
  row("SoC, the same jobs (SimNpuDevice)", ms);
  row("SoC, whole execution (execute)", me);
  row("SoC, prepare (compile) + execute", mc);
  std::printf(
      "first prepare (compile) %.3f s, first execution %.3f s\n"
      "cycles: all %zu jobs agree between the recorded run, the bare loop and the SoC replay, "
      "every read returned the recorded bytes, every execution the first one's cycles and "
      "outputs\n",
      compileSeconds, firstSeconds, recorded.size());
  return 0;
}
