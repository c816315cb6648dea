#include "driver/compiler/load_coalescing.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

namespace nncosim::driver {
namespace {

using firmware::Buffer;
using firmware::DmaLoad;

DmaLoad load(uint32_t dram, uint32_t buf, uint32_t row, uint32_t planes, uint32_t dramPlane,
             uint32_t bufPlane) {
  DmaLoad d;
  d.bufId = Buffer::kInp;
  d.dramAddr = dram;
  d.bufAddr = buf;
  d.count0 = row;
  d.count2 = planes;
  d.dramStride2 = dramPlane;
  d.bufStride2 = bufPlane;
  return d;
}

// What the loads leave in a buffer, as DMA_LOAD's spec says (rows z-major, 8-bit elements),
// reading DRAM byte a as a function of a; a fill writes its value.
std::vector<int> bufferAfter(const std::vector<DmaLoad>& loads, size_t bufBytes) {
  std::vector<int> buf(bufBytes, -1);
  for (const DmaLoad& d : loads)
    for (uint32_t z = 0; z < d.count2; ++z)
      for (uint32_t y = 0; y < d.count1; ++y)
        for (uint32_t x = 0; x < d.count0; ++x) {
          const uint64_t b =
              uint64_t{d.bufAddr} + z * uint64_t{d.bufStride2} + y * uint64_t{d.bufStride1} + x;
          const uint32_t a = d.dramAddr + z * d.dramStride2 + y * d.dramStride1 + x;
          buf.at(b) = d.fill ? static_cast<int>(d.fillValue) : static_cast<int>((a * 7 + 3) % 251);
        }
  return buf;
}

// A pointwise layer's A pieces: per row tile, 16 pixels of two channel tiles, each tile a
// DRAM plane; in INP the row tiles 512 bytes apart, their two tiles 256 apart.
TEST(LoadCoalescing, RowTilesOfAPointwiseLayerBecomeOneLoad) {
  std::vector<DmaLoad> pieces, out;
  for (uint32_t p = 0; p < 16; ++p)
    pieces.push_back(load(0x1000 + p * 256, p * 512, 256, 2, 0x31000, 256));
  for (const DmaLoad& d : pieces) appendCoalesced(out, d);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].count1, 16u);
  EXPECT_EQ(out[0].dramStride1, 256u);
  EXPECT_EQ(out[0].bufStride1, 512u);
  EXPECT_EQ(bufferAfter(out, 1 << 14), bufferAfter(pieces, 1 << 14));
}

TEST(LoadCoalescing, RowsThatWouldOverlapInTheBufferStaySeparate) {
  // Two planes 256 apart each, 300 bytes per row: the second load starts inside the first.
  std::vector<DmaLoad> out;
  appendCoalesced(out, load(0, 0, 300, 1, 0, 0));
  appendCoalesced(out, load(4096, 200, 300, 1, 0, 0));
  EXPECT_EQ(out.size(), 2u);
  // Planes of one load reaching past where the next starts.
  out.clear();
  appendCoalesced(out, load(0, 0, 256, 2, 0x10000, 256));
  appendCoalesced(out, load(256, 256, 256, 2, 0x10000, 256));
  EXPECT_EQ(out.size(), 2u);
}

TEST(LoadCoalescing, ARunEndsWhereTheStepsChangeOrTheShapeDiffers) {
  std::vector<DmaLoad> out;
  appendCoalesced(out, load(0, 0, 64, 1, 0, 0));
  appendCoalesced(out, load(64, 64, 64, 1, 0, 0));
  appendCoalesced(out, load(128, 128, 64, 1, 0, 0));
  appendCoalesced(out, load(1000, 192, 64, 1, 0, 0));  // DRAM step differs
  appendCoalesced(out, load(1064, 256, 32, 1, 0, 0));  // row length differs
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].count1, 3u);
  DmaLoad fill = load(0, 512, 64, 1, 0, 0);
  fill.fill = true;
  fill.fillValue = 7;
  appendCoalesced(out, fill);  // a fill never joins a DRAM read
  EXPECT_EQ(out.size(), 4u);
}

// A run's loads: their shape (`proto`'s rows and planes) and the DRAM and buffer steps
// between them.
struct RunShape {
  DmaLoad proto;
  uint32_t dramStep, bufStep;
};

// 300 random runs of 1-12 loads of a shape `shape` draws, mostly at its steps, now and then
// a jump or a step back, a fifth of them fills: whatever merges, the buffer ends the same,
// with fewer commands.
void expectRandomRunsMerge(uint32_t seed, const char* what,
                           const std::function<RunShape(std::mt19937&)>& shape) {
  std::mt19937 rng(seed);
  size_t loads = 0, commands = 0;
  for (int c = 0; c < 300; ++c) {
    std::vector<DmaLoad> in, out;
    const RunShape run = shape(rng);
    uint32_t dram = rng() % 1000, buf = rng() % 64;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      DmaLoad d = run.proto;
      d.dramAddr = dram;
      d.bufAddr = buf;
      d.fill = rng() % 5 == 0;
      d.fillValue = d.fill ? 9 : 0;
      in.push_back(d);
      const uint32_t r = rng() % 8;
      dram += r == 0 ? 777 : run.dramStep;
      buf = r == 1 && buf > 40 ? buf - 40 : buf + (r == 2 ? run.bufStep + 5 : run.bufStep);
    }
    for (const DmaLoad& d : in) appendCoalesced(out, d);
    EXPECT_LE(out.size(), in.size());
    loads += in.size();
    commands += out.size();
    EXPECT_EQ(bufferAfter(out, 1 << 13), bufferAfter(in, 1 << 13)) << what << " case " << c;
  }
  EXPECT_LT(commands, loads * 3 / 4) << what;  // the runs did merge
  std::printf("[ LoadCoalescing ] %zu %s -> %zu commands\n", loads, what, commands);
}

// Runs of single-row loads (of 1-3 planes) merge into rows.
TEST(LoadCoalescing, RandomRunsWriteWhatTheLoadsWouldWrite) {
  expectRandomRunsMerge(5, "loads", [](std::mt19937& rng) {
    const uint32_t row = 1 + rng() % 64, planes = 1 + rng() % 3;
    const uint32_t bufPlane = row + rng() % 8, dramPlane = 4096 + rng() % 100;
    const uint32_t dramStep = rng() % 300, bufStep = planes * bufPlane + rng() % 4;
    return RunShape{load(0, 0, row, planes, dramPlane, bufPlane), dramStep, bufStep};
  });
}

// A 3-channel image's row tiles (a stride-2 stem): per tile three filter rows of 99 bytes,
// rows 672 bytes apart in DRAM, the next tile 96 bytes on (its DRAM rows overlap the last
// tile's by a pixel) and 297 bytes on in INP: one load of four planes.
TEST(LoadCoalescing, RowTilesOfAFewChannelImageBecomeOnePlaneRun) {
  std::vector<DmaLoad> in, out;
  for (uint32_t t = 0; t < 4; ++t) {
    DmaLoad d = load(1000 + t * 96, 64 + t * 297, 99, 1, 0, 0);
    d.count1 = 3;
    d.dramStride1 = 672;
    d.bufStride1 = 99;
    in.push_back(d);
  }
  for (const DmaLoad& d : in) appendCoalesced(out, d);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].count2, 4u);
  EXPECT_EQ(out[0].dramStride2, 96u);
  EXPECT_EQ(out[0].bufStride2, 297u);
  EXPECT_EQ(bufferAfter(out, 4096), bufferAfter(in, 4096));
  // Planes that would overlap in the buffer stay apart.
  std::vector<DmaLoad> overlapping = {in[0], in[1]}, merged;
  overlapping[1].bufAddr = in[0].bufAddr + 200;
  for (const DmaLoad& d : overlapping) appendCoalesced(merged, d);
  EXPECT_EQ(merged.size(), 2u);
}

// Runs of single-plane loads of 2-4 rows merge into planes.
TEST(LoadCoalescing, RandomPlaneRunsWriteWhatTheLoadsWouldWrite) {
  expectRandomRunsMerge(9, "multi-row loads", [](std::mt19937& rng) {
    const uint32_t row = 1 + rng() % 40, rows = 2 + rng() % 3;
    const uint32_t bufRow = row + rng() % 4, dramRow = 500 + rng() % 100;
    const uint32_t dramStep = rng() % 200, bufStep = (rows - 1) * bufRow + row + rng() % 4;
    DmaLoad d = load(0, 0, row, 1, 0, 0);
    d.count1 = rows;
    d.dramStride1 = dramRow;
    d.bufStride1 = bufRow;
    return RunShape{d, dramStep, bufStep};
  });
}

}  // namespace
}  // namespace nncosim::driver
