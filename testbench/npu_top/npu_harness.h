// The whole NPU (rtl/nnc_npu_top.sv) as a driver sees it, for the npu_top, npu_window and
// bench_gemm testbenches: a Verilated top with a C++ AXI memory model, AXI4-Lite register
// accesses, the command ring and the interrupt; and the small helpers their cases share
// (memory accessors, command builders, the failure record and the summary).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_npu_top.h"
#include "firmware/isa_generated.h"
#include "firmware/job.h"
#include "ops/quant/fixed_point.h"
#include "testbench/dma/axi_mem_model.h"
#include "testbench/testbench.h"
#include "testbench/verilated_model.h"

namespace nncosim::testbench::npu {

using namespace nncosim::firmware;

constexpr unsigned kBus = kAxiDataBytes;
constexpr uint32_t kR = kArrayRows, kC = kArrayCols;
constexpr uint32_t log2Of(uint32_t v) { return v > 1 ? 1 + log2Of(v / 2) : 0; }
constexpr uint32_t kRingBase = 0x1000;

class Npu {
 public:
  Npu(const TestbenchOptions& opt, size_t dramBytes, uint64_t seed)
      : top_(opt.wavesPath), mem_(dramBytes, kBus, seed) {
    top_->rst_ni = 0;
    top_->clk_i = 0;
    top_->eval();
    for (int i = 0; i < 3; ++i) step();
    top_->rst_ni = 1;
  }

  AxiMemModel& mem() { return mem_; }
  Vnnc_npu_top& top() { return *top_; }
  uint64_t cycle() const { return cycle_; }

  // One cycle. Nothing in the design uses the falling edge, so the inputs for the cycle are
  // applied together with it and evaluated once.
  void step() {
    top_->clk_i = 0;
    mem_.drive(*top_);
    top_->s_axil_awvalid_i = awPending_;
    top_->s_axil_awaddr_i = liteAddr_;
    top_->s_axil_wvalid_i = wPending_;
    top_->s_axil_wdata_i = liteData_;
    top_->s_axil_wstrb_i = 0xF;
    top_->s_axil_bready_i = 1;
    top_->s_axil_arvalid_i = arPending_;
    top_->s_axil_araddr_i = liteAddr_;
    top_->s_axil_rready_i = 1;
    top_->eval();
    top_.dumpAndAdvance();
    mem_.sample(*top_);
    if (awPending_ && top_->s_axil_awready_o) awPending_ = false;
    if (wPending_ && top_->s_axil_wready_o) wPending_ = false;
    if (bWait_ && top_->s_axil_bvalid_o) {
      bWait_ = false;
      liteResp_ = top_->s_axil_bresp_o;
    }
    if (arPending_ && top_->s_axil_arready_o) arPending_ = false;
    if (rWait_ && top_->s_axil_rvalid_o) {
      rWait_ = false;
      liteData_ = top_->s_axil_rdata_o;
      liteResp_ = top_->s_axil_rresp_o;
    }
    top_->clk_i = 1;
    top_->eval();
    top_.dumpAndAdvance();
    ++cycle_;
  }

  // AXI4-Lite register accesses (blocking).
  void write(uint32_t addr, uint32_t value) {
    liteAddr_ = addr;
    liteData_ = value;
    awPending_ = wPending_ = bWait_ = true;
    while (bWait_) step();
  }
  uint32_t read(uint32_t addr) {
    liteAddr_ = addr;
    arPending_ = rWait_ = true;
    while (rWait_) step();
    return liteData_;
  }
  uint32_t lastResp() const { return liteResp_; }

  void setupRing(uint32_t slots, uint32_t watchdog) {
    slots_ = slots;
    tail_ = 0;
    write(reg::kRingBase, kRingBase);
    write(reg::kRingSize, slots);
    write(reg::kWatchdog, watchdog);
    write(reg::kCtrl, reg::kCtrlIrqEn);
  }
  // Writes commands at the tail (the ring must have room), then TAIL and the doorbell.
  hal::Status submit(const std::vector<Command>& cmds) {
    auto enc = encodeStream(cmds);
    NNC_TRY(enc);
    return submitWords(*enc);
  }
  hal::Status submitWords(const std::vector<CommandWords>& words) {
    const std::vector<uint8_t> bytes = toBytes(words);
    for (size_t i = 0; i < words.size(); ++i) {
      const uint64_t a = ringSlotAddress(kRingBase, tail_);
      std::copy(bytes.begin() + static_cast<long>(i * kCommandBytes),
                bytes.begin() + static_cast<long>((i + 1) * kCommandBytes),
                mem_.mem().begin() + static_cast<long>(a));
      tail_ = (tail_ + 1) % slots_;
    }
    write(reg::kRingTail, tail_);
    write(reg::kDoorbell, 1);
    return hal::Status::Ok();
  }
  uint32_t slotAddress(uint32_t slot) const {
    return static_cast<uint32_t>(ringSlotAddress(kRingBase, slot));
  }
  uint32_t tail() const { return tail_; }
  uint32_t slots() const { return slots_; }
  // Steps until the interrupt line rises; false on timeout.
  bool waitIrq(uint64_t maxCycles) {
    const uint64_t end = cycle_ + maxCycles;
    while (!top_->irq_o) {
      if (cycle_ >= end) return false;
      step();
    }
    return true;
  }
  void softReset() {
    write(reg::kCtrl, reg::kCtrlSoftReset | reg::kCtrlIrqEn);
    for (int i = 0; i < 1000 && !(read(reg::kStatus) & reg::kStatusIdle); ++i) step();
    write(reg::kIrqStatus, reg::kIrqStatusDone | reg::kIrqStatusError);
    tail_ = 0;
    write(reg::kRingTail, 0);
  }

 private:
  VerilatedModel<Vnnc_npu_top> top_;
  AxiMemModel mem_;
  uint64_t cycle_ = 0;
  bool awPending_ = false, wPending_ = false, bWait_ = false, arPending_ = false, rWait_ = false;
  uint32_t liteAddr_ = 0, liteData_ = 0, liteResp_ = 0;
  uint32_t slots_ = 1, tail_ = 0;
};

struct Failures {
  void fail(const std::string& s) {
    ++count;
    if (first.size() < 3) first.push_back(s);
  }
  uint64_t count = 0;
  std::vector<std::string> first;
};

inline void put32(std::vector<uint8_t>& m, uint64_t a, uint32_t v) {
  for (int b = 0; b < 4; ++b) m[a + b] = static_cast<uint8_t>(v >> (8 * b));
}
inline void putN(std::vector<uint8_t>& m, uint64_t a, int64_t v, int bytes) {
  for (int b = 0; b < bytes; ++b)
    m[a + b] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * b));
}
inline int64_t getN(const std::vector<uint8_t>& m, uint64_t a, int bytes, bool isSigned) {
  uint64_t v = 0;
  for (int b = 0; b < bytes; ++b) v |= uint64_t{m[a + b]} << (8 * b);
  if (isSigned && bytes < 8) {
    const uint64_t s = uint64_t{1} << (8 * bytes - 1);
    return static_cast<int64_t>(v ^ s) - static_cast<int64_t>(s);
  }
  return static_cast<int64_t>(v);
}

inline DmaLoad load(Buffer buf, ElemWidth ew, uint32_t dram, uint32_t s1, uint32_t s2,
                    uint32_t baddr, uint32_t bs1, uint32_t bs2, uint32_t c0, uint32_t c1,
                    uint32_t c2) {
  DmaLoad l;
  l.bufId = buf;
  l.elemWidth = ew;
  l.dramAddr = dram;
  l.dramStride1 = s1;
  l.dramStride2 = s2;
  l.bufAddr = baddr;
  l.bufStride1 = bs1;
  l.bufStride2 = bs2;
  l.count0 = c0;
  l.count1 = c1;
  l.count2 = c2;
  return l;
}
inline Command cmd(CommandArgs a, bool popPrev = false, bool popNext = false, bool pushPrev = false,
                   bool pushNext = false) {
  Command c{Deps{}, a};
  c.deps.popPrev = popPrev;
  c.deps.popNext = popNext;
  c.deps.pushPrev = pushPrev;
  c.deps.pushNext = pushNext;
  return c;
}

inline std::string errText(Npu& npu) {
  std::ostringstream os;
  os << "STATUS=0x" << std::hex << npu.read(reg::kStatus) << " ERR_CODE=" << std::dec
     << npu.read(reg::kErrCode) << " ERR_ADDR=0x" << std::hex << npu.read(reg::kErrAddr)
     << " ERR_INFO=0x" << npu.read(reg::kErrInfo);
  return os.str();
}

inline TestbenchResult finish(TestbenchResult res, const Failures& f,
                              const std::string& okSummary) {
  res.mismatches = f.count;
  res.passed = f.count == 0;
  if (res.passed) {
    res.summary = okSummary;
  } else {
    std::ostringstream os;
    os << f.first.front();
    for (size_t i = 1; i < f.first.size(); ++i) os << "; " << f.first[i];
    res.summary = os.str();
  }
  return res;
}

// Submits a job and waits for its DONE interrupt and tag; false (recorded) otherwise.
inline bool runJob(Npu& npu, const std::vector<Command>& s, uint16_t tag, Failures& f,
                   const std::string& what, uint64_t maxCycles) {
  if (auto st = npu.submit(s); !st.ok()) {
    f.fail(what + ": " + st.error());
    return false;
  }
  if (!npu.waitIrq(maxCycles)) {
    f.fail(what + ": no interrupt; " + errText(npu));
    npu.softReset();
    return false;
  }
  const uint32_t irq = npu.read(reg::kIrqStatus);
  npu.write(reg::kIrqStatus, irq);
  if (irq != reg::kIrqStatusDone || npu.read(reg::kLastTag) != tag) {
    f.fail(what + ": IRQ_STATUS=" + std::to_string(irq) + "; " + errText(npu));
    npu.softReset();
    return false;
  }
  return true;
}

// A DMA_STORE of M rows of N int32 ACC elements (rows of C in ACC) to DRAM at `dram`, N*4
// bytes per row.
inline DmaStore accStore(uint32_t accAddr, uint32_t M, uint32_t N, uint32_t dram) {
  DmaStore s;
  s.bufId = Buffer::kAcc;
  s.elemWidth = ElemWidth::kW8;
  s.dramAddr = dram;
  s.dramStride1 = N * 4;
  s.bufAddr = accAddr;
  s.bufStride1 = kC * 4;
  s.count0 = N * 4;
  s.count1 = M;
  return s;
}

// Checks the M x N int32 rows accStore wrote at `dram` against want (rows of C), and the
// 0x5A poison just past them.
inline bool checkAcc(const std::vector<uint8_t>& mem, uint32_t dram,
                     const std::vector<uint32_t>& want, uint32_t M, uint32_t N, Failures& f,
                     const std::string& what) {
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      const auto got = static_cast<uint32_t>(getN(mem, dram + (i * N + j) * 4, 4, false));
      if (got != want[i * kC + j]) {
        f.fail(what + ": ACC[" + std::to_string(i) + "][" + std::to_string(j) +
               "] = " + std::to_string(static_cast<int32_t>(got)) + ", want " +
               std::to_string(static_cast<int32_t>(want[i * kC + j])));
        return false;
      }
    }
  }
  if (mem[dram + M * N * 4] != 0x5A) {
    f.fail(what + ": wrote past the ACC rows");
    return false;
  }
  return true;
}

// Fills INP (all of it) and WGT's first `wgtBytes` with random bytes through DRAM images at
// `inpImage` and `wgtImage` (the C++ copies the testbenches compute from).
inline void loadImages(Npu& npu, std::mt19937_64& rng, uint32_t inpImage, uint32_t wgtImage,
                       uint32_t wgtBytes, Failures& f) {
  auto& mem = npu.mem().mem();
  for (uint32_t b = 0; b < kInpBufBytes; ++b) mem[inpImage + b] = static_cast<uint8_t>(rng());
  for (uint32_t b = 0; b < wgtBytes; ++b) mem[wgtImage + b] = static_cast<uint8_t>(rng());
  constexpr uint32_t kRow = 16384;
  End e;
  e.irq = true;
  e.tag = 1;
  runJob(npu,
         {cmd(load(Buffer::kInp, ElemWidth::kW32, inpImage, kRow, 0, 0, kRow, 0, kRow / 4,
                   kInpBufBytes / kRow, 1)),
          cmd(load(Buffer::kWgt, ElemWidth::kW32, wgtImage, kRow, 0, 0, kRow, 0, kRow / 4,
                   wgtBytes / kRow, 1)),
          cmd(e)},
         e.tag, f, "image load", 2000000);
}

// An 8-bit REQUANT_STORE's parameters, in a PRM image of C int32 biases, C int32 multipliers
// and C int8 shifts, and the reference of its results (ops/quant), for the testbenches of
// REQUANT_STORE on the whole NPU (npu_inp_path, npu_requant_overlap).
constexpr uint32_t kPrmMult = 4 * kC, kPrmShift = 8 * kC, kPrmBytes = 9 * kC;
struct Requant8 {
  bool isSigned = true, perChannel = true, biasEn = true;
  int32_t zp = 0, cmin = -128, cmax = 127;
  int32_t bias[kC] = {}, mult[kC] = {};
  int shift[kC] = {};
  uint8_t apply(uint32_t acc, uint32_t j) const {
    const uint32_t jj = perChannel ? j : 0;
    const auto x = static_cast<int32_t>(acc + static_cast<uint32_t>(biasEn ? bias[j] : 0));
    int64_t y = int64_t{ops::quant::multiplyByQuantizedMultiplier(x, mult[jj], shift[jj])} + zp;
    y = std::clamp<int64_t>(y, cmin, cmax);
    y = std::clamp<int64_t>(y, isSigned ? -128 : 0, isSigned ? 127 : 255);
    return static_cast<uint8_t>(y);
  }
  // The command over `rows` ACC rows at accAddr, its parameters at PRM 0.
  RequantStore command(uint32_t accAddr, uint32_t rows, uint32_t addr, bool toInp) const {
    RequantStore r;
    r.outWidth = ElemWidth::kW8;
    r.outSigned = isSigned;
    r.perChannel = perChannel;
    r.outZp = zp;
    r.accAddr = accAddr;
    r.rows = rows;
    r.outAddr = addr;
    r.toInp = toInp;
    r.biasEn = biasEn;
    r.biasAddr = 0;
    r.multAddr = kPrmMult;
    r.shiftAddr = kPrmShift;
    r.clampMin = cmin;
    r.clampMax = cmax;
    return r;
  }
};

// Random parameters (signs, zero points, per-channel or per-tensor, with or without bias,
// clamps now and then narrower than the type; shifts for sums of up to ~64 products),
// written to the PRM image at `prmImage`.
inline Requant8 randomRequant8(std::mt19937_64& rng, std::vector<uint8_t>& mem, uint32_t prmImage) {
  auto rnd = [&](int64_t a, int64_t b) {
    return a + static_cast<int64_t>(rng() % static_cast<uint64_t>(b - a + 1));
  };
  Requant8 q;
  q.isSigned = rng() % 2;
  q.perChannel = rng() % 2;
  q.biasEn = rng() % 4 != 0;
  const int32_t lo = q.isSigned ? -128 : 0, hi = q.isSigned ? 127 : 255;
  q.zp = static_cast<int32_t>(rnd(lo, hi));
  q.cmin = lo;
  q.cmax = hi;
  if (rng() % 2) {
    const auto a = static_cast<int32_t>(rnd(lo, hi)), b = static_cast<int32_t>(rnd(lo, hi));
    q.cmin = std::min(a, b);
    q.cmax = std::max(a, b);
  }
  for (uint32_t j = 0; j < kC; ++j) {
    q.bias[j] = static_cast<int32_t>(rnd(-20000, 20000));
    q.mult[j] = static_cast<int32_t>(rnd(int64_t{1} << 30, (int64_t{1} << 31) - 1));
    q.shift[j] = static_cast<int>(rnd(-12, -4));
    put32(mem, prmImage + 4 * j, static_cast<uint32_t>(q.bias[j]));
    put32(mem, prmImage + kPrmMult + 4 * j, static_cast<uint32_t>(q.mult[j]));
    mem[prmImage + kPrmShift + j] = static_cast<uint8_t>(q.shift[j]);
  }
  return q;
}

// Stores the whole of INP to DRAM at `dram` and compares it with `mirror`: nothing written
// where it should not be. A difference is recorded.
inline void checkInpMirror(Npu& npu, const std::vector<uint8_t>& mirror, uint32_t dram,
                           Failures& f) {
  DmaStore st;
  st.bufId = Buffer::kInp;
  st.elemWidth = ElemWidth::kW32;
  st.dramAddr = dram;
  st.count0 = 16384 / 4;
  st.count1 = kInpBufBytes / 16384;
  st.bufStride1 = 16384;
  st.dramStride1 = 16384;
  End e;
  e.irq = true;
  e.tag = 11;
  if (!runJob(npu, {cmd(st), cmd(e)}, e.tag, f, "INP dump", 2000000)) return;
  const auto& mem = npu.mem().mem();
  uint64_t differing = 0;
  for (uint32_t b = 0; b < kInpBufBytes; ++b) differing += mem[dram + b] != mirror[b];
  if (differing) f.fail("INP differs from its mirror in " + std::to_string(differing) + " bytes");
}

// Submits `bad` (a command the NPU must refuse) and an END: the job must end with the error
// interrupt, `wantCode` and `wantInfo` at the command's slot; then a soft reset must return
// the NPU to idle. Failures are recorded under `what`.
inline void expectCommandError(Npu& npu, const CommandWords& bad, uint32_t wantCode,
                               uint32_t wantInfo, const std::string& what, Failures& f) {
  End e;
  e.irq = true;
  const uint32_t slot = npu.tail();
  (void)npu.submitWords({bad, encode(cmd(e))});
  if (!npu.waitIrq(200000)) {
    f.fail(what + ": no interrupt; " + errText(npu));
  } else {
    const uint32_t irq = npu.read(reg::kIrqStatus), code = npu.read(reg::kErrCode),
                   addr = npu.read(reg::kErrAddr), info = npu.read(reg::kErrInfo);
    if (irq != reg::kIrqStatusError || code != wantCode || addr != npu.slotAddress(slot) ||
        info != wantInfo) {
      std::ostringstream os;
      os << what << ": IRQ_STATUS=" << irq << " ERR_CODE=" << code << " ERR_ADDR=0x" << std::hex
         << addr << " ERR_INFO=0x" << info << ", want code " << std::dec << wantCode << " info 0x"
         << std::hex << wantInfo;
      f.fail(os.str());
    }
  }
  npu.softReset();
  if (!(npu.read(reg::kStatus) & reg::kStatusIdle) || npu.read(reg::kErrCode) != 0)
    f.fail(what + ": soft reset did not return to idle; " + errText(npu));
}

}  // namespace nncosim::testbench::npu
