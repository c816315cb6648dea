// NpuConfig: the NPU the compiler plans for and the ISA interpreter models: the MAC array
// size, the capacity of each on-chip buffer (docs/isa.md, "Buffers and data layouts") and
// the depths that shape its timing.
//
// The defaults are the hardware contract (firmware/isa.json constants). On a live device
// the CONFIG registers report every one of them (fromRegisters), so a stream planned for
// it fits the NPU it runs on: the compiler never plans a footprint beyond these sizes, and
// such a stream never faults with DMA_OOB.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "firmware/isa_generated.h"
#include "hal/result.h"

namespace nncosim::driver {

struct NpuConfig {
  uint32_t rows = firmware::kArrayRows;  // R: activation lanes (GEMM m)
  uint32_t cols = firmware::kArrayCols;  // C: weight lanes (GEMM n)
  uint32_t inpBytes = firmware::kInpBufBytes;
  uint32_t wgtBytes = firmware::kWgtBufBytes;
  uint32_t accBytes = firmware::kAccBufBytes;
  uint32_t outBytes = firmware::kOutBufBytes;
  uint32_t prmBytes = firmware::kPrmBufBytes;
  // Depths, for timing only (the ISA interpreter's model):
  uint32_t queueDepth = firmware::kCmdQueueDepth;  // commands per queue, issued or not
  uint32_t fetchDepth =
      firmware::kCmdFetchDepth;               // ring slots requested or fetched, not dispatched
  uint32_t dmaBursts = firmware::kDmaBursts;  // bursts in flight per DMA engine
  uint32_t gemmTiles = firmware::kGemmTiles;  // GEMMs in flight
  uint32_t densifyBeats = firmware::kDensifyBeats;      // beats the densify reader keeps per array
  uint32_t inpLineVectors = firmware::kInpLineVectors;  // R-byte vectors per depthwise INP read

  uint32_t bufferBytes(firmware::Buffer b) const;
  // From a device's CONFIG registers, read through readReg (register offset -> value).
  // Rejects hardware this ISA cannot drive: an array beyond the GEMM fields, a buffer beyond
  // the buffer address, a bus width other than the ISA's (DENSIFY's faults depend on it),
  // a zero depth.
  using RegisterReader = std::function<hal::Result<uint32_t>(uint32_t offset)>;
  static hal::Result<NpuConfig> fromRegisters(const RegisterReader& readReg);
  // "16x16 array, INP 256 KiB, WGT 256 KiB, ACC 64 KiB, OUT 64 KiB, PRM 4 KiB"
  std::string describe() const;
};

}  // namespace nncosim::driver
