#include "driver/compiler/model_plan.h"

#include <algorithm>
#include <sstream>

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
    if (o.placement.target == Target::kNpu) os << "  " << o.step.report.describe() << "\n";
  os << "device memory: arena " << arenaBytes << " B (" << constantBytes
     << " B resident constants; " << requestedBytes << " B without reuse)";
  return os.str();
}

hal::Result<ModelPlan> compileModel(const hal::Model& model, const LoweringOptions& options) {
  hal::profile::Scope timed("compile");
  ModelPlan plan;
  plan.options = options;
  const Partition part = partition(model, options.npu);
  const std::vector<ops::Shape> shapes = declaredShapes(model);
  std::vector<DramRequest> requests;
  std::vector<std::pair<size_t, size_t>> owner;  // (operation, buffer) per request
  uint32_t npuIndex = 0;
  for (const OperationPlacement& placement : part.operations) {
    PlannedOperation po;
    po.placement = placement;
    if (placement.target == Target::kNpu) {
      LoweringOptions lo = options;
      lo.tag = placement.operation + 1;
      auto step = lowerOperation(model, placement.operation, shapes, lo);
      if (step.ok()) {
        po.step = std::move(*step);
      } else {
        po.placement.target = Target::kCpu;
        po.placement.engine = ops::Placement::kReferenceOnly;
        po.placement.reason = "lowering failed: " + step.error();
      }
    }
    plan.operations.push_back(std::move(po));
  }
  // Lifetimes: constants for the whole plan, the rest for their step only.
  uint32_t steps = 0;
  for (const PlannedOperation& o : plan.operations) steps += o.placement.target == Target::kNpu;
  for (size_t k = 0; k < plan.operations.size(); ++k) {
    PlannedOperation& o = plan.operations[k];
    if (o.placement.target != Target::kNpu) continue;
    o.arenaOffset.assign(o.step.buffers.size(), 0);
    for (size_t b = 0; b < o.step.buffers.size(); ++b) {
      const StepBuffer& sb = o.step.buffers[b];
      DramRequest r;
      r.bytes = sb.bytes;
      if (sb.role == BufferRole::kConstant) {
        r.first = 0;
        r.last = steps ? steps - 1 : 0;
        plan.constantBytes +=
            (sb.bytes + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
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
  plan.arenaBytes = dp.arenaBytes;
  plan.requestedBytes = dp.requestedBytes;
  return plan;
}

}  // namespace nncosim::driver
