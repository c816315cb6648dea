#include "sim/soc_config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "sim/device.h"

namespace nncosim::sim {
namespace {

// The SoC's NPU numbers are the spec's (firmware/isa.json), not copies of them.
TEST(SocConfig, NpuDefaultsAreTheSpecs) {
  const SocConfig c;
  EXPECT_EQ(c.arrayRows, firmware::kArrayRows);
  EXPECT_EQ(c.arrayCols, firmware::kArrayCols);
  EXPECT_EQ(c.npuRegBytes, uint64_t{1} << firmware::kRegAddrBits);
  EXPECT_EQ(c.dramBytesPerCycle, firmware::kAxiDataBytes);
  EXPECT_EQ(DeviceOptions{}.ringSlots, firmware::kRingSlots);
}

// The array size is fixed when the RTL is built: another size fails when it is set, with
// the built size in the message, not later when the device is opened.
TEST(SocConfig, ArraySizeOtherThanTheBuiltOneIsRefused) {
  SocConfig c;
  const auto rows = c.set("array_rows=8");
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.error().find("array_rows: 8 is not the built size 16"), std::string::npos)
      << rows.error();
  EXPECT_NE(rows.error().find("16x16"), std::string::npos) << rows.error();
  const auto cols = c.set("array_cols=32");
  ASSERT_FALSE(cols.ok());
  EXPECT_NE(cols.error().find("array_cols: 32 is not the built size 16"), std::string::npos)
      << cols.error();
  EXPECT_TRUE(c.set("array_rows=16").ok());
  EXPECT_TRUE(c.set("array_cols=16").ok());
  EXPECT_EQ(c.arrayRows, firmware::kArrayRows);
}

TEST(SocConfig, ArraySizeInAFileIsCheckedAsWell) {
  const std::string path = ::testing::TempDir() + "soc_config_test.json";
  {
    std::ofstream out(path);
    out << R"({"dram_latency_cycles": 60, "array_cols": 8})";
  }
  auto c = SocConfig::fromFile(path);
  std::remove(path.c_str());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().find(path + ": array_cols: 8 is not the built size 16"), std::string::npos)
      << c.error();
}

}  // namespace
}  // namespace nncosim::sim
