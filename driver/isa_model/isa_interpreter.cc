#include "driver/isa_model/isa_interpreter.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "driver/isa_model/densify_descriptor.h"
#include "driver/isa_model/modular_progression.h"
#include "firmware/pool_window.h"
#include "hal/profile.h"
#include "ops/densify/densify_walker.h"
#include "ops/elementwise/quant_arith.h"
#include "ops/quant/fixed_point.h"
#include "ops/quant/quant_params.h"

namespace nncosim::driver {

using firmware::Buffer;
using firmware::Command;
using firmware::ErrCode;

hal::Status DramModel::write(uint64_t address, const void* data, size_t length) {
  if (!contains(address, length))
    return hal::fail("DRAM write of ", length, " bytes at 0x", std::hex, address, " is outside [0x",
                     base_, ", 0x", base_ + bytes_.size(), ")");
  if (length) std::memcpy(at(address, length), data, length);
  return hal::Status::Ok();
}

hal::Status DramModel::read(uint64_t address, void* data, size_t length) const {
  if (!contains(address, length))
    return hal::fail("DRAM read of ", length, " bytes at 0x", std::hex, address, " is outside [0x",
                     base_, ", 0x", base_ + bytes_.size(), ")");
  if (length) std::memcpy(data, at(address, length), length);
  return hal::Status::Ok();
}

std::string InterpreterCounters::describe() const {
  std::ostringstream os;
  os << cycles << " cycles; busy/stall load " << loadBusy << "/" << loadStall << ", compute "
     << computeBusy << "/" << computeStall << ", store " << storeBusy << "/" << storeStall
     << "; DMA read " << dmaReadBytes << " B, written " << dmaWriteBytes << " B; " << macs
     << " MACs; " << commands << " commands";
  if (arrayBeats || dwconvBusy)
    os << "; array beats " << arrayBeats << ", DWCONVs " << dwconvBusy << " (array idle "
       << idleDwconv << "), before the first beat " << idleBeforeGemm;
  return os.str();
}

std::string InterpreterResult::describe() const {
  std::ostringstream os;
  if (completed) {
    os << "completed: " << counters.describe();
  } else {
    os << "error " << firmware::toString(error) << " at command " << errCommand << " (info "
       << errInfo << "): " << message;
  }
  for (const auto& r : races) os << "\n  race: " << r;
  for (const auto& t : tokenLeaks) os << "\n  token leak: " << t;
  return os.str();
}

namespace {

constexpr int kLoadQ = 0, kComputeQ = 1, kStoreQ = 2, kNumQ = 3;
// Token counters: load->compute, compute->load, compute->store, store->compute.
constexpr int kL2C = 0, kC2L = 1, kC2S = 2, kS2C = 3, kNumCh = 4;
const char* kChannelName[kNumCh] = {"load->compute", "compute->load", "compute->store",
                                    "store->compute"};
const char* kQueueName[kNumQ] = {"load", "compute", "store"};
constexpr uint32_t kTokenMax = 255;
// REQUANT_STOREs the compute unit holds: the running one and one pending behind it (ISA
// 1.15, rtl/nnc_compute.sv).
constexpr size_t kRequantSlots = 2;
constexpr int kDramSpace = 5;  // access spaces 0..4 are the buffers

using Clock = std::array<uint64_t, kNumQ>;

// The counters a queue pops/pushes for its prev/next flags (-1: none).
int prevPopChannel(int q) { return q == kComputeQ ? kL2C : q == kStoreQ ? kC2S : -1; }
int nextPopChannel(int q) { return q == kLoadQ ? kC2L : q == kComputeQ ? kS2C : -1; }
int prevPushChannel(int q) { return q == kComputeQ ? kC2L : q == kStoreQ ? kS2C : -1; }
int nextPushChannel(int q) { return q == kLoadQ ? kL2C : q == kComputeQ ? kC2S : -1; }

std::vector<int> popChannels(int q, const firmware::Deps& d) {
  std::vector<int> ch;
  if (d.popPrev && prevPopChannel(q) >= 0) ch.push_back(prevPopChannel(q));
  if (d.popNext && nextPopChannel(q) >= 0) ch.push_back(nextPopChannel(q));
  return ch;
}
std::vector<int> pushChannels(int q, const firmware::Deps& d) {
  std::vector<int> ch;
  if (d.pushPrev && prevPushChannel(q) >= 0) ch.push_back(prevPushChannel(q));
  if (d.pushNext && nextPushChannel(q) >= 0) ch.push_back(nextPushChannel(q));
  return ch;
}

uint32_t widthBytes(firmware::ElemWidth w) {
  switch (w) {
    case firmware::ElemWidth::kW8:
      return 1;
    case firmware::ElemWidth::kW16:
      return 2;
    case firmware::ElemWidth::kW32:
      return 4;
  }
  return 1;
}

int32_t readElem(const uint8_t* p, uint32_t bytes, bool isSigned) {
  if (bytes == 1) return isSigned ? int32_t{static_cast<int8_t>(p[0])} : int32_t{p[0]};
  const uint16_t v = static_cast<uint16_t>(p[0] | (p[1] << 8));
  return isSigned ? int32_t{static_cast<int16_t>(v)} : int32_t{v};
}

int32_t readI32(const uint8_t* p) {
  uint32_t v = 0;
  for (int b = 0; b < 4; ++b) v |= uint32_t{p[b]} << (8 * b);
  return static_cast<int32_t>(v);
}
void writeI32(uint8_t* p, int32_t value) {
  const auto v = static_cast<uint32_t>(value);
  for (int b = 0; b < 4; ++b) p[b] = static_cast<uint8_t>(v >> (8 * b));
}
int64_t readI64(const uint8_t* p) {
  uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v |= uint64_t{p[b]} << (8 * b);
  return static_cast<int64_t>(v);
}
void writeI64(uint8_t* p, int64_t value) {
  const auto v = static_cast<uint64_t>(value);
  for (int b = 0; b < 8; ++b) p[b] = static_cast<uint8_t>(v >> (8 * b));
}
// Bytes of one ACC element: int32, or int64 with acc64.
uint32_t accElemBytes(bool acc64) { return acc64 ? 8 : 4; }

// One memory access of a command, for the race check: [lo, hi) in one space.
struct Access {
  int space;
  uint64_t lo, hi;
  bool write;
};

struct Fault {
  ErrCode code = ErrCode::kNone;
  uint32_t info = 0;
  std::string message;
};

// A recorded access: who, when (its queue's clock component), where.
struct Recorded {
  int queue;
  uint64_t time;
  size_t command;
  Access access;
};

// A DMA command's bursts in issue order, made one at a time as the engine issues them: per
// row (z-major), whole bus beats in bursts of at most 256 beats that never cross 4 KiB.
// A command may have 65535 x 4095 rows, so a list of them would cost memory in proportion
// to the transfer; this is O(1).
class BurstWalk {
 public:
  BurstWalk() = default;
  BurstWalk(uint32_t dramAddr, uint64_t rowBytes, uint32_t c1, uint32_t c2, uint32_t s1,
            uint32_t s2)
      : addr_(dramAddr), rowBytes_(rowBytes), c1_(c1), c2_(c2), s1_(s1), s2_(s2) {
    // An unchecked estimate may hold zero counts: no rows, no bursts.
    if (c1_ == 0 || c2_ == 0 || rowBytes_ == 0)
      z_ = c2_;
    else
      loadRow();
  }
  bool done() const { return z_ >= c2_; }
  // The beats of the next burst; only while !done().
  uint32_t next() {
    uint64_t b = std::min(left_, kMaxBeats);
    b = std::min(b, kPageBeats - beat_ % kPageBeats);  // never across 4 KiB
    beat_ += b;
    left_ -= b;
    if (left_ == 0) {
      if (++y_ == c1_) {
        y_ = 0;
        ++z_;
      }
      if (!done()) loadRow();
    }
    return static_cast<uint32_t>(b);
  }

 private:
  static constexpr uint64_t kBeat = firmware::kAxiDataBytes, kMaxBeats = 256,
                            kPageBeats = 4096 / kBeat;
  void loadRow() {
    // DRAM addresses wrap modulo 2^32 (the field width).
    const uint64_t a = (uint64_t{addr_} + uint64_t{z_} * s2_ + uint64_t{y_} * s1_) & 0xFFFFFFFFull;
    left_ = (a + rowBytes_ - 1) / kBeat - a / kBeat + 1;
    beat_ = a / kBeat;
  }
  uint32_t addr_ = 0;
  uint64_t rowBytes_ = 0;
  uint32_t c1_ = 0, c2_ = 0, s1_ = 0, s2_ = 0;
  uint32_t z_ = 0, y_ = 0;  // the row being issued
  uint64_t left_ = 0;       // its beats not yet issued
  uint64_t beat_ = 0;       // the next burst's first beat (its DRAM address / kBeat)
};

// The memory system in time: the two DMA engines issuing bursts (a few in flight each),
// command fetches, and one data bus that reads and writes share. With `fetchFirst` (the
// SoC honouring ARQOS) a ready fetch takes the read data bus from the load burst under way
// (which resumes after it), else every read goes in request order (so a fetch waits behind
// the read bursts requested before it). Write responses come dramLatency after a burst's
// last beat. A fluid model: between events each transferring channel (read data, write
// data) moves beats at a constant rate, the whole bus when alone and half of it when both
// transfer (the SoC's memory port arbitrates beat by beat). A load into INP stops moving
// while a REQUANT_STORE to_inp (ISA 1.9) writes its rows there: INP's write port is the
// requant unit's then, the DMA's buffer write waits and with it its read data.
class BusSim {
 public:
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
  BusSim(const NpuConfig& config, const CostModel& c)
      : cost_(c),
        bursts_(std::max<uint32_t>(1, config.dmaBursts)),
        beatCycles_(std::max<double>(1.0, std::ceil(double{firmware::kAxiDataBytes} /
                                                    std::max<uint32_t>(1, c.busBytesPerCycle)))) {}

  // Starts a command on engine e (0 load, 1 store) at `now` with its bursts; `intoInp`: a
  // load whose data goes to INP.
  void start(int e, uint64_t now, const BurstWalk& bursts, bool intoInp = false) {
    Engine& g = engines_[e];
    g = Engine{};
    g.running = true;
    g.intoInp = intoInp;
    g.bursts = bursts;
    g.nextIssue = static_cast<double>(now + cost_.dmaSetup);
    g.lastDone = g.nextIssue;
    if (g.issuedAll()) finishEngine(g, g.nextIssue);
  }
  uint64_t doneAt(int e) const { return engines_[e].done; }
  void take(int e) { engines_[e].done = kNever; }

  size_t fetch(uint64_t now) {
    arrivals_.push_back(kNever);
    Burst b;
    b.kind = kFetch;
    b.left = 2 * beatCycles_;
    b.ready = static_cast<double>(now + cost_.fetchLatency - 2 - cost_.fetchAfterData);
    b.ticket = arrivals_.size() - 1;
    rq_.push_back(b);
    return b.ticket;
  }
  uint64_t arrival(size_t ticket) const { return arrivals_[ticket]; }
  // The requant unit holds INP's write port during [from, to) (calls in time order).
  void blockInpWrites(double from, double to) {
    if (to > from) inpBusy_.push_back({from, to});
  }

  void advanceTo(uint64_t target) {
    const double T = static_cast<double>(target);
    for (;;) {
      issueAddresses();
      pickRead();
      const double e = nextInternal();
      if (e > T) {
        flow(T - t_);
        t_ = T;
        return;
      }
      flow(e - t_);
      t_ = e;
      completeAt(e);
    }
  }
  uint64_t nextEvent() {
    issueAddresses();
    pickRead();
    const double e = nextInternal();
    if (e >= 1e300) return kNever;
    return static_cast<uint64_t>(std::ceil(e - 1e-9));
  }
  // Counts the events the machine can observe: an engine finishing (doneAt) and a fetched
  // command's arrival time becoming known. Between two changes, the bus's other events
  // (bursts issued, data moved) change nothing outside it.
  uint64_t visibleChanges() const { return visible_; }

 private:
  static constexpr int kLoad = 0, kStore = 1, kFetch = 2;
  static constexpr size_t kNone = ~size_t{0};
  struct Burst {
    int kind = kLoad;
    double left = 0;    // cycles of data still to move (beats x cycles per beat)
    double ready = 0;   // data can move from this time
    size_t ticket = 0;  // fetch
    bool last = false;  // the engine's last burst
  };
  struct Engine {
    bool running = false;
    BurstWalk bursts;  // the bursts not yet issued
    uint32_t outstanding = 0;
    double nextIssue = 0, lastDone = 0;
    std::deque<double> responses;  // store: write responses due (a slot frees)
    uint64_t done = kNever;
    bool intoInp = false;
    bool issuedAll() const { return bursts.done(); }
  };

  void finishEngine(Engine& g, double t) {
    ++visible_;
    g.running = false;
    g.done = static_cast<uint64_t>(std::ceil(std::max(t, g.lastDone) - 1e-9)) + cost_.dmaDone;
  }

  // Issues the addresses that are due now.
  void issueAddresses() {
    for (int e = 0; e < 2; ++e) {
      Engine& g = engines_[e];
      while (g.running && !g.issuedAll() && g.outstanding < bursts_ && g.nextIssue <= t_ + 1e-9) {
        Burst b;
        b.kind = e;
        b.left = g.bursts.next() * beatCycles_;
        b.ready = g.nextIssue + (e == kLoad ? cost_.dramLatency : 2.0);
        b.last = g.issuedAll();
        ++g.outstanding;
        g.nextIssue += 1;
        (e == kLoad ? rq_ : wq_).push_back(b);
      }
    }
  }

  bool flowing(const std::deque<Burst>& q) const {
    return !q.empty() && q.front().ready <= t_ + 1e-9;
  }
  // Whether the read burst under way moves data now (not a load into INP while the requant
  // unit writes INP).
  bool reading() const {
    if (cur_ == kNone) return false;
    if (rq_[cur_].kind != kLoad || !engines_[kLoad].intoInp || inpBusy_.empty()) return true;
    const auto& [from, to] = inpBusy_.front();
    return !(from <= t_ + 1e-9 && t_ + 1e-9 < to);
  }
  double rate(bool mine, bool other) const { return mine ? (other ? 0.5 : 1.0) : 0.0; }

  // The read bursts that may go next: the oldest fetch and the oldest load (each kind keeps
  // its order), or with !fetchFirst the oldest read of all.
  std::array<size_t, 2> readCandidates() const {
    std::array<size_t, 2> c = {kNone, kNone};
    if (!cost_.fetchFirst) {
      if (!rq_.empty()) c[0] = 0;
      return c;
    }
    for (size_t i = 0; i < rq_.size() && (c[0] == kNone || c[1] == kNone); ++i) {
      size_t& slot = c[rq_[i].kind == kFetch ? 0 : 1];
      if (slot == kNone) slot = i;
    }
    return c;
  }
  // Chooses the read burst to answer: a ready fetch first (taking over from a load under
  // way), else a ready load when none is under way.
  void pickRead() {
    const std::array<size_t, 2> c = readCandidates();
    auto ready = [&](size_t i) { return i != kNone && rq_[i].ready <= t_ + 1e-9; };
    if (cur_ == kNone) {
      cur_ = ready(c[0]) ? c[0] : ready(c[1]) ? c[1] : kNone;
    } else if (cost_.fetchFirst && rq_[cur_].kind != kFetch && ready(c[0])) {
      cur_ = c[0];  // a load under way: the fetch takes the bus at its next beat
    }
  }

  double nextInternal() const {
    double e = 1e300;
    const bool r = reading(), w = flowing(wq_);
    if (r) e = std::min(e, t_ + rq_[cur_].left / rate(r, w));
    if (!inpBusy_.empty())
      e = std::min(
          e, inpBusy_.front().first > t_ + 1e-9 ? inpBusy_.front().first : inpBusy_.front().second);
    for (size_t i : readCandidates())
      if (i != kNone && rq_[i].ready > t_ + 1e-9) e = std::min(e, rq_[i].ready);
    if (!wq_.empty()) e = std::min(e, w ? t_ + wq_.front().left / rate(w, r) : wq_.front().ready);
    for (const Engine& g : engines_) {
      if (g.running && !g.issuedAll() && g.outstanding < bursts_)
        e = std::min(e, std::max(g.nextIssue, t_));
      if (!g.responses.empty()) e = std::min(e, g.responses.front());
    }
    return std::max(e, t_);
  }

  void flow(double dt) {
    if (dt <= 0) return;
    const bool r = reading(), w = flowing(wq_);
    if (r) rq_[cur_].left -= dt * rate(r, w);
    if (w) wq_.front().left -= dt * rate(w, r);
  }

  void completeAt(double t) {
    while (!inpBusy_.empty() && inpBusy_.front().second <= t + 1e-9) inpBusy_.pop_front();
    if (cur_ != kNone && rq_[cur_].left <= 1e-9) {
      const Burst b = rq_[cur_];
      rq_.erase(rq_.begin() + static_cast<std::ptrdiff_t>(cur_));
      cur_ = kNone;
      if (b.kind == kFetch) {
        arrivals_[b.ticket] = static_cast<uint64_t>(std::ceil(t - 1e-9)) + cost_.fetchAfterData;
        ++visible_;
      } else {
        Engine& g = engines_[kLoad];
        --g.outstanding;
        g.nextIssue = std::max(g.nextIssue, t + 1);
        g.lastDone = std::max(g.lastDone, t);
        if (g.issuedAll() && g.outstanding == 0) finishEngine(g, t);
      }
    }
    if (!wq_.empty() && wq_.front().ready <= t + 1e-9 && wq_.front().left <= 1e-9) {
      wq_.pop_front();
      engines_[kStore].responses.push_back(t + cost_.dramLatency);
    }
    Engine& st = engines_[kStore];
    while (!st.responses.empty() && st.responses.front() <= t + 1e-9) {
      const double at = st.responses.front();
      st.responses.pop_front();
      --st.outstanding;
      st.nextIssue = std::max(st.nextIssue, at + 1);
      st.lastDone = std::max(st.lastDone, at);
      if (st.issuedAll() && st.outstanding == 0 && st.running) finishEngine(st, at);
    }
  }

  const CostModel& cost_;
  const uint32_t bursts_;  // in flight per engine
  const double beatCycles_;
  double t_ = 0;
  std::deque<Burst> rq_, wq_;  // reads (loads and fetches) and writes, oldest first
  std::deque<std::pair<double, double>> inpBusy_;  // the requant unit's INP writes
  size_t cur_ = kNone;  // the read burst whose data is moving (an index into rq_)
  std::array<Engine, 2> engines_;
  std::vector<uint64_t> arrivals_;
  uint64_t visible_ = 0;
};

class Machine {
 public:
  Machine(const NpuConfig& config, DramModel& dram, const CostModel& cost,
          std::array<std::vector<uint8_t>, 5>& buffers, const std::vector<Command>& stream,
          bool timingOnly = false, uint64_t cycleLimit = IsaInterpreter::kNoLimit)
      : config_(config),
        dram_(dram),
        cost_(cost),
        buffers_(buffers),
        stream_(stream),
        timingOnly_(timingOnly),
        limit_(cycleLimit) {}

  InterpreterResult run();

 private:
  // A command a queue has issued and not yet completed.
  struct InFlight {
    size_t command = 0;
    uint64_t end = 0;  // completion time
    Clock epoch{};     // the queue's clock when it issued (its pops included)
    bool effectDone = false;
  };
  struct QueueState {
    std::deque<size_t> pending;     // dispatched, not issued
    std::deque<InFlight> inflight;  // issued, completing in order
    uint64_t readyAt = 0;           // the unit accepts its next command from this cycle
  };

  // Issue-time timing: whether queue q's unit accepts `c` at `now`, and the command's
  // completion time (advancing the unit's state).
  bool unitAccepts(int q, const QueueState& s, const Command& c, uint64_t now) const;
  uint64_t issueTiming(int q, QueueState& s, size_t index, uint64_t now);
  // A window GEMM's beats (ISA 1.5): its blocks' vector reads and beats; the time its
  // last beat issues.
  uint64_t windowBeats(const firmware::Gemm& g, uint64_t now);
  // DENSIFY's duration from its descriptor (the metadata is a constant of the model).
  uint64_t densifyCycles(const firmware::Densify& d) const;
  // A DMA command's bursts (BurstWalk), for the memory system.
  template <typename Dma>
  static BurstWalk dmaBursts(const Dma& d);
  // The checks a command passes before anything moves or is timed (docs/isa.md): buffer
  // footprints (dma_oob) and the DRAM rows of a transfer (bus_error). Time and memory are
  // bounded by the command's fields, never by the transfer it describes. DENSIFY's errors
  // depend on the metadata the unit reads while it runs; densify() finds them.
  Fault check(const Command& c) const;
  template <typename Dma>
  Fault checkDma(const Dma& d, bool load) const;
  Fault checkGemm(const firmware::Gemm& g) const;
  Fault checkDwconv(const firmware::Dwconv& w) const;
  Fault checkRequant(const firmware::RequantStore& r) const;
  Fault checkEltwise(const firmware::Eltwise& e) const;
  Fault checkPool(const firmware::Pool& p) const;
  // Executes a command's effect (after check()); fills `accesses`.
  Fault execute(const Command& c, std::vector<Access>& accesses);
  template <typename Dma>
  void dmaTransfer(const Dma& d, bool load, std::vector<Access>& accesses);
  void gemm(const firmware::Gemm& g, std::vector<Access>& accesses);
  void dwconv(const firmware::Dwconv& w, std::vector<Access>& accesses);
  // A DWCONV's timing on the depthwise unit: its filter rows' reads and taps; the time its
  // results are in ACC.
  uint64_t dwconvTiming(const firmware::Dwconv& w, uint64_t now, uint64_t& readsDone);
  void requant(const firmware::RequantStore& r, std::vector<Access>& accesses);
  void eltwise(const firmware::Eltwise& e, std::vector<Access>& accesses);
  void pool(const firmware::Pool& p, std::vector<Access>& accesses);
  Fault densify(const firmware::Densify& d, std::vector<Access>& accesses);
  Fault checkBuffer(Buffer b, uint64_t lo, uint64_t hi, const char* what) const;
  void checkRaces(int queue, const Clock& epoch, size_t command, const std::vector<Access>& acc);
  void prune();

  const NpuConfig& config_;
  DramModel& dram_;
  const CostModel& cost_;
  std::array<std::vector<uint8_t>, 5>& buffers_;
  const std::vector<Command>& stream_;
  const bool timingOnly_;
  const uint64_t limit_;  // estimate(): stop at this cycle (time only grows)

  InterpreterResult result_;
  std::array<uint32_t, kNumCh> tokens_{};
  std::array<std::deque<Clock>, kNumCh> tokenClocks_;
  std::array<Clock, kNumQ> clocks_{};
  std::vector<Recorded> recorded_;
  size_t sincePrune_ = 0;
  // Timing state: the memory system, the compute unit's GEMM pipeline.
  BusSim bus_{config_, cost_};
  uint64_t lastBeat_ = 0;
  bool anyGemm_ = false;
  // The window fetch: its next free read cycle, the last beats of the two newest blocks
  // (a block's first read waits for the older one's bank), and when the last window's reads
  // were all issued. nextIsWindow_[i]: the next compute command after command i is a
  // window GEMM (which the unit accepts while command i still streams).
  uint64_t fetchFree_ = 0, windowReadsDone_ = 0;
  std::array<uint64_t, 2> blockEnd_{};
  // The depthwise unit: its next free read cycle, the cycle each line buffer's taps end,
  // the next free tap cycle and drain cycle, and the buffer the next filter row loads.
  uint64_t dwReadFree_ = 0, dwTapFree_ = 0, dwDrainFree_ = 0;
  std::array<uint64_t, 3> dwBufFree_{};
  int dwBuf_ = 0;
  // Its kept weight vectors (ISA 1.14): the tag (a tile's wgt_addr) and how many of the
  // first tap entries it holds; a WGT load over their span drops them.
  uint64_t dwKeepTag_ = 0;
  uint32_t dwKept_ = 0;
  // DWCONVs beside GEMMs (ISA 1.14): the INP reads per beat of the GEMM streaming (the
  // depthwise unit's reads take the cycles left), WGT reads of the depthwise unit that
  // hold the array's issue, and the completion of the last tile (tiles drain in order).
  double gemmInpShare_ = 0;
  uint64_t tileDone_ = 0;
  std::vector<bool> nextIsWindow_;
  // nextKind_[i]: the next compute command after command i; a REQUANT_STORE is accepted at
  // once (ISA 1.10), a GEMM at gemmReadyAt_, a DWCONV at dwReadyAt_.
  enum class Next : uint8_t { kNone, kGemm, kDwconv, kRequant, kOther };
  std::vector<Next> nextKind_;
  uint64_t gemmReadyAt_ = 0, dwReadyAt_ = 0;
  uint64_t readyFor(Next k, uint64_t now) const {
    switch (k) {
      case Next::kRequant:
        return now + 1;
      case Next::kGemm:
        return std::max(now + 1, gemmReadyAt_);
      case Next::kDwconv:
        return std::max(now + 1, dwReadyAt_);
      default:
        return std::max({now + 1, gemmReadyAt_, dwReadyAt_});
    }
  }
  // The depthwise unit's `reads` INP reads from `rd`: the cycles they take beside the
  // GEMM streaming until lastBeat_.
  uint64_t dwReadCycles(uint64_t rd, uint64_t reads) const;
  // The array's beats and the depthwise unit's runs, [from, to) cycles, for the counters'
  // timeline (arrayTimeline; not kept by estimates).
  std::vector<std::pair<uint64_t, uint64_t>> beats_, dwRuns_;
  void arrayTimeline(InterpreterCounters& k) const;
};

// The byte a DMA_LOAD fill (ISA 1.4) writes into its rows on chip; none for a plain load
// and for DMA_STORE.
std::optional<uint8_t> fillOf(const firmware::DmaLoad& d) {
  return d.fill ? std::optional<uint8_t>(static_cast<uint8_t>(d.fillValue)) : std::nullopt;
}
std::optional<uint8_t> fillOf(const firmware::DmaStore&) { return std::nullopt; }

// The buffer-side footprint of a 3-D transfer, [lo, hi).
struct Footprint {
  uint64_t lo, hi;
};
Footprint bufFootprint(uint32_t addr, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t s1,
                       uint32_t s2, uint32_t eb) {
  const uint64_t last = uint64_t{addr} + uint64_t{c2 - 1} * s2 + uint64_t{c1 - 1} * s1;
  // Rows may overlap or be out of order (stride 0); the first row starts lowest.
  return {addr, last + uint64_t{c0} * eb};
}

// A fill's beats: each row from a beat boundary (the RTL walks it as a load from address 0).
uint64_t fillBeats(const firmware::DmaLoad& d) {
  constexpr uint64_t kBeat = firmware::kAxiDataBytes;
  const uint64_t rowBytes = uint64_t{d.count0} * widthBytes(d.elemWidth);
  return (rowBytes + kBeat - 1) / kBeat * d.count1 * d.count2;
}

template <typename Dma>
BurstWalk Machine::dmaBursts(const Dma& d) {
  return BurstWalk(d.dramAddr, uint64_t{d.count0} * widthBytes(d.elemWidth), d.count1, d.count2,
                   d.dramStride1, d.dramStride2);
}

// A window GEMM's INP reads per block (a tap of a channel tile): ISA 1.10, a read serves
// lanes i and i + 1 when both vectors fit its 2R bytes.
uint64_t windowBlockReads(const firmware::Gemm& g, uint32_t R) {
  const uint64_t eb = g.mode == firmware::GemmMode::kInt16 ? 2 : 1;
  const bool pairs = uint64_t{g.laneStride} + uint64_t{g.vec} * eb <= 2 * uint64_t{R};
  return pairs ? (uint64_t{g.m} + 1) / 2 : g.m;
}

uint64_t Machine::windowBeats(const firmware::Gemm& g, uint64_t now) {
  uint64_t rd = std::max(now + cost_.windowRead, fetchFree_);
  uint64_t prevBeat = anyGemm_ ? lastBeat_ : 0, lastRead = rd;
  const uint64_t blocks = uint64_t{g.taps} * g.tiles;
  const uint64_t reads = windowBlockReads(g, config_.rows);
  for (uint64_t j = 0; j < blocks; ++j) {
    rd = std::max(rd, blockEnd_[0]);  // the older open block's bank, free as it leaves
    lastRead = rd + reads - 1;
    const uint64_t first =
        std::max(lastRead + cost_.windowFill, anyGemm_ || j ? prevBeat + 1 : uint64_t{0});
    prevBeat = first + g.vec - 1;
    if (!timingOnly_) beats_.emplace_back(first, first + g.vec);
    blockEnd_ = {blockEnd_[1], prevBeat};
    rd = lastRead + 1;
  }
  fetchFree_ = rd;
  windowReadsDone_ = lastRead;
  return prevBeat;
}

// Weight vectors the depthwise unit keeps (rtl/nnc_dwconv.sv's MaxTaps^2): every tap of the
// largest filter DWCONV encodes, 7 x 7 (fh and fw are 3-bit fields).
constexpr uint32_t kDwKeepTaps = 7 * 7;

uint64_t Machine::dwconvTiming(const firmware::Dwconv& w, uint64_t now, uint64_t& readsDone) {
  const uint64_t span = uint64_t{w.m - 1} * w.sw + uint64_t{w.fw - 1} * w.dw + 1;
  // Pixel vectors per INP read: INP's line of inpLineVectors * R bytes over C-byte vectors.
  const uint64_t perRead =
      std::max<uint64_t>(1, uint64_t{config_.inpLineVectors} * config_.rows / config_.cols);
  const uint64_t reads = (span + perRead - 1) / perRead;
  uint64_t rd = std::max(now + cost_.dwRead, dwReadFree_), lastTap = now;
  for (uint32_t fy = 0; fy < w.fh; ++fy) {
    rd = std::max(rd, dwBufFree_[dwBuf_]);  // the buffer's previous row has run its taps
    const uint64_t lastRead = rd + dwReadCycles(rd, reads) - 1;
    const uint64_t firstTap = std::max(lastRead + cost_.dwFill, dwTapFree_);
    lastTap = firstTap + w.fw - 1;
    dwTapFree_ = lastTap + 1;
    dwBufFree_[dwBuf_] = lastTap + 1;
    dwBuf_ = (dwBuf_ + 1) % static_cast<int>(dwBufFree_.size());
    readsDone = lastRead;
    rd = lastRead + 1;
  }
  dwReadFree_ = rd;
  // The sums close with the last tap and drain two rows per cycle into ACC (ISA 1.11), after
  // the tile ahead of it (tiles drain in command order).
  const uint64_t afterAhead = tileDone_ + 1 > cost_.dwDone ? tileDone_ + 1 - cost_.dwDone : 0;
  const uint64_t drain = std::max({lastTap + cost_.dwClose, dwDrainFree_, afterAhead});
  const uint64_t drainCycles = (uint64_t{w.m} + 1) / 2;
  dwDrainFree_ = drain + drainCycles;
  // Weight vectors it does not keep are read from WGT, each holding the array's issue for a
  // cycle (ISA 1.14).
  const uint32_t taps = uint32_t{w.fh} * w.fw;
  if (w.wgtAddr != dwKeepTag_) {
    dwKeepTag_ = w.wgtAddr;
    dwKept_ = 0;
  }
  if (taps > dwKept_) {
    if (lastBeat_ >= now) lastBeat_ += taps - dwKept_;
    dwKept_ = taps;
  }
  tileDone_ = drain + drainCycles - 1 + cost_.dwDone;
  return tileDone_;
}

uint64_t Machine::dwReadCycles(uint64_t rd, uint64_t reads) const {
  if (!anyGemm_ || rd > lastBeat_ || reads == 0) return reads;
  const uint64_t overlap = lastBeat_ + 1 - rd;  // cycles the GEMM still streams
  const double free = 1.0 - std::min(1.0, gemmInpShare_);
  const double inOverlap = static_cast<double>(overlap) * free;
  if (inOverlap >= static_cast<double>(reads))
    return static_cast<uint64_t>(std::ceil(static_cast<double>(reads) / free));
  return overlap + reads - static_cast<uint64_t>(inOverlap);
}

// REQUANT_STORE on the requant unit's 2C lanes: two int32 rows per cycle for 8- and 16-bit
// outputs (one ACC read holds both), one int64 row or one 32-bit output row otherwise.
uint64_t requantCycles(const firmware::RequantStore& r, const CostModel& cost) {
  const bool pair = !r.acc64 && r.outWidth != firmware::ElemWidth::kW32;
  return (pair ? (uint64_t{r.rows} + 1) / 2 : uint64_t{r.rows}) + cost.requantOverhead;
}

// POOL on the pooling unit: AVG's reciprocal first (a quotient bit per cycle), then a window
// value per cycle.
uint64_t poolCycles(const firmware::Pool& p, const CostModel& cost) {
  const uint64_t count = uint64_t{firmware::poolRows(p)} * firmware::poolCols(p);
  uint64_t d = uint64_t{p.m} * count + cost.poolOverhead;
  if (p.avg) {
    uint32_t l = 0;
    while ((uint64_t{1} << l) < count) ++l;
    d += 32 + l + cost.poolDivideOverhead;
  }
  return d;
}

uint64_t Machine::issueTiming(int q, QueueState& s, size_t index, uint64_t now) {
  const Command& c = stream_[index];
  if (std::holds_alternative<firmware::Sync>(c.args)) return now;
  // DMA commands complete when the memory system says so (BusSim::doneAt).
  if (auto* d = std::get_if<firmware::DmaLoad>(&c.args)) {
    if (d->bufId == firmware::Buffer::kWgt) {
      // Bytes over the depthwise unit's kept weight vectors drop them (ISA 1.14).
      const Footprint fp = bufFootprint(d->bufAddr, d->count0, d->count1, d->count2, d->bufStride1,
                                        d->bufStride2, widthBytes(d->elemWidth));
      const uint64_t kept = dwKeepTag_ + uint64_t{kDwKeepTaps} * config_.cols;
      if (fp.lo < kept && dwKeepTag_ < fp.hi) dwKept_ = 0;
    }
    if (d->fill) {  // on chip: no bus, a beat per cycle
      const uint64_t end = now + cost_.fillOverhead + fillBeats(*d);
      s.readyAt = end + 1;
      return end;
    }
    bus_.start(0, now, dmaBursts(*d), d->bufId == firmware::Buffer::kInp);
    return BusSim::kNever;
  }
  if (auto* d = std::get_if<firmware::DmaStore>(&c.args)) {
    bus_.start(1, now, dmaBursts(*d));
    return BusSim::kNever;
  }
  if (auto* g = std::get_if<firmware::Gemm>(&c.args)) {
    const uint64_t prevLast = lastBeat_;
    uint64_t last = g->window ? windowBeats(*g, now) : now + cost_.gemmIssue + g->k - 1;
    if (anyGemm_) last = std::max(last, prevLast + cost_.gemmSpacing);
    // Its rows drain after the tile ahead of it (a DWCONV's, ISA 1.14): the array waits.
    const uint64_t rows = config_.rows;
    if (last + cost_.gemmDrain < tileDone_ + rows) last = tileDone_ + rows - cost_.gemmDrain;
    if (!g->window && !timingOnly_)
      beats_.emplace_back(last + 1 - std::min<uint64_t>(g->k, last + 1), last + 1);
    lastBeat_ = last;
    anyGemm_ = true;
    // INP reads per beat: a block's vector reads over its vec beats; one a beat k-major.
    if (g->window) {
      gemmInpShare_ = static_cast<double>(windowBlockReads(*g, config_.rows)) /
                      static_cast<double>(std::max<uint32_t>(1, g->vec));
    } else {
      gemmInpShare_ = 1.0;
    }
    // A window GEMM behind a window GEMM is accepted once this one's reads are issued and
    // the one ahead of it has streamed (the unit holds two streams); anything else once
    // this one has streamed.
    gemmReadyAt_ =
        g->window && nextIsWindow_[index] ? std::max(windowReadsDone_, prevLast + 1) : last + 1;
    s.readyAt = readyFor(nextKind_[index], now);
    tileDone_ = last + cost_.gemmDrain;
    return tileDone_;
  }
  if (auto* w = std::get_if<firmware::Dwconv>(&c.args)) {
    uint64_t readsDone = now;
    const uint64_t done = dwconvTiming(*w, now, readsDone);
    if (!timingOnly_) dwRuns_.emplace_back(now, done + 1);
    dwReadyAt_ = readsDone + cost_.dwAccept;  // the unit takes the next start then
    s.readyAt = readyFor(nextKind_[index], now);
    return done;
  }
  uint64_t d = 1;
  if (auto* r = std::get_if<firmware::RequantStore>(&c.args)) {
    // Its rows stream once the tiles ahead of it are in ACC (ISA 1.10); the next command is
    // accepted at once. Behind a REQUANT_STORE in flight it waits pending (ISA 1.15) and
    // reads its parameters once that one has completed and the done pulses held behind it
    // (tiles that drained first) have left, one per cycle.
    uint64_t aheadDone = 0, start = now, running = 0, held = 0;
    bool behindRunning = false;
    for (const InFlight& f : s.inflight) {
      aheadDone = std::max(aheadDone, f.end);
      if (std::holds_alternative<firmware::RequantStore>(stream_[f.command].args)) {
        running = f.end;
        behindRunning = true;
        held = 0;
      } else if (behindRunning && f.end <= running) {
        ++held;
      }
    }
    if (behindRunning) start = std::max(start, running + 1 + held);
    const uint64_t cycles = requantCycles(*r, cost_);
    const uint64_t param = std::min<uint64_t>(cost_.requantParam, cycles);
    const uint64_t done = std::max(start + param, aheadDone + 1) - param + cycles;
    // to_inp: its row pairs take INP's write port one cycle each, ending two before it.
    if (r->toInp) {
      const uint64_t writes = (uint64_t{r->rows} + 1) / 2;
      bus_.blockInpWrites(static_cast<double>(done - 2 - writes), static_cast<double>(done - 2));
    }
    s.readyAt = readyFor(nextKind_[index], now);
    return done;
  } else if (auto* e = std::get_if<firmware::Eltwise>(&c.args))
    d = (uint64_t{e->count} + config_.cols - 1) / config_.cols + cost_.eltwiseOverhead;
  else if (auto* p = std::get_if<firmware::Pool>(&c.args))
    d = poolCycles(*p, cost_);
  else if (auto* x = std::get_if<firmware::Densify>(&c.args))
    d = densifyCycles(*x);
  (void)q;
  s.readyAt = now + d + 1;
  return now + d;
}

// The densify unit's phases (rtl/nnc_densify.sv, docs/rtl-datapath.md section 3): it reads
// each array element by element, one per cycle while its beats are on chip; the reader
// keeps `densifyBeats` (NpuConfig) beats per array in flight, so an array's first beat costs a DRAM
// round trip and a fast phase (the descriptor, the scan) then runs at the rate the beats
// come back. The fill writes whole beats, `densifyFillBeat` cycles each (the DMA's aux
// port); the walk spends a few cycles per position of each level and per stored value.
// Without a readable, valid descriptor (an estimate without DRAM contents, or metadata the
// unit rejects early) only the fill and a round trip are counted.
uint64_t Machine::densifyCycles(const firmware::Densify& d) const {
  constexpr uint64_t kBeat = firmware::kAxiDataBytes;
  const uint64_t lat = cost_.dramLatency;
  const uint64_t outBeats =
      (uint64_t{d.outAddr} + d.outSize + kBeat - 1) / kBeat - d.outAddr / kBeat;
  const uint64_t base = cost_.densifyOverhead + outBeats * cost_.densifyFillBeat;
  uint32_t hdr[4];
  auto word = [&](uint64_t a, uint32_t* v) {
    if (!dram_.contains(a, 4)) return false;
    *v = static_cast<uint32_t>(readI32(dram_.at(a, 4)));
    return true;
  };
  for (uint32_t i = 0; i < 4; ++i)
    if (!word(uint64_t{d.descAddr} + 4 * i, &hdr[i])) return base + lat;
  const uint32_t levels = hdr[0];
  if (levels == 0 || levels > kDensifyMaxLevels) return base + lat;
  // An array of n 4-byte elements read at one per cycle, from its first beat on.
  const uint64_t ahead = std::max<uint32_t>(1, config_.densifyBeats);
  auto stream = [&](uint64_t n) {
    const uint64_t beats = (4 * n + kBeat - 1) / kBeat;
    return n == 0 ? 0 : lat + std::max(n, beats * (lat + cost_.densifyRefill) / ahead);
  };
  uint64_t cycles = base + stream(4) + stream(8 * uint64_t{levels});
  uint64_t parents = 1;  // positions of the level above
  for (uint32_t l = 0; l < levels; ++l) {
    uint32_t rec[8];
    for (uint32_t i = 0; i < 8; ++i)
      if (!word(uint64_t{d.descAddr} + 4 * (kDensifyHeaderWords + kDensifyLevelWords * l + i),
                &rec[i]))
        return cycles;
    const bool sparse = rec[1] == 1;
    const uint64_t positions = sparse ? rec[7] : parents * std::max<uint32_t>(rec[2], 1);
    // Scan (sparse levels: segments, then indices), then the walk: entering each parent
    // (a sparse one looks up its segment pair), stepping and placing each position, leaving.
    if (sparse) cycles += stream(rec[5]) + stream(rec[7]) + 2 * lat;
    cycles += parents * (sparse ? cost_.densifyEnterSparse : cost_.densifyEnterDense) +
              positions * cost_.densifyPosition;
    if (sparse) cycles += positions / std::max<uint32_t>(1, cost_.densifyIndexRun);
    parents = positions;
  }
  // The last level's positions are the stored values: one write each; the values array is
  // one more stream to start.
  return cycles + parents * cost_.densifyValue + lat;
}

Fault Machine::checkBuffer(Buffer b, uint64_t lo, uint64_t hi, const char* what) const {
  const uint64_t size = config_.bufferBytes(b);
  if (hi > size || lo > hi) {
    Fault f;
    f.code = ErrCode::kDmaOob;
    f.info = static_cast<uint32_t>(b);
    std::ostringstream os;
    os << what << " footprint [" << lo << ", " << hi << ") exceeds the " << firmware::toString(b)
       << " buffer (" << size << " bytes)";
    f.message = os.str();
    return f;
  }
  return {};
}

// The start of the first row, in the order the DMA moves them (z-major), of a 3-D transfer
// whose bytes are not all in DRAM; none when every row is inside. Row (z, y) starts at
// (addr + z*s2 + y*s1) mod 2^32: per plane an arithmetic progression, searched for a start
// outside the window of valid starts by firstTermInRange. O(planes x log 2^32), at most
// 4095 x 2 searches, whatever the rows and bytes of the transfer.
std::optional<uint64_t> firstRowOutsideDram(const DramModel& dram, uint32_t addr, uint64_t rowBytes,
                                            uint32_t c1, uint32_t c2, uint32_t s1, uint32_t s2) {
  constexpr uint64_t kTop = 0xFFFFFFFFull;
  // The starts a with dram.contains(a, rowBytes) are [base, base + size - rowBytes], cut to
  // the 32-bit field; their complement in [0, 2^32) is at most two ranges.
  std::array<std::pair<uint32_t, uint32_t>, 2> outside{};
  int ranges = 0;
  if (rowBytes > dram.size() || dram.base() > kTop) {
    outside[ranges++] = {0, static_cast<uint32_t>(kTop)};
  } else {
    const uint64_t lo = dram.base();
    const uint64_t span = dram.size() - rowBytes;
    const uint64_t hi = span >= kTop - lo ? kTop : lo + span;
    if (lo > 0) outside[ranges++] = {0, static_cast<uint32_t>(lo - 1)};
    if (hi < kTop) outside[ranges++] = {static_cast<uint32_t>(hi + 1), static_cast<uint32_t>(kTop)};
  }
  for (uint32_t z = 0; z < c2; ++z) {
    const uint32_t start = addr + z * s2;  // wraps modulo 2^32, as the row addresses do
    uint64_t y = c1;
    for (int i = 0; i < ranges; ++i)
      y = std::min(y, firstTermInRange(start, s1, c1, outside[i].first, outside[i].second));
    if (y < c1) return (uint64_t{start} + y * s1) & kTop;
  }
  return std::nullopt;
}

// GEMM's full-lane footprints (R activation lanes, C weight lanes per k step; m rows of C
// accumulators), the conservative reading of "checks their footprints": the ends of
// [inp_addr, inpHi), [wgt_addr, wgtHi), [acc_addr, accHi).
struct GemmFootprint {
  uint64_t inpHi, wgtHi, accHi;
};
GemmFootprint gemmFootprint(const firmware::Gemm& g, uint32_t R, uint32_t C) {
  const uint32_t eb = g.mode == firmware::GemmMode::kInt16 ? 2 : 1;
  const uint32_t wb = g.wgt8 ? 1 : eb;  // decode rejected wgt8 with mode int8
  // A window's furthest pixel vector: the last lane's, of the last inner tap of the last
  // tile (decode guarantees m, taps, tiles >= 1 with window).
  auto minus1 = [](uint32_t v) { return uint64_t{v ? v - 1 : 0}; };
  const uint64_t windowHi = uint64_t{g.inpAddr} + minus1(g.m) * g.laneStride +
                            minus1(g.taps) * g.tapStride + minus1(g.tiles) * g.tileStride +
                            uint64_t{g.vec} * eb;
  return {g.window ? windowHi : uint64_t{g.inpAddr} + uint64_t{g.k} * R * eb,
          uint64_t{g.wgtAddr} + uint64_t{g.k} * C * wb,
          uint64_t{g.accAddr} + uint64_t{g.m} * C * accElemBytes(g.acc64)};
}

// REQUANT_STORE's footprints: rows of C accumulators in ACC, rows of C outputs in OUT (INP
// with to_inp, ISA 1.9), and in PRM C biases, perParam multipliers and perParam shifts.
struct RequantFootprint {
  uint64_t accHi, outHi, biasHi, multHi, shiftHi;
  uint32_t perParam;
};
RequantFootprint requantFootprint(const firmware::RequantStore& r, uint32_t C) {
  const uint32_t perParam = r.perChannel ? C : 1;
  // Segments (ISA 1.13): every gap it may take, in C-byte vectors of 8-bit rows.
  const uint64_t gaps = r.segments ? uint64_t{r.segGaps} * r.segGap : 0;
  return {uint64_t{r.accAddr} + uint64_t{r.rows} * C * accElemBytes(r.acc64),
          uint64_t{r.outAddr} + (uint64_t{r.rows} + gaps) * C * widthBytes(r.outWidth),
          uint64_t{r.biasAddr} + 4 * uint64_t{C},
          uint64_t{r.multAddr} + 4 * uint64_t{perParam},
          uint64_t{r.shiftAddr} + perParam,
          perParam};
}

Fault Machine::check(const Command& c) const {
  if (auto* d = std::get_if<firmware::DmaLoad>(&c.args)) return checkDma(*d, true);
  if (auto* d = std::get_if<firmware::DmaStore>(&c.args)) return checkDma(*d, false);
  if (auto* g = std::get_if<firmware::Gemm>(&c.args)) return checkGemm(*g);
  if (auto* w = std::get_if<firmware::Dwconv>(&c.args)) return checkDwconv(*w);
  if (auto* r = std::get_if<firmware::RequantStore>(&c.args)) return checkRequant(*r);
  if (auto* e = std::get_if<firmware::Eltwise>(&c.args)) return checkEltwise(*e);
  if (auto* p = std::get_if<firmware::Pool>(&c.args)) return checkPool(*p);
  return {};  // DENSIFY (densify()), SYNC
}

// DMA_LOAD (load: DRAM -> buffer) and DMA_STORE (buffer -> DRAM): the same 3-D walk, the
// same checks; only the direction and the counter differ.
template <typename Dma>
Fault Machine::checkDma(const Dma& d, bool load) const {
  const char* what = load ? "DMA_LOAD" : "DMA_STORE";
  const uint32_t eb = widthBytes(d.elemWidth);
  const uint64_t rowBytes = uint64_t{d.count0} * eb;
  const Footprint fp =
      bufFootprint(d.bufAddr, d.count0, d.count1, d.count2, d.bufStride1, d.bufStride2, eb);
  if (Fault f = checkBuffer(d.bufId, fp.lo, fp.hi, what); f.code != ErrCode::kNone) return f;
  if (fillOf(d)) return {};  // no DRAM access
  if (const std::optional<uint64_t> a = firstRowOutsideDram(
          dram_, d.dramAddr, rowBytes, d.count1, d.count2, d.dramStride1, d.dramStride2)) {
    Fault f;
    f.code = ErrCode::kBusError;
    f.info = 3;  // DECERR: no slave at that address
    std::ostringstream os;
    os << what << (load ? " reads " : " writes ") << rowBytes << " bytes at 0x" << std::hex << *a
       << ", outside DRAM";
    f.message = os.str();
    return f;
  }
  return {};
}

template <typename Dma>
void Machine::dmaTransfer(const Dma& d, bool load, std::vector<Access>& accesses) {
  const uint32_t eb = widthBytes(d.elemWidth);
  const uint64_t rowBytes = uint64_t{d.count0} * eb;
  const Footprint fp =
      bufFootprint(d.bufAddr, d.count0, d.count1, d.count2, d.bufStride1, d.bufStride2, eb);
  std::vector<uint8_t>& buf = buffers_[static_cast<size_t>(d.bufId)];
  if (const std::optional<uint8_t> fill = fillOf(d)) {  // the pattern into the rows, no DRAM
    // An access per run of adjacent rows: a fill of padding columns between rows that
    // other commands write (a padded tensor's borders) conflicts with none of them.
    const size_t first = accesses.size();
    for (uint32_t z = 0; z < d.count2; ++z)
      for (uint32_t y = 0; y < d.count1; ++y) {
        const uint64_t at =
            uint64_t{d.bufAddr} + uint64_t{z} * d.bufStride2 + uint64_t{y} * d.bufStride1;
        std::memset(buf.data() + at, *fill, rowBytes);
        if (rowBytes == 0) continue;
        if (accesses.size() > first && accesses.back().hi == at)
          accesses.back().hi = at + rowBytes;
        else
          accesses.push_back({static_cast<int>(d.bufId), at, at + rowBytes, true});
      }
    if (accesses.size() == first)
      accesses.push_back({static_cast<int>(d.bufId), fp.lo, fp.hi, true});
    return;
  }
  uint64_t dlo = std::numeric_limits<uint64_t>::max(), dhi = 0;
  for (uint32_t z = 0; z < d.count2; ++z)
    for (uint32_t y = 0; y < d.count1; ++y) {
      // DRAM rows: addresses wrap modulo 2^32 (the field width).
      const uint64_t a =
          (uint64_t{d.dramAddr} + uint64_t{z} * d.dramStride2 + uint64_t{y} * d.dramStride1) &
          0xFFFFFFFFull;
      dlo = std::min(dlo, a);
      dhi = std::max(dhi, a + rowBytes);
      uint8_t* dram = dram_.at(a, rowBytes);
      uint8_t* onChip = buf.data() + uint64_t{d.bufAddr} + uint64_t{z} * d.bufStride2 +
                        uint64_t{y} * d.bufStride1;
      if (load) {
        std::memcpy(onChip, dram, rowBytes);
      } else {
        std::memcpy(dram, onChip, rowBytes);
      }
    }
  (load ? result_.counters.dmaReadBytes : result_.counters.dmaWriteBytes) +=
      rowBytes * d.count1 * d.count2;
  const Access dramAccess{kDramSpace, dlo, dhi, !load};
  const Access bufAccess{static_cast<int>(d.bufId), fp.lo, fp.hi, load};
  // The source first, as the race reports name them.
  accesses.push_back(load ? dramAccess : bufAccess);
  accesses.push_back(load ? bufAccess : dramAccess);
}

Fault Machine::checkGemm(const firmware::Gemm& g) const {
  const GemmFootprint fp = gemmFootprint(g, config_.rows, config_.cols);
  if (Fault f = checkBuffer(Buffer::kInp, g.inpAddr, fp.inpHi, "GEMM"); f.code != ErrCode::kNone)
    return f;
  if (Fault f = checkBuffer(Buffer::kWgt, g.wgtAddr, fp.wgtHi, "GEMM"); f.code != ErrCode::kNone)
    return f;
  return checkBuffer(Buffer::kAcc, g.accAddr, fp.accHi, "GEMM");
}

void Machine::gemm(const firmware::Gemm& g, std::vector<Access>& accesses) {
  const uint32_t eb = g.mode == firmware::GemmMode::kInt16 ? 2 : 1;
  const uint32_t wb = g.wgt8 ? 1 : eb;
  const uint32_t R = config_.rows, C = config_.cols;
  const uint32_t ab = accElemBytes(g.acc64);
  const GemmFootprint fp = gemmFootprint(g, R, C);
  const uint8_t* inp = buffers_[0].data() + g.inpAddr;
  const uint8_t* wgt = buffers_[1].data() + g.wgtAddr;
  uint8_t* acc = buffers_[2].data() + g.accAddr;
  // m and n are at most the ISA's array size (decode checks them); R and C may be smaller.
  int64_t sum[firmware::kArrayRows][firmware::kArrayCols] = {};
  for (uint32_t t = 0; t < g.k; ++t) {
    int64_t a[firmware::kArrayRows], b[firmware::kArrayCols];
    // Element (i, t): k-major, or in window mode element c of pixel vector (i, j).
    const uint32_t j = g.window ? t / g.vec : 0, c = g.window ? t % g.vec : 0;
    const size_t windowOffset = size_t{j % std::max(g.taps, 1u)} * g.tapStride +
                                size_t{j / std::max(g.taps, 1u)} * g.tileStride + size_t{c} * eb;
    for (uint32_t i = 0; i < g.m; ++i) {
      const size_t offset =
          g.window ? size_t{i} * g.laneStride + windowOffset : (size_t{t} * R + i) * eb;
      a[i] = readElem(inp + offset, eb, g.aSigned) - int64_t{g.aZp};
    }
    for (uint32_t j = 0; j < g.n; ++j)
      b[j] = readElem(wgt + (size_t{t} * C + j) * wb, wb, g.bSigned) - int64_t{g.bZp};
    for (uint32_t i = 0; i < g.m; ++i)
      for (uint32_t j = 0; j < g.n; ++j) sum[i][j] += a[i] * b[j];
  }
  for (uint32_t i = 0; i < g.m; ++i)
    for (uint32_t j = 0; j < g.n; ++j) {
      uint8_t* p = acc + (size_t{i} * C + j) * ab;
      if (g.acc64) {
        // int64 ACC: the array's sum (exact here; 48 bits in the RTL, which holds every
        // sum the docs promise) plus the old value, modulo 2^64.
        const uint64_t base = g.accumulate ? static_cast<uint64_t>(readI64(p)) : 0;
        writeI64(p, static_cast<int64_t>(base + static_cast<uint64_t>(sum[i][j])));
      } else {
        const int64_t base = g.accumulate ? readI32(p) : 0;
        // The ACC words are int32: the sum wraps modulo 2^32.
        writeI32(p, static_cast<int32_t>(
                        static_cast<uint32_t>(static_cast<uint64_t>(base + sum[i][j]))));
      }
    }
  result_.counters.macs += uint64_t{g.m} * g.n * g.k;
  accesses.push_back({0, g.inpAddr, fp.inpHi, false});
  accesses.push_back({1, g.wgtAddr, fp.wgtHi, false});
  accesses.push_back({2, g.accAddr, fp.accHi, true});  // accumulate reads too; a write covers it
}

// DWCONV's footprints: the last filter row's span of pixel vectors in INP, fh*fw weight
// vectors in WGT, m rows of C int32 in ACC (docs/isa.md).
struct DwconvFootprint {
  uint64_t inpHi, wgtHi, accHi;
};
DwconvFootprint dwconvFootprint(const firmware::Dwconv& w, uint32_t C) {
  auto minus1 = [](uint32_t v) { return uint64_t{v ? v - 1 : 0}; };
  const uint64_t span = minus1(w.m) * w.sw + minus1(w.fw) * w.dw + 1;
  return {uint64_t{w.inpAddr} + minus1(w.fh) * w.rowStride + span * C,
          uint64_t{w.wgtAddr} + uint64_t{w.fh} * w.fw * C,
          uint64_t{w.accAddr} + (minus1(w.m) * C + w.n) * 4};
}

// A tile's INP read span and ACC span, [lo, hi), as nnc_compute compares them with a
// REQUANT_STORE's: a GEMM's or DWCONV's decode footprints, its last ACC row n lanes long.
struct TileSpans {
  uint64_t inpLo, inpHi, accLo, accHi;
};
std::optional<TileSpans> tileSpans(const Command& c, uint32_t R, uint32_t C) {
  if (const auto* g = std::get_if<firmware::Gemm>(&c.args)) {
    const uint64_t rowBytes = uint64_t{C} * accElemBytes(g->acc64);
    return TileSpans{g->inpAddr, gemmFootprint(*g, R, C).inpHi, g->accAddr,
                     g->accAddr + uint64_t{g->m ? g->m - 1 : 0} * rowBytes +
                         uint64_t{g->n} * accElemBytes(g->acc64)};
  }
  if (const auto* w = std::get_if<firmware::Dwconv>(&c.args)) {
    const DwconvFootprint fp = dwconvFootprint(*w, C);
    return TileSpans{w->inpAddr, fp.inpHi, w->accAddr, fp.accHi};
  }
  return std::nullopt;
}

bool Machine::unitAccepts(int q, const QueueState& s, const Command& c, uint64_t now) const {
  if (now < s.readyAt) return false;
  if (std::holds_alternative<firmware::Sync>(c.args)) return s.inflight.empty();
  if (q != kComputeQ) return s.inflight.empty();  // one DMA command per engine
  // What the unit holds: tiles still streaming or draining (a drained tile behind a
  // REQUANT_STORE waits in the queue for its completion, out of the unit), REQUANT_STOREs
  // (the running one and, ISA 1.15, one pending behind it), anything else.
  std::array<const firmware::RequantStore*, kRequantSlots> rqs{};
  size_t nrq = 0;
  bool other = false;
  uint32_t tiles = 0;
  for (const InFlight& f : s.inflight) {
    const auto& a = stream_[f.command].args;
    if (std::holds_alternative<firmware::Gemm>(a) || std::holds_alternative<firmware::Dwconv>(a)) {
      if (f.end <= now) continue;
      ++tiles;
    } else if (const auto* r = std::get_if<firmware::RequantStore>(&a)) {
      if (nrq < rqs.size()) rqs[nrq] = r;
      ++nrq;
    } else {
      other = true;
    }
  }
  if (other) return false;
  if (const std::optional<TileSpans> t = tileSpans(c, config_.rows, config_.cols)) {
    // GEMM and DWCONV tiles overlap (ISA 1.14: they drain in command order), up to
    // gemmTiles tiles in flight; not over a REQUANT_STORE's ACC rows or its INP rows.
    if (tiles >= config_.gemmTiles) return false;
    for (size_t i = 0; i < std::min(nrq, rqs.size()); ++i) {
      const firmware::RequantStore* rq = rqs[i];
      const RequantFootprint fp = requantFootprint(*rq, config_.cols);
      auto meet = [](uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) {
        return a0 < b1 && b0 < a1;
      };
      if (meet(t->accLo, t->accHi, rq->accAddr, fp.accHi)) return false;
      if (rq->toInp && meet(t->inpLo, t->inpHi, rq->outAddr, fp.outHi)) return false;
    }
    return true;
  }
  // REQUANT_STORE: beside one other at most (ISA 1.15; before, after the one ahead of it);
  // DENSIFY, ELTWISE, POOL: after everything.
  if (std::holds_alternative<firmware::RequantStore>(c.args)) return nrq < kRequantSlots;
  return s.inflight.empty();
}

Fault Machine::checkDwconv(const firmware::Dwconv& w) const {
  const DwconvFootprint fp = dwconvFootprint(w, config_.cols);
  if (Fault f = checkBuffer(Buffer::kInp, w.inpAddr, fp.inpHi, "DWCONV"); f.code != ErrCode::kNone)
    return f;
  if (Fault f = checkBuffer(Buffer::kWgt, w.wgtAddr, fp.wgtHi, "DWCONV"); f.code != ErrCode::kNone)
    return f;
  return checkBuffer(Buffer::kAcc, w.accAddr, fp.accHi, "DWCONV");
}

void Machine::dwconv(const firmware::Dwconv& w, std::vector<Access>& accesses) {
  const uint32_t C = config_.cols;
  const DwconvFootprint fp = dwconvFootprint(w, C);
  const uint8_t* inp = buffers_[0].data() + w.inpAddr;
  const uint8_t* wgt = buffers_[1].data() + w.wgtAddr;
  uint8_t* acc = buffers_[2].data() + w.accAddr;
  for (uint32_t i = 0; i < w.m; ++i)
    for (uint32_t j = 0; j < w.n; ++j) {
      int64_t sum = 0;
      for (uint32_t fy = 0; fy < w.fh; ++fy)
        for (uint32_t fx = 0; fx < w.fw; ++fx) {
          const size_t a =
              size_t{fy} * w.rowStride + (size_t{i} * w.sw + size_t{fx} * w.dw) * C + j;
          const size_t b = (size_t{fy} * w.fw + fx) * C + j;
          sum += (readElem(inp + a, 1, w.aSigned) - int64_t{w.aZp}) *
                 (readElem(wgt + b, 1, w.bSigned) - int64_t{w.bZp});
        }
      uint8_t* p = acc + (size_t{i} * C + j) * 4;
      const int64_t base = w.accumulate ? readI32(p) : 0;
      writeI32(p, static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(base + sum))));
    }
  result_.counters.macs += uint64_t{w.m} * w.n * w.fh * w.fw;
  accesses.push_back({0, w.inpAddr, fp.inpHi, false});
  accesses.push_back({1, w.wgtAddr, fp.wgtHi, false});
  accesses.push_back({2, w.accAddr, fp.accHi, true});
}

Fault Machine::checkRequant(const firmware::RequantStore& r) const {
  const RequantFootprint fp = requantFootprint(r, config_.cols);
  if (Fault f = checkBuffer(Buffer::kAcc, r.accAddr, fp.accHi, "REQUANT_STORE");
      f.code != ErrCode::kNone)
    return f;
  if (Fault f =
          checkBuffer(r.toInp ? Buffer::kInp : Buffer::kOut, r.outAddr, fp.outHi, "REQUANT_STORE");
      f.code != ErrCode::kNone)
    return f;
  if (r.biasEn)
    if (Fault f = checkBuffer(Buffer::kPrm, r.biasAddr, fp.biasHi, "REQUANT_STORE bias");
        f.code != ErrCode::kNone)
      return f;
  if (Fault f = checkBuffer(Buffer::kPrm, r.multAddr, fp.multHi, "REQUANT_STORE multipliers");
      f.code != ErrCode::kNone)
    return f;
  return checkBuffer(Buffer::kPrm, r.shiftAddr, fp.shiftHi, "REQUANT_STORE shifts");
}

void Machine::requant(const firmware::RequantStore& r, std::vector<Access>& accesses) {
  const uint32_t C = config_.cols;
  const uint32_t ob = widthBytes(r.outWidth);
  const uint32_t ab = accElemBytes(r.acc64);
  const RequantFootprint fp = requantFootprint(r, C);
  const uint8_t* prm = buffers_[4].data();
  const int outSpace = r.toInp ? 0 : 3;  // to_inp: the on-chip path into INP (ISA 1.9)
  // Saturation range of the output type.
  int64_t lo, hi;
  if (ob == 4) {
    lo = r.outSigned ? std::numeric_limits<int32_t>::min() : 0;
    hi = r.outSigned ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::max();
  } else {
    const int bits = 8 * static_cast<int>(ob);
    lo = r.outSigned ? -(int64_t{1} << (bits - 1)) : 0;
    hi = r.outSigned ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  }
  // Where each row goes: its index, plus the gaps taken before its pair (ISA 1.13).
  // The written spans, one per segment, are its accesses (the gaps are not written).
  uint64_t skipped = 0, spanFrom = r.outAddr, spanTo = r.outAddr;
  uint32_t column = r.segFirst, gapsTaken = 0;
  const uint64_t rowBytes = uint64_t{C} * ob;
  for (uint32_t row = 0; row < r.rows; ++row) {
    const uint64_t at = row + skipped;
    spanTo = r.outAddr + (at + 1) * rowBytes;
    if (r.segments && row % 2 == 1 && ++column >= r.segPairs && gapsTaken < r.segGaps) {
      column = 0;
      ++gapsTaken;
      skipped += r.segGap;
      if (row + 1 < r.rows) {
        accesses.push_back({outSpace, spanFrom, spanTo, true});
        spanFrom = r.outAddr + (at + 1 + r.segGap) * rowBytes;
      }
    }
    for (uint32_t j = 0; j < C; ++j) {
      const uint32_t pj = r.perChannel ? j : 0;
      const uint8_t* a = buffers_[2].data() + r.accAddr + (size_t{row} * C + j) * ab;
      const int32_t bias = r.biasEn ? readI32(prm + r.biasAddr + 4 * j) : 0;
      const int32_t mult = readI32(prm + r.multAddr + 4 * pj);
      const int shift = static_cast<int8_t>(prm[r.shiftAddr + pj]);
      int32_t scaled;
      if (r.acc64) {
        // int64 sum (wrapping), TFLite's 16x8 requantization; shifts outside its domain
        // are clamped into it (docs/isa.md).
        const auto x = static_cast<int64_t>(static_cast<uint64_t>(readI64(a)) +
                                            static_cast<uint64_t>(int64_t{bias}));
        scaled = ops::quant::multiplyByQuantizedMultiplier64(x, mult, std::clamp(shift, -31, 14));
      } else {
        const auto x =
            static_cast<int32_t>(static_cast<uint32_t>(readI32(a)) + static_cast<uint32_t>(bias));
        scaled = ops::quant::multiplyByQuantizedMultiplier(x, mult, shift);
      }
      // The zero point add wraps like the reference's int32 arithmetic (ops/conv).
      int64_t y =
          static_cast<int32_t>(static_cast<uint32_t>(scaled) + static_cast<uint32_t>(r.outZp));
      y = std::max<int64_t>(std::min<int64_t>(y, r.clampMax), r.clampMin);
      y = std::max(std::min(y, hi), lo);
      uint8_t* p = buffers_[outSpace].data() + r.outAddr + (size_t{at} * C + j) * ob;
      const auto v = static_cast<uint32_t>(static_cast<int32_t>(y));
      for (uint32_t b = 0; b < ob; ++b) p[b] = static_cast<uint8_t>(v >> (8 * b));
    }
  }
  accesses.push_back({2, r.accAddr, fp.accHi, false});
  accesses.push_back({outSpace, spanFrom, spanTo, true});
  if (r.biasEn) accesses.push_back({4, r.biasAddr, fp.biasHi, false});
  accesses.push_back({4, r.multAddr, fp.multHi, false});
  accesses.push_back({4, r.shiftAddr, fp.shiftHi, false});
}

// ELTWISE's footprints: count elements of a in INP, of b in WGT, of the results in OUT, and
// the 24-byte parameter record in PRM.
struct EltwiseFootprint {
  uint64_t inpHi, wgtHi, outHi, prmHi;
};
EltwiseFootprint eltwiseFootprint(const firmware::Eltwise& e) {
  const uint64_t eb = e.wide ? 2 : 1;
  return {uint64_t{e.aAddr} + e.count * eb, uint64_t{e.bAddr} + e.count * eb,
          uint64_t{e.outAddr} + uint64_t{e.count} * (e.outWide ? 2 : 1),
          uint64_t{e.prmAddr} + firmware::kEltwisePrmBytes};
}

Fault Machine::checkEltwise(const firmware::Eltwise& e) const {
  const EltwiseFootprint fp = eltwiseFootprint(e);
  if (Fault f = checkBuffer(Buffer::kInp, e.aAddr, fp.inpHi, "ELTWISE"); f.code != ErrCode::kNone)
    return f;
  if (Fault f = checkBuffer(Buffer::kWgt, e.bAddr, fp.wgtHi, "ELTWISE"); f.code != ErrCode::kNone)
    return f;
  if (Fault f = checkBuffer(Buffer::kOut, e.outAddr, fp.outHi, "ELTWISE"); f.code != ErrCode::kNone)
    return f;
  return checkBuffer(Buffer::kPrm, e.prmAddr, fp.prmHi, "ELTWISE");
}

void Machine::eltwise(const firmware::Eltwise& e, std::vector<Access>& accesses) {
  const EltwiseFootprint fp = eltwiseFootprint(e);
  const uint8_t* prm = buffers_[4].data() + e.prmAddr;
  ops::elementwise::QuantArithParams p;
  p.mul = e.mul;
  p.leftShift = static_cast<int>(e.left);
  // Shifts outside -31..31 are clamped into it (docs/isa.md).
  auto shift = [&](int at) { return std::clamp<int>(static_cast<int8_t>(prm[at]), -31, 31); };
  p.a = {readI32(prm + 0), shift(20)};
  p.b = {readI32(prm + 4), shift(21)};
  p.out = {readI32(prm + 8), shift(22)};
  p.aZp = e.aZp;
  p.bZp = e.bZp;
  // quantArithElement then returns MBQM(s) alone: the unit adds the zero point without
  // wrapping before its clamps (below), so a sum outside int32 is clamped as it does.
  p.outZp = 0;
  p.range = {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
  // The clamp record, then the output type's saturation (the unit's clamp_out order).
  const int32_t clampMin = readI32(prm + 12), clampMax = readI32(prm + 16);
  const uint32_t ob = e.outWide ? 2 : 1;
  const ops::quant::ActivationRange type = ops::quant::typeRange(8 * ob, e.outSigned);
  auto element = [&](uint32_t buffer, uint32_t addr, uint32_t i, bool isSigned) -> int32_t {
    const uint8_t* q = buffers_[buffer].data() + addr;
    if (e.wide) return static_cast<int16_t>(q[2 * i] | (q[2 * i + 1] << 8));
    return isSigned ? static_cast<int8_t>(q[i]) : q[i];
  };
  // The elementwise unit's arithmetic (rtl/nnc_eltwise.sv): the reference's per-element code
  // with the record's parameters; its zero-point add does not wrap before the clamps.
  for (uint32_t i = 0; i < e.count; ++i) {
    const int32_t a = element(0, e.aAddr, i, e.aSigned), b = element(1, e.bAddr, i, e.bSigned);
    const int64_t y = int64_t{ops::elementwise::quantArithElement(p, a, b)} + e.outZp;
    int64_t v = y < clampMin ? clampMin : (y > clampMax ? clampMax : y);
    v = std::clamp<int64_t>(v, type.min, type.max);
    uint8_t* out = buffers_[3].data() + e.outAddr + size_t{i} * ob;
    const auto u = static_cast<uint32_t>(static_cast<int32_t>(v));
    for (uint32_t k = 0; k < ob; ++k) out[k] = static_cast<uint8_t>(u >> (8 * k));
  }
  accesses.push_back({0, e.aAddr, fp.inpHi, false});
  accesses.push_back({1, e.bAddr, fp.wgtHi, false});
  accesses.push_back({3, e.outAddr, fp.outHi, true});
  accesses.push_back({4, e.prmAddr, fp.prmHi, false});
}

// POOL's footprints: the last filter row's span of pixel vectors in INP; m result vectors in
// OUT, the last one n channels wide.
struct PoolFootprint {
  uint64_t inpHi, outHi;
};
PoolFootprint poolFootprint(const firmware::Pool& p, uint32_t C) {
  const uint64_t eb = p.wide ? 2 : 1;
  auto minus1 = [](uint32_t v) { return uint64_t{v ? v - 1 : 0}; };
  return {uint64_t{p.inpAddr} + minus1(firmware::poolRows(p)) * p.rowStride +
              (minus1(p.m) * p.sw + firmware::poolCols(p)) * C * eb,
          uint64_t{p.outAddr} + (minus1(p.m) * C + p.n) * eb};
}

Fault Machine::checkPool(const firmware::Pool& p) const {
  const PoolFootprint fp = poolFootprint(p, config_.cols);
  if (Fault f = checkBuffer(Buffer::kInp, p.inpAddr, fp.inpHi, "POOL"); f.code != ErrCode::kNone)
    return f;
  return checkBuffer(Buffer::kOut, p.outAddr, fp.outHi, "POOL");
}

void Machine::pool(const firmware::Pool& p, std::vector<Access>& accesses) {
  const uint32_t C = config_.cols, eb = p.wide ? 2 : 1;
  const PoolFootprint fp = poolFootprint(p, C);
  const ops::quant::ActivationRange type = ops::quant::typeRange(8 * eb, p.wide || p.aSigned);
  const uint32_t fh = firmware::poolRows(p), fw = firmware::poolCols(p);
  const int64_t count = int64_t{fh} * fw;
  const uint8_t* inp = buffers_[0].data();
  for (uint32_t i = 0; i < p.m; ++i)
    for (uint32_t j = 0; j < p.n; ++j) {
      int64_t sum = 0, best = std::numeric_limits<int64_t>::min();
      for (uint32_t fy = 0; fy < fh; ++fy)
        for (uint32_t fx = 0; fx < fw; ++fx) {
          const uint8_t* q = inp + p.inpAddr + uint64_t{fy} * p.rowStride +
                             (uint64_t{i} * p.sw + fx) * C * eb + uint64_t{j} * eb;
          const int64_t x = p.wide      ? int64_t{static_cast<int16_t>(q[0] | (q[1] << 8))}
                            : p.aSigned ? int64_t{static_cast<int8_t>(q[0])}
                                        : int64_t{q[0]};
          sum += x;
          best = std::max(best, x);
        }
      // AVG: the reference's (sum +- count/2) / count, C's truncating division; with trunc
      // (ISA 1.8) MEAN's sum / count.
      int64_t r = !p.avg    ? best
                  : p.trunc ? sum / count
                            : (sum >= 0 ? sum + count / 2 : sum - count / 2) / count;
      r = r < p.clampMin ? p.clampMin : (r > p.clampMax ? p.clampMax : r);
      r = std::clamp<int64_t>(r, type.min, type.max);
      uint8_t* out = buffers_[3].data() + p.outAddr + (uint64_t{i} * C + j) * eb;
      out[0] = static_cast<uint8_t>(r);
      if (eb == 2) out[1] = static_cast<uint8_t>(static_cast<uint64_t>(r) >> 8);
    }
  accesses.push_back({0, p.inpAddr, fp.inpHi, false});
  accesses.push_back({3, p.outAddr, fp.outHi, true});
}

Fault Machine::densify(const firmware::Densify& d, std::vector<Access>& accesses) {
  auto meta = [](DensifyError e, const std::string& why) {
    Fault f;
    f.code = ErrCode::kDensifyMeta;
    f.info = static_cast<uint32_t>(e);
    f.message = "DENSIFY: " + why;
    return f;
  };
  auto bus = [](uint64_t a) {
    Fault f;
    f.code = ErrCode::kBusError;
    f.info = 3;
    std::ostringstream os;
    os << "DENSIFY accesses 0x" << std::hex << a << ", outside DRAM";
    f.message = os.str();
    return f;
  };
  auto word = [&](uint64_t a, uint32_t* v) {
    if (!dram_.contains(a, 4)) return false;
    *v = static_cast<uint32_t>(readI32(dram_.at(a, 4)));
    return true;
  };
  // Single-beat reads: an element straddling a bus beat is a densify bus fault.
  auto straddles = [](uint64_t base, uint64_t count, uint32_t elem) {
    if (base % elem == 0 || count == 0) return false;
    for (uint64_t i = 0; i < std::min<uint64_t>(count, firmware::kAxiDataBytes); ++i)
      if ((base + i * elem) % firmware::kAxiDataBytes + elem > firmware::kAxiDataBytes) return true;
    return false;
  };
  if (straddles(d.descAddr, 1, 4)) return meta(DensifyError::kBus, "misaligned descriptor");
  uint32_t hdr[kDensifyHeaderWords];
  for (uint32_t i = 0; i < kDensifyHeaderWords; ++i)
    if (!word(uint64_t{d.descAddr} + 4 * i, &hdr[i])) return bus(uint64_t{d.descAddr} + 4 * i);
  // Header (docs/rtl-datapath.md): levels, block levels, values count, fill; the element
  // size and the output size come from the command.
  const uint32_t levels = hdr[0], blocks = hdr[1], valueCount = hdr[2], fill = hdr[3];
  if (levels == 0 || levels > kDensifyMaxLevels || blocks >= levels || 2 * blocks > levels)
    return meta(DensifyError::kRank, "bad level counts");
  const uint32_t eb = widthBytes(d.elemWidth);
  if (eb != 1 && eb != 2 && eb != 4) return meta(DensifyError::kElemSize, "element size");
  uint64_t hi = uint64_t{d.descAddr} + 4 * (kDensifyHeaderWords + kDensifyLevelWords * levels);
  ops::SparseFormat f;
  for (uint32_t l = 0; l < levels; ++l) {
    uint32_t w[kDensifyLevelWords];
    const uint64_t base = uint64_t{d.descAddr} + 4 * (kDensifyHeaderWords + kDensifyLevelWords * l);
    for (uint32_t i = 0; i < kDensifyLevelWords; ++i)
      if (!word(base + 4 * i, &w[i])) return bus(base + 4 * i);
    f.traversalOrder.push_back(static_cast<int32_t>(w[0]));
    f.dimFormat.push_back(static_cast<int32_t>(w[1]));
    f.dimensions.push_back(static_cast<int32_t>(w[2]));
    if (l < blocks) f.blockMap.push_back(static_cast<int32_t>(w[3]));
    if (w[1] == 0 && (w[5] != 0 || w[7] != 0))
      return meta(DensifyError::kFormat, "a DENSE level has arrays");
    auto readArray = [&](uint32_t addr, uint32_t count, std::vector<int32_t>* out) -> bool {
      // The count is a 32-bit descriptor word: check the array is in DRAM before sizing a
      // vector by it (the first word outside fails either way, as the unit's read does).
      if (count && !dram_.contains(addr, 4 * uint64_t{count})) return false;
      out->resize(count);
      for (uint32_t i = 0; i < count; ++i) {
        uint32_t v;
        if (!word(uint64_t{addr} + 4 * i, &v)) return false;
        (*out)[i] = static_cast<int32_t>(v);
      }
      if (count) hi = std::max(hi, uint64_t{addr} + 4 * count);
      return true;
    };
    if (straddles(w[4], w[5], 4) || straddles(w[6], w[7], 4))
      return meta(DensifyError::kBus, "a segments/indices array straddles a bus beat");
    f.segments.emplace_back();
    f.indices.emplace_back();
    if (!readArray(w[4], w[5], &f.segments.back())) return bus(w[4]);
    if (!readArray(w[6], w[7], &f.indices.back())) return bus(w[6]);
  }
  auto walker = ops::DensifyWalker::create(f);
  if (!walker.ok()) return meta(DensifyError::kSegment, walker.error());
  const uint64_t outCount = d.outSize / eb;
  if (straddles(d.valuesAddr, valueCount, eb) || straddles(d.outAddr, outCount, eb))
    return meta(DensifyError::kBus, "the values or the output straddle a bus beat");
  if (walker->numValues() != valueCount)
    return meta(DensifyError::kValues,
                "the metadata stores " + std::to_string(walker->numValues()) +
                    " values, the descriptor says " + std::to_string(valueCount));
  // The unit requires out_size to be the dense size exactly.
  if (uint64_t{walker->denseElements()} * eb != d.outSize)
    return meta(DensifyError::kOutput, "out_size differs from the dense size");
  const uint64_t outBytes = d.outSize;
  if (!dram_.contains(d.outAddr, outBytes)) return bus(d.outAddr);
  if (!dram_.contains(d.valuesAddr, uint64_t{valueCount} * eb)) return bus(d.valuesAddr);
  // Grow the backing store for both ranges before taking pointers (growing moves it).
  const uint64_t valueBytes = uint64_t{valueCount} * eb;
  dram_.at(d.outAddr, outBytes);
  dram_.at(d.valuesAddr, valueBytes);
  uint8_t* out = dram_.at(d.outAddr, outBytes);
  const uint8_t* values = dram_.at(d.valuesAddr, valueBytes);
  for (uint64_t i = 0; i < outBytes / eb; ++i)
    for (uint32_t b = 0; b < eb; ++b) out[i * eb + b] = static_cast<uint8_t>(fill >> (8 * b));
  bool overflow = false;
  walker->forEach([&](uint64_t v, uint64_t offset) {
    if ((offset + 1) * eb > outBytes) {
      overflow = true;
      return;
    }
    std::memcpy(out + offset * eb, values + v * eb, eb);
  });
  if (overflow) return meta(DensifyError::kOutput, "a value lands beyond out_size");
  result_.counters.dmaReadBytes += (hi - d.descAddr) + uint64_t{valueCount} * eb;
  result_.counters.dmaWriteBytes += outBytes;
  accesses.push_back({kDramSpace, d.descAddr, hi, false});
  accesses.push_back({kDramSpace, d.valuesAddr, d.valuesAddr + uint64_t{valueCount} * eb, false});
  accesses.push_back({kDramSpace, d.outAddr, d.outAddr + outBytes, true});
  return {};
}

Fault Machine::execute(const Command& c, std::vector<Access>& accesses) {
  if (auto* d = std::get_if<firmware::DmaLoad>(&c.args)) dmaTransfer(*d, true, accesses);
  if (auto* d = std::get_if<firmware::DmaStore>(&c.args)) dmaTransfer(*d, false, accesses);
  if (auto* g = std::get_if<firmware::Gemm>(&c.args)) gemm(*g, accesses);
  if (auto* w = std::get_if<firmware::Dwconv>(&c.args)) dwconv(*w, accesses);
  if (auto* r = std::get_if<firmware::RequantStore>(&c.args)) requant(*r, accesses);
  if (auto* e = std::get_if<firmware::Eltwise>(&c.args)) eltwise(*e, accesses);
  if (auto* p = std::get_if<firmware::Pool>(&c.args)) pool(*p, accesses);
  if (auto* d = std::get_if<firmware::Densify>(&c.args)) return densify(*d, accesses);
  return {};
}

void Machine::checkRaces(int queue, const Clock& epoch, size_t command,
                         const std::vector<Access>& accesses) {
  for (const Access& a : accesses) {
    for (const Recorded& r : recorded_) {
      if (r.queue == queue || r.access.space != a.space) continue;
      if (!(a.write || r.access.write)) continue;
      if (a.hi <= r.access.lo || r.access.hi <= a.lo) continue;
      if (epoch[r.queue] >= r.time) continue;  // ordered by a chain of tokens
      if (result_.races.size() < 20) {
        std::ostringstream os;
        const char* space =
            a.space == kDramSpace ? "DRAM" : firmware::toString(static_cast<Buffer>(a.space));
        os << "command " << command << " (" << kQueueName[queue] << ") "
           << (a.write ? "writes" : "reads") << " " << space << " [" << a.lo << ", " << a.hi
           << ") while command " << r.command << " (" << kQueueName[r.queue] << ") "
           << (r.access.write ? "writes" : "reads") << " [" << r.access.lo << ", " << r.access.hi
           << ") unordered";
        result_.races.push_back(os.str());
      }
    }
  }
  for (const Access& a : accesses) recorded_.push_back({queue, epoch[queue], command, a});
  if (++sincePrune_ >= 64) prune();
}

// Drops accesses every other queue has synchronised past: no later access can race them.
void Machine::prune() {
  sincePrune_ = 0;
  recorded_.erase(std::remove_if(recorded_.begin(), recorded_.end(),
                                 [&](const Recorded& r) {
                                   for (int q = 0; q < kNumQ; ++q)
                                     if (q != r.queue && clocks_[q][r.queue] < r.time) return false;
                                   return true;
                                 }),
                  recorded_.end());
}

InterpreterResult Machine::run() {
  std::array<QueueState, kNumQ> queues;
  InterpreterCounters& k = result_.counters;
  uint64_t now = 0;
  const size_t n = stream_.size();
  size_t pc = 0;                // next command to dispatch
  size_t requested = 0;         // next ring slot to request
  std::deque<size_t> arrivals;  // per requested, undispatched command: its fetch ticket
  uint64_t nextRequest = 0;
  uint64_t endAt = 0;  // a dispatched END's completion (jobs end there)
  bool endPending = false;
  // The next compute command after each one, REQUANT_STOREs and DWCONVs passed over for the
  // window rule (either between two window GEMMs leaves the second's early acceptance).
  nextIsWindow_.assign(n, false);
  nextKind_.assign(n, Next::kNone);
  for (size_t i = n, next = n, nextAny = n; i-- > 0;) {
    nextIsWindow_[i] = next < n;
    if (nextAny < n) {
      const auto& a = stream_[nextAny].args;
      nextKind_[i] = std::holds_alternative<firmware::RequantStore>(a) ? Next::kRequant
                     : std::holds_alternative<firmware::Gemm>(a)       ? Next::kGemm
                     : std::holds_alternative<firmware::Dwconv>(a)     ? Next::kDwconv
                                                                       : Next::kOther;
    }
    const Command& c = stream_[i];
    if (firmware::queueOf(c) == firmware::QueueOf::kCompute) {
      const auto* g = std::get_if<firmware::Gemm>(&c.args);
      // DWCONVs between them pass over too (ISA 1.14: they do not hold the array's stream).
      if (!std::holds_alternative<firmware::RequantStore>(c.args) &&
          !std::holds_alternative<firmware::Dwconv>(c.args))
        next = g && g->window ? i : n;
      nextAny = i;
    }
  }
  auto fail = [&](size_t command, const Fault& f) {
    result_.completed = false;
    result_.error = f.code;
    result_.errInfo = f.info;
    result_.errCommand = command;
    result_.message = f.message;
    k.cycles = now;
    return result_;
  };
  auto queueIndex = [](const Command& c) {
    switch (firmware::queueOf(c)) {
      case firmware::QueueOf::kLoad:
        return kLoadQ;
      case firmware::QueueOf::kCompute:
        return kComputeQ;
      case firmware::QueueOf::kStore:
        return kStoreQ;
      default:
        return -1;
    }
  };
  auto drained = [&]() {
    for (const QueueState& q : queues)
      if (!q.inflight.empty() || !q.pending.empty()) return false;
    return true;
  };

  // DMA commands learn their completion time from the memory system.
  auto dmaCompletions = [&]() {
    for (int q : {kLoadQ, kStoreQ}) {
      QueueState& s = queues[q];
      const int e = q == kLoadQ ? 0 : 1;
      if (!s.inflight.empty() && s.inflight.front().end == BusSim::kNever &&
          bus_.doneAt(e) != BusSim::kNever) {
        s.inflight.front().end = bus_.doneAt(e);
        s.readyAt = s.inflight.front().end + 1;
        bus_.take(e);
      }
    }
  };
  // The busy and stall cycles of the next `dt` cycles, in the queues' present state.
  auto account = [&](uint64_t dt) {
    uint64_t* busy[kNumQ] = {&k.loadBusy, &k.computeBusy, &k.storeBusy};
    uint64_t* stall[kNumQ] = {&k.loadStall, &k.computeStall, &k.storeStall};
    for (int q = 0; q < kNumQ; ++q) {
      const QueueState& s = queues[q];
      if (!s.inflight.empty()) {
        *busy[q] += dt;
        if (q == kComputeQ &&
            std::holds_alternative<firmware::Densify>(stream_[s.inflight.front().command].args))
          k.densifyBusy += dt;
      } else if (!s.pending.empty()) {
        *stall[q] += dt;
      }
    }
  };
  for (;;) {
    if (now >= limit_) {
      result_.overLimit = true;
      k.cycles = now;
      return result_;
    }
    bus_.advanceTo(now);
    dmaCompletions();
    // Settle everything that can happen at `now`.
    for (bool changed = true; changed;) {
      changed = false;
      // Completions, in order per queue: effect, then the pushes (stalling on a full counter).
      for (int q = 0; q < kNumQ; ++q) {
        QueueState& s = queues[q];
        while (!s.inflight.empty() && s.inflight.front().end <= now) {
          InFlight& f = s.inflight.front();
          const Command& c = stream_[f.command];
          if (!f.effectDone && timingOnly_) {
            f.effectDone = true;
            if (auto* g = std::get_if<firmware::Gemm>(&c.args))
              k.macs += uint64_t{g->m} * g->n * g->k;
            if (auto* w = std::get_if<firmware::Dwconv>(&c.args))
              k.macs += uint64_t{w->m} * w->n * w->fh * w->fw;
            auto rows = [](uint32_t c0, uint32_t c1, uint32_t c2, firmware::ElemWidth w) {
              return uint64_t{c0} * c1 * c2 * widthBytes(w);
            };
            if (auto* d = std::get_if<firmware::DmaLoad>(&c.args); d && !d->fill)
              k.dmaReadBytes += rows(d->count0, d->count1, d->count2, d->elemWidth);
            if (auto* d = std::get_if<firmware::DmaStore>(&c.args))
              k.dmaWriteBytes += rows(d->count0, d->count1, d->count2, d->elemWidth);
          }
          if (!f.effectDone) {
            std::vector<Access> accesses;
            Fault fault = execute(c, accesses);
            if (fault.code != ErrCode::kNone) return fail(f.command, fault);
            checkRaces(q, f.epoch, f.command, accesses);
            f.effectDone = true;
          }
          const std::vector<int> pushes = pushChannels(q, c.deps);
          bool full = false;
          for (int ch : pushes) full = full || tokens_[ch] >= kTokenMax;
          if (full) {
            // docs/isa.md: a program must never have more than 255 tokens outstanding.
            if (result_.tokenLeaks.empty() ||
                result_.tokenLeaks.back().find("overflow") == std::string::npos)
              result_.tokenLeaks.push_back("token overflow: command " + std::to_string(f.command) +
                                           " pushes beyond 255 outstanding tokens");
            break;
          }
          for (int ch : pushes) {
            ++tokens_[ch];
            tokenClocks_[ch].push_back(f.epoch);
          }
          s.inflight.pop_front();
          changed = true;
        }
      }
      // Fetch: ring slots requested one per cycle while fewer than fetchDepth are out.
      while (requested < n && arrivals.size() < config_.fetchDepth && nextRequest <= now &&
             !endPending) {
        arrivals.push_back(bus_.fetch(now));
        ++requested;
        nextRequest = now + 1;
        k.dmaReadBytes += firmware::kCommandBytes;
        changed = true;
      }
      // Dispatch in stream order.
      while (pc < n && !arrivals.empty() && bus_.arrival(arrivals.front()) <= now && !endPending) {
        const Command& c = stream_[pc];
        // The estimate times the compiler's own streams; a run checks every command.
        if (hal::Status st = timingOnly_ ? hal::Status::Ok() : firmware::validate(c); !st.ok()) {
          Fault f;
          f.code = ErrCode::kBadField;
          f.message = st.error();
          // ERR_INFO as the hardware reports it: the bit of the offending field in the
          // encoded words (0 when the value only fails before encode() masks it).
          if (const firmware::CheckResult hw = firmware::check(firmware::encode(c));
              hw.code == ErrCode::kBadField)
            f.info = static_cast<uint32_t>(hw.bit);
          return fail(pc, f);
        }
        if (std::holds_alternative<firmware::End>(c.args)) {
          if (!drained()) break;
          for (int ch = 0; ch < kNumCh; ++ch)
            if (tokens_[ch] != 0) {
              result_.tokenLeaks.push_back("END at command " + std::to_string(pc) + ": " +
                                           std::to_string(tokens_[ch]) + " tokens left in " +
                                           kChannelName[ch]);
            }
          // END is a full barrier: everything before it happens before everything after.
          Clock merged{};
          for (const Clock& c2 : clocks_)
            for (int i = 0; i < kNumQ; ++i) merged[i] = std::max(merged[i], c2[i]);
          clocks_.fill(merged);
          prune();
          // The next job's fetching starts once this one is done.
          endPending = true;
          endAt = now + cost_.endCycles;
        } else {
          const int q = queueIndex(c);
          if (queues[q].pending.size() + queues[q].inflight.size() >= config_.queueDepth) break;
          queues[q].pending.push_back(pc);
        }
        arrivals.pop_front();
        ++pc;
        ++k.commands;
        changed = true;
      }
      if (endPending && now >= endAt) {
        endPending = false;
        if (pc < n) {
          // Commands after an END (another job) are fetched afresh.
          arrivals.clear();
          requested = pc;
          nextRequest = now;
        }
        changed = true;
      }
      // Issue: a queue's head command once its tokens are there and its unit accepts it.
      for (int q = 0; q < kNumQ; ++q) {
        QueueState& s = queues[q];
        if (s.pending.empty()) continue;
        const Command& c = stream_[s.pending.front()];
        if (!unitAccepts(q, s, c, now)) continue;
        const std::vector<int> pops = popChannels(q, c.deps);
        bool ready = true;
        for (int ch : pops) ready = ready && tokens_[ch] > 0;
        if (!ready) continue;
        for (int ch : pops) {
          --tokens_[ch];
          const Clock& tc = tokenClocks_[ch].front();
          for (int i = 0; i < kNumQ; ++i) clocks_[q][i] = std::max(clocks_[q][i], tc[i]);
          tokenClocks_[ch].pop_front();
        }
        // Footprints first: a faulting command moves nothing and is not timed (its fields
        // may describe ~2^28 rows of a transfer that cannot happen).
        if (!timingOnly_)
          if (Fault fault = check(c); fault.code != ErrCode::kNone)
            return fail(s.pending.front(), fault);
        ++clocks_[q][q];
        InFlight f;
        f.command = s.pending.front();
        f.epoch = clocks_[q];
        f.end = issueTiming(q, s, s.pending.front(), now);
        s.pending.pop_front();
        s.inflight.push_back(f);
        bus_.advanceTo(now);  // a DMA command that moves nothing completes at once
        dmaCompletions();
        changed = true;
      }
    }
    if (pc == n && drained() && !endPending) break;

    // Advance to the next event: the machine's own (completions, units ready, arrivals,
    // fetch requests, END) or the bus's.
    uint64_t own = std::numeric_limits<uint64_t>::max();
    for (const QueueState& s : queues) {
      // Any command's completion (a tile behind a REQUANT_STORE frees its place in the
      // unit before it completes in order).
      for (const InFlight& f : s.inflight)
        if (f.end > now && f.end != BusSim::kNever) own = std::min(own, f.end);
      if (!s.pending.empty() && s.readyAt > now) own = std::min(own, s.readyAt);
    }
    if (!arrivals.empty() && bus_.arrival(arrivals.front()) != BusSim::kNever &&
        bus_.arrival(arrivals.front()) > now)
      own = std::min(own, bus_.arrival(arrivals.front()));
    if (requested < n && arrivals.size() < config_.fetchDepth && nextRequest > now && !endPending)
      own = std::min(own, nextRequest);
    if (endPending && endAt > now) own = std::min(own, endAt);
    uint64_t next = own;
    if (const uint64_t b = bus_.nextEvent(); b != BusSim::kNever)
      next = std::min(next, std::max(b, now + 1));
    // Most bus events (a burst issued, a burst's data done) change nothing the machine
    // sees, and settling at them would change nothing: every time-driven step of the
    // machine is one of its own events, all later than `next` here. So until the bus's
    // next visible change or the machine's own next event, only the bus advances, at
    // exactly the times a settle-per-event loop would advance it (the same floating-point
    // steps), and the busy and stall cycles accrue as that loop would count them.
    bool visible = false;
    while (next < own) {
      account(next - now);
      now = next;
      if (now >= limit_) {
        visible = true;  // the loop's top ends the estimate
        break;
      }
      const uint64_t seen = bus_.visibleChanges();
      bus_.advanceTo(now);
      if (bus_.visibleChanges() != seen) {
        visible = true;
        break;
      }
      next = own;
      if (const uint64_t b = bus_.nextEvent(); b != BusSim::kNever)
        next = std::min(next, std::max(b, now + 1));
    }
    if (visible) continue;  // settle at `now` (its advanceTo(now) finds nothing more to do)
    if (next == std::numeric_limits<uint64_t>::max()) {
      Fault f;
      f.code = ErrCode::kWatchdog;
      std::ostringstream os;
      os << "deadlock: no queue can progress (tokens";
      for (int ch = 0; ch < kNumCh; ++ch) os << " " << kChannelName[ch] << "=" << tokens_[ch];
      os << "; waiting heads:";
      for (int q = 0; q < kNumQ; ++q)
        if (!queues[q].pending.empty())
          os << " " << kQueueName[q] << "@" << queues[q].pending.front();
      os << ")";
      f.message = os.str();
      // ERR_ADDR names the most recently dispatched command (docs/isa.md).
      return fail(pc > 0 ? pc - 1 : 0, f);
    }
    account(next - now);
    now = next;
  }
  k.cycles = now;
  arrayTimeline(k);
  result_.completed = true;
  return result_;
}

// Merges [from, to) runs into sorted disjoint ones within [0, end).
std::vector<std::pair<uint64_t, uint64_t>> merged(std::vector<std::pair<uint64_t, uint64_t>> v,
                                                  uint64_t end) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (auto [a, b] : v) {
    b = std::min(b, end);
    if (a >= b) continue;
    if (!out.empty() && a <= out.back().second)
      out.back().second = std::max(out.back().second, b);
    else
      out.emplace_back(a, b);
  }
  return out;
}

void Machine::arrayTimeline(InterpreterCounters& k) const {
  const auto beats = merged(beats_, k.cycles), dw = merged(dwRuns_, k.cycles);
  auto length = [](const std::vector<std::pair<uint64_t, uint64_t>>& v) {
    uint64_t n = 0;
    for (const auto& [a, b] : v) n += b - a;
    return n;
  };
  // Cycles of `v` outside the beats (two sorted disjoint lists).
  auto outsideBeats = [&](const std::vector<std::pair<uint64_t, uint64_t>>& v) {
    uint64_t n = 0;
    size_t j = 0;
    for (const auto& [a, b] : v) {
      uint64_t covered = 0;
      while (j < beats.size() && beats[j].second <= a) ++j;
      for (size_t i = j; i < beats.size() && beats[i].first < b; ++i)
        covered += std::min(b, beats[i].second) - std::max(a, beats[i].first);
      n += b - a - covered;
    }
    return n;
  };
  k.arrayBeats = length(beats);
  k.dwconvBusy = length(dw);
  k.idleDwconv = outsideBeats(dw);
  if (!beats.empty()) {
    // Before the first beat, the cycles no DWCONV runs.
    const uint64_t first = beats.front().first;
    uint64_t dwBefore = 0;
    for (const auto& [a, b] : dw) dwBefore += a < first ? std::min(b, first) - a : 0;
    k.idleBeforeGemm = first - dwBefore;
  }
}

}  // namespace

IsaInterpreter::IsaInterpreter(const NpuConfig& config, DramModel& dram, const CostModel& cost)
    : config_(config), dram_(dram), cost_(cost) {
  for (int b = 0; b < 5; ++b) buffers_[b].assign(config_.bufferBytes(static_cast<Buffer>(b)), 0);
}

InterpreterResult IsaInterpreter::run(const std::vector<Command>& commands) {
  Machine m(config_, dram_, cost_, buffers_, commands);
  return m.run();
}

namespace {

// Estimates already made, by two independent 64-bit hashes of what decides them: the
// configuration, the cost model, the limit and the commands' encodings. The compiler
// estimates the same streams again and again (identical layers, the plan searches of fused
// halves), and an estimate is a pure function of these.
struct EstimateKey {
  uint64_t a = 0, b = 0;
  bool operator==(const EstimateKey& o) const { return a == o.a && b == o.b; }
};
struct EstimateKeyHash {
  size_t operator()(const EstimateKey& k) const { return static_cast<size_t>(k.a ^ (k.b << 1)); }
};

class KeyBuilder {
 public:
  void add(const void* p, size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) {
      a_ = (a_ ^ c[i]) * 0x100000001B3ull;                               // FNV-1a
      b_ = (b_ + c[i] + 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;  // a multiplicative mix
      b_ ^= b_ >> 31;
    }
  }
  EstimateKey key() const { return {a_, b_}; }

 private:
  uint64_t a_ = 0xCBF29CE484222325ull, b_ = 0x243F6A8885A308D3ull;
};

std::mutex estimatesMutex;
std::unordered_map<EstimateKey, InterpreterResult, EstimateKeyHash> estimates;
uint64_t estimateHits = 0;
constexpr size_t kEstimatesKept = 1 << 15;

// The key of an estimate, or none when a command's fields do not survive encoding (out of
// their widths: its encoding would stand for other values, so the cache is not used).
std::optional<EstimateKey> estimateKey(const NpuConfig& config,
                                       const std::vector<Command>& commands, const CostModel& cost,
                                       uint64_t cycleLimit) {
  KeyBuilder k;
  k.add(&config, sizeof config);
  k.add(&cost, sizeof cost);  // its padding bytes may differ between equal models: a miss
  k.add(&cycleLimit, sizeof cycleLimit);
  const uint64_t n = commands.size();
  k.add(&n, sizeof n);
  for (const Command& c : commands) {
    const firmware::CommandWords w = firmware::encode(c);
    const hal::Result<Command> back = firmware::decode(w);
    if (!back.ok() || !(*back == c)) return std::nullopt;
    k.add(w.data(), sizeof(uint32_t) * w.size());
  }
  return k.key();
}

}  // namespace

uint64_t IsaInterpreter::estimateCacheHits() {
  std::lock_guard<std::mutex> lock(estimatesMutex);
  return estimateHits;
}

InterpreterResult IsaInterpreter::estimate(const NpuConfig& config,
                                           const std::vector<Command>& commands,
                                           const CostModel& cost, uint64_t cycleLimit) {
  hal::profile::Scope timed("compile.estimate");
  const std::optional<EstimateKey> key = estimateKey(config, commands, cost, cycleLimit);
  if (key) {
    std::lock_guard<std::mutex> lock(estimatesMutex);
    if (auto it = estimates.find(*key); it != estimates.end()) {
      ++estimateHits;
      return it->second;
    }
  }
  DramModel none(0, 0);
  std::array<std::vector<uint8_t>, 5> buffers;
  Machine m(config, none, cost, buffers, commands, /*timingOnly=*/true, cycleLimit);
  InterpreterResult r = m.run();
  if (key) {
    std::lock_guard<std::mutex> lock(estimatesMutex);
    if (estimates.size() >= kEstimatesKept) estimates.clear();
    estimates.emplace(*key, r);
  }
  return r;
}

}  // namespace nncosim::driver
