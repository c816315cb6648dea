#include "driver/isa_model/energy_model.h"

#include <gtest/gtest.h>

namespace nncosim::driver {
namespace {

using firmware::Buffer;

firmware::Command command(firmware::CommandArgs args) {
  firmware::Command c;
  c.args = std::move(args);
  return c;
}

TEST(EnergyModel, StreamEventsCountEachCommandsFootprint) {
  firmware::DmaLoad load;
  load.bufId = Buffer::kInp;
  load.count0 = 16;
  load.count1 = 4;
  load.count2 = 2;  // 128 bytes
  firmware::Gemm gemm;
  gemm.m = 16;
  gemm.n = 8;
  gemm.k = 4;
  gemm.accumulate = true;
  firmware::RequantStore rq;
  rq.rows = 16;
  rq.biasEn = true;
  rq.perChannel = true;
  firmware::DmaStore store;
  store.bufId = Buffer::kOut;
  store.count0 = 16;
  store.count1 = 16;  // 256 bytes
  const EnergyEvents e = streamEvents({command(load), command(gemm), command(rq), command(store)});
  EXPECT_EQ(e.commands, 4u);
  EXPECT_EQ(e.macs8, 16u * 8 * 4);
  EXPECT_EQ(e.macs16, 0u);
  EXPECT_EQ(e.dramBytes, 128u + 256u);
  EXPECT_EQ(e.sramWrite[size_t(Buffer::kInp)], 128u);
  EXPECT_EQ(e.sramRead[size_t(Buffer::kInp)], 16u * 4);  // A: m x k bytes
  EXPECT_EQ(e.sramRead[size_t(Buffer::kWgt)], 8u * 4);   // B: n x k bytes
  const uint64_t cols = firmware::kArrayCols;
  // ACC: the GEMM reads and writes its 16x8 int32 tile; REQUANT_STORE reads 16 rows of C.
  EXPECT_EQ(e.sramWrite[size_t(Buffer::kAcc)], 16u * 8 * 4);
  EXPECT_EQ(e.sramRead[size_t(Buffer::kAcc)], 16u * 8 * 4 + 16 * cols * 4);
  EXPECT_EQ(e.sramRead[size_t(Buffer::kPrm)], cols * 4 + cols * 5);
  EXPECT_EQ(e.sramWrite[size_t(Buffer::kOut)], 16 * cols);
  EXPECT_EQ(e.sramRead[size_t(Buffer::kOut)], 256u);
  // A fill (ISA 1.4) writes its buffer and reads no DRAM.
  firmware::DmaLoad fill = load;
  fill.fill = true;
  const EnergyEvents f = streamEvents({command(fill)});
  EXPECT_EQ(f.dramBytes, 0u);
  EXPECT_EQ(f.sramWrite[size_t(Buffer::kInp)], 128u);
}

TEST(EnergyModel, EnergyIsTheEventsTimesTheirEnergies) {
  EnergyModel m;
  EnergyEvents e;
  e.macs8 = 1000;
  e.macs16 = 10;
  e.sramRead[size_t(Buffer::kWgt)] = 100;
  e.sramWrite[size_t(Buffer::kPrm)] = 8;
  e.dramBytes = 64;
  e.densifyBytes = 16;
  e.commands = 3;
  e.cycles = 500;
  e.hostDramBytes = 32;
  const EnergyBreakdown b = m.energy(e);
  EXPECT_DOUBLE_EQ(b.mac, 1000 * m.macInt8Pj + 10 * m.macInt16Pj);
  EXPECT_DOUBLE_EQ(b.sram, 100 * m.sramPjPerByte[1] + 8 * m.sramPjPerByte[4]);
  EXPECT_DOUBLE_EQ(b.dram, 80 * m.dramPjPerByte);
  EXPECT_DOUBLE_EQ(b.fetch, 3 * m.fetchPjPerCommand);
  EXPECT_DOUBLE_EQ(b.cycles, 500 * m.cyclePj);
  EXPECT_DOUBLE_EQ(b.host, 32 * m.dramPjPerByte);
  EXPECT_DOUBLE_EQ(b.total(), b.mac + b.sram + b.dram + b.fetch + b.cycles + b.host);
}

}  // namespace
}  // namespace nncosim::driver
