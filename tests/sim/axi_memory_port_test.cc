#include "sim/axi_memory_port.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace nncosim::sim {
namespace {

// The NPU's AXI4 master pins as the port sees them, driven by the test instead of RTL.
struct FakeTop {
  // Master outputs
  uint8_t m_axi_arvalid_o = 0, m_axi_arid_o = 0, m_axi_arlen_o = 0, m_axi_arqos_o = 0;
  uint32_t m_axi_araddr_o = 0;
  uint8_t m_axi_awvalid_o = 0, m_axi_awid_o = 0, m_axi_awlen_o = 0, m_axi_wvalid_o = 0;
  uint32_t m_axi_awaddr_o = 0, m_axi_wstrb_o = 0;
  uint32_t m_axi_wdata_o[4] = {};
  uint8_t m_axi_rready_o = 1, m_axi_bready_o = 1;
  // Slave outputs (the port drives them)
  uint8_t m_axi_arready_i = 0, m_axi_awready_i = 0, m_axi_wready_i = 0;
  uint8_t m_axi_rvalid_i = 0, m_axi_rid_i = 0, m_axi_rresp_i = 0, m_axi_rlast_i = 0;
  uint32_t m_axi_rdata_i[4] = {};
  uint8_t m_axi_bvalid_i = 0, m_axi_bid_i = 0, m_axi_bresp_i = 0;
};

struct Request {
  uint64_t cycle;  // offered from this cycle until accepted
  uint8_t id, beats, qos;
  uint32_t addr;
};

struct Beat {
  uint8_t id;
  bool last;
};

// Runs the port for `cycles` cycles with the read requests offered in order (one AR at a
// time) and returns every R beat taken, in order.
std::vector<Beat> readBeats(bool qos, const std::vector<Request>& requests, int cycles) {
  std::vector<uint8_t> mem(1 << 16, 0);
  AddressWindows windows;
  windows.setEnforced(false);
  AxiMemoryPort<FakeTop> port(mem.data(), 0x1000, mem.size(), windows, 10, 16, qos);
  FakeTop t;
  std::vector<Beat> beats;
  size_t next = 0;
  for (int c = 0; c < cycles; ++c) {
    port.afterRisingEdge(t);
    if (t.m_axi_arvalid_o && t.m_axi_arready_i) ++next;  // taken on this edge
    if (t.m_axi_rvalid_i && t.m_axi_rready_o)
      beats.push_back({t.m_axi_rid_i, t.m_axi_rlast_i != 0});
    port.driveInputs(t);
    t.m_axi_arvalid_o = next < requests.size() && requests[next].cycle <= uint64_t(c);
    if (t.m_axi_arvalid_o) {
      const Request& r = requests[next];
      t.m_axi_arid_o = r.id;
      t.m_axi_araddr_o = r.addr;
      t.m_axi_arlen_o = static_cast<uint8_t>(r.beats - 1);
      t.m_axi_arqos_o = r.qos;
    }
    port.sampleHandshakes(t);
  }
  EXPECT_TRUE(port.idle());
  return beats;
}

// Four 32-beat DMA bursts (ID 1), then a 2-beat command fetch (ID 0, ARQOS 15).
const std::vector<Request> kDmaThenFetch = {{0, 1, 32, 0, 0x1000},
                                            {0, 1, 32, 0, 0x1200},
                                            {0, 1, 32, 0, 0x1400},
                                            {0, 1, 32, 0, 0x1600},
                                            {0, 0, 2, 15, 0x1800}};

size_t firstBeatOf(const std::vector<Beat>& beats, uint8_t id) {
  for (size_t i = 0; i < beats.size(); ++i)
    if (beats[i].id == id) return i;
  return beats.size();
}

TEST(AxiMemoryPort, AFetchPassesTheDmaBurstsRequestedBeforeItWithQos) {
  const auto beats = readBeats(true, kDmaThenFetch, 400);
  ASSERT_EQ(beats.size(), 4u * 32 + 2);
  // The fetch is ready before the first burst has finished: its beats come at once, in the
  // middle of that burst, and both together.
  const size_t f = firstBeatOf(beats, 0);
  EXPECT_LT(f, 32u);
  EXPECT_EQ(beats[f + 1].id, 0);
  EXPECT_TRUE(beats[f + 1].last);
}

TEST(AxiMemoryPort, WithoutQosReadsAreAnsweredInRequestOrder) {
  const auto beats = readBeats(false, kDmaThenFetch, 400);
  ASSERT_EQ(beats.size(), 4u * 32 + 2);
  EXPECT_EQ(firstBeatOf(beats, 0), 4u * 32);
}

// QoS never reorders bursts of one ID: a high-QoS burst behind an older one of its own ID
// waits for it (AXI's ordering rule), while another ID's burst may go.
TEST(AxiMemoryPort, QosKeepsTheOrderWithinAnId) {
  const std::vector<Request> reqs = {
      {0, 1, 16, 0, 0x1000}, {0, 1, 4, 15, 0x1100}, {0, 2, 4, 15, 0x1200}};
  const auto beats = readBeats(true, reqs, 300);
  ASSERT_EQ(beats.size(), 24u);
  const size_t aux = firstBeatOf(beats, 2);
  EXPECT_LT(aux, 16u);  // ID 2 passed the first ID 1 burst
  // ID 1's bursts in request order: its first RLAST ends 16 beats, not 4.
  std::vector<bool> lastOfOnes;
  for (const Beat& b : beats)
    if (b.id == 1) lastOfOnes.push_back(b.last);
  ASSERT_EQ(lastOfOnes.size(), 20u);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(lastOfOnes[i], i == 15 || i == 19) << "beat " << i;
}

}  // namespace
}  // namespace nncosim::sim
