// The host's share of an execution, on the books beside the device's cycles.
//
// Between NPU steps the host moves every tensor: it packs a step's inputs from the model
// layout into the device layout (zero-point padding, stride phases, im2col gathers, output
// blocks: TensorLayout) while writing them into device DRAM, reads the outputs back and
// unpacks them; a kRaw layout is a plain copy. HostBytes counts those bytes per kind;
// HostModel turns them into time on a modelled host CPU (docs/driver.md, "Host model"),
// so a figure measured on this machine is never the only one, and the compiler can
// choose mappings by end-to-end cost.
#pragma once

#include <cstdint>
#include <string>

namespace nncosim::driver {

struct HostBytes {
  uint64_t packed = 0;       // device bytes the host wrote through a rearranging layout
  uint64_t copiedIn = 0;     // device bytes the host wrote by a plain copy (kRaw)
  uint64_t unpacked = 0;     // model bytes the host produced from device bytes (rearranging)
  uint64_t copiedOut = 0;    // device bytes the host read back by a plain copy (kRaw)
  uint64_t sourceBytes = 0;  // what those passes read: model bytes packed, device bytes unpacked
  uint64_t cpuBytes = 0;     // a CPU step's operand bytes: inputs read, outputs written
  // Of packed + copiedIn + unpacked + copiedOut, the bytes of tensors one NPU step hands
  // to another through the host (Binding::betweenNpuSteps): neither the network's inputs
  // and outputs nor a CPU step's operands. The figure whole-network runs drive to 0.
  uint64_t betweenNpuSteps = 0;
  // The host's DRAM traffic: every byte its passes read and write (packing reads the
  // model bytes and writes the device bytes; a CPU step reads its inputs and writes its
  // outputs).
  uint64_t dramBytes() const {
    return sourceBytes + packed + copiedIn + unpacked + copiedOut + cpuBytes;
  }
  // Every byte the host moved between host and device layouts.
  uint64_t layoutBytes() const { return packed + copiedIn + unpacked + copiedOut; }
  HostBytes& operator+=(const HostBytes& o);
};

// What the host did in one step, measured on this machine, and its bytes.
struct HostWork {
  HostBytes bytes;
  uint64_t passNanos = 0;     // measured: packing, unpacking and copies
  uint64_t cpuNanos = 0;      // measured: reference kernels (CPU steps) and host epilogues, warm
  uint64_t cpuColdNanos = 0;  // the first runs of the short ones among them (not on the books)
  HostWork& operator+=(const HostWork& o);
};

// A modelled host: a big application core next to the NPU. The values are a documented
// assumption, not a measurement (docs/driver.md gives the reasoning).
struct HostModel {
  double clockMHz = 2000;        // application core clock
  double copyBytesPerCycle = 8;  // streaming copies into / out of device DRAM (memcpy class)
  double packBytesPerCycle = 2;  // rearranging passes: a byte gathered or scattered per half cycle
  double cpuScale = 1.0;         // CPU fallback steps: measured time on this machine x cpuScale
  double corePowerW = 2.0;       // the core while it runs a CPU step (capabilities' energy ratio)

  // Modelled nanoseconds of the packing and copying passes.
  double passNanos(const HostBytes& b) const;
  // Modelled nanoseconds of a CPU fallback step measured at `measuredNanos` here.
  double cpuNanos(uint64_t measuredNanos) const { return measuredNanos * cpuScale; }
  // The step's host time on the modelled host.
  double nanos(const HostWork& w) const { return passNanos(w.bytes) + cpuNanos(w.cpuNanos); }
  // Applies "key=value" (clock_mhz, copy_bytes_per_cycle, pack_bytes_per_cycle, cpu_scale,
  // core_power_w).
  bool set(const std::string& keyValue, std::string* error);
  std::string describe() const;
};

}  // namespace nncosim::driver
