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
  // Whatever size this build is (NNCOSIM_ARRAY_SIZE), half and double it are refused.
  const uint32_t built = firmware::kArrayRows, other = built == 8 ? 32 : built / 2;
  const std::string size = std::to_string(built);
  SocConfig c;
  const auto rows = c.set("array_rows=" + std::to_string(other));
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(
      rows.error().find("array_rows: " + std::to_string(other) + " is not the built size " + size),
      std::string::npos)
      << rows.error();
  EXPECT_NE(rows.error().find(size + "x" + size), std::string::npos) << rows.error();
  const auto cols = c.set("array_cols=" + std::to_string(built * 2));
  ASSERT_FALSE(cols.ok());
  EXPECT_NE(cols.error().find("array_cols: " + std::to_string(built * 2) +
                              " is not the built size " + size),
            std::string::npos)
      << cols.error();
  EXPECT_TRUE(c.set("array_rows=" + size).ok());
  EXPECT_TRUE(c.set("array_cols=" + size).ok());
  EXPECT_EQ(c.arrayRows, firmware::kArrayRows);
}

TEST(SocConfig, ArraySizeInAFileIsCheckedAsWell) {
  const std::string path = ::testing::TempDir() + "soc_config_test.json";
  const uint32_t other = firmware::kArrayCols == 8 ? 16 : 8;
  {
    std::ofstream out(path);
    out << R"({"dram_latency_cycles": 60, "array_cols": )" << other << "}";
  }
  auto c = SocConfig::fromFile(path);
  std::remove(path.c_str());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().find(path + ": array_cols: " + std::to_string(other) +
                           " is not the built size " + std::to_string(firmware::kArrayCols)),
            std::string::npos)
      << c.error();
}

// Buffer capacities: any power of two the buffer address reaches is a setting (the isa
// backend models it); the ones that differ from the built RTL's are named, and said in the
// SoC line.
TEST(SocConfig, BufferSizesArePowersOfTwoAndNamedWhenNotTheBuiltOnes) {
  SocConfig c;
  EXPECT_TRUE(c.buffersNotBuilt().empty());
  ASSERT_TRUE(c.set("inp_buf_bytes=65536").ok());
  EXPECT_EQ(c.inpBufBytes, 65536u);
  ASSERT_EQ(c.buffersNotBuilt().size(), 1u);
  EXPECT_EQ(c.buffersNotBuilt()[0],
            "inp_buf_bytes 65536 (built " + std::to_string(firmware::kInpBufBytes) + ")");
  EXPECT_NE(c.describe().find("inp_buf_bytes 65536"), std::string::npos) << c.describe();
  for (const char* bad : {"wgt_buf_bytes=3000", "acc_buf_bytes=512", "out_buf_bytes=4194304"}) {
    const auto st = c.set(bad);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.error().find("must be a power of two in [1024, "), std::string::npos)
        << st.error();
  }
  EXPECT_EQ(c.wgtBufBytes, firmware::kWgtBufBytes);
}

}  // namespace
}  // namespace nncosim::sim
