// EnergyModel: the NPU's energy from per-event energies, summed per step beside its cycles.
//
// Events come from what a step ran: MACs by operand width, on-chip SRAM bytes read and
// written per buffer (each command's footprint: a DMA_LOAD writes its buffer, a GEMM reads
// its A and B tiles and reads/writes its ACC tile, a REQUANT_STORE reads ACC and PRM and
// writes OUT, a DMA_STORE reads its buffer), DRAM bytes (the DMA counters; DENSIFY's reads
// and writes), command fetches (32 bytes each from DRAM) and cycles (clock and leakage).
// The host's DRAM bytes between steps are charged at the same DRAM energy; the host core's
// own energy is not modelled. Values and their sources: docs/driver.md, "Energy model".
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/isa_generated.h"

namespace nncosim::driver {

struct EnergyEvents {
  uint64_t macs8 = 0;   // int8 x int8 products
  uint64_t macs16 = 0;  // int16 x int8 (16x8 mode) and int16 x int16 products
  std::array<uint64_t, 5> sramRead{}, sramWrite{};  // bytes, by firmware::Buffer
  uint64_t dramBytes = 0;      // the NPU's DMA reads and writes (at run time: its counters)
  uint64_t densifyBytes = 0;   // the densify unit's DRAM traffic (estimated from its commands)
  uint64_t commands = 0;       // fetched from the ring (END included)
  uint64_t cycles = 0;         // the step's device cycles
  uint64_t hostDramBytes = 0;  // the host's passes around the step
  EnergyEvents& operator+=(const EnergyEvents& o);
};

// The on-chip events of a command stream (MACs, SRAM bytes, commands; DRAM bytes of the
// DMA and DENSIFY commands). Cycles and the host's bytes are the caller's.
EnergyEvents streamEvents(const std::vector<firmware::Command>& stream);

struct EnergyBreakdown {
  double mac = 0, sram = 0, dram = 0, fetch = 0, cycles = 0, host = 0;  // picojoules
  double total() const { return mac + sram + dram + fetch + cycles + host; }
  EnergyBreakdown& operator+=(const EnergyBreakdown& o) {
    mac += o.mac, sram += o.sram, dram += o.dram, fetch += o.fetch, cycles += o.cycles,
        host += o.host;
    return *this;
  }
};

struct EnergyModel {
  // 45 nm, 0.9 V (Horowitz, ISSCC 2014): an 8-bit multiply 0.2 pJ + a 32-bit add 0.1 pJ.
  double macInt8Pj = 0.3;
  // int16 x int8: the multiplier's array doubles (0.4 pJ), its 64-bit accumulation 0.2 pJ.
  double macInt16Pj = 0.6;
  // Per byte, a 64-bit access's energy / 8 at the buffer's size (Horowitz: 8 KB 10 pJ,
  // 32 KB 20 pJ, 1 MB 100 pJ; 64 and 256 KB interpolated on log size): INP, WGT, ACC, OUT, PRM.
  std::array<double, 5> sramPjPerByte{5.6, 5.6, 3.4, 3.4, 1.25};
  double dramPjPerByte = 244;  // DRAM: 1.3-2.6 nJ per 64-bit access (Horowitz), the midpoint / 8
  double fetchPjPerCommand = 32 * 244;  // a 32-byte command read from the DRAM ring
  double cyclePj = 20;  // clock tree and leakage per cycle: an assumption (20 mW at 1 GHz)

  EnergyBreakdown energy(const EnergyEvents& e) const;
  std::string describe() const;
};

}  // namespace nncosim::driver
