#include "sim/device.h"

#include <gtest/gtest.h>

#include <map>

#include "firmware/isa_generated.h"

namespace nncosim::sim {
namespace {

namespace reg = firmware::reg;

constexpr uint32_t log2Of(uint32_t v) { return v > 1 ? 1 + log2Of(v / 2) : 0; }

// The Verilated NPU reports the hardware contract: each CONFIG register reads exactly the
// spec's constants at the spec's bit positions (nothing else set), so the RTL's parameters
// and firmware/isa.json cannot drift apart unnoticed.
TEST(Device, ConfigRegistersReportTheSpec) {
  auto device = Device::open(SocConfig{});
  ASSERT_TRUE(device.ok()) << device.error();
  Device& d = **device;
  std::map<uint32_t, uint32_t> want;
  for (const reg::ConfigReport& c : reg::kConfigReports) want[c.offset] |= c.value << c.lsb;
  want[reg::kConfig] |= log2Of(firmware::kInpBufBytes >> 10) << reg::kConfigBufKibLog2Lsb;
  for (const auto& [offset, value] : want) {
    auto v = d.readReg(offset);
    ASSERT_TRUE(v.ok()) << "register 0x" << std::hex << offset << ": " << v.error();
    EXPECT_EQ(*v, value) << "register 0x" << std::hex << offset;
  }
  auto id = d.readReg(reg::kId);
  ASSERT_TRUE(id.ok()) << id.error();
  EXPECT_EQ(*id, reg::kIdValue);
  auto version = d.readReg(reg::kVersion);
  ASSERT_TRUE(version.ok()) << version.error();
  EXPECT_EQ(*version, firmware::kIsaVersion);
  // Read-only: a write is answered and changes nothing.
  ASSERT_TRUE(d.writeReg(reg::kConfigQueues, 0).ok());
  auto queues = d.readReg(reg::kConfigQueues);
  ASSERT_TRUE(queues.ok()) << queues.error();
  EXPECT_EQ(*queues, want[reg::kConfigQueues]);
}

}  // namespace
}  // namespace nncosim::sim
