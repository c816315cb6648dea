// Shared set-up of the SoC fuzz targets: the process's simulated SoC (one elaboration
// per process), reset between inputs, with one 64 KiB buffer mapped for the NPU and
// filled with a canary so that writes outside the places a job may write show.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sim/device.h"

namespace nncosim::fuzz {

constexpr uint64_t kWindowBytes = 64u << 10;
constexpr uint8_t kCanary = 0xa5;

struct SocFuzzTarget {
  sim::Device* dev = nullptr;
  sim::DeviceBuffer window;

  static SocFuzzTarget& get() {
    static SocFuzzTarget t = [] {
      SocFuzzTarget s;
      sim::SocConfig cfg;
      cfg.dramBytes = 16u << 20;
      cfg.watchdogCycles = 20'000;  // a stuck job ends with the watchdog error soon
      auto d = sim::Device::open(cfg);
      if (!d.ok()) std::abort();
      s.dev = *d;
      return s;
    }();
    return t;
  }

  // Fresh job state: reset, one window at a fixed address, canary everywhere in it.
  void prepare() {
    if (!dev->reset().ok()) std::abort();
    dev->unmapAll();
    dev->freeAll();
    auto b = dev->allocate(kWindowBytes, "fuzz window");
    if (!b.ok()) std::abort();
    window = *b;
    const std::vector<uint8_t> canary(kWindowBytes, kCanary);
    if (!dev->write(window.address, canary.data(), canary.size()).ok()) std::abort();
    dev->map(window, true, true);
  }

  // Runs a job; a job that neither completes nor reports an error within twice the
  // watchdog's reach is a hang, which the hardware must never do.
  sim::JobResult run(const std::vector<uint8_t>& stream) {
    if (!dev->submit(stream).ok()) std::abort();
    sim::JobResult r = dev->wait(5'000'000);
    if (r.timedOut) __builtin_trap();
    return r;
  }

  std::vector<uint8_t> readWindow() {
    std::vector<uint8_t> out(kWindowBytes);
    if (!dev->read(window.address, out.data(), out.size()).ok()) std::abort();
    return out;
  }
};

}  // namespace nncosim::fuzz
