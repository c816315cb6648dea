#include "driver/compiler/chain_join.h"

#include <string>

namespace nncosim::driver {
namespace {

using firmware::Command;
using firmware::QueueOf;

bool in(const Command& c, QueueOf q) { return firmware::queueOf(c) == q; }

Command sync(firmware::Queue q) { return Command{{}, firmware::Sync{q}}; }

// Marks the half's last compute as pushing a token to the load queue: that command when it
// pushes none yet, else a SYNC appended behind it (it waits for the computes ahead).
hal::Status pushAfterComputes(std::vector<Command>& half, size_t link, const char* what) {
  for (size_t i = half.size(); i-- > 0;) {
    if (!in(half[i], QueueOf::kCompute)) continue;
    if (!half[i].deps.pushPrev) {
      half[i].deps.pushPrev = true;
      return hal::Status::Ok();
    }
    Command s = sync(firmware::Queue::kCompute);
    s.deps.pushPrev = true;
    half.insert(half.begin() + static_cast<std::ptrdiff_t>(i) + 1, s);
    return hal::Status::Ok();
  }
  return hal::fail("link ", link, ": ", what, " has no compute");
}

// A load-queue command popping a compute->load token, inserted at `at`: the first of
// `fills` (which then carries it), or a SYNC when there are none.
void popAt(std::vector<Command>& half, size_t at, std::vector<Command> fills) {
  if (fills.empty()) fills.push_back(sync(firmware::Queue::kLoad));
  fills.front().deps.popNext = true;
  half.insert(half.begin() + static_cast<std::ptrdiff_t>(at), fills.begin(), fills.end());
}

}  // namespace

hal::Result<std::vector<Command>> joinChainPairs(std::vector<ChainPair> pairs,
                                                 const std::vector<std::vector<Command>>& fills) {
  const size_t n = pairs.size();
  if (n < 2 || fills.size() + 1 != n)
    return hal::fail("chain: ", n, " pairs and ", fills.size(), " fills do not make a chain");
  for (size_t i = 0; i < n; ++i) {
    const std::vector<Command>& p = pairs[i].commands;
    if (p.empty() || !std::holds_alternative<firmware::End>(p.back().args))
      return hal::fail("chain: pair ", i, " is not one job");
    for (size_t j = 0; j + 1 < p.size(); ++j)
      if (std::holds_alternative<firmware::End>(p[j].args))
        return hal::fail("chain: pair ", i, " is more than one job");
    if (pairs[i].depthwiseLast + 1 >= p.size() || !in(p[pairs[i].depthwiseLast], QueueOf::kCompute))
      return hal::fail("link ", i, ": the depthwise half has no compute");
  }
  for (const std::vector<Command>& link : fills)
    for (const Command& f : link)
      if (!in(f, QueueOf::kLoad) || f.deps.popPrev || f.deps.popNext || f.deps.pushPrev ||
          f.deps.pushNext)
        return hal::fail("chain: a padding fill that is no plain load");
  // Every pair's END but the last dropped: the job goes on.
  for (size_t i = 0; i + 1 < n; ++i) pairs[i].commands.pop_back();
  for (size_t link = 0; link + 1 < n; ++link) {
    std::vector<Command>& p = pairs[link].commands;
    // The first token: the depthwise half's last compute -> the fills. The fills go in the
    // load queue after as many of the pair's own compute->load pops as the pair pushes before
    // that compute, ahead of the next one, so the channel's pushes and pops pair in order.
    size_t at = pairs[link].depthwiseLast;
    if (p[at].deps.pushPrev) {
      Command s = sync(firmware::Queue::kCompute);
      s.deps.pushPrev = true;
      p.insert(p.begin() + static_cast<std::ptrdiff_t>(++at), s);
    } else {
      p[at].deps.pushPrev = true;
    }
    size_t before = 0;
    for (size_t i = 0; i < at; ++i) before += in(p[i], QueueOf::kCompute) && p[i].deps.pushPrev;
    size_t where = p.size(), pops = 0;
    for (size_t i = 0; i < p.size() && where == p.size(); ++i)
      if (in(p[i], QueueOf::kLoad) && p[i].deps.popNext && pops++ == before) where = i;
    if (where == p.size()) {  // no load waits after them: behind the pair's last load
      where = 0;
      for (size_t i = p.size(); i-- > 0;)
        if (in(p[i], QueueOf::kLoad)) {
          where = i + 1;
          break;
        }
    }
    popAt(p, where, fills[link]);
    // The second: the pair's last compute -> the next depthwise half's first load (its pop
    // below, once every pair's fills are placed by its own pops alone).
    NNC_TRY(pushAfterComputes(p, link, "the pointwise half"));
  }
  for (size_t link = 0; link + 1 < n; ++link) {
    std::vector<Command>& next = pairs[link + 1].commands;
    size_t first = next.size();
    for (size_t i = 0; i < next.size(); ++i)
      if (in(next[i], QueueOf::kLoad)) {
        first = i;
        break;
      }
    if (first < next.size() && !next[first].deps.popNext)
      next[first].deps.popNext = true;
    else
      popAt(next, first < next.size() ? first : 0, {});
  }
  std::vector<Command> out;
  for (const ChainPair& x : pairs) out.insert(out.end(), x.commands.begin(), x.commands.end());
  return out;
}

hal::Result<std::vector<Command>> joinChain(const std::vector<std::vector<Command>>& halves,
                                            const std::vector<std::vector<Command>>& fills) {
  const size_t n = halves.size() / 2;
  if (n < 2 || halves.size() != 2 * n || fills.size() + 1 != n)
    return hal::fail("chain: ", halves.size(), " halves and ", fills.size(),
                     " fills do not make a chain of pairs");
  std::vector<ChainPair> pairs(n);
  for (size_t i = 0; i < n; ++i) {
    const std::vector<Command>& dw = halves[2 * i];
    const std::vector<Command>& pw = halves[2 * i + 1];
    for (const std::vector<Command>* h : {&dw, &pw}) {
      if (h->empty() || !std::holds_alternative<firmware::End>(h->back().args))
        return hal::fail("chain: half ", h == &dw ? 2 * i : 2 * i + 1, " is not one job");
      for (size_t j = 0; j + 1 < h->size(); ++j)
        if (std::holds_alternative<firmware::End>((*h)[j].args))
          return hal::fail("chain: half ", h == &dw ? 2 * i : 2 * i + 1, " is more than one job");
    }
    ChainPair& p = pairs[i];
    p.commands.assign(dw.begin(), dw.end() - 1);
    p.depthwiseLast = p.commands.size();
    for (size_t j = p.commands.size(); j-- > 0;)
      if (in(p.commands[j], QueueOf::kCompute)) {
        p.depthwiseLast = j;
        break;
      }
    if (p.depthwiseLast == p.commands.size())
      return hal::fail("link ", i, ": the depthwise half has no compute");
    p.commands.insert(p.commands.end(), pw.begin(), pw.end());
  }
  return joinChainPairs(std::move(pairs), fills);
}

}  // namespace nncosim::driver
