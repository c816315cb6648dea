#include "driver/compiler/runtime.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <sstream>

#include "driver/backend/reference_backend.h"
#include "driver/model_stats.h"
#include "ops/executor.h"
#include "ops/registry.h"

namespace nncosim::driver {

// ---------------------------------------------------------------------------------------
// Device memory plan

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
    std::sort(live.begin(), live.end(), [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
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

// ---------------------------------------------------------------------------------------
// Model plan

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
        plan.constantBytes += (sb.bytes + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
      } else {
        r.first = r.last = npuIndex;
      }
      requests.push_back(r);
      owner.emplace_back(k, b);
    }
    ++npuIndex;
  }
  const DramPlan dp = planDram(requests);
  for (size_t i = 0; i < owner.size(); ++i)
    plan.operations[owner[i].first].arenaOffset[owner[i].second] = dp.offsets[i];
  plan.arenaBytes = dp.arenaBytes;
  plan.requestedBytes = dp.requestedBytes;
  return plan;
}

// ---------------------------------------------------------------------------------------
// Devices

InterpreterDevice::InterpreterDevice(const NpuConfig& config, uint64_t dramBytes, const CostModel& cost)
    : config_(config), dram_(0x8000'0000ull, dramBytes), interp_(config_, dram_, cost), next_(dram_.base()) {}

hal::Result<uint64_t> InterpreterDevice::allocate(uint64_t bytes, const std::string& name) {
  const uint64_t at = (next_ + kDeviceAlignment - 1) & ~(kDeviceAlignment - 1);
  if (!dram_.contains(at, std::max<uint64_t>(bytes, 1)))
    return hal::fail("device memory exhausted allocating ", bytes, " bytes for ", name);
  next_ = at + std::max<uint64_t>(bytes, 1);
  return at;
}

hal::Status InterpreterDevice::write(uint64_t address, const void* data, size_t bytes) {
  return dram_.write(address, data, bytes);
}

hal::Status InterpreterDevice::read(uint64_t address, void* data, size_t bytes) {
  return dram_.read(address, data, bytes);
}

hal::Result<JobStats> InterpreterDevice::run(const std::vector<firmware::Command>& commands) {
  last_ = interp_.run(commands);
  if (!last_.completed) return hal::fail("NPU job failed: ", last_.describe());
  if (strict && (!last_.races.empty() || !last_.tokenLeaks.empty()))
    return hal::fail("NPU job broke the stream discipline: ", last_.describe());
  JobStats s;
  s.cycles = last_.counters.cycles;
  s.counters = last_.counters;
  s.jobs = 1;
  return s;
}

JobStats& JobStats::operator+=(const JobStats& o) {
  cycles += o.cycles;
  jobs += o.jobs;
  InterpreterCounters& a = counters;
  const InterpreterCounters& b = o.counters;
  a.cycles += b.cycles;
  a.loadBusy += b.loadBusy;
  a.loadStall += b.loadStall;
  a.computeBusy += b.computeBusy;
  a.computeStall += b.computeStall;
  a.storeBusy += b.storeBusy;
  a.storeStall += b.storeStall;
  a.densifyBusy += b.densifyBusy;
  a.dmaReadBytes += b.dmaReadBytes;
  a.dmaWriteBytes += b.dmaWriteBytes;
  a.macs += b.macs;
  a.commands += b.commands;
  return *this;
}

namespace {

// Allocates nothing: uploads the step's constants and `inputs`, runs, reads `outputs` (the
// output bindings, model layout) and `results` (a hybrid step's epilogue buffers, raw).
hal::Result<JobStats> runPlaced(NpuDevice& device, const CompiledStep& step,
                                const std::vector<uint64_t>& placement, bool uploadConstants,
                                const std::vector<const std::vector<uint8_t>*>& inputs,
                                std::vector<std::vector<uint8_t>>& outputs,
                                std::vector<std::vector<uint8_t>>& results) {
  if (uploadConstants)
    for (size_t b = 0; b < step.buffers.size(); ++b) {
      if (step.buffers[b].role != BufferRole::kConstant) continue;
      auto bytes = relocatedContents(step, b, placement);
      if (!bytes.ok()) return hal::Error{bytes.error()};
      NNC_TRY(device.write(placement[b], bytes->data(), bytes->size()));
    }
  if (inputs.size() != step.inputs.size())
    return hal::fail(step.report.operation, ": ", inputs.size(), " inputs for ",
                     step.inputs.size(), " bindings");
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    const Binding& bnd = step.inputs[i];
    auto packed = packTensor(bnd.layout, *inputs[i]);
    if (!packed.ok()) return hal::fail(step.report.operation, " input ", i, ": ", packed.error());
    if (packed->size() > step.buffers[bnd.buffer].bytes)
      return hal::fail(step.report.operation, " input ", i, ": ", packed->size(),
                       " bytes for a buffer of ", step.buffers[bnd.buffer].bytes);
    NNC_TRY(device.write(placement[bnd.buffer], packed->data(), packed->size()));
  }
  auto commands = relocate(step, placement);
  if (!commands.ok()) return hal::Error{commands.error()};
  JobStats total;
  const std::vector<std::vector<firmware::Command>> jobs = splitJobs(*commands);
  for (size_t j = 0; j < jobs.size(); ++j) {
    auto stats = device.run(jobs[j]);
    if (!stats.ok())
      return hal::fail(step.report.operation, " job ", j + 1, " of ", jobs.size(), ": ", stats.error());
    total += *stats;
    total.jobs = static_cast<uint32_t>(j + 1);
  }
  hal::Result<JobStats> stats = total;
  outputs.clear();
  for (const Binding& bnd : step.outputs) {
    const StepBuffer& buf = step.buffers[bnd.buffer];
    std::vector<uint8_t> raw(buf.bytes);
    NNC_TRY(device.read(placement[bnd.buffer], raw.data(), raw.size()));
    auto unpacked = unpackTensor(bnd.layout, raw, buf.bytes);
    if (!unpacked.ok()) return hal::Error{unpacked.error()};
    outputs.push_back(std::move(*unpacked));
  }
  results.clear();
  for (size_t b : step.epilogue.results) {
    std::vector<uint8_t> raw(step.buffers.at(b).bytes);
    NNC_TRY(device.read(placement[b], raw.data(), raw.size()));
    results.push_back(std::move(raw));
  }
  return stats;
}

}  // namespace

hal::Result<JobStats> runStep(NpuDevice& device, const CompiledStep& step,
                              const std::vector<std::vector<uint8_t>>& inputs,
                              std::vector<std::vector<uint8_t>>& outputs) {
  device.freeAll();
  std::vector<uint64_t> placement;
  for (const StepBuffer& b : step.buffers) {
    auto a = device.allocate(b.bytes, b.name);
    if (!a.ok()) return hal::Error{a.error()};
    placement.push_back(*a);
  }
  std::vector<const std::vector<uint8_t>*> in;
  for (const auto& v : inputs) in.push_back(&v);
  std::vector<std::vector<uint8_t>> results;
  auto stats = runPlaced(device, step, placement, true, in, outputs, results);
  for (std::vector<uint8_t>& r : results) outputs.push_back(std::move(r));
  return stats;
}

// ---------------------------------------------------------------------------------------
// Model execution

std::string ExecutionReport::describe() const {
  std::ostringstream os;
  for (const Step& s : steps) {
    os << "#" << s.operation << " " << hal::toString(s.type) << "  "
       << (s.target == Target::kNpu ? "npu" : "cpu");
    if (s.target == Target::kNpu) os << " " << s.stats.cycles << " cycles";
    if (!s.note.empty()) os << " (" << s.note << ")";
    os << "\n";
  }
  os << npuSteps << " NPU steps (" << npuCycles << " cycles), " << cpuSteps << " CPU steps";
  return os.str();
}

NpuExecutor::NpuExecutor(const hal::Model& model, const ModelPlan& plan, NpuDevice& device)
    : model_(model), plan_(plan), device_(device) {}

hal::Status NpuExecutor::upload() {
  if (uploaded_) return hal::Status::Ok();
  auto a = device_.allocate(plan_.arenaBytes, "model arena");
  if (!a.ok()) return hal::Error{a.error()};
  arena_ = *a;
  for (const PlannedOperation& o : plan_.operations) {
    if (o.placement.target != Target::kNpu) continue;
    std::vector<uint64_t> placement;
    for (uint64_t off : o.arenaOffset) placement.push_back(arena_ + off);
    for (size_t b = 0; b < o.step.buffers.size(); ++b) {
      if (o.step.buffers[b].role != BufferRole::kConstant) continue;
      auto bytes = relocatedContents(o.step, b, placement);
      if (!bytes.ok()) return hal::Error{bytes.error()};
      NNC_TRY(device_.write(placement[b], bytes->data(), bytes->size()));
    }
  }
  uploaded_ = true;
  return hal::Status::Ok();
}

namespace {

// "output i[k]: NPU 12, reference 13" for the first differing element, or "".
std::string firstDifference(hal::OperandType type, const std::vector<uint8_t>& ref,
                            const std::vector<uint8_t>& npu, size_t output) {
  if (ref.size() != npu.size())
    return "output " + std::to_string(output) + ": NPU produced " + std::to_string(npu.size()) +
           " bytes, reference " + std::to_string(ref.size());
  const size_t es = hal::elementSize(type);
  for (size_t i = 0; i + es <= ref.size(); i += es) {
    if (std::memcmp(ref.data() + i, npu.data() + i, es) == 0) continue;
    auto value = [&](const std::vector<uint8_t>& v) -> long long {
      switch (type) {
        case hal::OperandType::TENSOR_QUANT8_ASYMM:
        case hal::OperandType::TENSOR_BOOL8: return v[i];
        case hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
        case hal::OperandType::TENSOR_QUANT8_SYMM: return static_cast<int8_t>(v[i]);
        case hal::OperandType::TENSOR_QUANT16_ASYMM: { uint16_t x; std::memcpy(&x, &v[i], 2); return x; }
        case hal::OperandType::TENSOR_QUANT16_SYMM:
        case hal::OperandType::TENSOR_FLOAT16: { int16_t x; std::memcpy(&x, &v[i], 2); return x; }
        default: { int32_t x; std::memcpy(&x, &v[i], 4); return x; }
      }
    };
    return "output " + std::to_string(output) + "[" + std::to_string(i / es) + "]: NPU " +
           std::to_string(value(npu)) + ", reference " + std::to_string(value(ref));
  }
  return "";
}

}  // namespace

hal::Status NpuExecutor::run(const std::vector<hal::TensorValue>& inputs,
                             std::vector<hal::TensorValue>& outputs, ExecutionReport* report) {
  NNC_TRY(validateFully(model_));
  NNC_TRY(upload());
  const hal::Subgraph& g = model_.main;
  if (inputs.size() != g.inputIndexes.size())
    return hal::fail(inputs.size(), " inputs given, the model has ", g.inputIndexes.size());
  std::vector<ops::RuntimeOperand> operands = ops::bindConstants(model_, g);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const hal::TensorValue& v = inputs[k];
    ops::RuntimeOperand& r = operands[g.inputIndexes[k]];
    if (v.omitted) {
      r.omitted = true;
      continue;
    }
    NNC_TRY(ops::bindInput(v, r, "input " + std::to_string(k)));
  }
  ops::Executor subgraphs(model_);  // IF / WHILE bodies run on the reference
  const std::vector<ops::Shape> compiled = declaredShapes(model_);
  ExecutionReport rep;
  for (size_t k = 0; k < g.operations.size(); ++k) {
    const hal::Operation& op = g.operations[k];
    const ops::OperationDef* def = ops::operationTable().find(op.type);
    const std::string where = "operation " + std::to_string(k) + " (" + std::string(hal::toString(op.type)) + ")";
    if (!def) return hal::fail(where, ": not implemented");
    for (size_t j = 0; j < op.inputs.size(); ++j) {
      const ops::RuntimeOperand& r = operands[op.inputs[j]];
      if (!r.omitted && !r.hasValue()) return hal::fail(where, ": input ", j, " has no value");
    }
    ops::OperationContext ctx(model_, op, operands, /*executing=*/true, &subgraphs);
    if (hal::Status st = def->validate(ctx); !st.ok()) return hal::fail(where, ": ", st.error());
    if (hal::Status st = def->prepare(ctx); !st.ok()) return hal::fail(where, ": ", st.error());
    if (hal::Status st = ops::checkOmittedInputs(ctx, operands, op); !st.ok())
      return hal::fail(where, ": ", st.error());

    const PlannedOperation& po = plan_.operations.at(k);
    ExecutionReport::Step s;
    s.operation = static_cast<uint32_t>(k);
    s.type = op.type;
    s.macs = macCount(model_, g, op);
    s.startCycle = rep.npuCycles;
    const auto stepStart = std::chrono::steady_clock::now();
    bool onNpu = po.placement.target == Target::kNpu;
    if (onNpu) {
      // The step was compiled for the declared shapes; anything else runs on the CPU.
      for (uint32_t o : op.inputs)
        if (!operands[o].omitted && operands[o].shape.dimensions != compiled[o].dimensions) onNpu = false;
      for (uint32_t o : op.outputs)
        if (operands[o].shape.dimensions != compiled[o].dimensions) onNpu = false;
      if (!onNpu) s.note = "shapes differ from the compiled plan";
    }
    if (onNpu) {
      std::vector<std::vector<uint8_t>> in;
      for (const Binding& b : po.step.inputs) {
        const ops::RuntimeOperand& r = operands[b.operand];
        in.emplace_back(r.data, r.data + r.shape.bytes());
      }
      std::vector<const std::vector<uint8_t>*> inPtr;
      for (const auto& v : in) inPtr.push_back(&v);
      std::vector<uint64_t> placement;
      for (uint64_t off : po.arenaOffset) placement.push_back(arena_ + off);
      std::vector<std::vector<uint8_t>> out, results;
      auto stats = runPlaced(device_, po.step, placement, false, inPtr, out, results);
      if (!stats.ok()) return hal::fail(where, ": ", stats.error());
      if (po.step.epilogue) {
        // Hybrid step: the host finishes the operation into its outputs from the NPU's
        // results; the cross-check runs the whole reference first and compares after.
        std::vector<std::vector<uint8_t>> want;
        if (crossCheck_) {
          if (hal::Status st = def->execute(ctx); !st.ok()) return hal::fail(where, ": reference: ", st.error());
          for (uint32_t o : op.outputs) want.push_back(operands[o].storage);
        }
        if (hal::Status st = po.step.epilogue.finish(ctx, results); !st.ok())
          return hal::fail(where, ": host epilogue: ", st.error());
        if (crossCheck_) {
          s.checked = true;
          for (size_t i = 0; i < op.outputs.size() && s.mismatch.empty(); ++i) {
            const ops::RuntimeOperand& r = operands[op.outputs[i]];
            s.mismatch = firstDifference(r.shape.type, want[i], r.storage, i);
          }
          if (!s.mismatch.empty()) ++rep.mismatches;
        }
      } else if (crossCheck_) {
        // The reference computes into the outputs' storage; compare, then keep the NPU's.
        if (hal::Status st = def->execute(ctx); !st.ok()) return hal::fail(where, ": reference: ", st.error());
        s.checked = true;
        for (size_t i = 0; i < po.step.outputs.size() && s.mismatch.empty(); ++i) {
          const ops::RuntimeOperand& r = operands[po.step.outputs[i].operand];
          s.mismatch = firstDifference(r.shape.type, r.storage, out[i], i);
        }
        if (!s.mismatch.empty()) ++rep.mismatches;
      }
      for (size_t i = 0; i < po.step.outputs.size(); ++i) {
        ops::RuntimeOperand& r = operands[po.step.outputs[i].operand];
        if (out[i].size() != r.storage.size())
          return hal::fail(where, ": NPU output ", i, " has ", out[i].size(), " bytes, expected ",
                           r.storage.size());
        std::copy(out[i].begin(), out[i].end(), r.storage.begin());
      }
      s.target = Target::kNpu;
      s.stats = *stats;
      s.note = po.step.report.mapping;
      rep.npuCycles += stats->cycles;
      ++rep.npuSteps;
    } else {
      if (hal::Status st = def->execute(ctx); !st.ok()) return hal::fail(where, ": ", st.error());
      if (s.note.empty()) s.note = po.placement.reason;
      ++rep.cpuSteps;
    }
    s.wallNanos = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                            std::chrono::steady_clock::now() - stepStart)
                                            .count());
    rep.steps.push_back(std::move(s));
  }
  outputs.clear();
  for (size_t k = 0; k < g.outputIndexes.size(); ++k) {
    const ops::RuntimeOperand& r = operands[g.outputIndexes[k]];
    if (r.omitted || !r.hasValue()) return hal::fail("output ", k, " was never produced");
    hal::TensorValue v;
    v.type = r.shape.type;
    v.dimensions = r.shape.dimensions;
    if (r.data) v.bytes.assign(r.data, r.data + r.shape.bytes());
    outputs.push_back(std::move(v));
  }
  if (report) *report = std::move(rep);
  return hal::Status::Ok();
}

}  // namespace nncosim::driver
