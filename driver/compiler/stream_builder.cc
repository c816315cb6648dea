#include "driver/compiler/stream_builder.h"

#include <cassert>

namespace nncosim::driver {

using firmware::Command;

void StepStream::beginStep() {
  steps_.emplace_back();
  bound_ += 2;  // a load SYNC and a compute SYNC at most
}

void StepStream::load(const firmware::DmaLoad& d) {
  assert(!steps_.empty());
  steps_.back().loads.push_back(d);
  ++bound_;
}

void StepStream::compute(const Command& c) {
  assert(!steps_.empty());
  steps_.back().computes.push_back(c);
  ++bound_;
}

void StepStream::beginOutput() {
  assert(!steps_.empty());
  steps_.back().outputs.emplace_back();
  steps_.back().outputs.back().at = steps_.back().computes.size();
  ++events_;
  bound_ += 2;  // a compute SYNC and a store SYNC at most
}

void StepStream::requant(const firmware::RequantStore& r) { requant(Command{{}, r}); }

void StepStream::requant(const Command& c) {
  steps_.back().outputs.back().after.push_back(steps_.back().computes.size());
  steps_.back().outputs.back().requants.push_back(c);
  ++bound_;
}

void StepStream::store(const firmware::DmaStore& s) {
  steps_.back().outputs.back().stores.push_back(s);
  ++bound_;
}

std::vector<Command> StepStream::finish(uint32_t tag) const {
  const size_t S = steps_.size();
  uint32_t E = 0;
  for (const Step& s : steps_) E += static_cast<uint32_t>(s.outputs.size());

  // Per step, its commands per queue with the flags set.
  std::vector<std::vector<Command>> loads(S), computes(S), stores(S);
  uint32_t e = 0;
  for (size_t s = 0; s < S; ++s) {
    const Step& st = steps_[s];
    // Load queue.
    std::vector<Command>& L = loads[s];
    for (const firmware::DmaLoad& d : st.loads) L.push_back(Command{{}, d});
    if (L.empty()) L.push_back(Command{{}, firmware::Sync{firmware::Queue::kLoad}});
    if (s >= slots_) L.front().deps.popNext = true;
    L.back().deps.pushNext = true;

    // Compute queue: the step's computes, each output's REQUANTs among them where they were
    // added.
    std::vector<Command>& C = computes[s];
    size_t next = 0;  // the step's computes placed so far
    auto placeUpTo = [&](size_t n) {
      while (next < n) C.push_back(st.computes[next++]);
    };
    std::vector<std::vector<Command>>& Sx = stores;
    for (const Output& o : st.outputs) {
      size_t first = C.size();
      for (size_t i = 0; i < o.requants.size(); ++i) {
        placeUpTo(o.after[i]);
        if (i == 0) first = C.size();
        C.push_back(o.requants[i]);
      }
      if (o.requants.empty()) {
        placeUpTo(o.at);
        first = C.size();
        C.push_back(Command{{}, firmware::Sync{firmware::Queue::kCompute}});
      }
      if (e >= outSlots_) C[first].deps.popNext = true;
      C.back().deps.pushNext = true;
      // Store queue.
      const size_t sfirst = Sx[s].size();
      for (const firmware::DmaStore& d : o.stores) Sx[s].push_back(Command{{}, d});
      if (Sx[s].size() == sfirst)
        Sx[s].push_back(Command{{}, firmware::Sync{firmware::Queue::kStore}});
      Sx[s][sfirst].deps.popPrev = true;
      if (e + outSlots_ < E) Sx[s].back().deps.pushPrev = true;
      ++e;
    }
    placeUpTo(st.computes.size());
    if (C.empty()) C.push_back(Command{{}, firmware::Sync{firmware::Queue::kCompute}});
    C.front().deps.popPrev = true;
    if (s + slots_ < S) C.back().deps.pushPrev = true;
  }

  // Software-pipelined emission: loads run slots - 1 steps ahead of the computes.
  std::vector<Command> out;
  const size_t ahead = slots_ - 1;
  for (size_t s = 0; s < ahead && s < S; ++s)
    out.insert(out.end(), loads[s].begin(), loads[s].end());
  for (size_t s = 0; s < S; ++s) {
    const std::vector<Command> none;
    const std::vector<Command>& L = s + ahead < S ? loads[s + ahead] : none;
    const std::vector<Command>& C = computes[s];
    // One for one, starting with the compute that pops this step's data: the dispatcher
    // feeds both queues in stream order, so with shallow queues the next step's loads must
    // come early, not after the whole step's computes. Without lookahead the step's own
    // loads must all come first.
    size_t li = 0;
    if (ahead == 0) {
      out.insert(out.end(), L.begin(), L.end());
      li = L.size();
    }
    // With lateLoads the next step's loads start among the last computes of this one
    // (its REQUANT_STOREs): a DMA read delays the command fetches queued behind it, which
    // starves short GEMMs but not a long REQUANT_STORE.
    size_t from = 0;
    if (lateLoads_ && C.size() > L.size()) {
      from = C.size() - L.size();
      size_t tail = C.size();  // the step's last run of REQUANT_STOREs
      while (tail > 0 && std::holds_alternative<firmware::RequantStore>(C[tail - 1].args)) --tail;
      if (tail < C.size()) from = std::min(from, tail);
    }
    for (size_t ci = 0; ci < C.size(); ++ci) {
      out.push_back(C[ci]);
      if (ci >= from && li < L.size()) out.push_back(L[li++]);
    }
    while (li < L.size()) out.push_back(L[li++]);
    out.insert(out.end(), stores[s].begin(), stores[s].end());
  }
  firmware::End end;
  end.irq = true;
  end.tag = tag & 0xFFFF;
  out.push_back(Command{{}, end});
  return out;
}

}  // namespace nncosim::driver
