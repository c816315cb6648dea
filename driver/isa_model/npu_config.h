// NpuConfig: the NPU geometry the compiler plans for: MAC array size and the capacity of
// each on-chip buffer (docs/isa.md, "Buffers and data layouts").
//
// The array size comes from the ISA constants (firmware/isa.json), and on a live device
// from the CONFIG register, which also gives the INP/WGT buffer size (buf_kib_log2). The
// ISA has no register for the ACC, OUT and PRM sizes; the defaults below are the RTL's
// (rtl/nnc_dma.sv parameters AccBytes, OutBytes, PrmBytes). The compiler never plans a
// footprint beyond these sizes, so a stream that runs here never faults with DMA_OOB.
#pragma once

#include <cstdint>
#include <string>

#include "firmware/isa_generated.h"
#include "hal/result.h"

namespace nncosim::driver {

struct NpuConfig {
  uint32_t rows = firmware::kArrayRows;  // R: activation lanes (GEMM m)
  uint32_t cols = firmware::kArrayCols;  // C: weight lanes (GEMM n)
  uint32_t inpBytes = 256u << 10;
  uint32_t wgtBytes = 256u << 10;
  uint32_t accBytes = 64u << 10;
  uint32_t outBytes = 64u << 10;
  uint32_t prmBytes = 4u << 10;

  uint32_t bufferBytes(firmware::Buffer b) const;
  // From the CONFIG register (rows, cols, log2 of the INP/WGT size in KiB); ACC, OUT and
  // PRM keep their defaults. Rejects geometries the ISA cannot address.
  static hal::Result<NpuConfig> fromConfigRegister(uint32_t value);
  // "16x16 array, INP 256 KiB, WGT 256 KiB, ACC 64 KiB, OUT 64 KiB, PRM 4 KiB"
  std::string describe() const;
};

}  // namespace nncosim::driver
