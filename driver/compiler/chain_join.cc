#include "driver/compiler/chain_join.h"

#include <string>

namespace nncosim::driver {
namespace {

using firmware::Command;
using firmware::inQueue;
using firmware::QueueOf;

Command sync(firmware::Queue q) { return Command{{}, firmware::Sync{q}}; }

// Marks the half's last compute as pushing a token to the load queue: that command when it
// pushes none yet, else a SYNC appended behind it (it waits for the computes ahead).
hal::Status pushAfterComputes(std::vector<Command>& half, size_t link, const char* what) {
  for (size_t i = half.size(); i-- > 0;) {
    if (!inQueue(half[i], QueueOf::kCompute)) continue;
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

hal::Result<std::vector<Command>> joinChain(const std::vector<std::vector<Command>>& halves,
                                            const std::vector<std::vector<Command>>& fills) {
  const size_t n = halves.size() / 2;
  if (n < 2 || halves.size() != 2 * n || fills.size() + 1 != n)
    return hal::fail("chain: ", halves.size(), " halves and ", fills.size(),
                     " fills do not make a chain of pairs");
  std::vector<std::vector<Command>> h(halves);
  for (size_t i = 0; i < h.size(); ++i) {
    if (h[i].empty() || !std::holds_alternative<firmware::End>(h[i].back().args))
      return hal::fail("chain: half ", i, " is not one job");
    for (size_t j = 0; j + 1 < h[i].size(); ++j)
      if (std::holds_alternative<firmware::End>(h[i][j].args))
        return hal::fail("chain: half ", i, " is more than one job");
    if (i + 1 < h.size()) h[i].pop_back();  // the job goes on with the next half
  }
  for (size_t link = 0; link + 1 < n; ++link) {
    std::vector<Command>& dw = h[2 * link];
    std::vector<Command>& pw = h[2 * link + 1];
    std::vector<Command>& next = h[2 * link + 2];
    for (const Command& f : fills[link])
      if (!inQueue(f, QueueOf::kLoad) || f.deps.popPrev || f.deps.popNext || f.deps.pushPrev ||
          f.deps.pushNext)
        return hal::fail("chain: link ", link, ": a padding fill that is no plain load");
    // The first token: dw's last compute -> the fills, ahead of pw's first waiting load.
    NNC_TRY(pushAfterComputes(dw, link, "the depthwise half"));
    size_t at = pw.size();
    for (size_t i = 0; i < pw.size(); ++i)
      if (inQueue(pw[i], QueueOf::kLoad) && pw[i].deps.popNext) {
        at = i;
        break;
      }
    popAt(pw, at, fills[link]);
    // The second: pw's last compute -> the next depthwise half's first load.
    NNC_TRY(pushAfterComputes(pw, link, "the pointwise half"));
    size_t first = next.size();
    for (size_t i = 0; i < next.size(); ++i)
      if (inQueue(next[i], QueueOf::kLoad)) {
        first = i;
        break;
      }
    if (first < next.size() && !next[first].deps.popNext)
      next[first].deps.popNext = true;
    else
      popAt(next, first < next.size() ? first : 0, {});
  }
  std::vector<Command> out;
  for (const std::vector<Command>& x : h) out.insert(out.end(), x.begin(), x.end());
  return out;
}

}  // namespace nncosim::driver
