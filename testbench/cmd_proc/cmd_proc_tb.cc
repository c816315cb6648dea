// Testbench `cmd_proc`: the command processor (rtl/nnc_cmd_proc.sv) with C++ models of the
// ring in memory (fetch port with random latency), the host (refills a small ring, so it
// wraps), and the three units (random accept and completion latency; the compute unit
// keeps several commands in flight).
//
// Random legal streams (every pop matched by an earlier push in program order, SYNCs in
// all queues, jobs ending in END) must execute with every queue in program order and every
// consumer starting after its producer completed; END must complete after everything
// before it. Faulty streams must stop with the documented error: a corrupt command (bad
// opcode or field: ERR_ADDR = its slot, ERR_INFO = bit), a unit error (command address or
// bus address), a fetch bus error, and a dependency deadlock (watchdog). Each error is
// followed by a soft reset and a clean job.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_cmd_proc.h"
#include "firmware/isa_generated.h"
#include "testbench/testbench.h"
#include "testbench/verilated_model.h"

namespace nncosim::testbench {
namespace {

using namespace nncosim::firmware;

constexpr uint32_t kRingBase = 0x10000;
constexpr int kLoad = 0, kCompute = 1, kStore = 2;
constexpr int kL2C = 0, kC2L = 1, kC2S = 2, kS2C = 3;

struct Prog {
  Command cmd;
  CommandWords words;
  int queue = -1;  // -1: END
  bool sync = false;
  bool failInUnit = false;  // the unit reports an error for it
  uint32_t unitErrCode = 0;
};

// Token channel a queue pops/pushes for each flag.
int popPrevCh(int q) { return q == kCompute ? kL2C : kC2S; }
int popNextCh(int q) { return q == kLoad ? kC2L : kS2C; }
int pushPrevCh(int q) { return q == kCompute ? kC2L : kS2C; }
int pushNextCh(int q) { return q == kLoad ? kL2C : kC2S; }

// A random legal job of n commands + END; `outstanding` carries token counts across jobs.
std::vector<Prog> randomJob(std::mt19937_64& rng, int n, int outstanding[4], uint32_t& uid,
                            uint16_t tag) {
  std::vector<Prog> job;
  auto coin = [&](int pct) { return static_cast<int>(rng() % 100) < pct; };
  for (int i = 0; i < n; ++i) {
    Prog p;
    const int kind = static_cast<int>(rng() % 10);
    Deps d;
    if (kind < 3) {
      p.queue = kLoad;
      DmaLoad l;
      l.dramAddr = ++uid;
      p.cmd = Command{d, l};
    } else if (kind < 6) {
      p.queue = kCompute;
      switch (rng() % 3) {
        case 0: {
          Gemm g;
          g.inpAddr = ++uid & 0xFFFFF;
          p.cmd = Command{d, g};
          break;
        }
        case 1: {
          RequantStore r;
          r.accAddr = ++uid & 0xFFFFF;
          p.cmd = Command{d, r};
          break;
        }
        default: {
          Densify s;
          s.descAddr = ++uid;
          p.cmd = Command{d, s};
          break;
        }
      }
    } else if (kind < 9) {
      p.queue = kStore;
      DmaStore s;
      s.dramAddr = ++uid;
      p.cmd = Command{d, s};
    } else {
      p.queue = static_cast<int>(rng() % 3);
      p.sync = true;
      Sync s;
      s.execQueue = static_cast<Queue>(p.queue);
      p.cmd = Command{d, s};
    }
    Deps& dp = p.cmd.deps;
    const int q = p.queue;
    if (q != kLoad && outstanding[popPrevCh(q)] > 0 && coin(60)) {
      dp.popPrev = true;
      --outstanding[popPrevCh(q)];
    }
    if (q != kStore && outstanding[popNextCh(q)] > 0 && coin(60)) {
      dp.popNext = true;
      --outstanding[popNextCh(q)];
    }
    if (q != kLoad && outstanding[pushPrevCh(q)] < 20 && coin(45)) {
      dp.pushPrev = true;
      ++outstanding[pushPrevCh(q)];
    }
    if (q != kStore && outstanding[pushNextCh(q)] < 20 && coin(45)) {
      dp.pushNext = true;
      ++outstanding[pushNextCh(q)];
    }
    p.words = encode(p.cmd);
    job.push_back(p);
  }
  Prog e;
  End en;
  en.irq = true;
  en.tag = tag;
  e.cmd = Command{Deps{}, en};
  e.words = encode(e.cmd);
  job.push_back(e);
  return job;
}

struct UnitJob {
  int prog;         // index into the program
  uint64_t doneAt;  // cycle it completes
};

class CmdProcHarness {
 public:
  CmdProcHarness(const TestbenchOptions& opt, std::mt19937_64& rng)
      : rng_(rng), top_(opt.wavesPath) {
    top_->rst_ni = 0;
    top_->clk_i = 0;
    top_->eval();
    for (int i = 0; i < 3; ++i) step();
    top_->rst_ni = 1;
  }

  Vnnc_cmd_proc& top() { return *top_; }
  uint64_t cycle() const { return cycle_; }
  void fail(const std::string& s) {
    ++mismatches_;
    if (first_.size() < 3) first_.push_back("cycle " + std::to_string(cycle_) + ": " + s);
  }
  uint64_t mismatches() const { return mismatches_; }
  const std::vector<std::string>& firstFailures() const { return first_; }
  uint64_t overlapCycles() const { return overlap_; }

  // Starts a program on a ring of `slots` slots: resets ring state in the harness.
  void load(std::vector<Prog> prog, uint32_t slots, uint32_t watchdog) {
    prog_ = std::move(prog);
    slots_ = slots;
    ring_.assign(slots, CommandWords{});
    written_ = 0;
    tail_ = 0;
    nextSlot_ = 0;
    badSlots_.clear();
    start_.assign(prog_.size(), 0);
    done_.assign(prog_.size(), 0);
    issued_.assign(prog_.size(), false);
    completed_.assign(prog_.size(), false);
    for (auto& u : units_) u.clear();
    fetchQ_.clear();
    nextIssue_[0] = nextIssue_[1] = nextIssue_[2] = 0;
    irqDone_ = irqError_ = 0;
    lastEndDone_.clear();
    watchdog_ = watchdog;
    slotOfProg_.assign(prog_.size(), 0);
  }
  void markBadFetch(size_t progIndex) { badFetch_ = progIndex; }
  void clearBadFetch() { badFetch_ = SIZE_MAX; }

  // Runs until the job stream has fully executed and the processor is idle, or errors.
  enum class Outcome { kIdle, kError, kTimeout };
  Outcome run(uint64_t maxCycles) {
    const uint64_t end = cycle_ + maxCycles;
    for (;;) {
      step();
      if (top_->st_error_o) {
        for (int i = 0; i < 3; ++i) step();
        return Outcome::kError;
      }
      if (written_ == prog_.size() && top_->st_idle_o && unitsIdle()) {
        for (int i = 0; i < 2; ++i) step();  // registered pulses of the last cycle
        return Outcome::kIdle;
      }
      if (cycle_ >= end) return Outcome::kTimeout;
    }
  }
  void softReset() {
    pulseReset_ = true;
    for (int i = 0; i < 200 && (pulseReset_ || top_->st_busy_o || !unitsIdle()); ++i) step();
  }

  const std::vector<Prog>& prog() const { return prog_; }
  const std::vector<uint64_t>& start() const { return start_; }
  const std::vector<uint64_t>& doneCycle() const { return done_; }
  const std::vector<bool>& issued() const { return issued_; }
  const std::vector<bool>& completed() const { return completed_; }
  const std::vector<uint64_t>& endDone() const { return lastEndDone_; }
  uint32_t slotAddress(size_t progIndex) const { return kRingBase + 32 * slotOfProg_[progIndex]; }
  int irqDone() const { return irqDone_; }
  int irqError() const { return irqError_; }
  bool unitsIdle() const { return units_[0].empty() && units_[1].empty() && units_[2].empty(); }

  void step() {
    top_->clk_i = 0;
    top_->eval();
    top_.dumpAndAdvance();

    // --- host: refill the ring (slots the NPU has fetched are free) ---
    const uint32_t head = top_->ring_head_o;
    const uint32_t used = (tail_ + slots_ - head) % slots_;
    bool bell = false;
    if (!pulseReset_ && !top_->st_error_o && written_ < prog_.size() && used + 1 < slots_ &&
        roll(70)) {
      ring_[tail_] = prog_[written_].words;
      slotOfProg_[written_] = tail_;
      if (written_ == badFetch_) badSlots_.push_back(tail_);
      ++written_;
      tail_ = (tail_ + 1) % slots_;
      bell = true;
    }
    top_->ring_base_i = kRingBase;
    top_->ring_size_i = slots_;
    top_->ring_tail_i = tail_;
    top_->doorbell_i = bell;
    top_->watchdog_i = watchdog_;
    top_->soft_reset_i = pulseReset_;
    if (pulseReset_) {
      // The host restarts the ring from slot 0 after a reset.
      pulseReset_ = false;
      tail_ = 0;
      written_ = prog_.size();  // nothing more of the faulty program
    }

    // --- fetch port ---
    top_->fetch_req_ready_i = roll(70);
    top_->fetch_rsp_valid_i = 0;
    if (!fetchQ_.empty() && fetchQ_.front().readyAt <= cycle_) {
      const Fetch& f = fetchQ_.front();
      top_->fetch_rsp_valid_i = 1;
      for (int w = 0; w < kCommandWords; ++w) top_->fetch_rsp_cmd_i[w] = f.words[w];
      top_->fetch_rsp_resp_i = f.resp;
    }

    // --- units ---
    const int cap[3] = {1, 3, 1};
    uint8_t doneMask = 0, errMask = 0;
    for (int u = 0; u < 3; ++u) {
      top_->unit_ready_i = static_cast<uint8_t>(top_->unit_ready_i & ~(1u << u));
      if (static_cast<int>(units_[u].size()) < cap[u] && roll(60)) {
        top_->unit_ready_i = static_cast<uint8_t>(top_->unit_ready_i | (1u << u));
      }
      if (!units_[u].empty() && units_[u].front().doneAt <= cycle_) {
        const Prog& p = prog_[units_[u].front().prog];
        doneMask = static_cast<uint8_t>(doneMask | (1u << u));
        if (p.failInUnit) errMask = static_cast<uint8_t>(errMask | (1u << u));
        top_->unit_err_code_i = setField8(top_->unit_err_code_i, u, p.unitErrCode);
        top_->unit_err_addr_i[u] = 0xBAD00000u + static_cast<uint32_t>(units_[u].front().prog);
        top_->unit_err_info_i[u] = 0x77;
      }
    }
    top_->unit_done_i = doneMask;
    top_->unit_err_i = errMask;
    top_->progress_i = !unitsIdle();
    top_->eval();

    // --- sample ---
    if (top_->fetch_req_valid_o && top_->fetch_req_ready_i) {
      const uint32_t a = top_->fetch_req_addr_o;
      const uint32_t slot = (a - kRingBase) / 32;
      Fetch f;
      if (a < kRingBase || (a - kRingBase) % 32 || slot >= slots_) {
        fail("fetch outside the ring at 0x" + hex(a));
        f.words = CommandWords{};
      } else {
        f.words = ring_[slot];
      }
      f.resp = std::find(badSlots_.begin(), badSlots_.end(), slot) != badSlots_.end() ? 2 : 0;
      f.readyAt = std::max(cycle_ + 1 + rng_() % 6, fetchQ_.empty() ? 0 : fetchQ_.back().readyAt);
      fetchQ_.push_back(f);
    }
    if (top_->fetch_rsp_valid_i) fetchQ_.pop_front();
    for (int u = 0; u < 3; ++u) {
      if ((doneMask >> u) & 1) {
        const int pi = units_[u].front().prog;
        done_[pi] = cycle_;
        completed_[pi] = true;
        units_[u].pop_front();
      }
      if (((top_->unit_valid_o >> u) & 1) && ((top_->unit_ready_i >> u) & 1)) accept(u);
    }
    if (top_->irq_done_o) {
      ++irqDone_;
      lastEndDone_.push_back(cycle_);
    }
    if (top_->irq_error_o) ++irqError_;
    int busy = 0;
    for (int u = 0; u < 3; ++u) busy += !units_[u].empty();
    if (busy >= 2) ++overlap_;

    top_->clk_i = 1;
    top_->eval();
    top_.dumpAndAdvance();
    ++cycle_;
  }

 private:
  struct Fetch {
    CommandWords words;
    uint32_t resp;
    uint64_t readyAt;
  };
  static std::string hex(uint64_t v) {
    std::ostringstream os;
    os << std::hex << v;
    return os.str();
  }
  bool roll(int pct) { return static_cast<int>(rng_() % 100) < pct; }
  template <typename T>
  static T setField8(T packed, int idx, uint32_t v) {
    const T mask = static_cast<T>(0xFFu) << (8 * idx);
    return static_cast<T>((packed & ~mask) | (static_cast<T>(v & 0xFF) << (8 * idx)));
  }
  // A unit accepted a command: find which program entry it is (the next of its queue).
  void accept(int u) {
    CommandWords w;
    for (int i = 0; i < kCommandWords; ++i) w[i] = top_->unit_cmd_o[u * kCommandWords + i];
    size_t& next = nextIssue_[u];
    while (next < prog_.size() && (prog_[next].queue != u || prog_[next].sync)) ++next;
    if (next >= prog_.size()) {
      fail("unit " + std::to_string(u) + " got a command beyond the program: " + disassemble(w));
      return;
    }
    if (w != prog_[next].words) {
      fail("unit " + std::to_string(u) + " got '" + disassemble(w) + "', want '" +
           disassemble(prog_[next].words) + "'");
    }
    issued_[next] = true;
    start_[next] = cycle_;
    const uint64_t lat = u == kCompute ? 1 + rng_() % 20 : 1 + rng_() % 12;
    const uint64_t at = std::max(cycle_ + lat, units_[u].empty() ? 0 : units_[u].back().doneAt + 1);
    units_[u].push_back({static_cast<int>(next), at});
    ++next;
  }

  std::mt19937_64& rng_;
  VerilatedModel<Vnnc_cmd_proc> top_;
  uint64_t cycle_ = 0;
  std::vector<Prog> prog_;
  uint32_t slots_ = 8;
  std::vector<CommandWords> ring_;
  size_t written_ = 0;
  uint32_t tail_ = 0, nextSlot_ = 0, watchdog_ = 0;
  std::vector<uint32_t> slotOfProg_;
  std::vector<uint32_t> badSlots_;
  size_t badFetch_ = SIZE_MAX;
  std::deque<Fetch> fetchQ_;
  std::deque<UnitJob> units_[3];
  size_t nextIssue_[3] = {0, 0, 0};
  std::vector<uint64_t> start_, done_;
  std::vector<bool> issued_, completed_;
  std::vector<uint64_t> lastEndDone_;
  int irqDone_ = 0, irqError_ = 0;
  bool pulseReset_ = false;
  uint64_t mismatches_ = 0, overlap_ = 0;
  std::vector<std::string> first_;
};

// Checks a fully executed legal program: queue order, token order, END after everything.
void checkOrder(CmdProcHarness& h, size_t upTo) {
  const auto& prog = h.prog();
  const auto& start = h.start();
  const auto& done = h.doneCycle();
  // Earliest legal start of each command (for SYNCs, a lower bound of when they ran).
  std::vector<uint64_t> earliest(prog.size(), 0), effDone(prog.size(), 0);
  std::vector<std::deque<size_t>> producers(4);
  int lastInQueue[3] = {-1, -1, -1};
  size_t endIdx = 0;
  for (size_t i = 0; i < upTo; ++i) {
    const Prog& p = prog[i];
    if (p.queue < 0) {
      // END: after every earlier completion.
      uint64_t last = 0;
      for (size_t j = 0; j < i; ++j) last = std::max(last, effDone[j]);
      if (endIdx >= h.endDone().size()) {
        h.fail("END " + std::to_string(i) + " never completed");
      } else if (h.endDone()[endIdx] < last) {
        h.fail("END " + std::to_string(i) + " completed before earlier commands");
      }
      effDone[i] = endIdx < h.endDone().size() ? h.endDone()[endIdx] : 0;
      ++endIdx;
      continue;
    }
    const int q = p.queue;
    uint64_t e = 0;
    auto need = [&](int ch) {
      if (producers[ch].empty()) {
        h.fail("generator bug: pop without push");
        return;
      }
      e = std::max(e, effDone[producers[ch].front()] + 1);
      producers[ch].pop_front();
    };
    if (p.cmd.deps.popPrev) need(popPrevCh(q));
    if (p.cmd.deps.popNext) need(popNextCh(q));
    if (lastInQueue[q] >= 0) {
      const Prog& prev = prog[static_cast<size_t>(lastInQueue[q])];
      // In-order issue; a SYNC also waits for its queue to empty.
      e = std::max(e, prev.sync ? earliest[static_cast<size_t>(lastInQueue[q])]
                                : start[static_cast<size_t>(lastInQueue[q])]);
      if (p.sync) e = std::max(e, effDone[static_cast<size_t>(lastInQueue[q])] + 1);
    }
    earliest[i] = e;
    if (p.sync) {
      effDone[i] = e;  // lower bound: it completed when it issued
    } else {
      if (!h.issued()[i] || !h.completed()[i]) {
        h.fail("command " + std::to_string(i) + " (" + disassemble(p.words) + ") never ran");
        continue;
      }
      if (start[i] < e) {
        h.fail("command " + std::to_string(i) + " (" + disassemble(p.words) + ") started at " +
               std::to_string(start[i]) + " before its dependencies allowed (" + std::to_string(e) +
               ")");
      }
      effDone[i] = done[i];
    }
    if (p.cmd.deps.pushPrev) producers[pushPrevCh(q)].push_back(i);
    if (p.cmd.deps.pushNext) producers[pushNextCh(q)].push_back(i);
    lastInQueue[q] = static_cast<int>(i);
  }
}

TestbenchResult runCmdProc(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t iterations = opt.iterations ? opt.iterations : 60;
  std::mt19937_64 rng(opt.seed);
  CmdProcHarness h(opt, rng);
  uint32_t uid = 0;
  uint64_t legalCmds = 0, errorCases = 0;

  for (uint64_t it = 0; it < iterations && h.firstFailures().size() < 3; ++it) {
    const int kind = static_cast<int>(rng() % 8);
    int outstanding[4] = {0, 0, 0, 0};  // the processor starts each iteration with no tokens
    const uint32_t slots = static_cast<uint32_t>(4 + rng() % 29);
    if (kind < 4) {
      // Legal stream: several jobs.
      std::vector<Prog> prog;
      const int jobs = 1 + static_cast<int>(rng() % 3);
      for (int j = 0; j < jobs; ++j) {
        auto job = randomJob(rng, 10 + static_cast<int>(rng() % 50), outstanding, uid,
                             static_cast<uint16_t>(it * 8 + static_cast<uint64_t>(j)));
        prog.insert(prog.end(), job.begin(), job.end());
      }
      h.load(prog, slots, 100000);
      const auto out = h.run(200000);
      if (out != CmdProcHarness::Outcome::kIdle) {
        h.fail(std::string("legal stream did not finish: ") +
               (out == CmdProcHarness::Outcome::kError ? "error " : "timeout ") +
               std::to_string(h.top().err_code_o) + " at 0x" + std::to_string(h.top().err_addr_o));
        h.softReset();
        continue;
      }
      checkOrder(h, prog.size());
      if (h.irqDone() != jobs)
        h.fail("expected " + std::to_string(jobs) + " END interrupts, got " +
               std::to_string(h.irqDone()));
      const uint16_t lastTag = static_cast<uint16_t>(it * 8 + static_cast<uint64_t>(jobs - 1));
      if (h.top().last_tag_o != lastTag) h.fail("LAST_TAG " + std::to_string(h.top().last_tag_o));
      if (!h.top().st_done_o) h.fail("STATUS.DONE not set after END");
      legalCmds += prog.size();
      // Tokens left over: clear them for the next iteration.
      h.softReset();
    } else {
      // A faulty stream: a legal prefix, then the fault.
      auto prog = randomJob(rng, 5 + static_cast<int>(rng() % 20), outstanding, uid, 1);
      prog.pop_back();  // no END: the fault ends it
      const size_t faultAt = prog.size();
      uint32_t wantCode = 0, wantInfo = 0;
      bool wantAddrIsSlot = true, wantWatchdog = false;
      uint32_t wantAddr = 0;
      Prog f;
      if (kind == 4) {
        // Corrupt command: a reserved bit or a bad opcode or an out-of-range field.
        Gemm g;
        g.inpAddr = ++uid & 0xFFFFF;
        f.cmd = Command{Deps{}, g};
        f.words = encode(f.cmd);
        f.queue = kCompute;
        const int how = static_cast<int>(rng() % 3);
        if (how == 0) {
          f.words[0] = (f.words[0] & ~0xFFu) | (8 + static_cast<uint32_t>(rng() % 248));
        } else if (how == 1) {
          f.words[6] |= 1u << (rng() % 32);
        } else {
          f.words[4] &= ~0xFFFFu;  // k = 0
        }
        const CheckResult r = check(f.words);
        wantCode = static_cast<uint32_t>(r.code);
        wantInfo = static_cast<uint32_t>(r.bit);
      } else if (kind == 5) {
        // The unit fails the command: DMA out of bounds (command address) or bus error
        // (the unit's bus address).
        DmaLoad l;
        l.dramAddr = ++uid;
        f.cmd = Command{Deps{}, l};
        f.words = encode(f.cmd);
        f.queue = kLoad;
        f.failInUnit = true;
        const bool bus = rng() % 2;
        f.unitErrCode = static_cast<uint32_t>(bus ? ErrCode::kBusError : ErrCode::kDmaOob);
        wantCode = f.unitErrCode;
        wantInfo = 0x77;
        if (bus) {
          wantAddrIsSlot = false;
          wantAddr = 0xBAD00000u + static_cast<uint32_t>(faultAt);
        }
      } else if (kind == 6) {
        // The fetch of the command answers SLVERR.
        DmaStore s;
        s.dramAddr = ++uid;
        f.cmd = Command{Deps{}, s};
        f.words = encode(f.cmd);
        f.queue = kStore;
        wantCode = static_cast<uint32_t>(ErrCode::kBusError);
        wantInfo = 2;
      } else {
        // A deadlock: the compute queue pops a token nobody will push.
        Gemm g;
        g.inpAddr = ++uid & 0xFFFFF;
        f.cmd = Command{Deps{}, g};
        f.cmd.deps.popNext = outstanding[kS2C] == 0;
        f.cmd.deps.popPrev = !f.cmd.deps.popNext && outstanding[kL2C] == 0;
        if (!f.cmd.deps.popNext && !f.cmd.deps.popPrev) continue;
        f.words = encode(f.cmd);
        f.queue = kCompute;
        wantCode = static_cast<uint32_t>(ErrCode::kWatchdog);
        wantWatchdog = true;
      }
      prog.push_back(f);
      // A few more legal commands after it that must never be dispatched (none after a
      // deadlock: a later push could legally resolve it).
      if (kind != 7) {
        auto tail = randomJob(rng, 3, outstanding, uid, 2);
        prog.insert(prog.end(), tail.begin(), tail.end());
      }
      const uint32_t wd = 200 + static_cast<uint32_t>(rng() % 300);
      h.load(prog, slots, wd);
      if (kind == 6) h.markBadFetch(faultAt);
      const uint64_t t0 = h.cycle();
      const auto out = h.run(100000);
      h.clearBadFetch();
      if (out != CmdProcHarness::Outcome::kError) {
        h.fail("faulty stream (kind " + std::to_string(kind) + ") did not stop with an error");
        h.softReset();
        continue;
      }
      const uint32_t gotCode = h.top().err_code_o, gotAddr = h.top().err_addr_o,
                     gotInfo = h.top().err_info_o;
      if (gotCode != wantCode) {
        h.fail("kind " + std::to_string(kind) + ": ERR_CODE " + std::to_string(gotCode) +
               ", want " + std::to_string(wantCode));
      } else if (!wantWatchdog) {
        const uint32_t addr = wantAddrIsSlot ? h.slotAddress(faultAt) : wantAddr;
        if (gotAddr != addr || gotInfo != wantInfo) {
          std::ostringstream os;
          os << "kind " << kind << ": ERR_ADDR 0x" << std::hex << gotAddr << " ERR_INFO 0x"
             << gotInfo << ", want 0x" << addr << " / 0x" << wantInfo;
          h.fail(os.str());
        }
      } else if (h.cycle() - t0 < wd) {
        h.fail("watchdog fired after " + std::to_string(h.cycle() - t0) + " cycles, limit " +
               std::to_string(wd));
      }
      if (h.irqError() != 1)
        h.fail("expected one error interrupt, got " + std::to_string(h.irqError()));
      // Nothing after a command that stopped the dispatcher ran (after a unit error, later
      // commands of other queues may legitimately have run already).
      for (size_t i = faultAt + 1; i < prog.size() && kind != 5; ++i) {
        if (h.issued()[i]) h.fail("command " + std::to_string(i) + " after the fault was issued");
      }
      if (kind != 5 && h.issued()[faultAt]) h.fail("the faulty command was issued");
      // A soft reset returns to idle with the head at 0.
      h.softReset();
      if (h.top().st_error_o || !h.top().st_idle_o || h.top().ring_head_o != 0 ||
          h.top().err_code_o != 0) {
        h.fail("soft reset did not return to idle");
      }
      ++errorCases;
    }
    res.iterations = it + 1;
  }

  res.cycles = h.cycle();
  res.mismatches = h.mismatches();
  res.passed = h.mismatches() == 0;
  std::ostringstream os;
  if (res.passed) {
    os << legalCmds << " commands of random legal streams in dependency order ("
       << h.overlapCycles() << " cycles with 2+ units busy), " << errorCases
       << " faulty streams stopped with the right error";
  } else {
    os << h.firstFailures().front();
    for (size_t i = 1; i < h.firstFailures().size(); ++i) os << "; " << h.firstFailures()[i];
  }
  res.summary = os.str();
  return res;
}

static TestbenchRegistrar reg{TestbenchDef{"cmd_proc",
                                           "Command processor: random legal streams in dependency "
                                           "order, faulty streams end with the right error",
                                           &runCmdProc, 30}};

}  // namespace
}  // namespace nncosim::testbench
