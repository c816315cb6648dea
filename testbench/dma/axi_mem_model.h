// A C++ AXI4 slave memory for Verilated masters (nnc_dma, nnc_npu_top): random ready and
// response latencies, read interleaving across IDs, SLVERR/DECERR regions, and protocol
// checks (stable payloads while valid, INCR bursts inside 4 KiB, WLAST placement).
//
// Per cycle, with clk low: drive(top) sets the slave outputs, the caller evaluates, then
// sample(top) records the handshakes that the next rising edge completes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace nncosim::testbench {

struct AxiBurst {
  uint32_t id = 0;
  uint64_t addr = 0;
  uint32_t len = 0;  // beats - 1
};

class AxiMemModel {
 public:
  static constexpr uint32_t kOkay = 0, kSlvErr = 2, kDecErr = 3;

  AxiMemModel(size_t bytes, unsigned busBytes, uint64_t seed)
      : mem_(bytes, 0), busBytes_(busBytes), rng_(seed) {}

  std::vector<uint8_t>& mem() { return mem_; }
  // Beats touching [lo, hi) answer `resp` (writes there are dropped).
  void addErrorRange(uint64_t lo, uint64_t hi, uint32_t resp) { errs_.push_back({lo, hi, resp}); }
  void clearErrorRanges() { errs_.clear(); }
  // Probability (percent) that a ready/valid is offered in a cycle, and response latency.
  void setTiming(int readyPct, int minLatency, int maxLatency) {
    readyPct_ = readyPct;
    minLat_ = minLatency;
    maxLat_ = maxLatency;
  }
  // A stuck memory never answers reads (for watchdog tests).
  void setStallReads(bool stall) { stallReads_ = stall; }

  const std::vector<std::string>& violations() const { return violations_; }
  std::vector<AxiBurst>& arLog() { return arLog_; }
  std::vector<AxiBurst>& awLog() { return awLog_; }
  bool idle() const { return rq_.empty() && wq_.empty() && bq_.empty() && !rActive_ && !bActive_; }

  template <typename Top>
  void drive(Top& t) {
    t.m_axi_arready_i = roll();
    t.m_axi_awready_i = roll();
    // W only for bursts whose AW arrived (the masters here never send W first).
    t.m_axi_wready_i = pendingW() != nullptr && roll();

    // R: keep the presented beat until it is taken; else pick a ready burst (any ID).
    if (!rActive_ && !stallReads_ && roll()) {
      std::vector<size_t> cands;
      std::vector<uint32_t> seenIds;
      for (size_t i = 0; i < rq_.size(); ++i) {
        bool olderSameId = false;
        for (uint32_t s : seenIds) olderSameId |= s == rq_[i].b.id;
        if (!olderSameId && rq_[i].ready <= now_) cands.push_back(i);
        seenIds.push_back(rq_[i].b.id);
      }
      if (!cands.empty()) {
        rIdx_ = cands[rng_() % cands.size()];
        rActive_ = true;
      }
    }
    t.m_axi_rvalid_i = rActive_;
    if (rActive_) {
      const Pending& p = rq_[rIdx_];
      const uint64_t a = p.b.addr + uint64_t{p.beat} * busBytes_;
      t.m_axi_rid_i = p.b.id;
      t.m_axi_rlast_i = p.beat == p.b.len;
      t.m_axi_rresp_i = respOf(a);
      for (unsigned w = 0; w < busBytes_ / 4; ++w) {
        uint32_t v = 0;
        for (unsigned b = 0; b < 4; ++b) v |= uint32_t{byteAt(a + 4 * w + b)} << (8 * b);
        setWord(t.m_axi_rdata_i, w, v);
      }
    } else {
      t.m_axi_rid_i = 0;
      t.m_axi_rlast_i = 0;
      t.m_axi_rresp_i = 0;
    }

    if (!bActive_ && !bq_.empty() && bq_.front().ready <= now_ && roll()) bActive_ = true;
    t.m_axi_bvalid_i = bActive_;
    t.m_axi_bid_i = bActive_ ? bq_.front().id : 0;
    t.m_axi_bresp_i = bActive_ ? bq_.front().resp : 0;
  }

  template <typename Top>
  void sample(Top& t) {
    // Payload stability while valid and not ready.
    if (arHeld_ && t.m_axi_arvalid_o &&
        (t.m_axi_araddr_o != arPrev_.addr || t.m_axi_arlen_o != arPrev_.len ||
         t.m_axi_arid_o != arPrev_.id)) {
      violation("AR payload changed while valid");
    }
    if (awHeld_ && t.m_axi_awvalid_o &&
        (t.m_axi_awaddr_o != awPrev_.addr || t.m_axi_awlen_o != awPrev_.len ||
         t.m_axi_awid_o != awPrev_.id)) {
      violation("AW payload changed while valid");
    }
    if (arHeld_ && !t.m_axi_arvalid_o) violation("ARVALID dropped before ARREADY");
    if (awHeld_ && !t.m_axi_awvalid_o) violation("AWVALID dropped before AWREADY");

    if (t.m_axi_arvalid_o && t.m_axi_arready_i) {
      AxiBurst b{t.m_axi_arid_o, t.m_axi_araddr_o, t.m_axi_arlen_o};
      checkBurst("AR", b, t.m_axi_arsize_o, t.m_axi_arburst_o);
      arLog_.push_back(b);
      rq_.push_back({b, 0, now_ + latency()});
      arHeld_ = false;
    } else {
      arHeld_ = t.m_axi_arvalid_o;
      arPrev_ = {t.m_axi_arid_o, t.m_axi_araddr_o, t.m_axi_arlen_o};
    }
    if (t.m_axi_awvalid_o && t.m_axi_awready_i) {
      AxiBurst b{t.m_axi_awid_o, t.m_axi_awaddr_o, t.m_axi_awlen_o};
      checkBurst("AW", b, t.m_axi_awsize_o, t.m_axi_awburst_o);
      awLog_.push_back(b);
      wq_.push_back({b, 0, 0, kOkay});
      awHeld_ = false;
    } else {
      awHeld_ = t.m_axi_awvalid_o;
      awPrev_ = {t.m_axi_awid_o, t.m_axi_awaddr_o, t.m_axi_awlen_o};
    }

    if (t.m_axi_wvalid_o && t.m_axi_wready_i) {
      WPending* w = pendingW();
      if (w == nullptr) {
        violation("W beat without a burst");
      } else {
        const uint64_t a = w->b.addr + uint64_t{w->beat} * busBytes_;
        const bool last = w->beat == w->b.len;
        if (bool(t.m_axi_wlast_o) != last)
          violation("WLAST mismatch at beat " + std::to_string(w->beat));
        const uint32_t r = respOf(a);
        if (r != kOkay) {
          w->resp = std::max(w->resp, r);
        } else {
          const uint64_t strb = t.m_axi_wstrb_o;
          for (unsigned b = 0; b < busBytes_; ++b) {
            if ((strb >> b) & 1)
              mem_[a + b] = static_cast<uint8_t>(getWord(t.m_axi_wdata_o, b / 4) >> (8 * (b % 4)));
          }
        }
        ++w->beat;
        if (last) {
          bq_.push_back({w->b.id, w->resp, now_ + latency()});
          wq_.pop_front();
        }
      }
    }
    if (bActive_ && t.m_axi_bready_o) {
      bq_.pop_front();
      bActive_ = false;
    }
    if (rActive_ && t.m_axi_rready_o) {
      Pending& p = rq_[rIdx_];
      if (p.beat == p.b.len) {
        rq_.erase(rq_.begin() + static_cast<long>(rIdx_));
      } else {
        ++p.beat;
      }
      rActive_ = false;
    }
    ++now_;
  }

 private:
  struct Pending {
    AxiBurst b;
    uint32_t beat;
    uint64_t ready;
  };
  struct WPending {
    AxiBurst b;
    uint32_t beat;
    uint64_t unused;
    uint32_t resp;
  };
  struct BPending {
    uint32_t id, resp;
    uint64_t ready;
  };
  struct ErrRange {
    uint64_t lo, hi;
    uint32_t resp;
  };

  bool roll() { return static_cast<int>(rng_() % 100) < readyPct_; }
  uint64_t latency() {
    return static_cast<uint64_t>(
        minLat_ + static_cast<int>(rng_() % static_cast<uint64_t>(maxLat_ - minLat_ + 1)));
  }
  WPending* pendingW() { return wq_.empty() ? nullptr : &wq_.front(); }
  uint8_t byteAt(uint64_t a) const { return a < mem_.size() ? mem_[a] : 0; }
  uint32_t respOf(uint64_t beatAddr) const {
    if (beatAddr + busBytes_ > mem_.size()) return kDecErr;
    for (const ErrRange& e : errs_) {
      if (beatAddr < e.hi && beatAddr + busBytes_ > e.lo) return e.resp;
    }
    return kOkay;
  }
  void checkBurst(const char* ch, const AxiBurst& b, unsigned size, unsigned burst) {
    std::ostringstream os;
    if ((1u << size) != busBytes_) os << ch << " size " << size << " is not the bus width; ";
    if (burst != 1) os << ch << " burst type " << burst << " is not INCR; ";
    if (b.addr % busBytes_)
      os << ch << " address 0x" << std::hex << b.addr << std::dec << " unaligned; ";
    if ((b.addr % 4096) + (uint64_t{b.len} + 1) * busBytes_ > 4096) {
      os << ch << " burst at 0x" << std::hex << b.addr << std::dec << " len " << b.len
         << " crosses 4 KiB; ";
    }
    if (!os.str().empty()) violation(os.str());
  }
  void violation(const std::string& s) {
    if (violations_.size() < 100) violations_.push_back("cycle " + std::to_string(now_) + ": " + s);
  }
  template <typename W>
  static void setWord(W& w, unsigned i, uint32_t v) {
    w[i] = v;
  }
  template <typename W>
  static uint32_t getWord(const W& w, unsigned i) {
    return w[i];
  }

  std::vector<uint8_t> mem_;
  unsigned busBytes_;
  std::mt19937_64 rng_;
  std::vector<ErrRange> errs_;
  int readyPct_ = 70, minLat_ = 1, maxLat_ = 8;
  bool stallReads_ = false;
  uint64_t now_ = 0;
  std::deque<Pending> rq_;
  std::deque<WPending> wq_;
  std::deque<BPending> bq_;
  bool rActive_ = false, bActive_ = false;
  size_t rIdx_ = 0;
  bool arHeld_ = false, awHeld_ = false;
  AxiBurst arPrev_, awPrev_;
  std::vector<std::string> violations_;
  std::vector<AxiBurst> arLog_, awLog_;
};

}  // namespace nncosim::testbench
