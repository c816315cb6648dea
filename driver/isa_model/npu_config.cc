#include "driver/isa_model/npu_config.h"

#include <sstream>

namespace nncosim::driver {

uint32_t NpuConfig::bufferBytes(firmware::Buffer b) const {
  switch (b) {
    case firmware::Buffer::kInp:
      return inpBytes;
    case firmware::Buffer::kWgt:
      return wgtBytes;
    case firmware::Buffer::kAcc:
      return accBytes;
    case firmware::Buffer::kOut:
      return outBytes;
    case firmware::Buffer::kPrm:
      return prmBytes;
  }
  return 0;
}

hal::Result<NpuConfig> NpuConfig::fromRegisters(const RegisterReader& readReg) {
  namespace reg = firmware::reg;
  auto read = [&](uint32_t offset, uint32_t mask, int lsb) -> hal::Result<uint32_t> {
    auto v = readReg(offset);
    if (!v) return hal::fail("CONFIG register at 0x", std::hex, offset, ": ", v.error());
    return (*v & mask) >> lsb;
  };
  auto whole = [&](uint32_t offset) { return read(offset, ~0u, 0); };
  NpuConfig c;
  struct Item {
    uint32_t* dst;
    const char* what;
    hal::Result<uint32_t> value;
  };
  const Item items[] = {
      {&c.rows, "array rows", read(reg::kConfig, reg::kConfigRows, reg::kConfigRowsLsb)},
      {&c.cols, "array columns", read(reg::kConfig, reg::kConfigCols, reg::kConfigColsLsb)},
      {&c.inpBytes, "INP bytes", whole(reg::kConfigInpBytes)},
      {&c.wgtBytes, "WGT bytes", whole(reg::kConfigWgtBytes)},
      {&c.accBytes, "ACC bytes", whole(reg::kConfigAccBytes)},
      {&c.outBytes, "OUT bytes", whole(reg::kConfigOutBytes)},
      {&c.prmBytes, "PRM bytes", whole(reg::kConfigPrmBytes)},
      {&c.queueDepth, "queue depth",
       read(reg::kConfigQueues, reg::kConfigQueuesQueueDepth, reg::kConfigQueuesQueueDepthLsb)},
      {&c.fetchDepth, "fetch depth",
       read(reg::kConfigQueues, reg::kConfigQueuesFetchDepth, reg::kConfigQueuesFetchDepthLsb)},
      {&c.dmaBursts, "DMA bursts",
       read(reg::kConfigDma, reg::kConfigDmaBursts, reg::kConfigDmaBurstsLsb)},
      {&c.gemmTiles, "GEMM tiles",
       read(reg::kConfigCompute, reg::kConfigComputeGemmTiles, reg::kConfigComputeGemmTilesLsb)},
      {&c.densifyBeats, "densify beats",
       read(reg::kConfigCompute, reg::kConfigComputeDensifyBeats,
            reg::kConfigComputeDensifyBeatsLsb)},
      {&c.inpLineVectors, "INP line vectors",
       read(reg::kConfigCompute, reg::kConfigComputeInpLineVectors,
            reg::kConfigComputeInpLineVectorsLsb)},
  };
  for (const Item& i : items) {
    if (!i.value) return hal::Error{i.value.error()};
    if (*i.value == 0) return hal::fail("CONFIG reports ", i.what, " = 0");
    *i.dst = *i.value;
  }
  // GEMM's m and n fields are limited to the ISA's array size: a larger array could not
  // be addressed by this ISA version.
  if (c.rows > firmware::kArrayRows || c.cols > firmware::kArrayCols)
    return hal::fail("CONFIG reports a ", c.rows, "x", c.cols, " array, beyond the ISA's ",
                     firmware::kArrayRows, "x", firmware::kArrayCols);
  for (firmware::Buffer b : {firmware::Buffer::kInp, firmware::Buffer::kWgt, firmware::Buffer::kAcc,
                             firmware::Buffer::kOut, firmware::Buffer::kPrm})
    if (c.bufferBytes(b) > (1u << firmware::kBufAddrBits))
      return hal::fail("CONFIG reports a ", c.bufferBytes(b), "-byte ", firmware::toString(b),
                       " buffer, beyond the ", firmware::kBufAddrBits, "-bit buffer address");
  auto bus = read(reg::kConfigDma, reg::kConfigDmaDataBytes, reg::kConfigDmaDataBytesLsb);
  if (!bus) return hal::Error{bus.error()};
  if (*bus != firmware::kAxiDataBytes)
    return hal::fail("CONFIG reports a ", *bus, "-byte memory bus; this ISA's is ",
                     firmware::kAxiDataBytes,
                     " bytes (DENSIFY faults on elements straddling its beats)");
  return c;
}

std::string NpuConfig::describe() const {
  std::ostringstream os;
  auto kib = [](uint32_t b) { return std::to_string(b >> 10) + " KiB"; };
  os << rows << "x" << cols << " array, INP " << kib(inpBytes) << ", WGT " << kib(wgtBytes)
     << ", ACC " << kib(accBytes) << ", OUT " << kib(outBytes) << ", PRM " << kib(prmBytes);
  return os.str();
}

}  // namespace nncosim::driver
