// SocConfig: every parameter of the simulated SoC in one place (array size, buffer
// sizes, DRAM latency and bandwidth, clock, simulation quantum), read from a JSON file
// and/or key=value overrides, and printed in every run's output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "firmware/isa_generated.h"
#include "hal/result.h"

namespace nncosim::sim {

struct SocConfig {
  // NPU: the RTL's array, fixed when it is built (set() accepts only this size).
  uint32_t arrayRows = firmware::kArrayRows;
  uint32_t arrayCols = firmware::kArrayCols;
  // On-chip buffer capacities in bytes. The RTL's are fixed when it is built (the sim
  // backend refuses others); the isa backend models any power of two up to the buffer
  // address, so a sweep can vary them without a build.
  uint32_t inpBufBytes = firmware::kInpBufBytes;
  uint32_t wgtBufBytes = firmware::kWgtBufBytes;
  uint32_t accBufBytes = firmware::kAccBufBytes;
  uint32_t outBufBytes = firmware::kOutBufBytes;
  uint32_t prmBufBytes = firmware::kPrmBufBytes;
  // Names and values of the buffer capacities that differ from the built RTL's.
  std::vector<std::string> buffersNotBuilt() const;
  // DRAM
  uint64_t dramBase = 0x8000'0000ull;
  uint64_t dramBytes = 256ull << 20;
  uint32_t dramLatencyCycles = 40;  // first beat of a burst, in NPU clock cycles
  uint32_t dramBytesPerCycle =
      firmware::kAxiDataBytes;  // sustained bandwidth: a bus beat per cycle
  // 1: read bursts are answered by ARQOS (the NPU's command fetches ahead of its DMA
  // bursts, AxiMemoryPort); 0: strictly in request order, as before ISA 1.9's SoC.
  uint32_t dramReadQos = 1;
  // NPU register block on the bus: its offsets are reg_addr_bits wide
  uint64_t npuRegBase = 0x4000'0000ull;
  uint64_t npuRegBytes = uint64_t{1} << firmware::kRegAddrBits;
  // Clock and simulation
  double clockMHz = 1000.0;
  uint32_t quantumCycles = 1000;  // NPU cycles between synchronisations with SystemC
  uint32_t watchdogCycles = 1'000'000;
  // Fault injection, for seeing a faulty NPU caught (--check, the difftest): XORed into the
  // first byte the NPU writes of every DRAM write burst. 0 = off, the default.
  uint32_t faultWriteXor = 0;

  double periodNs() const { return 1000.0 / clockMHz; }
  // Applies "key=value" (keys as in the JSON file: dram_latency_cycles, clock_mhz, ...).
  hal::Status set(const std::string& keyValue);
  // Reads a JSON object of the same keys.
  static hal::Result<SocConfig> fromFile(const std::string& path);
  // One line per parameter, for run reports.
  std::string describe() const;
  // The same as JSON text.
  std::string toJson() const;
};

}  // namespace nncosim::sim
