#include "driver/compiler/model_plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "driver/compiler/fused_lowering.h"
#include "hal/profile.h"

namespace nncosim::driver {

DramPlan planDram(const std::vector<DramRequest>& requests, uint64_t alignment) {
  DramPlan plan;
  plan.offsets.assign(requests.size(), 0);
  auto aligned = [alignment](uint64_t v) { return (v + alignment - 1) / alignment * alignment; };
  std::vector<size_t> order(requests.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Largest first: big blocks claim the low addresses, small ones fill the gaps.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });
  struct Placed {
    uint64_t offset, end;
    uint32_t first, last;
  };
  std::vector<Placed> placed;
  for (size_t i : order) {
    const DramRequest& r = requests[i];
    const uint64_t size = aligned(std::max<uint64_t>(r.bytes, 1));
    plan.requestedBytes += size;
    std::vector<Placed> live;
    for (const Placed& p : placed)
      if (p.first <= r.last && r.first <= p.last) live.push_back(p);
    std::sort(live.begin(), live.end(),
              [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
    // Best fit: the smallest gap between live blocks that holds the request.
    uint64_t best = UINT64_MAX, bestGap = UINT64_MAX, cur = 0;
    for (const Placed& p : live) {
      if (p.offset >= cur + size && p.offset - cur < bestGap) {
        best = cur;
        bestGap = p.offset - cur;
      }
      cur = std::max(cur, p.end);
    }
    if (best == UINT64_MAX) best = cur;
    plan.offsets[i] = best;
    placed.push_back({best, best + size, r.first, r.last});
    plan.arenaBytes = std::max(plan.arenaBytes, best + size);
  }
  return plan;
}

std::string ModelPlan::describe() const {
  std::ostringstream os;
  Partition p;
  for (const PlannedOperation& o : operations) p.operations.push_back(o.placement);
  os << p.describe() << "\n";
  for (const PlannedOperation& o : operations)
    if (o.placement.target == Target::kNpu && !o.fusedInto)
      os << "  " << o.step.report.describe() << "\n";
  os << "device memory: arena " << arenaBytes << " B (" << constantBytes
     << " B resident constants; " << requestedBytes << " B without reuse)";
  return os.str();
}

namespace {

// Who reads each operand: the operations of the main subgraph and the host (model outputs).
struct Readers {
  std::map<uint32_t, uint32_t> reads;  // main-subgraph operations reading each operand
  std::set<uint32_t> modelOutputs;
  uint32_t readsOf(uint32_t operand) const {
    const auto it = reads.find(operand);
    return it == reads.end() ? 0 : it->second;
  }
  // One operation reads `operand` and the host never does: it need not leave the step.
  bool onlyOne(uint32_t operand) const {
    return readsOf(operand) == 1 && !modelOutputs.count(operand);
  }
};

Readers readersOf(const hal::Model& model) {
  Readers r;
  for (const hal::Operation& op : model.main.operations)
    for (uint32_t in : op.inputs) ++r.reads[in];
  r.modelOutputs.insert(model.main.outputIndexes.begin(), model.main.outputIndexes.end());
  return r;
}

// The operation that writes each operand (operand -> main-subgraph operation index).
std::map<uint32_t, size_t> producersOf(const hal::Model& model) {
  std::map<uint32_t, size_t> producer;
  for (size_t k = 0; k < model.main.operations.size(); ++k)
    for (uint32_t o : model.main.operations[k].outputs) producer[o] = k;
  return producer;
}

// Marks the bindings through which tensors stay in device DRAM between NPU steps: an NPU
// step's input whose producer is an NPU step with an output binding of the same layout
// (the consumer reads the producer's buffer), and a producer's output whose every reader is
// such a consumer and which is no model output (the host never reads it back). Returns the
// consumer buffers and the producer buffers they are, as (operation, buffer) pairs, and
// brings the steps' host books up to date.
std::map<std::pair<size_t, size_t>, std::pair<size_t, size_t>> markResident(const hal::Model& model,
                                                                            ModelPlan& plan) {
  std::map<uint32_t, std::pair<size_t, size_t>> producer;  // operand -> (op, output binding)
  for (size_t k = 0; k < plan.operations.size(); ++k) {
    const PlannedOperation& o = plan.operations[k];
    if (o.placement.target != Target::kNpu || o.step.epilogue) continue;
    for (size_t i = 0; i < o.step.outputs.size(); ++i) producer[o.step.outputs[i].operand] = {k, i};
  }
  std::map<std::pair<size_t, size_t>, std::pair<size_t, size_t>> aliases;
  std::map<uint32_t, uint32_t> residentReads;  // operand -> resident input bindings
  for (size_t k = 0; k < plan.operations.size(); ++k) {
    PlannedOperation& o = plan.operations[k];
    if (o.placement.target != Target::kNpu) continue;
    for (Binding& b : o.step.inputs) {
      auto it = producer.find(b.operand);
      if (it == producer.end() || it->second.first >= k) continue;
      const Binding& out = plan.operations[it->second.first].step.outputs[it->second.second];
      if (out.layout != b.layout) continue;
      b.resident = true;
      aliases[{k, b.buffer}] = {it->second.first, out.buffer};
      ++residentReads[b.operand];
    }
  }
  // Every read of the operand by a main-subgraph operation; a model output the host reads.
  const Readers readers = readersOf(model);
  const std::set<uint32_t>& modelOutputs = readers.modelOutputs;
  for (const auto& [operand, at] : producer) {
    const auto r = residentReads.find(operand);
    if (r == residentReads.end() || r->second != readers.readsOf(operand) ||
        modelOutputs.count(operand))
      continue;
    plan.operations[at.first].step.outputs[at.second].resident = true;
  }
  // The host round trips left between NPU steps: an NPU step's input another NPU step
  // produced, and an output no model output and no CPU step reads.
  std::set<uint32_t> cpuReads;
  for (size_t k = 0; k < plan.operations.size(); ++k)
    if (plan.operations[k].placement.target != Target::kNpu)
      for (uint32_t in : model.main.operations.at(k).inputs) cpuReads.insert(in);
  for (size_t k = 0; k < plan.operations.size(); ++k) {
    PlannedOperation& o = plan.operations[k];
    if (o.placement.target != Target::kNpu) continue;
    for (Binding& b : o.step.inputs) {
      const auto it = producer.find(b.operand);
      b.betweenNpuSteps = !b.resident && it != producer.end() && it->second.first < k;
    }
    for (Binding& b : o.step.outputs)
      b.betweenNpuSteps = !b.resident && !o.step.epilogue && readers.readsOf(b.operand) > 0 &&
                          !cpuReads.count(b.operand) && !modelOutputs.count(b.operand);
  }
  for (PlannedOperation& o : plan.operations) {
    if (o.placement.target != Target::kNpu) continue;
    o.step.report.hostBytes = hostTraffic(model, o.step);
    o.step.report.hostNanos = plan.options.host.passNanos(o.step.report.hostBytes);
  }
  return aliases;
}

// The preference's measure of a step: LOW_POWER's estimated energy, else cycles.
double stepCost(const hal::Model& model, const LoweringOptions& lo, const CompiledStep& st) {
  return lo.preference == hal::ExecutionPreference::LOW_POWER
             ? estimatedEnergyPj(model, st, lo)
             : static_cast<double>(st.report.estimatedCycles);
}

// Operation k's step becomes `fused` (which also runs operation `last`, whose step goes)
// when the preference's measure of `fused` is below the two steps'.
void adoptIfCheaper(const hal::Model& model, const LoweringOptions& lo, ModelPlan& plan, size_t k,
                    size_t last, CompiledStep fused) {
  PlannedOperation& a = plan.operations[k];
  PlannedOperation& b = plan.operations[last];
  if (stepCost(model, lo, fused) >= stepCost(model, lo, a.step) + stepCost(model, lo, b.step))
    return;
  a.step = std::move(fused);
  b.step = CompiledStep{};
  b.fusedInto = static_cast<uint32_t>(k);
}

// Fuses each depthwise step with the pointwise step right after it that alone reads its
// output (no model output) into one step (fused_lowering.h) when the estimate says the
// fused step costs less than the two.
void fuseDepthwisePointwise(const hal::Model& model, const std::vector<ops::Shape>& shapes,
                            ModelPlan& plan) {
  const Readers readers = readersOf(model);
  for (size_t k = 0; k + 1 < plan.operations.size(); ++k) {
    const PlannedOperation& a = plan.operations[k];
    const PlannedOperation& b = plan.operations[k + 1];
    const hal::Operation& op = model.main.operations[k];
    if (a.placement.target != Target::kNpu || b.placement.target != Target::kNpu || a.fusedInto ||
        !a.step.fused.empty() || a.step.epilogue || b.step.epilogue ||
        op.type != hal::OperationType::DEPTHWISE_CONV_2D || op.outputs.size() != 1 ||
        !readers.onlyOne(op.outputs[0]))
      continue;
    LoweringOptions lo = plan.options;
    lo.tag = static_cast<uint32_t>(k) + 1;
    auto fused = lowerFusedDepthwisePointwise(model, static_cast<uint32_t>(k),
                                              static_cast<uint32_t>(k + 1), shapes, lo);
    if (fused.ok()) adoptIfCheaper(model, lo, plan, k, k + 1, std::move(*fused));
  }
}

// Fuses each CONV_2D step, and each fused depthwise -> pointwise step, with the ADD, SUB or
// MUL step right after it that alone reads its (last layer's) output (no model output) into
// one step (fused_lowering.h) when the estimate says the fused step costs less than the two,
// its output lands in the layout the elementwise step's readers were planned for, and the
// other input comes from before the step.
void fuseEltwiseAfter(const hal::Model& model, const std::vector<ops::Shape>& shapes,
                      ModelPlan& plan) {
  const Readers readers = readersOf(model);
  const std::map<uint32_t, size_t> producer = producersOf(model);
  for (size_t k = 0; k < plan.operations.size(); ++k) {
    const PlannedOperation& a = plan.operations[k];
    const hal::Operation& op = model.main.operations[k];
    if (a.placement.target != Target::kNpu || a.fusedInto || a.step.epilogue) continue;
    // The step's last layer: the convolution, or the fused pair's pointwise one.
    const bool pair = op.type == hal::OperationType::DEPTHWISE_CONV_2D &&
                      a.step.fused == std::vector<uint32_t>{static_cast<uint32_t>(k + 1)};
    if (!pair && !(op.type == hal::OperationType::CONV_2D && a.step.fused.empty())) continue;
    const size_t last = pair ? k + 1 : k, next = last + 1;
    if (next >= plan.operations.size()) continue;
    const PlannedOperation& b = plan.operations[next];
    const hal::Operation& lastOp = model.main.operations[last];
    const hal::Operation& e = model.main.operations[next];
    if (b.placement.target != Target::kNpu || b.fusedInto || !b.step.fused.empty() ||
        b.step.epilogue || b.step.outputs.size() != 1 || lastOp.outputs.size() != 1 ||
        !readers.onlyOne(lastOp.outputs[0]) || e.inputs.size() < 2)
      continue;
    const uint32_t other = e.inputs[0] == lastOp.outputs[0] ? e.inputs[1] : e.inputs[0];
    if (auto it = producer.find(other); it != producer.end() && it->second >= k) continue;
    LoweringOptions lo = plan.options;
    lo.tag = static_cast<uint32_t>(k) + 1;
    auto fused = pair ? lowerFusedDepthwisePointwise(model, static_cast<uint32_t>(k),
                                                     static_cast<uint32_t>(last), shapes, lo,
                                                     static_cast<uint32_t>(next))
                      : lowerFusedConvEltwise(model, static_cast<uint32_t>(k),
                                              static_cast<uint32_t>(next), shapes, lo);
    if (fused.ok() && fused->outputs.size() == 1 &&
        fused->outputs[0].layout == b.step.outputs[0].layout)
      adoptIfCheaper(model, lo, plan, k, next, std::move(*fused));
  }
}

// Fuses each CONV_2D step with the fused depthwise step right after it that alone reads its
// output (MobileNet-v2's expansion, depthwise and projection layers, or its stem and first
// pair) into one step (fused_lowering.h), with the residual ADD (SUB, MUL) after the
// projection when the pair took it or its own step is next, when the estimate says the
// fused step costs less than the steps it replaces, its output lands in the layout the last
// operation's readers were planned for, and its other inputs come from before it.
void fuseInvertedResiduals(const hal::Model& model, const std::vector<ops::Shape>& shapes,
                           ModelPlan& plan) {
  const Readers readers = readersOf(model);
  const std::map<uint32_t, size_t> producer = producersOf(model);
  auto elementwise = [](hal::OperationType t) {
    return t == hal::OperationType::ADD || t == hal::OperationType::SUB ||
           t == hal::OperationType::MUL;
  };
  for (size_t k = 0; k + 2 < plan.operations.size(); ++k) {
    const PlannedOperation& a = plan.operations[k];
    const PlannedOperation& b = plan.operations[k + 1];
    const hal::Operation& op = model.main.operations[k];
    const std::vector<uint32_t>& tail = b.step.fused;
    if (a.placement.target != Target::kNpu || b.placement.target != Target::kNpu || a.fusedInto ||
        b.fusedInto || !a.step.fused.empty() || a.step.epilogue ||
        op.type != hal::OperationType::CONV_2D || op.outputs.size() != 1 ||
        !readers.onlyOne(op.outputs[0]) ||
        model.main.operations[k + 1].type != hal::OperationType::DEPTHWISE_CONV_2D ||
        tail.empty() || tail[0] != k + 2 || (tail.size() == 2 && tail[1] != k + 3) ||
        tail.size() > 2 || b.step.outputs.size() != 1)
      continue;
    // The candidates: the pair's operations, and the elementwise step after them.
    std::vector<std::vector<uint32_t>> tails = {tail};
    const hal::Operation& projection = model.main.operations[k + 2];
    if (tail.size() == 1 && k + 3 < plan.operations.size() && projection.outputs.size() == 1 &&
        readers.onlyOne(projection.outputs[0])) {
      const PlannedOperation& c = plan.operations[k + 3];
      const hal::Operation& e = model.main.operations[k + 3];
      if (c.placement.target == Target::kNpu && !c.fusedInto && c.step.fused.empty() &&
          !c.step.epilogue && c.step.outputs.size() == 1 && elementwise(e.type) &&
          e.inputs.size() >= 2 &&
          (e.inputs[0] == projection.outputs[0]) != (e.inputs[1] == projection.outputs[0]))
        tails.push_back({tail[0], static_cast<uint32_t>(k + 3)});
    }
    LoweringOptions lo = plan.options;
    lo.tag = static_cast<uint32_t>(k) + 1;
    std::optional<CompiledStep> best;
    std::vector<uint32_t> bestTail;
    double bestSaving = 0;
    for (const std::vector<uint32_t>& t : tails) {
      bool before = true;
      for (uint32_t f : t)
        for (uint32_t in : model.main.operations[f].inputs)
          if (auto it = producer.find(in);
              it != producer.end() && it->second >= k && it->second < f)
            before = before && (it->second == f - 1);  // only the layer before it, in the step
      if (!before) continue;
      std::optional<uint32_t> eltwise;
      if (t.size() == 2) eltwise = t[1];
      auto fused = lowerFusedInvertedResidual(
          model, static_cast<uint32_t>(k), static_cast<uint32_t>(k + 1), t[0], shapes, lo, eltwise);
      const PlannedOperation& last = plan.operations[t.size() > tail.size() ? t.back() : k + 1];
      if (!fused.ok() || fused->outputs.size() != 1 ||
          fused->outputs[0].layout != last.step.outputs[0].layout)
        continue;
      double replaced = stepCost(model, lo, a.step) + stepCost(model, lo, b.step);
      if (t.size() > tail.size()) replaced += stepCost(model, lo, last.step);
      const double saving = replaced - stepCost(model, lo, *fused);
      if (saving > bestSaving) {
        bestSaving = saving;
        best = std::move(*fused);
        bestTail = t;
      }
    }
    if (!best) continue;
    plan.operations[k].step = std::move(*best);
    for (size_t f : {size_t{k + 1}, size_t{bestTail[0]}, size_t{bestTail.back()}}) {
      plan.operations[f].step = CompiledStep{};
      plan.operations[f].fusedInto = static_cast<uint32_t>(k);
    }
  }
}

// Joins runs of fused depthwise -> pointwise steps, each pair's pointwise output read only
// by the next pair's depthwise layer, into chains (lowerFusedChain): from each pair the chain
// grows pair by pair while it lowers and its output lands in the layout its last pair's
// readers were planned for; the length that saves most over the pairs' own steps is kept.
void fuseChains(const hal::Model& model, const std::vector<ops::Shape>& shapes, ModelPlan& plan) {
  const Readers readers = readersOf(model);
  const size_t n = plan.operations.size();
  auto isPair = [&](size_t k) {
    if (k + 1 >= n) return false;
    const PlannedOperation& a = plan.operations[k];
    return a.placement.target == Target::kNpu && !a.fusedInto && !a.step.epilogue &&
           model.main.operations[k].type == hal::OperationType::DEPTHWISE_CONV_2D &&
           a.step.fused == std::vector<uint32_t>{static_cast<uint32_t>(k + 1)} &&
           a.step.outputs.size() == 1;
  };
  // Pair k's pointwise output is read by pair k + 2's depthwise layer only.
  auto linked = [&](size_t k) {
    if (!isPair(k) || !isPair(k + 2)) return false;
    const hal::Operation& pw = model.main.operations[k + 1];
    const hal::Operation& dw = model.main.operations[k + 2];
    return pw.outputs.size() == 1 && readers.onlyOne(pw.outputs[0]) && !dw.inputs.empty() &&
           dw.inputs[0] == pw.outputs[0];
  };
  for (size_t k = 0; k < n;) {
    if (!linked(k)) {
      ++k;
      continue;
    }
    LoweringOptions lo = plan.options;
    lo.tag = static_cast<uint32_t>(k) + 1;
    double separate = stepCost(model, lo, plan.operations[k].step), bestSaving = 0;
    std::optional<CompiledStep> best;
    uint32_t bestPairs = 0;
    for (uint32_t pairs = 2; linked(k + 2 * (pairs - 2)); ++pairs) {
      const PlannedOperation& last = plan.operations[k + 2 * (pairs - 1)];
      separate += stepCost(model, lo, last.step);
      auto chain = lowerFusedChain(model, static_cast<uint32_t>(k), pairs, shapes, lo);
      if (!chain.ok() || chain->outputs.size() != 1 ||
          chain->outputs[0].layout != last.step.outputs[0].layout)
        break;
      const double saving = separate - stepCost(model, lo, *chain);
      if (saving > bestSaving) {
        bestSaving = saving;
        best = std::move(*chain);
        bestPairs = pairs;
      }
    }
    if (!best) {
      k += 2;
      continue;
    }
    plan.operations[k].step = std::move(*best);
    for (size_t f = k + 1; f < k + 2 * bestPairs; ++f) {
      plan.operations[f].step = CompiledStep{};
      plan.operations[f].fusedInto = static_cast<uint32_t>(k);
    }
    k += 2 * bestPairs;
  }
}

}  // namespace

hal::Result<ModelPlan> compileModel(const hal::Model& model, const LoweringOptions& options) {
  hal::profile::Scope timed("compile");
  ModelPlan plan;
  plan.options = options;
  const Partition part = partition(model, options.npu);
  const std::vector<ops::Shape> shapes = declaredShapes(model);
  std::vector<DramRequest> requests;
  std::vector<std::pair<size_t, size_t>> owner;  // (operation, buffer) per request
  uint32_t npuIndex = 0;
  // What the NPU steps lowered so far leave in device DRAM: a later step that binds such an
  // operand through the same layout reads it there (its mapping is chosen knowing that).
  DeviceLayouts onDevice;
  for (const OperationPlacement& placement : part.operations) {
    PlannedOperation po;
    po.placement = placement;
    if (placement.target == Target::kNpu) {
      LoweringOptions lo = options;
      lo.tag = placement.operation + 1;
      lo.deviceLayouts = &onDevice;
      auto step = lowerOperation(model, placement.operation, shapes, lo);
      if (step.ok()) {
        po.step = std::move(*step);
        if (!po.step.epilogue)
          for (const Binding& b : po.step.outputs) onDevice[b.operand] = b.layout;
      } else {
        po.placement.target = Target::kCpu;
        po.placement.engine = ops::Placement::kReferenceOnly;
        po.placement.reason = "lowering failed: " + step.error();
      }
    }
    plan.operations.push_back(std::move(po));
  }
  if (options.fuseLayers) {
    fuseDepthwisePointwise(model, shapes, plan);
    fuseEltwiseAfter(model, shapes, plan);
    fuseInvertedResiduals(model, shapes, plan);
    fuseChains(model, shapes, plan);
  }
  const std::map<std::pair<size_t, size_t>, std::pair<size_t, size_t>> aliases =
      markResident(model, plan);
  // Lifetimes: constants for the whole plan, the rest for their step only.
  uint32_t steps = 0;
  for (const PlannedOperation& o : plan.operations) steps += o.placement.target == Target::kNpu;
  // A resident output lives until its last consumer, whose input buffer is the same bytes.
  std::map<std::pair<size_t, size_t>, std::pair<uint32_t, uint64_t>> extent;  // last, bytes
  {
    std::vector<uint32_t> npuIndexOf(plan.operations.size(), 0);
    uint32_t i = 0;
    for (size_t k = 0; k < plan.operations.size(); ++k)
      if (plan.operations[k].placement.target == Target::kNpu) npuIndexOf[k] = i++;
    for (const auto& [consumer, producer] : aliases) {
      auto& e = extent[producer];
      e.first = std::max(e.first, npuIndexOf[consumer.first]);
      e.second =
          std::max({e.second, plan.operations[consumer.first].step.buffers[consumer.second].bytes,
                    plan.operations[producer.first].step.buffers[producer.second].bytes});
    }
  }
  for (size_t k = 0; k < plan.operations.size(); ++k) {
    PlannedOperation& o = plan.operations[k];
    if (o.placement.target != Target::kNpu) continue;
    o.arenaOffset.assign(o.step.buffers.size(), 0);
    for (size_t b = 0; b < o.step.buffers.size(); ++b) {
      if (aliases.count({k, b})) continue;  // placed with its producer's buffer
      const StepBuffer& sb = o.step.buffers[b];
      DramRequest r;
      r.bytes = sb.bytes;
      if (auto it = extent.find({k, b}); it != extent.end()) {
        r.bytes = it->second.second;
        r.first = npuIndex;
        r.last = it->second.first;
      } else if (sb.role == BufferRole::kConstant) {
        r.first = 0;
        r.last = steps ? steps - 1 : 0;
        plan.constantBytes += deviceAligned(sb.bytes);
      } else {
        r.first = r.last = npuIndex;
      }
      requests.push_back(r);
      owner.emplace_back(k, b);
    }
    ++npuIndex;
  }
  hal::profile::Scope planning("compile.dram");
  const DramPlan dp = planDram(requests);
  for (size_t i = 0; i < owner.size(); ++i)
    plan.operations[owner[i].first].arenaOffset[owner[i].second] = dp.offsets[i];
  for (const auto& [consumer, producer] : aliases)
    plan.operations[consumer.first].arenaOffset[consumer.second] =
        plan.operations[producer.first].arenaOffset[producer.second];
  plan.arenaBytes = dp.arenaBytes;
  plan.requestedBytes = dp.requestedBytes;
  return plan;
}

}  // namespace nncosim::driver
