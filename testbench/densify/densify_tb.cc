// Testbench `densify`: the densify unit (rtl/nnc_densify.sv) against the reference walker
// (ops/densify/densify_walker.h) on
//   1. the DENSIFY tests of the NNAPI conformance vectors (every file that has one),
//      compared byte for byte with the expected outputs;
//   2. seeded random sparse tensors: ranks 1..8 levels, block dimensions, DENSE and
//      SPARSE_CSR levels (sorted and unsorted indices), 8/16/32-bit elements, random fill;
//   3. the same with one corruption each (traversal order, block map, format, sizes,
//      segments, indices, counts, bus errors), which must end with the documented error
//      code, be rejected by the reference too, and write nothing at all (bus errors during
//      the walk: nothing outside the output).
// A memory model with random latency and backpressure serves the unit's beat reads (several
// in flight) and strobed beat writes and checks every access against the regions the
// descriptor describes: a read of a beat that holds no byte of the described arrays, or a
// strobed byte outside the output, counts as a failure.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vnnc_densify.h"
#include "firmware/isa_generated.h"
#include "hal/operand_type.h"
#include "hal/vector_file.h"
#include "ops/densify/densify_walker.h"
#include "testbench/densify/densify_memory.h"
#include "testbench/testbench.h"
#include "verilated.h"
#include "verilated_fst_c.h"

#ifndef NNC_CONFORMANCE_VECTORS
#define NNC_CONFORMANCE_VECTORS "../shared/conformance/vectors"
#endif

namespace nncosim::testbench {
namespace {

// nnc_pkg::densify_err_e
enum Err : int {
  kDuplicate = -2,  // not an error code: a corruption the unit does not detect
  kOk = 0,
  kErrRank = 1,
  kErrElemSize = 2,
  kErrTraversal = 3,
  kErrBlockMap = 4,
  kErrFormat = 5,
  kErrDimension = 6,
  kErrSegment = 7,
  kErrIndex = 8,
  kErrValues = 9,
  kErrOutput = 10,
  kErrBus = 11,
};
const char* errName(int e) {
  static const char* n[] = {"Ok",        "Rank",    "ElemSize", "Traversal", "BlockMap", "Format",
                            "Dimension", "Segment", "Index",    "Values",    "Output",   "Bus"};
  return e >= 0 && e < 12 ? n[e] : "?";
}

// ---------------------------------------------------------------------------------------------
// A densify job: the sparse format as raw descriptor fields (so they can be corrupted), the
// arrays, the values.
struct Job {
  ops::SparseFormat f;  // arrays (segments/indices contents), traversal etc.
  std::vector<uint8_t> values;
  int esize = 0;  // log2 bytes
  uint32_t fill = 0;
  // Descriptor and command fields that normally follow from the above; corruptions
  // override them.
  uint32_t levels = 0, nblk = 0, esizeField = 0, valCnt = 0, outBytes = 0;
  std::vector<uint32_t> segCnt, idxCnt;
  // Element whose beat answers every read with SLVERR: header word i (i < 4), level record
  // word i - 4, or value i - 4 - 8 * levels.
  int failRead = -1;
  std::string what;  // for messages

  void deriveCounts(uint64_t denseElements) {
    levels = static_cast<uint32_t>(f.traversalOrder.size());
    nblk = static_cast<uint32_t>(f.blockMap.size());
    esizeField = static_cast<uint32_t>(esize);
    valCnt = static_cast<uint32_t>(values.size() >> esize);
    outBytes = static_cast<uint32_t>(denseElements << esize);
    segCnt.assign(levels, 0);
    idxCnt.assign(levels, 0);
    for (size_t l = 0; l < levels; ++l) {
      segCnt[l] = static_cast<uint32_t>(f.segments[l].size());
      idxCnt[l] = static_cast<uint32_t>(f.indices[l].size());
    }
  }
};

// The reference's verdict on a job, as executeDensify judges it.
struct RefResult {
  bool ok = false;
  std::string error;
  std::vector<uint8_t> dense;  // on success
};
RefResult reference(const Job& j) {
  RefResult r;
  if (j.levels != j.f.traversalOrder.size() || j.nblk != j.f.blockMap.size()) {
    r.error = "descriptor counts differ from the arrays";
    return r;
  }
  for (size_t l = 0; l < j.levels; ++l)
    if (j.segCnt[l] != j.f.segments[l].size() || j.idxCnt[l] != j.f.indices[l].size()) {
      r.error = "array counts differ from the arrays";
      return r;
    }
  auto w = ops::DensifyWalker::create(j.f);
  if (!w.ok()) {
    r.error = w.error();
    return r;
  }
  if (w->numValues() != j.valCnt || (j.values.size() >> j.esize) != j.valCnt) {
    r.error = "values count";
    return r;
  }
  if ((w->denseElements() << j.esize) != j.outBytes) {
    r.error = "output count";
    return r;
  }
  const size_t es = size_t{1} << j.esize;
  r.dense.resize(w->denseElements() * es);
  for (size_t i = 0; i < w->denseElements(); ++i) std::memcpy(&r.dense[i * es], &j.fill, es);
  w->forEach(
      [&](uint64_t v, uint64_t off) { std::memcpy(&r.dense[off * es], &j.values[v * es], es); });
  r.ok = true;
  return r;
}

// ---------------------------------------------------------------------------------------------
class Harness {
 public:
  explicit Harness(const TestbenchOptions& opt) : rng_(opt.seed * 0x2545f4914f6cdd1dULL + 7) {
    ctx_ = std::make_unique<VerilatedContext>();
    ctx_->fatalOnError(false);
    if (!opt.wavesPath.empty()) ctx_->traceEverOn(true);
    dut_ = std::make_unique<Vnnc_densify>(ctx_.get(), "densify");
    if (!opt.wavesPath.empty()) {
      fst_ = std::make_unique<VerilatedFstC>();
      dut_->trace(fst_.get(), 99);
      fst_->open(opt.wavesPath.c_str());
    }
    dut_->clk_i = 0;
    dut_->rst_ni = 0;
    dut_->start_i = 0;
    dut_->rd_req_ready_i = 0;
    dut_->rd_rsp_valid_i = 0;
    dut_->rd_rsp_resp_i = 0;
    dut_->wr_req_ready_i = 0;
    dut_->eval();
    tick();
    tick();
    dut_->rst_ni = 1;
  }
  ~Harness() {
    if (fst_) fst_->close();
    dut_->final();
  }

  struct Outcome {
    int err = -1;  // -1: timeout
    uint32_t written = 0, errAddr = 0, errResp = 0;
    uint64_t writes = 0, reads = 0, cycles = 0;
    std::vector<uint8_t> out;
    std::vector<std::string> violations;
  };

  // Lays the job out in memory, runs the unit, returns what it did. `slow` adds random
  // backpressure and latency (1..4 cycles); otherwise reads take `latency` cycles.
  Outcome run(const Job& j, bool slow, uint32_t latency = 1) {
    Outcome o;
    mem_.reset(rng_);
    const uint32_t es = 1u << j.esize;
    // The descriptor describes exactly what is allocated, so the region checks below are
    // the descriptor's bounds.
    const uint32_t nlev = std::min<uint32_t>(j.levels, 8);
    const uint32_t descWords = 8 + 8 * nlev;
    // Descriptor: header words 0..3, reserved words 4..7 (never used), level records.
    const uint32_t desc = mem_.alloc(16, 4, false, "descriptor header", rng_, false);
    mem_.alloc(16, 4, false, "descriptor reserved", rng_, false);
    mem_.forbidLast();
    if (nlev) mem_.alloc(32 * nlev, 4, false, "descriptor levels", rng_);
    const uint32_t vals =
        mem_.alloc(std::max<uint32_t>(1, j.valCnt) * es, es, false, "values", rng_);
    mem_.put(vals, j.values.data(), std::min<size_t>(j.values.size(), size_t{j.valCnt} * es));
    const uint32_t outBytes = j.outBytes;
    const uint32_t out = mem_.alloc(std::max<uint32_t>(outBytes, 1), es, true, "output", rng_);
    std::vector<uint32_t> segA(8, 0), idxA(8, 0);
    auto segCnt = [&](uint32_t l) { return l < j.segCnt.size() ? j.segCnt[l] : 0u; };
    auto idxCnt = [&](uint32_t l) { return l < j.idxCnt.size() ? j.idxCnt[l] : 0u; };
    for (uint32_t l = 0; l < nlev; ++l) {
      const auto& seg = l < j.f.segments.size() ? j.f.segments[l] : std::vector<int32_t>{};
      const auto& idx = l < j.f.indices.size() ? j.f.indices[l] : std::vector<int32_t>{};
      // A zero-length array still gets a (never legally read) word, so it has an address.
      segA[l] = mem_.alloc(std::max<uint32_t>(4, 4 * segCnt(l)), 4, false,
                           "segments " + std::to_string(l), rng_);
      idxA[l] = mem_.alloc(std::max<uint32_t>(4, 4 * idxCnt(l)), 4, false,
                           "indices " + std::to_string(l), rng_);
      mem_.put(segA[l], seg.data(), 4 * std::min<size_t>(seg.size(), segCnt(l)));
      mem_.put(idxA[l], idx.data(), 4 * std::min<size_t>(idx.size(), idxCnt(l)));
    }
    const uint32_t hdr[8] = {j.levels, j.nblk, j.valCnt, j.fill, 0, 0, 0, 0};
    for (int i = 0; i < 8; ++i) mem_.put32(desc + 4 * i, hdr[i]);
    for (uint32_t l = 0; l < nlev; ++l) {
      auto at = [&](size_t i, const std::vector<int32_t>& v) {
        return i < v.size() ? static_cast<uint32_t>(v[i]) : 0u;
      };
      const uint32_t rec[8] = {at(l, j.f.traversalOrder),
                               at(l, j.f.dimFormat),
                               at(l, j.f.dimensions),
                               at(l, j.f.blockMap),
                               segA[l],
                               segCnt(l),
                               idxA[l],
                               idxCnt(l)};
      for (int i = 0; i < 8; ++i) mem_.put32(desc + 4 * (8 + 8 * l + i), rec[i]);
    }
    // The output starts as garbage, so a missing fill shows.
    for (uint32_t i = 0; i < outBytes; ++i) mem_.write(out + i, 1, static_cast<uint32_t>(rng_()));
    // The beat that answers with a bus error, if any.
    uint64_t failBeat = ~uint64_t{0};
    if (j.failRead >= 0) {
      const uint32_t e = static_cast<uint32_t>(j.failRead);
      const uint32_t a = e < 4              ? desc + 4 * e
                         : e < 4 + 8 * nlev ? desc + 32 + 4 * (e - 4)
                                            : vals + (e - 4 - 8 * nlev) * es;
      failBeat = a / kBeat;
    }

    // Start.
    dut_->start_i = 1;
    dut_->desc_addr_i = desc;
    dut_->values_addr_i = vals;
    dut_->out_addr_i = out;
    dut_->out_bytes_i = j.outBytes;
    dut_->elem_size_i = static_cast<uint8_t>(j.esizeField);
    const uint64_t start = cycles_;
    const uint64_t limit = start + 20000 + 40ull * (descWords + j.outBytes + j.valCnt) +
                           40ull * std::accumulate(j.idxCnt.begin(), j.idxCnt.end(), uint64_t{0}) +
                           40ull * std::accumulate(j.segCnt.begin(), j.segCnt.end(), uint64_t{0});
    // Responses in request order, each at least its latency after its request.
    struct Pending {
      uint64_t due;
      uint8_t data[kBeat];
      bool err;
    };
    std::deque<Pending> rsp;
    bool started = false;
    while (cycles_ < limit) {
      const bool rdReady = !slow || rng_() % 4 != 0;
      const bool wrReady = !slow || rng_() % 3 != 0;
      dut_->rd_req_ready_i = rdReady;
      dut_->wr_req_ready_i = wrReady;
      const bool rspNow = !rsp.empty() && rsp.front().due <= cycles_;
      dut_->rd_rsp_valid_i = rspNow;
      for (int w = 0; w < 4; ++w) {
        uint32_t v = 0xdeadbeef;
        if (rspNow) std::memcpy(&v, rsp.front().data + 4 * w, 4);
        dut_->rd_rsp_data_i[w] = v;
      }
      dut_->rd_rsp_resp_i = rspNow && rsp.front().err ? 2 : 0;  // SLVERR
      dut_->eval();

      if (started && dut_->done_o) {
        o.err = dut_->err_o;
        o.written = dut_->written_o;
        o.errAddr = dut_->err_addr_o;
        o.errResp = dut_->err_resp_o;
        tick();
        break;
      }
      if (dut_->rd_req_valid_o && rdReady) {
        const uint32_t a = dut_->rd_req_addr_o;
        Pending p{};
        if (a % kBeat != 0) violation(o, "read at 0x" + hex(a) + " not beat aligned");
        if (!mem_.touchesReadable(a, kBeat)) {
          violation(
              o, "read of the beat at 0x" + hex(a) + " that holds no byte of the described arrays");
          std::memset(p.data, 0xde, kBeat);
        } else {
          for (uint32_t i = 0; i < kBeat; ++i) p.data[i] = mem_.byte(a + i);
        }
        const uint64_t lat = slow ? 1 + rng_() % 4 : latency;
        p.due = std::max(cycles_ + lat, rsp.empty() ? 0 : rsp.back().due);
        p.err = a / kBeat == failBeat;
        rsp.push_back(p);
        ++o.reads;
      }
      if (dut_->wr_req_valid_o && wrReady) {
        const uint32_t a = dut_->wr_req_addr_o;
        const uint32_t strb = dut_->wr_req_strb_o;
        if (a % kBeat != 0) violation(o, "write at 0x" + hex(a) + " not beat aligned");
        if (strb == 0) violation(o, "write at 0x" + hex(a) + " with no byte strobe");
        for (uint32_t i = 0; i < kBeat; ++i) {
          if (!(strb >> i & 1)) continue;
          const DensifyMemory::Region* r = mem_.find(a + i, 1);
          if (!r || !r->writable) {
            violation(o, "write of the byte at 0x" + hex(a + i) + " outside the output");
          } else {
            mem_.write(a + i, 1, dut_->wr_req_data_o[i / 4] >> (8 * (i % 4)));
          }
        }
        ++o.writes;
      }
      if (rspNow) rsp.pop_front();
      tick();
      if (!started) {
        started = true;
        dut_->start_i = 0;
      }
    }
    if (!rsp.empty()) violation(o, "responses left over");
    if (o.err == kErrBus && j.failRead >= 0 && (o.errAddr / kBeat != failBeat || o.errResp != 2))
      violation(o, "bus error reported at 0x" + hex(o.errAddr) + " response " +
                       std::to_string(o.errResp) + ", want the failing beat 0x" +
                       hex(static_cast<uint32_t>(failBeat * kBeat)) + " and 2");
    if (!mem_.canaryIntact()) violation(o, "memory outside every region changed");
    o.cycles = cycles_ - start;
    o.out = mem_.get(out, outBytes);
    return o;
  }

  uint64_t cycles() const { return cycles_; }
  bool rtlError() const { return ctx_->gotError(); }
  std::mt19937_64& rng() { return rng_; }

 private:
  static constexpr uint32_t kBeat = firmware::kAxiDataBytes;  // the unit's BusBytes
  static std::string hex(uint32_t v) {
    std::ostringstream s;
    s << std::hex << v;
    return s.str();
  }
  void violation(Outcome& o, std::string m) {
    if (o.violations.size() < 4) o.violations.push_back(std::move(m));
  }
  void tick() {
    dut_->clk_i = 1;
    dut_->eval();
    if (fst_) fst_->dump(time_);
    time_ += 5;
    ctx_->timeInc(5);  // RTL assertion messages carry the time
    dut_->clk_i = 0;
    dut_->eval();
    if (fst_) fst_->dump(time_);
    time_ += 5;
    ctx_->timeInc(5);
    ++cycles_;
  }

  std::mt19937_64 rng_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vnnc_densify> dut_;
  std::unique_ptr<VerilatedFstC> fst_;
  DensifyMemory mem_;
  uint64_t time_ = 0, cycles_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Random valid jobs.
class Generator {
 public:
  explicit Generator(std::mt19937_64& rng) : rng_(rng) {}

  Job valid() {
    for (;;) {
      Job j = attempt();
      auto w = ops::DensifyWalker::create(j.f);
      if (!w.ok()) continue;  // cannot happen; keeps the generator honest
      j.deriveCounts(w->denseElements());
      return j;
    }
  }
  uint64_t pick(uint64_t n) { return rng_() % n; }

 private:
  Job attempt() {
    Job j;
    // Levels: rank n, k <= n block dimensions, n + k <= 8.
    int n, k;
    if (pick(8) == 0) {
      n = 5 + static_cast<int>(pick(4));  // deep, no blocks
      k = static_cast<int>(pick(std::min(n, 8 - n) + 1));
    } else {
      n = 1 + static_cast<int>(pick(4));
      k = static_cast<int>(pick(std::min(n, 8 - n) + 1));
    }
    const int levels = n + k;
    const int maxElems = pick(4) == 0 ? 4096 : 400;
    // Block map: k distinct dims, increasing; grid and block sizes within the budget.
    std::vector<int> dimsIdx(n);
    std::iota(dimsIdx.begin(), dimsIdx.end(), 0);
    std::shuffle(dimsIdx.begin(), dimsIdx.end(), rng_);
    std::vector<int32_t> bmap(dimsIdx.begin(), dimsIdx.begin() + k);
    std::sort(bmap.begin(), bmap.end());
    std::vector<int32_t> grid(n), block(k);
    int64_t elems = 1;
    const int per = levels <= 3 ? 8 : (levels <= 5 ? 4 : 3);
    for (auto& g : grid) {
      g = 1 + static_cast<int32_t>(pick(per));
      elems *= g;
    }
    for (auto& b : block) {
      b = 1 + static_cast<int32_t>(pick(per));
      elems *= b;
    }
    while (elems > maxElems) {  // shrink the largest size until it fits
      int32_t* big = &grid[0];
      for (auto& g : grid)
        if (g > *big) big = &g;
      for (auto& b : block)
        if (b > *big) big = &b;
      elems = elems / *big * (*big - 1);
      --*big;
      if (*big == 0) return attempt();
    }
    // Traversal order: grid levels permuted, then block levels permuted.
    std::vector<int32_t> trav(levels);
    std::iota(trav.begin(), trav.begin() + n, 0);
    std::iota(trav.begin() + n, trav.end(), n);
    std::shuffle(trav.begin(), trav.begin() + n, rng_);
    std::shuffle(trav.begin() + n, trav.end(), rng_);
    j.f.traversalOrder = trav;
    j.f.blockMap = bmap;
    j.f.dimFormat.resize(levels);
    j.f.dimensions.resize(levels);
    j.f.segments.assign(levels, {});
    j.f.indices.assign(levels, {});
    const int density = static_cast<int>(pick(4));  // 0 very sparse .. 3 nearly dense
    const bool allDense = pick(10) == 0;
    uint64_t positions = 1;
    for (int l = 0; l < levels; ++l) {
      const int32_t size = l < n ? grid[trav[l]] : block[trav[l] - n];
      j.f.dimensions[l] = size;
      const bool sparse = !allDense && pick(2);
      j.f.dimFormat[l] = sparse ? 1 : 0;
      if (!sparse) {
        positions *= static_cast<uint64_t>(size);
        continue;
      }
      auto& seg = j.f.segments[l];
      auto& idx = j.f.indices[l];
      seg.push_back(0);
      const bool sorted = pick(4) != 0;
      std::vector<int32_t> all(size);
      std::iota(all.begin(), all.end(), 0);
      for (uint64_t q = 0; q < positions; ++q) {
        int32_t c = 0;
        switch (density) {
          case 0:
            c = pick(3) == 0 ? 1 : 0;
            break;
          case 1:
            c = static_cast<int32_t>(pick(size / 2 + 2));
            break;
          case 2:
            c = static_cast<int32_t>(pick(size + 1));
            break;
          default:
            c = size - static_cast<int32_t>(pick(2));
        }
        c = std::min(std::max(c, 0), size);
        std::shuffle(all.begin(), all.end(), rng_);
        std::vector<int32_t> chosen(all.begin(), all.begin() + c);
        if (sorted) std::sort(chosen.begin(), chosen.end());
        idx.insert(idx.end(), chosen.begin(), chosen.end());
        seg.push_back(static_cast<int32_t>(idx.size()));
      }
      positions = idx.size();
    }
    j.esize = static_cast<int>(pick(3));
    const uint32_t es = 1u << j.esize;
    j.values.resize(positions * es);
    for (auto& b : j.values) b = static_cast<uint8_t>(rng_());
    j.fill = static_cast<uint32_t>(rng_()) & (es == 4 ? ~0u : ((1u << (8 * es)) - 1));
    if (pick(2)) j.fill = 0;
    std::ostringstream s;
    s << levels << " levels (n=" << n << ", k=" << k << "), " << 8 * es << "-bit";
    j.what = s.str();
    return j;
  }

  std::mt19937_64& rng_;
};

constexpr int kKinds = 12;

// One corruption of a valid job; returns the error the unit must report, or -1 if this job
// has nothing of that kind to corrupt.
int corrupt(Job& j, int kind, Generator& g) {
  const int levels = static_cast<int>(j.levels);
  const int n = levels - static_cast<int>(j.nblk);
  auto level = [&](int lo, int hi) { return lo + static_cast<int>(g.pick(hi - lo)); };
  std::vector<int> sparse, dense;
  for (int l = 0; l < levels; ++l) (j.f.dimFormat[l] ? sparse : dense).push_back(l);
  switch (kind) {
    case 0:  // level counts
      switch (g.pick(3)) {
        case 0:
          j.levels = 0;
          break;
        case 1:
          j.levels = 9 + static_cast<uint32_t>(g.pick(100));
          break;
        default:
          j.nblk = j.levels;
          break;
      }
      j.what += ", bad level counts";
      return kErrRank;
    case 1:
      j.esizeField = 3;
      j.what += ", element size code 3 in the command";
      return kErrElemSize;
    case 2: {  // traversal order
      const int p = level(0, levels);
      switch (g.pick(4)) {
        case 0:
          j.f.traversalOrder[p] = -1 - static_cast<int32_t>(g.pick(3));
          break;
        case 1:
          j.f.traversalOrder[p] = levels + static_cast<int32_t>(g.pick(3));
          break;
        case 2:  // a grid level names a block dimension or the other way round
          if (j.nblk == 0) {
            if (levels < 2) {
              j.f.traversalOrder[p] = levels;
              break;
            }
            j.f.traversalOrder[p] = j.f.traversalOrder[(p + 1) % levels];
          } else {
            j.f.traversalOrder[p] = p < n ? n : 0;
          }
          break;
        default:  // repeat
          if (levels < 2) {
            j.f.traversalOrder[p] = 1;
            break;
          }
          j.f.traversalOrder[p] = j.f.traversalOrder[p == 0 ? 1 : p - 1];
      }
      j.what += ", traversal order " + std::to_string(p) + " corrupted";
      return kErrTraversal;
    }
    case 3: {  // block map
      if (j.nblk == 0) return -1;
      const int b = static_cast<int>(g.pick(j.nblk));
      if (j.nblk >= 2 && g.pick(2)) {
        const int c = b == 0 ? 1 : b - 1;
        std::swap(j.f.blockMap[b], j.f.blockMap[c]);
        if (j.f.blockMap[b] == j.f.blockMap[c]) return -1;
      } else {
        j.f.blockMap[b] = g.pick(2) ? -1 : n + static_cast<int32_t>(g.pick(3));
      }
      j.what += ", block map corrupted";
      return kErrBlockMap;
    }
    case 4: {  // format
      const int l = level(0, levels);
      if (g.pick(2) && !sparse.empty()) {
        const int s = sparse[g.pick(sparse.size())];
        j.f.dimFormat[s] = 0;  // DENSE with arrays
        j.what += ", sparse level " + std::to_string(s) + " marked DENSE";
      } else {
        j.f.dimFormat[l] = g.pick(2) ? 2 : -1;
        j.what += ", format code of level " + std::to_string(l);
      }
      return kErrFormat;
    }
    case 5: {  // sizes
      if (levels >= 2 && g.pick(2)) {
        const int a = level(0, levels), b = (a + 1 + level(0, levels - 1)) % levels;
        j.f.dimensions[a] = 1 << 16;
        j.f.dimensions[b] = 1 << 16;  // the dense tensor exceeds 2^31 elements
        j.what += ", 2^32-element tensor";
      } else {
        j.f.dimensions[level(0, levels)] = g.pick(2) ? 0 : -static_cast<int32_t>(1 + g.pick(1000));
        j.what += ", size <= 0";
      }
      return kErrDimension;
    }
    case 6: {  // segments
      if (sparse.empty()) return -1;
      const int l = sparse[g.pick(sparse.size())];
      auto& seg = j.f.segments[l];
      switch (g.pick(4)) {
        case 0:
          seg[0] = 1 + static_cast<int32_t>(g.pick(3));
          break;
        case 1:
          seg.back() += 1 + static_cast<int32_t>(g.pick(3));
          break;
        case 2: {
          if (seg.size() < 3) return -1;
          const size_t q = 1 + g.pick(seg.size() - 2);
          seg[q] = seg[q - 1] - 1 - static_cast<int32_t>(g.pick(2));  // decreases
          break;
        }
        default:
          j.segCnt[l] += g.pick(2) ? 1 : -1;  // not one per position plus one
          if (j.segCnt[l] > seg.size())
            seg.push_back(seg.back());
          else
            seg.pop_back();
      }
      j.what += ", segments of level " + std::to_string(l) + " corrupted";
      return kErrSegment;
    }
    case 7: {  // indices
      std::vector<int> withIdx;
      for (int l : sparse)
        if (!j.f.indices[l].empty()) withIdx.push_back(l);
      if (withIdx.empty()) return -1;
      const int l = withIdx[g.pick(withIdx.size())];
      auto& idx = j.f.indices[l];
      idx[g.pick(idx.size())] = g.pick(2) ? j.f.dimensions[l] + static_cast<int32_t>(g.pick(5))
                                          : -1 - static_cast<int32_t>(g.pick(5));
      j.what += ", index of level " + std::to_string(l) + " out of range";
      return kErrIndex;
    }
    case 8:  // values count
      if (j.valCnt == 0 || g.pick(2)) {
        const uint32_t es = 1u << j.esize;
        j.values.resize(j.values.size() + es, 0x5a);
        ++j.valCnt;
      } else {
        j.values.resize(j.values.size() - (size_t{1} << j.esize));
        --j.valCnt;
      }
      j.what += ", values count off by one";
      return kErrValues;
    case 9: {  // output size: a byte or an element too many or too few
      const uint32_t d = g.pick(2) ? 1u : (1u << j.esize);
      j.outBytes = g.pick(2) ? j.outBytes + d : j.outBytes - d;
      j.what += ", output size off by " + std::to_string(d);
      return kErrOutput;
    }
    case 10: {  // a repeated index: the reference rejects it, the unit does not look
      for (int l : sparse) {
        const auto& seg = j.f.segments[l];
        for (size_t q = 0; q + 1 < seg.size(); ++q)
          if (seg[q + 1] - seg[q] >= 2) {
            j.f.indices[l][seg[q] + 1] = j.f.indices[l][seg[q]];
            j.what += ", repeated index in level " + std::to_string(l);
            return kDuplicate;
          }
      }
      return -1;
    }
    default:  // a bus error on the beat of one element the unit must read
      // Every job reads its header, its level records and each value.
      j.failRead = static_cast<int>(g.pick(4 + 8 * j.levels + j.valCnt));
      j.what += ", bus error on the beat of element " + std::to_string(j.failRead);
      return kErrBus;
  }
}

// ---------------------------------------------------------------------------------------------
// Conformance vectors: the DENSIFY operations' metadata, values and expected outputs.
struct VectorJob {
  Job job;
  std::vector<uint8_t> expected;
  std::string name;
};

std::vector<uint8_t> operandBytes(const hal::ConformanceTest& t, uint32_t index, int depth = 0) {
  const hal::Subgraph& g = t.model.main;
  const hal::Operand& o = g.operands.at(index);
  switch (o.lifetime) {
    case hal::OperandLifeTime::CONSTANT_COPY:
    case hal::OperandLifeTime::CONSTANT_POOL: {
      const uint8_t* p = t.model.constantData(o);
      return p ? std::vector<uint8_t>(p, p + o.location.length) : std::vector<uint8_t>{};
    }
    case hal::OperandLifeTime::SUBGRAPH_INPUT:
      for (size_t i = 0; i < g.inputIndexes.size(); ++i)
        if (g.inputIndexes[i] == index) return t.inputs.at(i).bytes;
      return {};
    case hal::OperandLifeTime::TEMPORARY_VARIABLE:
      // The `_all_inputs_as_internal` variants compute an input as ADD(x, zero): take x.
      for (const auto& op : g.operations)
        if (depth < 4 && op.type == hal::OperationType::ADD && !op.outputs.empty() &&
            op.outputs[0] == index)
          return operandBytes(t, op.inputs.at(0), depth + 1);
      return {};
    default:
      return {};
  }
}

std::vector<int32_t> asInts(const std::vector<uint8_t>& b) {
  std::vector<int32_t> v(b.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

std::vector<VectorJob> loadVectors(const std::string& root, std::string* note) {
  std::vector<VectorJob> jobs;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(root, ec)) {
    *note = "no conformance vectors at " + root;
    return jobs;
  }
  for (const std::string& path : hal::listVectorFiles(root)) {
    // Parse only the files that have a DENSIFY operation.
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("\"DENSIFY\"") == std::string::npos) continue;
    auto file = hal::readVectorFile(path);
    if (!file.ok()) {
      *note += "unreadable " + path + ": " + file.error() + "; ";
      continue;
    }
    for (const auto& t : file->tests) {
      const hal::Subgraph& g = t.model.main;
      for (const auto& op : g.operations) {
        if (op.type != hal::OperationType::DENSIFY || t.expectFailure) continue;
        VectorJob vj;
        vj.name = t.name;
        Job& j = vj.job;
        const hal::Operand& values = g.operands.at(op.inputs.at(0));
        j.values = operandBytes(t, op.inputs[0]);
        const size_t es = hal::elementSize(values.type);
        j.esize = es == 1 ? 0 : (es == 2 ? 1 : 2);
        const bool asymm = values.type == hal::OperandType::TENSOR_QUANT8_ASYMM ||
                           values.type == hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED ||
                           values.type == hal::OperandType::TENSOR_QUANT16_ASYMM;
        j.fill = asymm ? static_cast<uint32_t>(values.zeroPoint) & (es == 1 ? 0xffu : 0xffffu) : 0;
        j.f.traversalOrder = asInts(operandBytes(t, op.inputs.at(1)));
        j.f.blockMap = asInts(operandBytes(t, op.inputs.at(2)));
        j.f.dimFormat = asInts(operandBytes(t, op.inputs.at(3)));
        j.f.dimensions = asInts(operandBytes(t, op.inputs.at(4)));
        const size_t levels = j.f.traversalOrder.size();
        j.f.segments.assign(levels, {});
        j.f.indices.assign(levels, {});
        for (size_t l = 0; l < levels && 6 + 2 * l < op.inputs.size(); ++l) {
          j.f.segments[l] = asInts(operandBytes(t, op.inputs[5 + 2 * l]));
          j.f.indices[l] = asInts(operandBytes(t, op.inputs[6 + 2 * l]));
        }
        // The model's output: the DENSIFY result is the main output here.
        for (size_t i = 0; i < g.outputIndexes.size(); ++i)
          if (g.outputIndexes[i] == op.outputs.at(0)) vj.expected = t.expectedOutputs.at(i).bytes;
        auto w = ops::DensifyWalker::create(j.f);
        j.deriveCounts(w.ok() ? w->denseElements() : 0);
        j.what = t.name;
        jobs.push_back(std::move(vj));
      }
    }
  }
  return jobs;
}

std::string vectorRoot() {
  if (const char* e = std::getenv("NNCOSIM_CONFORMANCE_DIR")) return e;
  return NNC_CONFORMANCE_VECTORS;
}

// ---------------------------------------------------------------------------------------------
TestbenchResult run(const TestbenchOptions& opt) {
  TestbenchResult res;
  res.seed = opt.seed;
  const uint64_t randomJobs = opt.iterations ? opt.iterations : 1500;
  Harness h(opt);
  Generator gen(h.rng());
  std::vector<std::string> first;
  auto fail = [&](const std::string& m) {
    ++res.mismatches;
    if (first.size() < 4) first.push_back(m);
  };
  uint64_t checked = 0, vectors = 0, valid = 0, corrupted = 0, storedValues = 0, walkCycles = 0;
  uint64_t perKind[kKinds] = {}, duplicates = 0;

  // 1. Conformance vectors.
  std::string note;
  for (const VectorJob& vj : loadVectors(vectorRoot(), &note)) {
    const RefResult ref = reference(vj.job);
    if (!ref.ok) {
      fail(vj.name + ": the reference rejects it: " + ref.error);
      continue;
    }
    const auto o = h.run(vj.job, vectors % 2 == 1);
    ++checked;
    ++vectors;
    if (o.err != kOk)
      fail(vj.name + ": error " + errName(o.err));
    else if (o.out != vj.expected)
      fail(vj.name + ": dense output differs from the expected output");
    else if (o.out != ref.dense)
      fail(vj.name + ": dense output differs from the reference");
    for (const auto& v : o.violations) fail(vj.name + ": " + v);
  }
  if (vectors == 0) fail("no DENSIFY conformance vectors found (" + note + ")");

  // Throughput: a 128x128 CSR matrix (DENSE rows, SPARSE_CSR columns), 1 in 8 stored, on a
  // memory with one cycle of latency and no backpressure, and with the SoC's 40 cycles.
  uint64_t benchCycles = 0, benchCycles40 = 0, benchValues = 0;
  {
    Job j;
    constexpr int kN = 128;
    j.f.traversalOrder = {0, 1};
    j.f.dimFormat = {0, 1};
    j.f.dimensions = {kN, kN};
    j.f.segments = {{}, {0}};
    j.f.indices = {{}, {}};
    for (int r = 0; r < kN; ++r) {
      for (int c = 0; c < kN; ++c)
        if (gen.pick(8) == 0) j.f.indices[1].push_back(c);
      j.f.segments[1].push_back(static_cast<int32_t>(j.f.indices[1].size()));
    }
    j.values.resize(j.f.indices[1].size());
    for (auto& v : j.values) v = static_cast<uint8_t>(gen.pick(256));
    j.deriveCounts(kN * kN);
    j.what = "128x128 CSR benchmark";
    const RefResult ref = reference(j);
    for (uint32_t latency : {1u, 40u}) {
      const auto o = h.run(j, false, latency);
      ++checked;
      if (!ref.ok || o.err != kOk || o.out != ref.dense || !o.violations.empty())
        fail("128x128 CSR benchmark: wrong result (error " + std::string(errName(o.err)) + ")");
      (latency == 1 ? benchCycles : benchCycles40) = o.cycles;
    }
    benchValues = j.valCnt;
  }

  // 2./3. Random jobs: two valid for each corrupted one.
  for (uint64_t i = 0; i < randomJobs; ++i) {
    Job j = gen.valid();
    const bool slow = i % 2 == 1;
    int want = kOk;
    int kind = -1;
    if (i % 3 == 2) {
      for (int tries = 0; tries < 20 && want == kOk; ++tries) {
        Job c = j;
        kind = static_cast<int>(gen.pick(kKinds));
        const int e = corrupt(c, kind, gen);
        if (e >= 0 || e == kDuplicate) {
          j = std::move(c);
          want = e;
        }
      }
    }
    const RefResult ref = reference(j);
    const auto o = h.run(j, slow);
    ++checked;
    const std::string where = "job " + std::to_string(i) + " (" + j.what + ")";
    for (const auto& v : o.violations) fail(where + ": " + v);
    if (want == kOk) {
      ++valid;
      storedValues += j.valCnt;
      walkCycles += o.cycles;
      if (!ref.ok)
        fail(where + ": generator produced a format the reference rejects: " + ref.error);
      else if (o.err != kOk)
        fail(where + ": error " + errName(o.err));
      else if (o.out != ref.dense)
        fail(where + ": dense output differs from the reference");
      else if (o.written != j.valCnt)
        fail(where + ": written_o " + std::to_string(o.written) + ", want " +
             std::to_string(j.valCnt));
      continue;
    }
    ++perKind[kind];
    if (want == kDuplicate) {
      // Documented limitation: the later value wins; still nothing outside the output.
      ++duplicates;
      if (ref.ok) fail(where + ": the reference accepts a repeated index");
      if (o.err != kOk) fail(where + ": error " + errName(o.err) + " for a repeated index");
      continue;
    }
    ++corrupted;
    if (o.err != want) fail(where + ": error " + errName(o.err) + ", want " + errName(want));
    // Everything but a bus error is metadata the reference rejects too, and is caught
    // before the first write.
    if (want != kErrBus) {
      if (want != kErrRank && want != kErrElemSize && ref.ok)
        fail(where + ": the reference accepts this corruption");
      if (o.writes != 0) fail(where + ": " + std::to_string(o.writes) + " writes before the error");
    }
  }

  res.iterations = checked;
  res.cycles = h.cycles();
  if (h.rtlError()) fail("RTL assertion failed");
  res.passed = res.mismatches == 0;
  std::ostringstream s;
  if (res.passed) {
    s << vectors << " conformance DENSIFY tests bit-exact, " << valid
      << " random sparse tensors exact vs DensifyWalker (" << storedValues << " stored values, "
      << walkCycles << " cycles), " << corrupted
      << " corrupted descriptors ended with the documented error and no stray write, " << duplicates
      << " repeated-index cases stayed inside the output; 128x128 CSR with " << benchValues
      << " stored values: " << benchCycles << " cycles (read latency 1), " << benchCycles40
      << " (latency 40)";
  } else {
    s << res.mismatches << " failures";
    for (const auto& m : first) s << "; " << m;
  }
  res.summary = s.str();
  if (opt.verbose) {
    VL_PRINTF("densify: %s\n", res.summary.c_str());
    VL_PRINTF(
        "densify: corruption kinds tried (rank, elem size, traversal, block map, format, "
        "sizes, segments, indices, values, output, repeated index, bus):");
    for (uint64_t k : perKind) VL_PRINTF(" %llu", static_cast<unsigned long long>(k));
    VL_PRINTF("\n");
  }
  return res;
}

TestbenchRegistrar reg{TestbenchDef{
    "densify",
    "densify unit vs DensifyWalker: conformance vectors, random and corrupted sparse tensors "
    "(iterations = random tensors)",
    &run,
    150,
}};

}  // namespace
}  // namespace nncosim::testbench
