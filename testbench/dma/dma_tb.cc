// Testbench `dma`: the DMA (rtl/nnc_dma.sv) against a C++ AXI memory with random latency,
// random ready on every channel and read interleaving across IDs. Each iteration runs a
// random strided DMA_LOAD and DMA_STORE concurrently (plus command fetches) and checks
// DRAM and all five buffers byte for byte and the bursts on the bus; some iterations
// instead check an out-of-buffer command (error, nothing moved) or a SLVERR/DECERR
// (error with the faulting address, nothing written after it). A quarter of the loads
// are fills (ISA 1.4): the pattern lands in the rows, no burst goes out (their DRAM fields
// point anywhere, past the end of DRAM included), and with the buffer always ready a fill
// takes kFillOverhead cycles plus one per beat.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_dma.h"
#include "firmware/isa_generated.h"
#include "testbench/dma/axi_mem_model.h"
#include "testbench/testbench.h"
#include "testbench/verilated_model.h"

namespace nncosim::testbench {
namespace {

using firmware::Buffer;
using firmware::CommandWords;
using firmware::ErrCode;

constexpr unsigned kBus = firmware::kAxiDataBytes;
constexpr uint64_t kDram = 1 << 20;          // DRAM size; beats at or above answer DECERR
constexpr uint64_t kLoadRegion = kDram / 2;  // loads read [0, 512K), stores write above
const uint32_t kBufSize[5] = {firmware::kInpBufBytes, firmware::kWgtBufBytes,
                              firmware::kAccBufBytes, firmware::kOutBufBytes,
                              firmware::kPrmBufBytes};  // nnc_dma defaults

struct Xfer {
  bool store = false;
  Buffer buf = Buffer::kInp;
  uint32_t ew = 0;  // log2 element bytes
  uint32_t dram = 0, s1 = 0, s2 = 0;
  uint32_t baddr = 0, bs1 = 0, bs2 = 0;
  uint32_t c0 = 1, c1 = 1, c2 = 1;
  bool fill = false;  // DMA_LOAD only
  uint8_t fillValue = 0;
  uint32_t rowLen() const { return c0 << ew; }
  // A fill's beats: every row from a beat boundary.
  uint64_t fillBeats() const { return uint64_t{(rowLen() + kBus - 1) / kBus} * c1 * c2; }
};

// Accepted -> done of a fill whose buffer takes every beat (CostModel::fillOverhead).
constexpr uint64_t kFillOverhead = 4;

struct Row {
  uint64_t dram;
  uint32_t buf;
  uint32_t len;
};

std::vector<Row> rowsOf(const Xfer& x) {
  std::vector<Row> r;
  for (uint32_t z = 0; z < x.c2; ++z) {
    for (uint32_t y = 0; y < x.c1; ++y) {
      r.push_back({static_cast<uint32_t>(x.dram + z * x.s2 + y * x.s1),
                   (x.baddr + z * x.bs2 + y * x.bs1) & 0xFFFFF, x.rowLen()});
    }
  }
  return r;
}

// The bursts the DMA must issue: each row's beats, split at 256 beats and at 4 KiB.
std::vector<AxiBurst> burstsOf(const Xfer& x) {
  std::vector<AxiBurst> out;
  for (const Row& r : rowsOf(x)) {
    uint64_t beat = r.dram & ~uint64_t{kBus - 1};
    const uint64_t last = (r.dram + r.len - 1) & ~uint64_t{kBus - 1};
    while (beat <= last) {
      const uint64_t left = (last - beat) / kBus + 1;
      const uint64_t to4k = (4096 - beat % 4096) / kBus;
      const uint64_t n = std::min(left, to4k);
      out.push_back({1, beat, static_cast<uint32_t>(n - 1)});
      beat += n * kBus;
    }
  }
  return out;
}

uint64_t footprintEnd(const Xfer& x) {
  return uint64_t{x.baddr} + uint64_t{x.c2 - 1} * x.bs2 + uint64_t{x.c1 - 1} * x.bs1 + x.rowLen();
}
uint64_t dramSpanEnd(const Xfer& x) {
  return uint64_t{x.dram} + uint64_t{x.c2 - 1} * x.s2 + uint64_t{x.c1 - 1} * x.s1 + x.rowLen();
}

CommandWords encodeXfer(const Xfer& x) {
  firmware::DmaLoad d;  // DMA_STORE has the same fields
  d.bufId = x.buf;
  d.elemWidth = static_cast<firmware::ElemWidth>(x.ew);
  d.dramAddr = x.dram;
  d.dramStride1 = x.s1;
  d.dramStride2 = x.s2;
  d.bufAddr = x.baddr;
  d.bufStride1 = x.bs1;
  d.bufStride2 = x.bs2;
  d.count0 = x.c0;
  d.count1 = x.c1;
  d.count2 = x.c2;
  d.fill = x.fill;
  d.fillValue = x.fillValue;
  firmware::Command c{firmware::Deps{}, d};
  if (x.store) {
    firmware::DmaStore s;
    s.bufId = d.bufId;
    s.elemWidth = d.elemWidth;
    s.dramAddr = d.dramAddr;
    s.dramStride1 = d.dramStride1;
    s.dramStride2 = d.dramStride2;
    s.bufAddr = d.bufAddr;
    s.bufStride1 = d.bufStride1;
    s.bufStride2 = d.bufStride2;
    s.count0 = d.count0;
    s.count1 = d.count1;
    s.count2 = d.count2;
    c.args = s;
  }
  return firmware::encode(c);
}

std::string describe(const Xfer& x) {
  std::ostringstream os;
  os << (x.store ? "store" : "load") << " buf=" << firmware::toString(x.buf)
     << " eb=" << (1u << x.ew) << " dram=0x" << std::hex << x.dram << " s1=0x" << x.s1 << " s2=0x"
     << x.s2 << " baddr=0x" << x.baddr << " bs1=0x" << x.bs1 << " bs2=0x" << x.bs2 << std::dec
     << " c0=" << x.c0 << " c1=" << x.c1 << " c2=" << x.c2;
  if (x.fill) os << " fill=0x" << std::hex << int(x.fillValue);
  return os.str();
}

struct Done {
  bool err = false;
  uint32_t code = 0, addr = 0, info = 0;
};

class DmaHarness {
 public:
  DmaHarness(const TestbenchOptions& opt, std::mt19937_64& rng)
      : rng_(rng), top_(opt.wavesPath), mem_(kDram, kBus, rng()) {
    for (int b = 0; b < 5; ++b) bufs_[b].assign(kBufSize[b], 0);
    top_->rst_ni = 0;
    top_->clk_i = 0;
    top_->eval();
    for (int i = 0; i < 3; ++i) step();
    top_->rst_ni = 1;
  }

  AxiMemModel& mem() { return mem_; }
  std::vector<uint8_t>& buf(Buffer b) { return bufs_[static_cast<int>(b)]; }
  uint64_t cycles() const { return cycle_; }
  void setBufReadyPct(int pct) { bufReadyPct_ = pct; }
  int bufReadyPct() const { return bufReadyPct_; }
  uint64_t lastLoadCycles() const { return ldCycles_; }  // accepted -> done of the last load

  void queue(const Xfer& x) { (x.store ? stQ_ : ldQ_).push_back(encodeXfer(x)); }
  void fetch(uint32_t addr) { fetchQ_.push_back(addr); }
  std::deque<Done>& ldDone() { return ldDone_; }
  std::deque<Done>& stDone() { return stDone_; }
  std::vector<std::string>& fetchErrors() { return fetchErrors_; }

  bool busy() const {
    return !ldQ_.empty() || !stQ_.empty() || !fetchQ_.empty() || !fetchExpect_.empty() ||
           top_->ld_busy_o || top_->st_busy_o || !mem_.idle();
  }

  // Runs until everything queued has finished; false on timeout.
  bool runToIdle(uint64_t maxCycles) {
    const uint64_t end = cycle_ + maxCycles;
    step();
    while (busy()) {
      if (cycle_ >= end) return false;
      step();
    }
    for (int i = 0; i < 2; ++i) step();
    return true;
  }

  void step() {
    top_->clk_i = 0;
    top_->eval();
    top_.dumpAndAdvance();

    // --- drive ---
    mem_.drive(*top_);
    top_->bw_ready_i = roll(bufReadyPct_);
    top_->br_ready_i = roll(bufReadyPct_);
    if (brPending_) {
      const auto& b = bufs_[brBuf_];
      for (unsigned w = 0; w < kBus / 4; ++w) {
        uint32_t v = 0;
        for (unsigned i = 0; i < 4; ++i)
          v |= uint32_t{b[(brAddr_ + 4 * w + i) % b.size()]} << (8 * i);
        top_->br_data_i[w] = v;
      }
    }
    top_->ld_valid_i = !ldQ_.empty();
    if (!ldQ_.empty()) setCmd(top_->ld_cmd_i, ldQ_.front());
    top_->st_valid_i = !stQ_.empty();
    if (!stQ_.empty()) setCmd(top_->st_cmd_i, stQ_.front());
    top_->fetch_req_valid_i = !fetchQ_.empty() && fetchExpect_.size() < 3 && roll(50);
    top_->fetch_req_addr_i = fetchQ_.empty() ? 0 : fetchQ_.front();
    top_->aux_req_valid_i = 0;
    top_->abort_i = 0;
    top_->eval();

    // --- sample ---
    mem_.sample(*top_);
    if (top_->bw_valid_o && top_->bw_ready_i) {
      auto& b = bufs_[top_->bw_buf_o];
      const uint32_t be = top_->bw_be_o;
      for (unsigned i = 0; i < kBus; ++i) {
        if ((be >> i) & 1)
          b[(top_->bw_addr_o + i) % b.size()] =
              static_cast<uint8_t>(top_->bw_data_o[i / 4] >> (8 * (i % 4)));
      }
    }
    brPending_ = top_->br_valid_o && top_->br_ready_i;
    brAddr_ = top_->br_addr_o;
    brBuf_ = top_->br_buf_o;
    if (top_->ld_valid_i && top_->ld_ready_o) {
      ldQ_.pop_front();
      ldAccepted_ = cycle_;
    }
    if (top_->st_valid_i && top_->st_ready_o) stQ_.pop_front();
    if (top_->fetch_req_valid_i && top_->fetch_req_ready_o) {
      fetchExpect_.push_back(fetchQ_.front());
      fetchQ_.pop_front();
    }
    if (top_->fetch_rsp_valid_o) checkFetch();
    if (top_->ld_done_o) {
      ldDone_.push_back(doneOf(true));
      ldCycles_ = cycle_ - ldAccepted_;
    }
    if (top_->st_done_o) stDone_.push_back(doneOf(false));

    top_->clk_i = 1;
    top_->eval();
    top_.dumpAndAdvance();
    ++cycle_;
  }

 private:
  bool roll(int pct) { return static_cast<int>(rng_() % 100) < pct; }
  template <typename W>
  static void setCmd(W& w, const CommandWords& c) {
    for (int i = 0; i < firmware::kCommandWords; ++i) w[i] = c[i];
  }
  Done doneOf(bool load) {
    Done d;
    d.err = load ? top_->ld_err_o : top_->st_err_o;
    d.code = load ? top_->ld_err_code_o : top_->st_err_code_o;
    d.addr = load ? top_->ld_err_addr_o : top_->st_err_addr_o;
    d.info = load ? top_->ld_err_info_o : top_->st_err_info_o;
    return d;
  }
  void checkFetch() {
    if (fetchExpect_.empty()) {
      fetchErrors_.push_back("fetch response without a request");
      return;
    }
    const uint32_t a = fetchExpect_.front();
    fetchExpect_.pop_front();
    for (int w = 0; w < firmware::kCommandWords; ++w) {
      uint32_t v = 0;
      for (int i = 0; i < 4; ++i) v |= uint32_t{mem_.mem()[a + 4 * w + i]} << (8 * i);
      if (top_->fetch_rsp_cmd_o[w] != v) {
        std::ostringstream os;
        os << "fetch at 0x" << std::hex << a << " word " << w << ": got 0x"
           << top_->fetch_rsp_cmd_o[w] << " want 0x" << v;
        fetchErrors_.push_back(os.str());
        return;
      }
    }
    if (top_->fetch_rsp_resp_o != 0)
      fetchErrors_.push_back("fetch answered with an error response");
  }

  std::mt19937_64& rng_;
  VerilatedModel<Vnnc_dma> top_;
  AxiMemModel mem_;
  std::vector<uint8_t> bufs_[5];
  int bufReadyPct_ = 80;
  bool brPending_ = false;
  uint32_t brAddr_ = 0;
  int brBuf_ = 0;
  std::deque<CommandWords> ldQ_, stQ_;
  std::deque<uint32_t> fetchQ_, fetchExpect_;
  std::deque<Done> ldDone_, stDone_;
  std::vector<std::string> fetchErrors_;
  uint64_t cycle_ = 0;
  uint64_t ldAccepted_ = 0, ldCycles_ = 0;
};

// A random transfer whose buffer footprint fits and whose DRAM span lies in [lo, hi).
Xfer randomXfer(std::mt19937_64& rng, bool store, Buffer buf, uint64_t lo, uint64_t hi) {
  auto rnd = [&](uint64_t a, uint64_t b) { return a + rng() % (b - a + 1); };
  Xfer x;
  x.store = store;
  x.buf = buf;
  const uint32_t bufSize = kBufSize[static_cast<int>(buf)];
  for (;;) {
    x.ew = static_cast<uint32_t>(rnd(0, 2));
    const bool longRows = rng() % 8 == 0;
    x.c0 = static_cast<uint32_t>(longRows ? rnd(256, 3000) >> x.ew : rnd(1, 48));
    x.c0 = std::max<uint32_t>(x.c0, 1);
    x.c1 = static_cast<uint32_t>(longRows ? rnd(1, 2) : rnd(1, 6));
    x.c2 = static_cast<uint32_t>(rnd(1, 3));
    const uint32_t len = x.rowLen();
    // Strides: usually rows apart, sometimes overlapping or repeated (stride 0).
    switch (rng() % 6) {
      case 0:
        x.s1 = 0;
        break;
      case 1:
        x.s1 = static_cast<uint32_t>(rnd(1, len));
        break;
      default:
        x.s1 = len + static_cast<uint32_t>(rnd(0, 64));
    }
    x.s2 = x.s1 * x.c1 + static_cast<uint32_t>(rnd(0, 256));
    switch (rng() % 6) {
      case 0:
        x.bs1 = static_cast<uint32_t>(rnd(0, len));
        break;
      default:
        x.bs1 = len + static_cast<uint32_t>(rnd(0, 48));
    }
    x.bs2 = x.bs1 * x.c1 + static_cast<uint32_t>(rnd(0, 96));
    x.baddr = 0;
    x.dram = 0;
    const uint64_t fp = footprintEnd(x), span = dramSpanEnd(x);
    if (fp > bufSize || span > hi - lo) continue;
    x.baddr = static_cast<uint32_t>(rnd(0, bufSize - fp));
    x.dram = static_cast<uint32_t>(rnd(lo, hi - span));
    return x;
  }
}

void applyLoad(const Xfer& x, const std::vector<uint8_t>& dram, std::vector<uint8_t>& buf) {
  for (const Row& r : rowsOf(x)) {
    for (uint32_t i = 0; i < r.len; ++i) {
      if (x.fill)
        buf[(r.buf + i) % buf.size()] = x.fillValue;
      else if (r.dram + i < dram.size())
        buf[(r.buf + i) % buf.size()] = dram[r.dram + i];
    }
  }
}
void applyStore(const Xfer& x, const std::vector<uint8_t>& buf, std::vector<uint8_t>& dram) {
  for (const Row& r : rowsOf(x)) {
    for (uint32_t i = 0; i < r.len; ++i) {
      if (r.dram + i < dram.size()) dram[r.dram + i] = buf[(r.buf + i) % buf.size()];
    }
  }
}

class Checker {
 public:
  void fail(const std::string& s) {
    ++mismatches;
    if (first.size() < 3) first.push_back(s);
  }
  void compare(const std::string& what, const std::vector<uint8_t>& got,
               const std::vector<uint8_t>& want, const std::string& ctx) {
    if (got == want) return;
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[i]) {
        std::ostringstream os;
        os << what << "[0x" << std::hex << i << "] = 0x" << int(got[i]) << " want 0x"
           << int(want[i]) << std::dec << " after " << ctx;
        fail(os.str());
        return;
      }
    }
  }
  uint64_t mismatches = 0;
  std::vector<std::string> first;
};

TestbenchResult runDma(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t iterations = opt.iterations ? opt.iterations : 400;
  std::mt19937_64 rng(opt.seed);
  DmaHarness h(opt, rng);
  Checker chk;

  // Random initial contents everywhere, mirrored in the expected copies.
  for (auto& b : h.mem().mem()) b = static_cast<uint8_t>(rng());
  std::vector<uint8_t> expDram = h.mem().mem();
  std::vector<uint8_t> expBuf[5];
  for (int b = 0; b < 5; ++b) {
    for (auto& v : h.buf(static_cast<Buffer>(b))) v = static_cast<uint8_t>(rng());
    expBuf[b] = h.buf(static_cast<Buffer>(b));
  }
  uint64_t normal = 0, fills = 0, oobCases = 0, busCases = 0, bytesMoved = 0;

  for (uint64_t it = 0; it < iterations && chk.first.size() < 3; ++it) {
    h.mem().setTiming(static_cast<int>(40 + rng() % 61), 1, static_cast<int>(1 + rng() % 12));
    h.setBufReadyPct(static_cast<int>(50 + rng() % 51));
    h.mem().arLog().clear();
    h.mem().awLog().clear();
    const int kind = static_cast<int>(rng() % 10);
    const Buffer lb = static_cast<Buffer>(rng() % 5);
    Buffer sb = static_cast<Buffer>(rng() % 5);
    if (sb == lb) sb = static_cast<Buffer>((static_cast<int>(sb) + 1) % 5);

    if (kind < 7) {
      // A load and a store at once (disjoint buffers and DRAM halves), with fetches.
      Xfer l = randomXfer(rng, false, lb, 0, kLoadRegion);
      Xfer s = randomXfer(rng, true, sb, kLoadRegion, kDram);
      if (rng() % 4 == 0) {
        l.fill = true;
        l.fillValue = static_cast<uint8_t>(rng());
        l.dram = static_cast<uint32_t>(rng());  // ignored: past DRAM's end reads nothing
        if (rng() % 2) h.setBufReadyPct(100);
      }
      const std::string ctx = describe(l) + " | " + describe(s);
      h.queue(l);
      h.queue(s);
      for (int f = 0, n = static_cast<int>(rng() % 4); f < n; ++f) {
        h.fetch(static_cast<uint32_t>(rng() % (kLoadRegion / 32)) * 32);
      }
      if (!h.runToIdle(2000000)) {
        chk.fail("timeout: " + ctx);
        break;
      }
      applyLoad(l, expDram, expBuf[static_cast<int>(lb)]);
      applyStore(s, expBuf[static_cast<int>(sb)], expDram);
      for (std::deque<Done>* q : {&h.ldDone(), &h.stDone()}) {
        if (q->size() != 1 || q->front().err) chk.fail("unexpected completion state after " + ctx);
        q->clear();
      }
      // The bursts on the bus are exactly the rows split at 256 beats and 4 KiB.
      std::vector<AxiBurst> ar;
      for (const AxiBurst& b : h.mem().arLog()) {
        if (b.id == 1) ar.push_back(b);
      }
      const auto wantAr = l.fill ? std::vector<AxiBurst>{} : burstsOf(l), wantAw = burstsOf(s);
      auto same = [](const std::vector<AxiBurst>& a, const std::vector<AxiBurst>& b) {
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i) {
          if (a[i].addr != b[i].addr || a[i].len != b[i].len || a[i].id != b[i].id) return false;
        }
        return true;
      };
      if (!same(ar, wantAr)) chk.fail("AR bursts differ from the row split for " + describe(l));
      if (!same(h.mem().awLog(), wantAw))
        chk.fail("AW bursts differ from the row split for " + describe(s));
      bytesMoved += uint64_t{l.rowLen()} * l.c1 * l.c2 + uint64_t{s.rowLen()} * s.c1 * s.c2;
      ++normal;
      if (l.fill) {
        ++fills;
        if (h.bufReadyPct() == 100 && h.lastLoadCycles() != kFillOverhead + l.fillBeats()) {
          std::ostringstream os;
          os << "fill took " << h.lastLoadCycles() << " cycles, want " << kFillOverhead << " + "
             << l.fillBeats() << " beats: " << describe(l);
          chk.fail(os.str());
        }
      }
    } else if (kind == 7) {
      // Out of buffer: an error naming the buffer, and nothing moves.
      const bool store = rng() % 2;
      Xfer x = randomXfer(rng, store, lb, store ? kLoadRegion : 0, store ? kDram : kLoadRegion);
      if (!store && rng() % 3 == 0) {
        x.fill = true;
        x.fillValue = static_cast<uint8_t>(rng());
      }
      const uint32_t size = kBufSize[static_cast<int>(lb)];
      const uint64_t fp = footprintEnd(x) - x.baddr;
      // Push the footprint past the end by 1..64 bytes (the address field wraps at 2^20).
      const uint64_t over = 1 + rng() % 64;
      if (size + over - std::min<uint64_t>(fp, size + over) >= (1u << 20)) continue;
      x.baddr = static_cast<uint32_t>(size + over - std::min<uint64_t>(fp, size + over));
      if (footprintEnd(x) <= size) continue;
      h.queue(x);
      if (!h.runToIdle(100000)) {
        chk.fail("timeout: " + describe(x));
        break;
      }
      auto& q = store ? h.stDone() : h.ldDone();
      if (q.size() != 1 || !q.front().err ||
          q.front().code != static_cast<uint32_t>(ErrCode::kDmaOob) ||
          q.front().info != static_cast<uint32_t>(lb)) {
        chk.fail("out-of-buffer command not reported as dma_oob: " + describe(x));
      }
      q.clear();
      if (!h.mem().arLog().empty() || !h.mem().awLog().empty())
        chk.fail("bus traffic for an out-of-buffer " + describe(x));
      ++oobCases;
    } else {
      // Bus error inside the DRAM span: SLVERR from a region, or DECERR past the end.
      const bool store = kind == 9;
      Xfer x = randomXfer(rng, store, lb, store ? kLoadRegion : 0, store ? kDram : kLoadRegion);
      // Non-overlapping rows so "each byte is old or new" is well defined.
      x.s1 = std::max(x.s1, x.rowLen());
      x.s2 = std::max(x.s2, x.s1 * x.c1);
      const uint64_t span = dramSpanEnd(x) - x.dram;
      const bool decerr = rng() % 3 == 0;
      if (decerr) {
        if (span < 2) continue;
        x.dram = static_cast<uint32_t>(kDram - 1 - rng() % (span - 1));
      } else {
        if (dramSpanEnd(x) > (store ? kDram : kLoadRegion)) continue;
      }
      const auto rows = rowsOf(x);
      const Row& bad = rows[rng() % rows.size()];
      const uint64_t badLo = bad.dram + rng() % bad.len;
      if (!decerr) h.mem().addErrorRange(badLo, badLo + 1, AxiMemModel::kSlvErr);
      auto respOf = [&](uint64_t beat) -> uint32_t {
        if (beat + kBus > kDram) return AxiMemModel::kDecErr;
        if (!decerr && beat < badLo + 1 && beat + kBus > badLo) return AxiMemModel::kSlvErr;
        return 0;
      };
      h.queue(x);
      const bool finished = h.runToIdle(2000000);
      h.mem().clearErrorRanges();
      if (!finished) {
        chk.fail("timeout: " + describe(x));
        break;
      }
      auto& q = store ? h.stDone() : h.ldDone();
      if (q.size() != 1 || !q.front().err ||
          q.front().code != static_cast<uint32_t>(ErrCode::kBusError)) {
        chk.fail("bus error not reported: " + describe(x));
        q.clear();
        continue;
      }
      const Done d = q.front();
      q.clear();
      if (!store) {
        // The first faulting beat in walk order; every beat before it lands, nothing after.
        uint64_t faultBeat = 0;
        bool found = false;
        std::vector<uint8_t>& eb = expBuf[static_cast<int>(lb)];
        for (const Row& r : rows) {
          for (uint64_t beat = r.dram & ~uint64_t{kBus - 1}; beat < r.dram + r.len && !found;
               beat += kBus) {
            if (respOf(beat) != 0) {
              found = true;
              faultBeat = beat;
              break;
            }
            for (uint64_t a = std::max(beat, r.dram); a < std::min(beat + kBus, r.dram + r.len);
                 ++a) {
              eb[(r.buf + (a - r.dram)) % eb.size()] = expDram[a];
            }
          }
          if (found) break;
        }
        if (!found || d.addr != faultBeat || d.info != respOf(faultBeat)) {
          std::ostringstream os;
          os << "load bus error at 0x" << std::hex << d.addr << " resp " << d.info << ", want 0x"
             << faultBeat << " resp " << respOf(faultBeat) << " for " << describe(x);
          chk.fail(os.str());
        }
      } else {
        // The first burst that contains a faulting beat; DRAM bytes are each old or new.
        const auto bursts = burstsOf(x);
        uint64_t faultBurst = ~uint64_t{0};
        for (const AxiBurst& b : bursts) {
          for (uint32_t i = 0; i <= b.len && faultBurst == ~uint64_t{0}; ++i) {
            if (respOf(b.addr + uint64_t{i} * kBus) != 0) faultBurst = b.addr;
          }
          if (faultBurst != ~uint64_t{0}) break;
        }
        if (d.addr != faultBurst) {
          std::ostringstream os;
          os << "store bus error at 0x" << std::hex << d.addr << ", want burst 0x" << faultBurst
             << " for " << describe(x);
          chk.fail(os.str());
        }
        std::vector<uint8_t> full = expDram;
        applyStore(x, expBuf[static_cast<int>(lb)], full);
        auto& got = h.mem().mem();
        for (size_t a = 0; a < got.size(); ++a) {
          if (got[a] != expDram[a] && got[a] != full[a]) {
            std::ostringstream os;
            os << "store with bus error wrote DRAM[0x" << std::hex << a << "] = 0x" << int(got[a])
               << " for " << describe(x);
            chk.fail(os.str());
            break;
          }
        }
        expDram = got;  // accept whichever prefix landed
      }
      ++busCases;
    }
    chk.compare("DRAM", h.mem().mem(), expDram, "iteration " + std::to_string(it));
    for (int b = 0; b < 5; ++b) {
      chk.compare(std::string("buffer ") + firmware::toString(static_cast<Buffer>(b)),
                  h.buf(static_cast<Buffer>(b)), expBuf[b], "iteration " + std::to_string(it));
      if (chk.first.size() >= 3) break;
    }
    // Resynchronize after a mismatch so one bug is reported once.
    if (chk.mismatches) {
      expDram = h.mem().mem();
      for (int b = 0; b < 5; ++b) expBuf[b] = h.buf(static_cast<Buffer>(b));
    }
    res.iterations = it + 1;
  }
  for (const auto& v : h.mem().violations()) chk.fail("AXI protocol: " + v);
  for (const auto& e : h.fetchErrors()) chk.fail(e);

  res.cycles = h.cycles();
  res.mismatches = chk.mismatches;
  res.passed = chk.mismatches == 0;
  std::ostringstream os;
  if (res.passed) {
    os << normal << " concurrent load+store pairs (" << fills << " of the loads fills; "
       << bytesMoved << " bytes) checked byte for byte, " << oobCases << " out-of-buffer and "
       << busCases << " bus-error cases";
  } else {
    os << chk.first.front();
    for (size_t i = 1; i < chk.first.size(); ++i) os << "; " << chk.first[i];
  }
  res.summary = os.str();
  return res;
}

static TestbenchRegistrar reg{TestbenchDef{
    "dma", "DMA: random 3-D strided loads/stores vs a C++ AXI memory, out-of-buffer and bus errors",
    &runDma, 120}};

}  // namespace
}  // namespace nncosim::testbench
