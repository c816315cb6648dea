// bench_soc: simulated cycles per second of the whole SoC (Verilated NPU inside the
// SystemC platform, through the device layer) against the bare Verilated NPU loop
// (the same C++ AXI transactors, no SystemC) on the same workload, measured side by
// side in one run. The workload is a GEMM sequence with operands resident on chip.
#include "Vnnc_npu_top.h"  // Verilator before SystemC
#include "verilated.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <sstream>

#include "firmware/isa_generated.h"
#include "firmware/job.h"
#include "sim/address_windows.h"
#include "sim/axi_lite_master.h"
#include "sim/axi_memory_port.h"
#include "sim/device.h"
#include "testbench/testbench.h"

namespace nncosim::testbench {
namespace {

namespace fw = firmware;
using Clock = std::chrono::steady_clock;

// The job: load a 16 x K activation tile and a K x 16 weight tile once, then `gemms`
// GEMMs over them (alternating accumulate), then END.
std::vector<fw::Command> workload(uint32_t dramA, uint32_t dramB, uint32_t K, uint32_t gemms) {
  std::vector<fw::Command> job;
  auto add = [&](fw::CommandArgs a, fw::Deps d = {}) {
    fw::Command c;
    c.deps = d;
    c.args = std::move(a);
    job.push_back(c);
  };
  fw::DmaLoad la;
  la.bufId = fw::Buffer::kInp;
  la.dramAddr = dramA;
  la.count0 = K * fw::kArrayRows;
  add(la);
  fw::DmaLoad lb = la;
  lb.bufId = fw::Buffer::kWgt;
  lb.dramAddr = dramB;
  lb.count0 = K * fw::kArrayCols;
  add(lb, {false, false, false, true});
  for (uint32_t g = 0; g < gemms; ++g) {
    fw::Gemm gm;
    gm.aSigned = gm.bSigned = true;
    gm.m = fw::kArrayRows;
    gm.n = fw::kArrayCols;
    gm.k = K;
    gm.accumulate = g % 2 == 1;
    add(gm, {g == 0, false, false, false});
  }
  fw::End end;
  end.irq = true;
  add(end);
  return job;
}

struct Measure {
  uint64_t cycles = 0;
  double seconds = 0;
  double rate() const { return seconds > 0 ? cycles / seconds : 0; }
};

// The bare loop: the Verilated top and the transactors, clocked from plain C++.
Measure runBare(const std::vector<uint8_t>& stream, const std::vector<uint8_t>& a,
                const std::vector<uint8_t>& b, const sim::SocConfig& cfg, uint64_t ringBase,
                uint64_t addrA, uint64_t addrB) {
  VerilatedContext ctx;
  Vnnc_npu_top top(&ctx, "npu");
  std::vector<uint8_t> mem(16u << 20, 0);
  const uint64_t base = cfg.dramBase;
  std::memcpy(mem.data() + (ringBase - base), stream.data(), stream.size());
  std::memcpy(mem.data() + (addrA - base), a.data(), a.size());
  std::memcpy(mem.data() + (addrB - base), b.data(), b.size());
  sim::AddressWindows windows;
  windows.setEnforced(false);
  sim::AxiMemoryPort<Vnnc_npu_top> port(mem.data(), base, mem.size(), windows,
                                        cfg.dramLatencyCycles, cfg.dramBytesPerCycle);
  sim::AxiLiteMaster<Vnnc_npu_top> host;
  uint64_t cycles = 0;
  auto step = [&] {
    top.clk_i = 1;
    top.eval();
    ++cycles;
    port.afterRisingEdge(top);
    host.afterRisingEdge();
    port.driveInputs(top);
    host.driveInputs(top);
    top.clk_i = 0;
    top.eval();
    port.sampleHandshakes(top);
    host.sampleHandshakes(top);
  };
  auto reg = [&](uint32_t off, uint32_t v) {
    sim::RegAccess acc;
    acc.write = true;
    acc.offset = off;
    acc.data = v;
    host.start(&acc);
    while (!acc.done) step();
  };
  top.rst_ni = 0;
  for (int i = 0; i < 8; ++i) step();
  top.rst_ni = 1;
  reg(fw::reg::kRingBase, static_cast<uint32_t>(ringBase));
  reg(fw::reg::kRingSize, fw::kRingSlots);
  reg(fw::reg::kCtrl, fw::reg::kCtrlIrqEn);
  reg(fw::reg::kRingTail, static_cast<uint32_t>(stream.size() / fw::kCommandBytes));
  const auto t0 = Clock::now();
  const uint64_t c0 = cycles;
  reg(fw::reg::kDoorbell, 1);
  while (!top.irq_o && cycles - c0 < 100'000'000) step();
  Measure m;
  m.cycles = cycles - c0;
  m.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  top.final();
  return m;
}

TestbenchResult run(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint32_t K = 1024, gemms = static_cast<uint32_t>(opt.iterations ? opt.iterations : 512);
  sim::SocConfig cfg;
  auto dev = sim::Device::open(cfg);
  if (!dev) {
    res.summary = dev.error();
    return res;
  }
  sim::Device& d = **dev;
  d.unmapAll();
  d.freeAll();
  if (auto st = d.reset(); !st.ok()) {
    res.summary = st.error();
    return res;
  }
  std::vector<uint8_t> a(K * fw::kArrayRows), b(K * fw::kArrayCols);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>(i * 7 + opt.seed);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 13 + 5);
  auto bufA = d.allocate(a.size(), "A"), bufB = d.allocate(b.size(), "B");
  if (!bufA || !bufB) {
    res.summary = "allocation failed";
    return res;
  }
  d.map(*bufA, true, false);
  d.map(*bufB, true, false);
  (void)d.write(bufA->address, a.data(), a.size());
  (void)d.write(bufB->address, b.data(), b.size());
  auto words = fw::encodeStream(workload(static_cast<uint32_t>(bufA->address),
                                         static_cast<uint32_t>(bufB->address), K, gemms));
  if (!words) {
    res.summary = words.error();
    return res;
  }
  const auto stream = fw::toBytes(*words);

  // Alternate SoC and bare runs; report medians.
  const int reps = 3;
  std::vector<Measure> soc, bare;
  for (int r = 0; r < reps; ++r) {
    if (auto st = d.reset(); !st.ok()) {
      res.summary = st.error();
      return res;
    }
    const auto t0 = Clock::now();
    if (auto st = d.submit(stream); !st.ok()) {
      res.summary = st.error();
      return res;
    }
    const auto jr = d.wait(100'000'000);
    Measure m;
    m.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    m.cycles = jr.cycles;
    if (!jr.completed) {
      res.summary = "SoC job: " + jr.describe();
      return res;
    }
    soc.push_back(m);
    bare.push_back(runBare(stream, a, b, cfg, cfg.dramBase, bufA->address, bufB->address));
  }
  auto median = [](std::vector<Measure> v) {
    std::sort(v.begin(), v.end(),
              [](const Measure& x, const Measure& y) { return x.rate() < y.rate(); });
    return v[v.size() / 2];
  };
  const Measure ms = median(soc), mb = median(bare);
  const double ratio = ms.rate() / mb.rate();
  res.iterations = reps;
  res.cycles = ms.cycles;
  // The SoC adds only register accesses around the job; its cycle count must match the bare
  // loop's within the few cycles of the doorbell write.
  const int64_t diff = static_cast<int64_t>(ms.cycles) - static_cast<int64_t>(mb.cycles);
  res.passed = std::llabs(diff) <= 64;
  std::ostringstream os;
  os.precision(3);
  os << "GEMM x" << gemms << " (K=" << K << "): SoC " << ms.cycles << " cycles at "
     << ms.rate() / 1e6 << " M cycles/s, bare Verilated loop " << mb.cycles << " cycles at "
     << mb.rate() / 1e6 << " M cycles/s; ratio " << ratio << " (medians of " << reps
     << " alternating runs)";
  if (!res.passed) os << "; cycle counts differ by " << diff;
  res.summary = os.str();
  return res;
}

TestbenchRegistrar reg{TestbenchDef{
    "bench_soc",
    "Benchmark: SoC (SystemC + device layer) vs bare Verilated loop, same GEMM workload", &run,
    16}};

}  // namespace
}  // namespace nncosim::testbench
