// Testbench `npu_requant_overlap`: REQUANT_STORE beside the tiles (ISA 1.10) on the whole NPU,
// through the job protocol. INP and ACC have C++ mirrors (WGT holds a fixed image). Each
// iteration is one job whose compute queue is a random run of GEMMs (k-major, or window GEMMs
// over the rows a REQUANT_STORE wrote into INP), DWCONVs and REQUANT_STOREs over 16 ACC
// tiles. The tile right after a REQUANT_STORE often writes ACC rows it reads or (to_inp)
// reads INP rows it writes: the interlocks must make it wait. Every REQUANT_STORE pushes a
// token to a DMA_STORE of its rows, so a completion out of order would let the store read
// them early. The job's last command stores every ACC tile. All of it is checked against the
// commands run one after another on the mirrors (ops/quant's requantization). Then a timed
// stretch: 32 GEMMs, each followed by the REQUANT_STORE of its rows, with the next GEMM on
// the other ACC tile (they overlap) against the same on one tile (the interlock serializes
// them). ISA 1.15: a REQUANT_STORE arriving while another runs waits pending and the tiles
// behind it are accepted: the runs often place two back to back or with a tile or two
// between, and a tile right behind the second often meets the first one's ACC or INP rows
// (its interlock must hold while the second is pending). A timed stretch of GEMMs with two
// REQUANT_STOREs after every second one must run near the GEMMs' own rate. Last, the whole
// of INP against its mirror.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "testbench/npu_top/npu_harness.h"

namespace nncosim::testbench {
namespace {

using namespace nncosim::firmware;
using namespace nncosim::testbench::npu;

// DRAM: the INP and WGT images, PRM parameters, an ACC image, each REQUANT_STORE's stored rows,
// the stored ACC tiles and the final INP dump.
constexpr uint32_t kTileBytes = kR * kC * 4, kTiles = std::min(16u, kAccBufBytes / kTileBytes),
                   kAccBytes = kTiles * kTileBytes;
constexpr uint32_t kMaxRows = 32, kRowsSlot = kMaxRows * kC, kMaxRequants = 16;
constexpr uint32_t kInpImage = 0x40000, kWgtImage = 0x80000, kWgtImageBytes = 0x10000,
                   kPrmImage = 0x90000, kAccImage = 0x91000, kRowsOut = kAccImage + kAccBytes,
                   kAccOut = kRowsOut + kMaxRequants * kRowsSlot, kInpDump = 0x100000;
static_assert(kInpImage + kInpBufBytes <= kWgtImage, "INP image overlaps the WGT image");
static_assert(kAccOut + kAccBytes <= kInpDump, "stored ACC overlaps the INP dump");

int64_t rndIn(std::mt19937_64& rng, int64_t a, int64_t b) {
  return a + static_cast<int64_t>(rng() % static_cast<uint64_t>(b - a + 1));
}
bool meet(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) { return a0 < b1 && b0 < a1; }
int64_t elem(uint8_t v, bool s) { return s ? int64_t{static_cast<int8_t>(v)} : int64_t{v}; }

// The mirrors and what the runs covered.
struct Mirror {
  std::vector<uint8_t> inp;
  std::vector<uint32_t> acc;  // kTiles tiles of R rows of C int32
};
struct Tally {
  uint64_t jobs = 0, gemms = 0, windows = 0, dwconvs = 0, requants = 0, toInp = 0, behind = 0,
           accHazards = 0, inpHazards = 0, free = 0, overOperand = 0;
  // ISA 1.15: REQUANT_STOREs placed at most two tiles behind another (the second waits
  // pending), and tiles right behind such a second one meeting the first one's rows.
  uint64_t pendingPairs = 0, olderHazards = 0;
};

// Row i's lanes j < n of a tile at ACC byte address `accAddr`: set or accumulate.
void writeAcc(Mirror& m, uint32_t accAddr, uint32_t i, uint32_t j, int64_t s, bool accumulate) {
  uint32_t& a = m.acc[accAddr / 4 + i * kC + j];
  a = (accumulate ? a : 0) + static_cast<uint32_t>(static_cast<uint64_t>(s));
}

void runGemm(const Gemm& g, const std::vector<uint8_t>& mem, Mirror& m) {
  for (uint32_t i = 0; i < g.m; ++i)
    for (uint32_t j = 0; j < g.n; ++j) {
      int64_t s = 0;
      for (uint32_t t = 0; t < g.k; ++t) {
        const uint32_t a = g.window ? g.inpAddr + i * g.laneStride + t : g.inpAddr + t * kR + i;
        s += (elem(m.inp[a], g.aSigned) - g.aZp) *
             (elem(mem[kWgtImage + g.wgtAddr + t * kC + j], g.bSigned) - g.bZp);
      }
      writeAcc(m, g.accAddr, i, j, s, g.accumulate);
    }
}

void runDwconv(const Dwconv& w, const std::vector<uint8_t>& mem, Mirror& m) {
  for (uint32_t i = 0; i < w.m; ++i)
    for (uint32_t j = 0; j < w.n; ++j) {
      int64_t s = 0;
      for (uint32_t fy = 0; fy < w.fh; ++fy)
        for (uint32_t fx = 0; fx < w.fw; ++fx) {
          const uint64_t a =
              w.inpAddr + uint64_t{fy} * w.rowStride + (uint64_t{i} * w.sw + fx * w.dw) * kC + j;
          s += (elem(m.inp[a], w.aSigned) - w.aZp) *
               (elem(mem[kWgtImage + w.wgtAddr + (fy * w.fw + fx) * kC + j], w.bSigned) - w.bZp);
        }
      writeAcc(m, w.accAddr, i, j, s, w.accumulate);
    }
}

// The REQUANT_STORE last placed in the job, for the tiles behind it.
struct LastRequant {
  uint32_t accLo = 0, accHi = 0, rows = 0, out = 0;
  bool toInp = false;
};

// A tile's ACC rows: inside the older of two REQUANT_STOREs a third of the time, when there
// is one; else inside the last one's rows half the time (an interlock).
uint32_t pickTile(std::mt19937_64& rng, const std::optional<LastRequant>& last,
                  const std::optional<LastRequant>& older, uint32_t m) {
  if (last && older && rng() % 3 == 0) return pickTile(rng, older, std::nullopt, m);
  if (last && rng() % 2) {
    const uint32_t lo = last->accLo / kTileBytes, hi = (last->accHi - 1) / kTileBytes;
    return static_cast<uint32_t>(rndIn(rng, lo, hi)) * kTileBytes +
           (rng() % 2 ? 0 : static_cast<uint32_t>(rndIn(rng, 0, kR - m)) * kC * 4);
  }
  return static_cast<uint32_t>(rndIn(rng, 0, kTiles - 1)) * kTileBytes +
         static_cast<uint32_t>(rndIn(rng, 0, kR - m)) * kC * 4;
}

void jobCase(Npu& npu, std::mt19937_64& rng, Mirror& mir, Failures& f, Tally& t) {
  auto rnd = [&](int64_t a, int64_t b) { return rndIn(rng, a, b); };
  auto& mem = npu.mem().mem();
  const Requant8 q = randomRequant8(rng, mem, kPrmImage);
  std::vector<Command> s;
  s.push_back(cmd(load(Buffer::kPrm, ElemWidth::kW8, kPrmImage, 0, 0, 0, 0, 0, kPrmBytes, 1, 1),
                  false, false, false, true));
  struct Stored {
    std::vector<uint8_t> rows;
    std::string what;
  };
  std::vector<Stored> stored;
  std::vector<std::pair<uint32_t, uint32_t>> inpRows;  // [lo, hi) written to_inp in this job
  std::optional<LastRequant> last;
  // The REQUANT_STORE before `last` when at most two tiles came between them (`last` may
  // wait pending behind it), and the most recent one with the tiles since.
  std::optional<LastRequant> older, recent;
  int tilesSinceRecent = 0;
  uint64_t prevInpLo = 0, prevInpHi = 0;  // the previous tile's INP operand
  const int length = static_cast<int>(rnd(6, 14));
  std::ostringstream what;
  what << "job " << t.jobs << ":";
  bool first = true;
  for (int c = 0; c < length; ++c) {
    const uint64_t r = rng() % 20;
    const bool behind = last.has_value();
    if (r < 7 && stored.size() < kMaxRequants && c + 1 < length) {
      // REQUANT_STORE of up to 32 rows from a tile's start, into OUT or INP.
      const auto tile = static_cast<uint32_t>(rnd(0, kTiles - 1));
      const auto rows = static_cast<uint32_t>(rnd(1, std::min(kMaxRows, (kTiles - tile) * kR)));
      const uint32_t bytes = rows * kC;
      LastRequant L;
      L.accLo = tile * kTileBytes;
      L.accHi = L.accLo + rows * kC * 4;
      L.rows = rows;
      L.toInp = rng() % 2;
      L.out = static_cast<uint32_t>(stored.size()) * kRowsSlot;
      if (L.toInp) {
        // Anywhere clear of this job's other INP rows (their stores read them), now and then
        // over the operand of the tile ahead (read already).
        bool found = false;
        for (int tries = 0; tries < 50 && !found; ++tries) {
          uint32_t x = static_cast<uint32_t>(rnd(0, kInpBufBytes - bytes));
          if (tries == 0 && prevInpHi > prevInpLo && rng() % 3 == 0)
            x = static_cast<uint32_t>(std::min<uint64_t>(prevInpLo, kInpBufBytes - bytes));
          found = true;
          for (const auto& [lo, hi] : inpRows) found = found && !meet(x, x + bytes, lo, hi);
          if (found) {
            L.out = x;
            t.overOperand += meet(x, x + bytes, prevInpLo, prevInpHi);
          }
        }
        if (!found) L.toInp = false;
      }
      if (L.toInp) inpRows.emplace_back(L.out, L.out + bytes);
      Command rc = cmd(q.command(L.accLo, rows, L.out, L.toInp), first, false, false, true);
      s.push_back(rc);
      // Reference, then its rows' store (popping the token the REQUANT_STORE pushes).
      Stored st;
      for (uint32_t i = 0; i < rows; ++i)
        for (uint32_t j = 0; j < kC; ++j)
          st.rows.push_back(q.apply(mir.acc[L.accLo / 4 + i * kC + j], j));
      if (L.toInp) std::copy(st.rows.begin(), st.rows.end(), mir.inp.begin() + L.out);
      DmaStore d;
      d.bufId = L.toInp ? Buffer::kInp : Buffer::kOut;
      d.elemWidth = ElemWidth::kW8;
      d.dramAddr = kRowsOut + static_cast<uint32_t>(stored.size()) * kRowsSlot;
      d.bufAddr = L.out;
      d.count0 = bytes;
      s.push_back(cmd(d, true));
      std::ostringstream w;
      w << " R(" << L.accLo << "+" << rows << (L.toInp ? " -> INP " : " -> OUT ") << L.out << ")";
      st.what = w.str();
      what << st.what;
      stored.push_back(st);
      older = recent && tilesSinceRecent <= 2 ? recent : std::nullopt;
      t.pendingPairs += older.has_value();
      recent = L;
      tilesSinceRecent = 0;
      last = L;
      ++t.requants;
      t.toInp += L.toInp;
      prevInpLo = prevInpHi = 0;
    } else if (r < 9) {
      // DWCONV of up to 3 x 3 taps.
      Dwconv w;
      w.m = static_cast<uint32_t>(rnd(1, kR));
      w.n = static_cast<uint32_t>(rnd(1, kC));
      w.fh = static_cast<uint32_t>(rnd(1, 3));
      w.fw = static_cast<uint32_t>(rnd(1, 3));
      w.sw = static_cast<uint32_t>(rnd(1, 2));
      w.dw = 1;
      w.aSigned = rng() % 2;
      w.bSigned = rng() % 2;
      w.aZp = static_cast<int32_t>(rnd(-128, 127));
      w.bZp = static_cast<int32_t>(rnd(-128, 127));
      const uint32_t span = ((w.m - 1) * w.sw + w.fw) * kC;
      w.rowStride = rng() % 2 ? span : static_cast<uint32_t>(rnd(0, 4096));
      const uint32_t extent = (w.fh - 1) * w.rowStride + span;
      const std::optional<LastRequant>& over =
          last && older && older->toInp && rng() % 3 == 0 ? older : last;
      w.inpAddr = over && over->toInp && rng() % 2
                      ? std::min(over->out, kInpBufBytes - extent)
                      : static_cast<uint32_t>(rnd(0, kInpBufBytes - extent));
      w.wgtAddr = static_cast<uint32_t>(rnd(0, kWgtImageBytes - w.fh * w.fw * kC));
      w.accAddr = pickTile(rng, last, older, w.m);
      w.accumulate = rng() % 2;
      Command dc = cmd(w, first);
      s.push_back(dc);
      if (behind) {
        ++t.behind;
        const uint32_t accHi = w.accAddr + ((w.m - 1) * kC + w.n) * 4;
        const bool acc = meet(w.accAddr, accHi, last->accLo, last->accHi);
        const bool inp = last->toInp && meet(w.inpAddr, w.inpAddr + extent, last->out,
                                             last->out + last->rows * kC);
        t.accHazards += acc;
        t.inpHazards += inp;
        t.free += !acc && !inp;
        if (older)
          t.olderHazards += meet(w.accAddr, accHi, older->accLo, older->accHi) ||
                            (older->toInp && meet(w.inpAddr, w.inpAddr + extent, older->out,
                                                  older->out + older->rows * kC));
      }
      runDwconv(w, mem, mir);
      what << " D(" << w.accAddr << ")";
      prevInpLo = w.inpAddr;
      prevInpHi = w.inpAddr + extent;
      last.reset();
      older.reset();
      ++tilesSinceRecent;
      ++t.dwconvs;
    } else {
      // GEMM: a window over the last REQUANT_STORE's INP rows, or k-major.
      Gemm g;
      g.aSigned = rng() % 2;
      g.bSigned = rng() % 2;
      g.aZp = static_cast<int32_t>(rng() % 2 ? 0 : rnd(-127, 127));
      g.bZp = static_cast<int32_t>(rng() % 2 ? 0 : rnd(-127, 127));
      g.n = static_cast<uint32_t>(rnd(1, kC));
      g.accumulate = rng() % 2;
      uint32_t inpHi;
      if (last && last->toInp && rng() % 2) {
        g.window = true;
        g.m = static_cast<uint32_t>(rnd(1, std::min(kR, last->rows)));
        g.vec = static_cast<uint32_t>(rnd(1, std::min(kR, kC)));
        g.taps = 1;
        g.tiles = 1;
        g.k = g.vec;
        g.laneStride = kC;
        g.inpAddr = last->out;
        inpHi = g.inpAddr + (g.m - 1) * kC + g.vec;
        ++t.windows;
      } else {
        g.m = static_cast<uint32_t>(rnd(1, kR));
        g.k = static_cast<uint32_t>(rnd(1, 64));
        g.inpAddr = static_cast<uint32_t>(rnd(0, kInpBufBytes - g.k * kR));
        inpHi = g.inpAddr + g.k * kR;
      }
      g.wgtAddr = static_cast<uint32_t>(rnd(0, kWgtImageBytes - g.k * kC));
      g.accAddr = pickTile(rng, last, older, g.m);
      s.push_back(cmd(g, first));
      if (behind) {
        ++t.behind;
        const uint32_t accHi = g.accAddr + ((g.m - 1) * kC + g.n) * 4;
        const bool acc = meet(g.accAddr, accHi, last->accLo, last->accHi);
        const bool inp =
            last->toInp && meet(g.inpAddr, inpHi, last->out, last->out + last->rows * kC);
        t.accHazards += acc;
        t.inpHazards += inp;
        t.free += !acc && !inp;
        if (older)
          t.olderHazards +=
              meet(g.accAddr, accHi, older->accLo, older->accHi) ||
              (older->toInp && meet(g.inpAddr, inpHi, older->out, older->out + older->rows * kC));
      }
      runGemm(g, mem, mir);
      what << (g.window ? " W(" : " G(") << g.accAddr << ")";
      prevInpLo = g.inpAddr;
      prevInpHi = inpHi;
      last.reset();
      older.reset();
      ++tilesSinceRecent;
      ++t.gemms;
    }
    first = false;
  }
  // Every ACC tile, once the compute queue is empty.
  Sync sy;
  sy.execQueue = Queue::kCompute;
  s.push_back(cmd(sy, first, false, false, true));
  s.push_back(cmd(accStore(0, kTiles * kR, kC, kAccOut), true));
  End e;
  e.irq = true;
  e.tag = static_cast<uint16_t>(rng());
  s.push_back(cmd(e));
  for (uint32_t i = 0; i < stored.size(); ++i)
    std::fill(mem.begin() + kRowsOut + i * kRowsSlot, mem.begin() + kRowsOut + (i + 1) * kRowsSlot,
              0xC3);
  // A mismatch prints the job's commands (stderr) for the reproduction.
  auto dumpJob = [&]() {
    for (const Command& c : s) std::fprintf(stderr, "  %s\n", disassemble(c).c_str());
  };
  if (!runJob(npu, s, e.tag, f, what.str(), 400000)) {
    dumpJob();
    return;
  }
  for (uint32_t i = 0; i < stored.size(); ++i)
    for (uint32_t b = 0; b < stored[i].rows.size(); ++b)
      if (mem[kRowsOut + i * kRowsSlot + b] != stored[i].rows[b]) {
        dumpJob();
        f.fail(what.str() + ": REQUANT_STORE" + stored[i].what + " row byte " + std::to_string(b) +
               " = " + std::to_string(mem[kRowsOut + i * kRowsSlot + b]) + ", want " +
               std::to_string(stored[i].rows[b]));
        return;
      }
  for (uint32_t w = 0; w < kTiles * kR * kC; ++w) {
    const auto got = static_cast<uint32_t>(getN(mem, kAccOut + 4 * w, 4, false));
    if (got != mir.acc[w]) {
      dumpJob();
      f.fail(what.str() + ": ACC word " + std::to_string(w) + " (tile " +
             std::to_string(w / (kR * kC)) + ") = " + std::to_string(got) + ", want " +
             std::to_string(mir.acc[w]));
      return;
    }
  }
  ++t.jobs;
}

// GEMM i of a timed stretch: k beats of rows of its own into ACC tile `tile`.
Gemm stretchGemm(uint32_t i, uint32_t k, uint32_t tile) {
  Gemm g;
  g.m = kR;
  g.n = kC;
  g.k = k;
  g.inpAddr = i * k * kR;
  g.wgtAddr = 0;
  g.accAddr = tile * kTileBytes;
  return g;
}

// A stretch's commands as one job ending with END `tag`: cycles from the doorbell to the
// interrupt (0 when it fails).
uint64_t timedJob(Npu& npu, std::vector<Command> s, uint16_t tag, const char* what, Failures& f) {
  End e;
  e.irq = true;
  e.tag = tag;
  s.push_back(cmd(e));
  const uint64_t c0 = npu.cycle();
  if (!runJob(npu, s, e.tag, f, what, 400000)) return 0;
  return npu.cycle() - c0;
}

// 32 GEMMs of k = 32 into ACC tile i % 2 (`sameTile`: tile 0), each followed by the
// REQUANT_STORE of its 16 rows into OUT: cycles from the doorbell to the interrupt. `none`:
// the GEMMs alone.
uint64_t timedStretch(Npu& npu, const Requant8& q, bool sameTile, bool none, Failures& f) {
  std::vector<Command> s;
  for (uint32_t i = 0; i < 32; ++i) {
    const Gemm g = stretchGemm(i, 32, sameTile ? 0 : i % 2);
    s.push_back(cmd(g));
    if (!none) s.push_back(cmd(q.command(g.accAddr, kR, i * kR * kC, false)));
  }
  return timedJob(npu, s, static_cast<uint16_t>(20 + sameTile * 2 + none), "timed stretch", f);
}

// ISA 1.15: 32 GEMMs of k = 2R into ACC tile i % 4, after every second one the
// REQUANT_STOREs of both its tiles' R rows into OUT, back to back: the second waits pending
// while the GEMMs behind it (other tiles) go on (`none`: the GEMMs alone). Cycles from the
// doorbell to the interrupt. (k = 2R keeps the two REQUANT_STOREs, R + 2 x 13 cycles and
// their parameters, under the two GEMMs' 4R beats at every array size.)
uint64_t pairedStretch(Npu& npu, const Requant8& q, bool none, Failures& f) {
  std::vector<Command> s;
  for (uint32_t i = 0; i < 32; ++i) {
    s.push_back(cmd(stretchGemm(i, 2 * kR, i % 4)));
    if (i % 2 == 1 && !none)
      for (uint32_t j : {i - 1, i})
        s.push_back(cmd(q.command((j % 4) * kTileBytes, kR, j * kR * kC, false)));
  }
  return timedJob(npu, s, static_cast<uint16_t>(24 + none), "paired stretch", f);
}

TestbenchResult runNpuRequantOverlap(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t iterations = opt.iterations ? opt.iterations : 300;
  std::mt19937_64 rng(opt.seed);
  Npu npu(opt, 2 << 20, rng());
  Failures f;
  npu.mem().setTiming(80, 1, 6);
  npu.setupRing(128, 100000);  // the timed stretches are 65 commands
  loadImages(npu, rng, kInpImage, kWgtImage, kWgtImageBytes, f);
  auto& mem = npu.mem().mem();
  Mirror mir;
  mir.inp.assign(mem.begin() + kInpImage, mem.begin() + kInpImage + kInpBufBytes);
  // ACC starts from a random image.
  for (uint32_t b = 0; b < kAccBytes; ++b) mem[kAccImage + b] = static_cast<uint8_t>(rng());
  mir.acc.resize(kAccBytes / 4);
  for (uint32_t w = 0; w < kAccBytes / 4; ++w)
    mir.acc[w] = static_cast<uint32_t>(getN(mem, kAccImage + 4 * w, 4, false));
  End e0;
  e0.irq = true;
  e0.tag = 2;
  runJob(npu,
         {cmd(load(Buffer::kAcc, ElemWidth::kW32, kAccImage, 0, 0, 0, 0, 0, kAccBytes / 4, 1, 1)),
          cmd(e0)},
         e0.tag, f, "ACC image load", 400000);
  Tally t;
  const uint64_t c0 = npu.cycle();
  for (uint64_t it = 0; it < iterations && f.first.empty(); ++it) {
    jobCase(npu, rng, mir, f, t);
    res.iterations = it + 1;
  }
  const uint64_t randomCycles = npu.cycle() - c0;
  uint64_t beside = 0, serial = 0, gemmsOnly = 0, paired = 0, pairedGemms = 0;
  if (f.first.empty()) {
    const Requant8 q = randomRequant8(rng, mem, kPrmImage);
    End e;
    e.irq = true;
    e.tag = 3;
    runJob(npu,
           {cmd(load(Buffer::kPrm, ElemWidth::kW8, kPrmImage, 0, 0, 0, 0, 0, kPrmBytes, 1, 1)),
            cmd(e)},
           e.tag, f, "PRM load", 400000);
    beside = timedStretch(npu, q, false, false, f);
    serial = timedStretch(npu, q, true, false, f);
    gemmsOnly = timedStretch(npu, q, false, true, f);
    paired = pairedStretch(npu, q, false, f);
    pairedGemms = pairedStretch(npu, q, true, f);
    // The stretches leave ACC tiles 0 and 1 unknown to the mirror; INP is untouched.
    if (f.first.empty() && beside >= serial)
      f.fail("REQUANT_STOREs beside the next tile's GEMMs took " + std::to_string(beside) +
             " cycles, no fewer than on one tile (" + std::to_string(serial) + ")");
    // Two REQUANT_STOREs of R rows take about 50 cycles of the requant unit per 4R beats of
    // the GEMMs at 16 x 16: with the second pending they hide under the GEMMs; one at a time
    // (ISA 1.14) the GEMMs behind waited for both, about twice as long.
    if (f.first.empty() && paired * 10 > pairedGemms * 12)
      f.fail("GEMMs with two REQUANT_STOREs after every second one took " + std::to_string(paired) +
             " cycles, more than 1.2x the GEMMs alone (" + std::to_string(pairedGemms) + ")");
  }
  // The whole of INP against the mirror: nothing written where it should not be.
  if (f.first.empty()) checkInpMirror(npu, mir.inp, kInpDump, f);
  for (const auto& v : npu.mem().violations()) f.fail("AXI protocol: " + v);
  if (f.first.empty() && (t.accHazards == 0 || t.inpHazards == 0 || t.windows == 0 || t.free == 0 ||
                          t.overOperand == 0 || t.pendingPairs == 0 || t.olderHazards == 0))
    f.fail(
        "the runs never covered an ACC interlock, an INP interlock, a free tile behind a "
        "REQUANT_STORE, rows over the operand ahead, a REQUANT_STORE behind another or an "
        "interlock with the older of two");
  res.cycles = npu.cycle();
  std::ostringstream os;
  os << t.jobs << " jobs exact vs the commands in order (" << t.gemms << " GEMMs, " << t.windows
     << " of them windows over REQUANT_STORE rows in INP; " << t.dwconvs << " DWCONVs; "
     << t.requants << " REQUANT_STOREs, " << t.toInp << " into INP, " << t.overOperand
     << " over the operand ahead; " << t.behind << " tiles right behind one: " << t.accHazards
     << " on its ACC rows, " << t.inpHazards << " on its INP rows, " << t.free << " on neither; "
     << t.pendingPairs << " REQUANT_STOREs at most two tiles behind another, " << t.olderHazards
     << " tiles behind such a one on the older one's rows; " << randomCycles
     << " cycles); 32 GEMMs of k = 32 each followed by its REQUANT_STORE: " << beside
     << " cycles with the next GEMM on the other ACC tile, " << serial << " on the same tile, "
     << gemmsOnly << " for the GEMMs alone; 32 GEMMs of k = " << 2 * kR
     << " with two REQUANT_STOREs after every second one (tiles i % 4): " << paired << " cycles, "
     << pairedGemms << " for the GEMMs alone; the whole of INP equal to its "
     << "mirror";
  return finish(res, f, os.str());
}

TestbenchRegistrar reg{TestbenchDef{
    "npu_requant_overlap",
    "Whole NPU: REQUANT_STORE beside the tiles (ISA 1.10) and pending behind another (ISA "
    "1.15): random GEMM/DWCONV/REQUANT_STORE runs with the ACC and INP interlocks and in-order "
    "completions, and the overlap's rate (iterations = jobs)",
    &runNpuRequantOverlap, 400}};

}  // namespace
}  // namespace nncosim::testbench
