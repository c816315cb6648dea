// AxiMemoryPort: the C++ transactor between the NPU's AXI4 master pins and device
// memory. It is cycle-based and runs inside the NPU adapter's clock loop, so DMA
// traffic costs no SystemC context switches. Timing: a burst's first beat arrives
// dramLatencyCycles after its address handshake; beats then flow at dramBytesPerCycle
// (a shared token bucket for reads and writes). With `readQos` the R channel serves the
// ready burst of the highest ARQOS, the oldest among equals, never ahead of an older burst
// of its own ID (AXI orders reads only within an ID), and a higher ARQOS takes R from the
// next beat of the burst under way (AXI4 lets read data of different IDs interleave): the
// NPU's command fetches pass its DMA bursts. Without it, reads go in request order.
// Every burst is checked against the
// protection windows first: a refused read returns SLVERR beats (zero data), a refused
// write is dropped with SLVERR; addresses outside DRAM answer DECERR.
//
// Per clock cycle the adapter calls:   afterRisingEdge(top)  (handshakes of the edge)
//                                       driveInputs(top)      (before the falling-edge eval)
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>

#include "firmware/isa_generated.h"
#include "sim/address_windows.h"

namespace nncosim::sim {

struct AxiMemoryStats {
  uint64_t bytesRead = 0, bytesWritten = 0, readBursts = 0, writeBursts = 0, refused = 0;
  uint64_t firstFaultAddress = 0;
  bool faulted = false;
};

template <typename Top>
class AxiMemoryPort {
 public:
  static constexpr uint32_t kBeatBytes = firmware::kAxiDataBytes;  // the NPU's data bus

  AxiMemoryPort(uint8_t* mem, uint64_t base, uint64_t size, const AddressWindows& windows,
                uint32_t latency, uint32_t bytesPerCycle, bool readQos = true)
      : mem_(mem),
        base_(base),
        size_(size),
        windows_(windows),
        latency_(latency),
        bytesPerCycle_(bytesPerCycle),
        readQos_(readQos) {}

  // Fault injection (SocConfig::faultWriteXor): XORed into the first strobed byte of each
  // write burst's first beat. 0 = off.
  void setWriteFault(uint8_t xorMask) { faultXor_ = xorMask; }

  void reset() {
    reads_.clear();
    active_ = kNone;
    presented_ = false;
    writes_.clear();
    bresps_.clear();
    credit_ = 0;
    now_ = 0;
  }

  // Handshakes as the DUT saw them on the edge just taken (inputs we drove + its outputs
  // sampled before the edge, which `sampled_` holds).
  void afterRisingEdge(Top& t) {
    ++now_;
    if (credit_ < 4 * kBeatBytes) credit_ += bytesPerCycle_;
    if (s_.ar) {
      Burst b{s_.arId, s_.arAddr, static_cast<uint32_t>(s_.arLen) + 1, 0, now_ + latency_,
              0,       s_.arQos};
      b.resp = check(b.addr, b.beats, false);
      reads_.push_back(b);
      ++stats_.readBursts;
    }
    if (s_.r) {
      presented_ = false;
      Burst& b = reads_[active_];
      if (++b.done == b.beats) {
        reads_.erase(reads_.begin() + static_cast<std::ptrdiff_t>(active_));
        active_ = kNone;
      }
    }
    if (s_.aw) {
      Burst b{s_.awId, s_.awAddr, static_cast<uint32_t>(s_.awLen) + 1, 0, 0, 0, 0};
      b.resp = check(b.addr, b.beats, true);
      writes_.push_back(b);
      ++stats_.writeBursts;
    }
    if (s_.w) {
      Burst& b = writes_.front();
      if (b.resp == 0) {
        const uint64_t off = b.addr - base_ + uint64_t{b.done} * kBeatBytes;
        uint8_t fault = b.done == 0 ? faultXor_ : 0;
        for (uint32_t k = 0; k < kBeatBytes; ++k)
          if ((s_.wStrb >> k) & 1u) {
            mem_[off + k] = s_.wData[k] ^ fault;
            fault = 0;
          }
        stats_.bytesWritten += kBeatBytes;
      }
      credit_ -= kBeatBytes;
      if (++b.done == b.beats) {
        bresps_.push_back({b.id, b.resp, now_ + latency_});
        writes_.pop_front();
      }
    }
    if (s_.b) bresps_.pop_front();
    (void)t;
  }

  // Drives our outputs (functions of our state only) and samples the DUT's outputs for
  // the next edge. Call after the rising-edge eval, before the falling-edge eval; the
  // DUT's outputs are registered, so sampling them here sees their post-edge values.
  void driveInputs(Top& t) {
    t.m_axi_arready_i = reads_.size() < kMaxOutstanding;
    t.m_axi_awready_i = writes_.size() < kMaxOutstanding;
    t.m_axi_wready_i = !writes_.empty() && credit_ >= static_cast<int64_t>(kBeatBytes);
    // R: the burst being answered, else the next one chosen, once bandwidth allows. A beat
    // once valid stays valid and unchanged until taken; between beats a ready burst of
    // higher ARQOS takes over (the one it interrupts resumes after it).
    const bool credit = credit_ >= static_cast<int64_t>(kBeatBytes);
    if (credit && !presented_) {
      const size_t next = nextRead();
      if (active_ == kNone || (next != kNone && reads_[next].qos > reads_[active_].qos))
        active_ = next;
    }
    const bool rOk = active_ != kNone && credit;
    presented_ = rOk;
    t.m_axi_rvalid_i = rOk;
    if (rOk) {
      const Burst& b = reads_[active_];
      t.m_axi_rid_i = b.id;
      t.m_axi_rresp_i = b.resp;
      t.m_axi_rlast_i = b.done + 1 == b.beats;
      uint32_t words[4] = {0, 0, 0, 0};
      if (b.resp == 0)
        std::memcpy(words, mem_ + (b.addr - base_) + uint64_t{b.done} * kBeatBytes, kBeatBytes);
      for (int k = 0; k < 4; ++k) t.m_axi_rdata_i[k] = words[k];
    } else {
      t.m_axi_rlast_i = 0;
    }
    const bool bOk = !bresps_.empty() && bresps_.front().readyAt <= now_;
    t.m_axi_bvalid_i = bOk;
    if (bOk) {
      t.m_axi_bid_i = bresps_.front().id;
      t.m_axi_bresp_i = bresps_.front().resp;
    }
  }

  // Samples the handshakes that the next rising edge will take: called after the
  // falling-edge eval, when every combinational path has settled.
  void sampleHandshakes(Top& t) {
    s_.ar = t.m_axi_arvalid_o && t.m_axi_arready_i;
    s_.aw = t.m_axi_awvalid_o && t.m_axi_awready_i;
    s_.w = t.m_axi_wvalid_o && t.m_axi_wready_i;
    s_.r = t.m_axi_rvalid_i && t.m_axi_rready_o;
    s_.b = t.m_axi_bvalid_i && t.m_axi_bready_o;
    if (s_.ar) {
      s_.arId = t.m_axi_arid_o;
      s_.arAddr = t.m_axi_araddr_o;
      s_.arLen = t.m_axi_arlen_o;
      s_.arQos = t.m_axi_arqos_o;
    }
    if (s_.aw) {
      s_.awId = t.m_axi_awid_o;
      s_.awAddr = t.m_axi_awaddr_o;
      s_.awLen = t.m_axi_awlen_o;
    }
    if (s_.w) {
      s_.wStrb = t.m_axi_wstrb_o;
      for (int k = 0; k < 4; ++k) {
        const uint32_t w = t.m_axi_wdata_o[k];
        std::memcpy(s_.wData + 4 * k, &w, 4);
      }
    }
    if (s_.r) {
      if (reads_[active_].resp == 0) stats_.bytesRead += kBeatBytes;
      credit_ -= kBeatBytes;
    }
  }

  bool idle() const { return reads_.empty() && writes_.empty() && bresps_.empty(); }
  const AxiMemoryStats& stats() const { return stats_; }

 private:
  static constexpr size_t kMaxOutstanding = 8;
  static constexpr size_t kNone = ~size_t{0};
  struct Burst {
    uint32_t id;
    uint64_t addr;
    uint32_t beats, done;
    uint64_t readyAt;
    uint32_t resp;
    uint32_t qos;
  };
  struct BResp {
    uint32_t id, resp;
    uint64_t readyAt;
  };
  struct Sampled {
    bool ar = false, aw = false, w = false, r = false, b = false;
    uint32_t arId = 0, awId = 0, arLen = 0, awLen = 0, arQos = 0;
    uint64_t arAddr = 0, awAddr = 0, wStrb = 0;
    uint8_t wData[kBeatBytes] = {};
  };

  // The read burst to answer next (an index into reads_, oldest first), or kNone: a burst
  // whose latency has passed and that has no older burst of its ID waiting, the highest
  // ARQOS first (with readQos_), else the oldest.
  size_t nextRead() const {
    size_t best = kNone;
    uint32_t seen = 0;  // IDs with an older burst (IDs are 2 bits wide)
    for (size_t i = 0; i < reads_.size(); ++i) {
      const Burst& b = reads_[i];
      const uint32_t bit = 1u << (b.id & 31);
      const bool eligible = !(seen & bit) && b.readyAt <= now_;
      seen |= bit;
      if (!readQos_) return eligible ? i : kNone;
      if (eligible && (best == kNone || b.qos > reads_[best].qos)) best = i;
    }
    return best;
  }

  // 0 OKAY, 2 SLVERR (protection), 3 DECERR (no memory there).
  uint32_t check(uint64_t addr, uint32_t beats, bool write) {
    const uint64_t len = uint64_t{beats} * kBeatBytes;
    uint32_t resp = 0;
    if (addr < base_ || addr - base_ > size_ || len > size_ - (addr - base_))
      resp = 3;
    else if (!windows_.allows(addr, len, write))
      resp = 2;
    if (resp) {
      ++stats_.refused;
      if (!stats_.faulted) {
        stats_.faulted = true;
        stats_.firstFaultAddress = addr;
      }
    }
    return resp;
  }

  uint8_t* mem_;
  uint64_t base_, size_;
  const AddressWindows& windows_;
  uint32_t latency_, bytesPerCycle_;
  bool readQos_;
  std::deque<Burst> reads_, writes_;
  size_t active_ = kNone;   // the read burst being answered
  bool presented_ = false;  // its beat is on R, not yet taken
  std::deque<BResp> bresps_;
  int64_t credit_ = 0;
  uint8_t faultXor_ = 0;
  uint64_t now_ = 0;
  Sampled s_;
  AxiMemoryStats stats_;
};

}  // namespace nncosim::sim
