#include "driver/compiler/block_pipeline.h"

#include <algorithm>
#include <string>

namespace nncosim::driver {
namespace {

using firmware::Command;
using firmware::inQueue;
using firmware::QueueOf;

// Index of the first (or last) command of queue q in s; s.size() when there is none.
size_t firstOf(const std::vector<Command>& s, QueueOf q) {
  for (size_t i = 0; i < s.size(); ++i)
    if (inQueue(s[i], q)) return i;
  return s.size();
}
size_t lastOf(const std::vector<Command>& s, QueueOf q) {
  for (size_t i = s.size(); i-- > 0;)
    if (inQueue(s[i], q)) return i;
  return s.size();
}

// Sets a token flag the stream does not carry yet (a second token on one command would pair
// with the half's own).
hal::Status addToken(std::vector<Command>& s, size_t i, bool firmware::Deps::*flag,
                     const char* what, size_t block) {
  if (i >= s.size()) return hal::fail("block ", block, ": no command for ", what);
  if (s[i].deps.*flag) return hal::fail("block ", block, ": ", what, " carries a token already");
  s[i].deps.*flag = true;
  return hal::Status::Ok();
}

// The first REQUANT_STORE of s; s.size() when there is none.
size_t firstRequant(const std::vector<Command>& s) {
  for (size_t i = 0; i < s.size(); ++i)
    if (std::holds_alternative<firmware::RequantStore>(s[i].args)) return i;
  return s.size();
}

// Drops the load->compute tokens of s that guard no load: pushed by a SYNC with only SYNCs
// since the push before it (whatever loaded before that push, its own pop, earlier in the
// compute queue, already waited for). A
// pointwise half over a tensor in INP has a SYNC in place of each row tile's A loads, each
// with a token its first GEMM pops: in a job's first block they would keep the next block's
// depthwise computes off every GEMM but the last few. The i-th push pairs with the i-th pop.
void dropSyncTokens(std::vector<Command>& s) {
  std::vector<size_t> pushes, pops;
  for (size_t i = 0; i < s.size(); ++i) {
    if (inQueue(s[i], QueueOf::kLoad) && s[i].deps.pushNext) pushes.push_back(i);
    if (inQueue(s[i], QueueOf::kCompute) && s[i].deps.popPrev) pops.push_back(i);
  }
  if (pushes.size() != pops.size()) return;
  bool loaded = false;  // a load since the last kept push
  size_t j = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!inQueue(s[i], QueueOf::kLoad)) continue;
    const bool sync = std::holds_alternative<firmware::Sync>(s[i].args);
    loaded = loaded || !sync;
    if (!s[i].deps.pushNext) continue;
    if (sync && !loaded) {
      s[i].deps.pushNext = false;
      s[pops[j]].deps.popPrev = false;
    }
    loaded = false;
    ++j;
  }
}

// Appends pw(k)'s body with dw(k + 1)'s commands among its computes after its last
// token-waiting one (block_pipeline.h, "Overlapped").
void overlapNext(const std::vector<Command>& body, const std::vector<Command>& next, double from,
                 std::vector<Command>& out) {
  size_t start = 0;
  for (size_t i = 0; i < body.size(); ++i)
    if (inQueue(body[i], QueueOf::kLoad) ||
        (inQueue(body[i], QueueOf::kCompute) && body[i].deps.popPrev))
      start = i + 1;
  std::vector<size_t> computes;  // body's computes from `start`
  for (size_t i = start; i < body.size(); ++i)
    if (inQueue(body[i], QueueOf::kCompute)) computes.push_back(i);
  // next's loads up to its first one waiting on a token of its own: early.
  size_t early = 0;
  while (early < next.size() && inQueue(next[early], QueueOf::kLoad) &&
         (early == 0 || !next[early].deps.popNext))
    ++early;
  // Before body's computes[j]: next's commands [at[j], at[j + 1]); the early loads first,
  // the rest spread evenly over computes [j0, n).
  const size_t n = computes.size();
  const size_t j0 = std::min(n, static_cast<size_t>(from * static_cast<double>(n)));
  std::vector<size_t> at(n + 1, next.size());
  for (size_t j = 0; j < n; ++j)
    at[j] = j < j0 ? early : early + (next.size() - early) * (j - j0) / (n - j0);
  size_t c = 0, taken = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    if (c < n && computes[c] == i) {
      for (; taken < at[c]; ++taken) out.push_back(next[taken]);
      ++c;
    }
    out.push_back(body[i]);
  }
  for (; taken < next.size(); ++taken) out.push_back(next[taken]);
}

}  // namespace

hal::Result<std::vector<Command>> pipelineBlocks(const std::vector<std::vector<Command>>& depthwise,
                                                 const std::vector<std::vector<Command>>& pointwise,
                                                 uint32_t maxJobCommands,
                                                 std::optional<double> overlapFrom) {
  const bool overlapped = overlapFrom.has_value();
  const size_t blocks = depthwise.size();
  if (blocks == 0 || pointwise.size() != blocks) return hal::fail("no blocks to join");
  std::vector<std::vector<Command>> dw(depthwise), pw(pointwise);
  for (size_t k = 0; k < blocks; ++k) {
    if (dw[k].empty() || !std::holds_alternative<firmware::End>(dw[k].back().args) ||
        pw[k].empty() || !std::holds_alternative<firmware::End>(pw[k].back().args))
      return hal::fail("block ", k, ": a half is not one job");
    dw[k].pop_back();
    // The pointwise half's compute->load tokens guard slots it never loads (its operand is
    // the tensor in INP): they sit on SYNCs. Dropped with the pushes they pair with; a real
    // load waiting for computes (weights reloaded per phase) cannot be joined.
    size_t pops = 0, pushes = 0;
    for (Command& c : pw[k]) {
      if (inQueue(c, QueueOf::kLoad) && c.deps.popNext) {
        if (!std::holds_alternative<firmware::Sync>(c.args))
          return hal::fail("block ", k, ": the pointwise half reloads a slot (waits for computes)");
        c.deps.popNext = false;
        ++pops;
      }
      if (inQueue(c, QueueOf::kCompute) && c.deps.pushPrev) {
        c.deps.pushPrev = false;
        ++pushes;
      }
    }
    if (pops != pushes) return hal::fail("block ", k, ": the pointwise half's tokens do not pair");
    // Overlapped, the depthwise half goes among the pointwise half's computes: a token of its
    // own between the compute and store queues would pair with the pointwise half's.
    if (overlapped)
      for (const Command& c : dw[k])
        if (inQueue(c, QueueOf::kStore) ||
            (inQueue(c, QueueOf::kCompute) && (c.deps.pushNext || c.deps.popNext)))
          return hal::fail("block ", k, ": the depthwise half uses the store queue");
    // Its loads now wait for nothing: all of them where its first is, so the next block's
    // loads can follow them early (each pushes one load->compute token; 8-bit counters).
    const size_t f = firstOf(pw[k], QueueOf::kLoad);
    std::vector<Command> loads, rest;
    for (size_t i = f; i < pw[k].size(); ++i)
      (inQueue(pw[k][i], QueueOf::kLoad) ? loads : rest).push_back(pw[k][i]);
    if (loads.size() > 200) return hal::fail("block ", k, ": ", loads.size(), " pointwise loads");
    pw[k].resize(f);
    pw[k].insert(pw[k].end(), loads.begin(), loads.end());
    pw[k].insert(pw[k].end(), rest.begin(), rest.end());
  }

  // Jobs: consecutive blocks while their commands fit.
  std::vector<size_t> jobFirst{0};
  size_t count = 0;
  for (size_t k = 0; k < blocks; ++k) {
    const size_t n = dw[k].size() + pw[k].size();
    if (maxJobCommands && count > 0 && count + n > maxJobCommands) {
      jobFirst.push_back(k);
      count = 0;
    }
    if (maxJobCommands && n > maxJobCommands)
      return hal::fail("block ", k, ": ", n, " commands, more than ", maxJobCommands);
    count += n;
  }
  jobFirst.push_back(blocks);

  std::vector<Command> out;
  for (size_t j = 0; j + 1 < jobFirst.size(); ++j) {
    const size_t k0 = jobFirst[j], k1 = jobFirst[j + 1];
    // The tokens across each boundary within the job, and resident pointwise weights: the
    // loads of the job's first block.
    if (overlapped) dropSyncTokens(pw[k0]);
    std::vector<const Command*> firstLoads;
    for (const Command& c : pw[k0])
      if (std::holds_alternative<firmware::DmaLoad>(c.args)) firstLoads.push_back(&c);
    for (size_t k = k0 + 1; k < k1; ++k) {
      NNC_TRY(addToken(dw[k - 1], lastOf(dw[k - 1], QueueOf::kCompute), &firmware::Deps::pushPrev,
                       "the depthwise half's last compute", k - 1));
      NNC_TRY(addToken(dw[k], firstOf(dw[k], QueueOf::kLoad), &firmware::Deps::popNext,
                       "the depthwise half's first load", k));
      NNC_TRY(addToken(pw[k - 1], lastOf(pw[k - 1], QueueOf::kStore), &firmware::Deps::pushPrev,
                       "the pointwise half's last store", k - 1));
      if (overlapped)
        NNC_TRY(addToken(pw[k], firstRequant(pw[k]), &firmware::Deps::popNext,
                         "the pointwise half's first REQUANT_STORE", k));
      else
        NNC_TRY(addToken(dw[k], firstOf(dw[k], QueueOf::kCompute), &firmware::Deps::popNext,
                         "the depthwise half's first compute", k));
      size_t li = 0;
      for (Command& c : pw[k]) {
        if (!std::holds_alternative<firmware::DmaLoad>(c.args)) continue;
        if (li >= firstLoads.size() || !(firstLoads[li]->args == c.args))
          return hal::fail("block ", k, ": the pointwise half loads other weights");
        ++li;
        c.args = firmware::Sync{firmware::Queue::kLoad};
      }
      if (li != firstLoads.size()) return hal::fail("block ", k, ": fewer pointwise loads");
      if (overlapped) {
        // The resident weights' tokens guard nothing past the job's first block: dropped
        // (push and pop alike), so block k's GEMMs wait for no token and the depthwise
        // computes of block k + 1 can go among all of them.
        size_t pushes = 0, pops = 0;
        for (Command& c : pw[k]) {
          if (inQueue(c, QueueOf::kLoad) && c.deps.pushNext) {
            c.deps.pushNext = false;
            ++pushes;
          }
          if (inQueue(c, QueueOf::kCompute) && c.deps.popPrev) {
            c.deps.popPrev = false;
            ++pops;
          }
        }
        if (pushes != pops)
          return hal::fail("block ", k, ": the resident weights' tokens do not pair");
      }
    }
    out.insert(out.end(), dw[k0].begin(), dw[k0].end());
    for (size_t k = k0; k < k1; ++k) {
      if (k + 1 == k1) {  // the job's last half, with its END
        out.insert(out.end(), pw[k].begin(), pw[k].end());
        continue;
      }
      std::vector<Command> body(pw[k].begin(), pw[k].end() - 1);
      if (overlapped) {
        overlapNext(body, dw[k + 1], *overlapFrom, out);
        continue;
      }
      // The next depthwise half's loads that wait on nothing of its own (its first, on this
      // boundary's token): among this half's commands after its last load, evenly.
      const std::vector<Command>& next = dw[k + 1];
      std::vector<size_t> early;
      for (size_t i = 0; i < next.size(); ++i) {
        if (!inQueue(next[i], QueueOf::kLoad)) continue;
        if (!early.empty() && next[i].deps.popNext) break;
        early.push_back(i);
      }
      const size_t lastLoad = lastOf(body, QueueOf::kLoad);
      const size_t p = lastLoad == body.size() ? 0 : lastLoad + 1;
      out.insert(out.end(), body.begin(), body.begin() + static_cast<std::ptrdiff_t>(p));
      const size_t n = body.size() - p, L = early.size();
      size_t e = 0;
      for (size_t i = 0; i <= n; ++i) {
        while (e < L && e * n <= i * L) out.push_back(next[early[e++]]);
        if (i < n) out.push_back(body[p + i]);
      }
      std::vector<bool> moved(next.size(), false);
      for (size_t i : early) moved[i] = true;
      for (size_t i = 0; i < next.size(); ++i)
        if (!moved[i]) out.push_back(next[i]);
    }
  }
  return out;
}

}  // namespace nncosim::driver
