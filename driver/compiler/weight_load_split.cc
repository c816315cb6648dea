#include "driver/compiler/weight_load_split.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace nncosim::driver {
namespace {

using firmware::Command;
using firmware::inQueue;
using firmware::QueueOf;

// A WGT load this pass can cut by rows: DRAM bytes to WGT bytes, rows back to back on both.
bool cuttable(const Command& c) {
  const auto* d = std::get_if<firmware::DmaLoad>(&c.args);
  return d && d->bufId == firmware::Buffer::kWgt && !d->fill &&
         d->elemWidth == firmware::ElemWidth::kW8 && d->count2 == 1 && d->count0 > 0 &&
         d->bufStride1 == d->count0 && d->dramStride1 == d->count0;
}

// The WGT bytes [first, end) a command reads; none for commands that read no WGT. Only
// GEMMs may read the weights this pass moves (others that read WGT stop it).
struct Span {
  uint64_t first = 0, end = 0;
};
std::optional<Span> wgtRead(const Command& c, uint32_t cols, bool& other) {
  if (const auto* g = std::get_if<firmware::Gemm>(&c.args)) {
    if (g->k == 0 || g->n == 0) return std::nullopt;
    // B[t][j] at wgt_addr + (t * C + j) * eb (docs/isa.md).
    const uint64_t wb = g->mode == firmware::GemmMode::kInt16 && !g->wgt8 ? 2 : 1;
    return Span{g->wgtAddr, g->wgtAddr + (uint64_t{g->k - 1} * cols + g->n) * wb};
  }
  if (std::holds_alternative<firmware::Dwconv>(c.args) ||
      std::holds_alternative<firmware::Eltwise>(c.args) ||
      std::holds_alternative<firmware::Pool>(c.args) ||
      std::holds_alternative<firmware::Densify>(c.args))
    other = true;
  return std::nullopt;
}

// One row-run of a cut load: rows [r0, r1) of load `load`, in piece `piece`.
struct Run {
  size_t load = 0;
  uint32_t r0 = 0, r1 = 0;
  size_t piece = 0;
};

}  // namespace

size_t splitFirstWeightLoad(std::vector<Command>& job, uint32_t cols) {
  // The first group: the load queue's commands up to the first one pushing a token.
  std::vector<size_t> group;
  size_t last = job.size();
  for (size_t i = 0; i < job.size() && last == job.size(); ++i) {
    if (!inQueue(job[i], QueueOf::kLoad)) continue;
    if (job[i].deps.popNext) return 0;  // a group waiting on computes: not a job's first
    group.push_back(i);
    if (job[i].deps.pushNext) last = i;
  }
  if (last == job.size()) return 0;
  // Its compute: the first popping one, then the computes up to the next popping one.
  size_t g0 = job.size(), g1 = job.size();
  for (size_t i = 0; i < job.size(); ++i) {
    if (!inQueue(job[i], QueueOf::kCompute) || !job[i].deps.popPrev) continue;
    if (g0 == job.size()) {
      g0 = i;
    } else {
      g1 = i;
      break;
    }
  }
  if (g0 == job.size() || g0 < last) return 0;
  // The pieces go right after g0: no later group's load may come between.
  for (size_t i = last + 1; i < g0; ++i)
    if (inQueue(job[i], QueueOf::kLoad)) return 0;
  // The group's cuttable WGT loads.
  std::vector<size_t> wl;
  for (size_t i : group)
    if (cuttable(job[i])) wl.push_back(i);
  if (wl.empty()) return 0;
  // Whether [a, b) meets the bytes the loads write.
  auto meets = [&](uint64_t a, uint64_t b) {
    for (size_t i : wl) {
      const auto& d = std::get<firmware::DmaLoad>(job[i].args);
      if (a < uint64_t{d.bufAddr} + uint64_t{d.count0} * d.count1 && d.bufAddr < b) return true;
    }
    return false;
  };
  // The computes reading WGT in [g0, g1), and where each starts reading a new span.
  std::vector<std::pair<size_t, Span>> readers;
  for (size_t i = 0; i < job.size(); ++i) {
    if (!inQueue(job[i], QueueOf::kCompute)) continue;
    bool other = false;
    const std::optional<Span> s = wgtRead(job[i], cols, other);
    if (other) return 0;
    if (!s) continue;
    if (i < g0 && meets(s->first, s->end)) return 0;
    if (i >= g0 && i < g1) readers.emplace_back(i, *s);
  }
  // Piece boundaries: the first addresses of the 2nd, 5th, 17th, 65th ... distinct span read
  // (pieces of 1, 3, 12, 48 ... tiles), increasing and inside the loads.
  std::vector<uint64_t> starts;
  for (const auto& [i, s] : readers)
    if (std::find(starts.begin(), starts.end(), s.first) == starts.end()) starts.push_back(s.first);
  std::vector<uint64_t> bounds;
  for (size_t at = 1; at < starts.size(); at *= 4) {
    const uint64_t b = starts[at];
    if ((!bounds.empty() && b <= bounds.back()) || b <= starts[0] || !meets(b, b + 1)) return 0;
    bounds.push_back(b);
  }
  if (bounds.empty()) return 0;
  // Each load's rows by piece: a row in the piece of its last byte (a piece ends late
  // rather than early, so its readers never miss a byte).
  std::vector<Run> runs;
  for (size_t li = 0; li < wl.size(); ++li) {
    const auto& d = std::get<firmware::DmaLoad>(job[wl[li]].args);
    for (uint32_t r = 0; r < d.count1; ++r) {
      const uint64_t lastByte = uint64_t{d.bufAddr} + uint64_t{r + 1} * d.count0 - 1;
      const size_t piece = static_cast<size_t>(
          std::upper_bound(bounds.begin(), bounds.end(), lastByte) - bounds.begin());
      if (!runs.empty() && runs.back().load == li && runs.back().piece == piece &&
          runs.back().r1 == r)
        ++runs.back().r1;
      else
        runs.push_back({li, r, r + 1, piece});
    }
  }
  const size_t pieces = bounds.size() + 1;
  // Which compute pops each piece's token: the first reader needing it. A reader needing
  // pieces past the next one merges them (one command pops one token); pieces nobody in
  // [g0, g1) reads go with the last popped one. merged[p]: the token piece p loads under.
  std::vector<size_t> merged(pieces, 0);
  std::vector<size_t> popper;  // popper[t - 1]: the compute popping token t >= 1
  size_t reach = 0;            // pieces [0, reach] have their tokens
  for (const auto& [i, s] : readers) {
    size_t need = 0;
    for (const Run& r : runs) {
      const auto& d = std::get<firmware::DmaLoad>(job[wl[r.load]].args);
      const uint64_t a = uint64_t{d.bufAddr} + uint64_t{r.r0} * d.count0,
                     b = uint64_t{d.bufAddr} + uint64_t{r.r1} * d.count0;
      if (a < s.end && s.first < b) need = std::max(need, r.piece);
    }
    if (need <= reach) continue;
    if (i != g0) popper.push_back(i);
    for (size_t p = reach + 1; p <= need; ++p) merged[p] = popper.size();
    reach = need;
  }
  const size_t tokens = popper.size();
  for (size_t p = reach + 1; p < pieces; ++p) merged[p] = tokens;
  if (tokens == 0) return 0;
  // The pieces as loads: piece-0 runs take the group's place (its last pushes the group's
  // token), the others go right after g0, each token's last run pushing it.
  auto cut = [&](const Run& r) {
    firmware::DmaLoad d = std::get<firmware::DmaLoad>(job[wl[r.load]].args);
    d.dramAddr += r.r0 * d.count0;
    d.bufAddr += r.r0 * d.count0;
    d.count1 = r.r1 - r.r0;
    return Command{{}, d};
  };
  std::vector<std::vector<Command>> byToken(tokens + 1);
  for (const Run& r : runs) byToken[merged[r.piece]].push_back(cut(r));
  // A token with no rows (a piece shorter than a row, its first reader not a GEMM): as is.
  for (const std::vector<Command>& t : byToken)
    if (t.empty()) return 0;
  for (std::vector<Command>& t : byToken) t.back().deps.pushNext = true;
  std::vector<Command> firstGroup;
  for (size_t i : group)
    if (std::find(wl.begin(), wl.end(), i) == wl.end()) {
      firstGroup.push_back(job[i]);
      firstGroup.back().deps.pushNext = false;
    }
  firstGroup.insert(firstGroup.end(), byToken[0].begin(), byToken[0].end());
  std::vector<Command> out;
  out.reserve(job.size() + runs.size());
  for (size_t i = 0; i < job.size(); ++i) {
    const bool inGroup = std::find(group.begin(), group.end(), i) != group.end();
    if (inGroup && i != group.front()) continue;
    if (inGroup) {
      out.insert(out.end(), firstGroup.begin(), firstGroup.end());
      continue;
    }
    Command c = job[i];
    if (std::find(popper.begin(), popper.end(), i) != popper.end()) c.deps.popPrev = true;
    out.push_back(c);
    if (i == g0)
      for (size_t t = 1; t <= tokens; ++t)
        out.insert(out.end(), byToken[t].begin(), byToken[t].end());
  }
  job = std::move(out);
  return runs.size() - wl.size();
}

}  // namespace nncosim::driver
