#include "driver/runtime/npu_executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "driver/compiler/model_stats.h"
#include "driver/runtime/step_runner.h"
#include "ops/executor.h"
#include "ops/mac_count.h"
#include "ops/registry.h"

namespace nncosim::driver {

std::string ExecutionReport::describe() const {
  std::ostringstream os;
  for (const Step& s : steps) {
    os << "#" << s.operation << " " << hal::toString(s.type) << "  "
       << (s.target == Target::kNpu ? "npu" : "cpu");
    if (s.target == Target::kNpu) os << " " << s.stats.cycles << " cycles";
    if (!s.note.empty()) os << " (" << s.note << ")";
    os << "\n";
  }
  os << npuSteps << " NPU steps (" << npuCycles << " cycles), " << cpuSteps << " CPU steps; host "
     << hostNanos / 1000.0 << " us on the modelled host, " << host.bytes.layoutBytes()
     << " bytes moved between host and device layouts (" << host.bytes.betweenNpuSteps
     << " of them between NPU steps)";
  return os.str();
}

NpuExecutor::NpuExecutor(const hal::Model& model, const ModelPlan& plan, NpuDevice& device)
    : model_(model), plan_(plan), device_(device) {}

hal::Status NpuExecutor::upload(ExecutionReport& rep) {
  if (uploaded_) return hal::Status::Ok();
  const auto t0 = std::chrono::steady_clock::now();
  NNC_ASSIGN_OR_RETURN(auto a, device_.allocate(plan_.arenaBytes, "model arena"));
  arena_ = a;
  for (const PlannedOperation& o : plan_.operations) {
    if (o.placement.target != Target::kNpu) continue;
    std::vector<uint64_t> placement;
    for (uint64_t off : o.arenaOffset) placement.push_back(arena_ + off);
    for (size_t b = 0; b < o.step.buffers.size(); ++b) {
      if (o.step.buffers[b].role != BufferRole::kConstant) continue;
      NNC_ASSIGN_OR_RETURN(auto bytes, relocatedContents(o.step, b, placement));
      NNC_TRY(device_.write(placement[b], bytes.data(), bytes.size()));
      rep.uploadBytes += bytes.size();
    }
  }
  rep.uploadNanos = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
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
        case hal::OperandType::TENSOR_BOOL8:
          return v[i];
        case hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
        case hal::OperandType::TENSOR_QUANT8_SYMM:
          return static_cast<int8_t>(v[i]);
        case hal::OperandType::TENSOR_QUANT16_ASYMM: {
          uint16_t x;
          std::memcpy(&x, &v[i], 2);
          return x;
        }
        case hal::OperandType::TENSOR_QUANT16_SYMM:
        case hal::OperandType::TENSOR_FLOAT16: {
          int16_t x;
          std::memcpy(&x, &v[i], 2);
          return x;
        }
        default: {
          int32_t x;
          std::memcpy(&x, &v[i], 4);
          return x;
        }
      }
    };
    return "output " + std::to_string(output) + "[" + std::to_string(i / es) + "]: NPU " +
           std::to_string(value(npu)) + ", reference " + std::to_string(value(ref));
  }
  return "";
}

// A short CPU kernel's first run in a process pays for cold code and data (libm's first
// exp, first-touch page faults: MobileNet's float SOFTMAX of 1,000 values measured 78 us
// cold, 4.4 us warm), which a driver running inference after inference does not. So a
// kernel under kRepeatBelowNanos runs kWarmRuns times more and the fastest of those is its
// time (other work on this machine only adds to a run: under two busy cores the median of
// three made ResNet-50's 14 us of host time 2.7 ms); the first run's is kept apart
// (`cpuColdNanos`), and so are its outputs: the re-runs' are thrown away
// (RANDOM_MULTINOMIAL, say, need not repeat itself).
constexpr uint64_t kRepeatBelowNanos = 1'000'000;
constexpr int kWarmRuns = 5;

hal::Status timeKernel(const std::function<hal::Status()>& kernel,
                       std::vector<ops::RuntimeOperand>& operands,
                       const std::vector<uint32_t>& outputs, HostWork& host) {
  using Clock = std::chrono::steady_clock;
  auto runTimed = [&](uint64_t& nanos) {
    const auto t0 = Clock::now();
    hal::Status st = kernel();
    nanos = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
    return st;
  };
  uint64_t first = 0;
  NNC_TRY(runTimed(first));
  if (first >= kRepeatBelowNanos) {
    host.cpuNanos += first;
    return hal::Status::Ok();
  }
  std::vector<std::vector<uint8_t>> kept;
  for (uint32_t o : outputs) kept.push_back(operands[o].storage);
  std::vector<uint64_t> warm(kWarmRuns);
  for (uint64_t& w : warm) NNC_TRY(runTimed(w));
  for (size_t i = 0; i < outputs.size(); ++i) {
    ops::RuntimeOperand& r = operands[outputs[i]];
    r.storage = std::move(kept[i]);
    r.data = r.storage.data();
  }
  host.cpuNanos += *std::min_element(warm.begin(), warm.end());
  host.cpuColdNanos += first;
  return hal::Status::Ok();
}

}  // namespace

hal::Status NpuExecutor::run(const std::vector<hal::TensorValue>& inputs,
                             std::vector<hal::TensorValue>& outputs, ExecutionReport* report) {
  ExecutionReport rep;
  rep.hostModel = plan_.options.host;
  rep.energyModel = plan_.options.energy;
  NNC_TRY(upload(rep));
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
  auto nanosSince = [](std::chrono::steady_clock::time_point t0) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count());
  };
  auto placementOf = [&](const PlannedOperation& po) {
    std::vector<uint64_t> placement;
    for (uint64_t off : po.arenaOffset) placement.push_back(arena_ + off);
    return placement;
  };
  // Operands an NPU step left in device DRAM only (resident outputs, not read back): the
  // step and output binding that hold each.
  std::map<uint32_t, std::pair<size_t, size_t>> deviceOnly;
  // A host reader needs one after all: read it back, on the reader's books.
  auto materialize = [&](uint32_t o, HostWork& host) -> hal::Status {
    auto it = deviceOnly.find(o);
    if (it == deviceOnly.end()) return hal::Status::Ok();
    const PlannedOperation& producer = plan_.operations.at(it->second.first);
    const Binding& b = producer.step.outputs.at(it->second.second);
    const auto t0 = std::chrono::steady_clock::now();
    NNC_ASSIGN_OR_RETURN(auto value, readOutput(device_, producer.step, placementOf(producer), b));
    ops::RuntimeOperand& r = operands[o];
    if (value.size() != r.storage.size())
      return hal::fail("operand ", o, ": ", value.size(), " bytes on the device, expected ",
                       r.storage.size());
    std::copy(value.begin(), value.end(), r.storage.begin());
    host.bytes.unpacked += value.size();
    host.bytes.sourceBytes += producer.step.buffers.at(b.buffer).bytes;
    host.passNanos += nanosSince(t0);
    deviceOnly.erase(it);
    return hal::Status::Ok();
  };
  // The reference's outputs (computed into the operands' storage) against a step's NPU ones.
  auto compareOutputs = [&](const CompiledStep& step, const std::vector<std::vector<uint8_t>>& out,
                            ExecutionReport::Step& s) {
    s.checked = true;
    for (size_t i = 0; i < step.outputs.size() && s.mismatch.empty(); ++i) {
      const ops::RuntimeOperand& r = operands[step.outputs[i].operand];
      s.mismatch = firstDifference(r.shape.type, r.storage, out[i], i);
    }
    if (!s.mismatch.empty()) ++rep.mismatches;
  };
  // A step's NPU outputs into their operands; a resident one (no bytes read back) stays on
  // the device where the step, run at operation `at`, left it, for the NPU steps that read it.
  auto keepOutputs = [&](const CompiledStep& step, size_t at,
                         const std::vector<std::vector<uint8_t>>& out,
                         const std::string& where) -> hal::Status {
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      const uint32_t o = step.outputs[i].operand;
      ops::RuntimeOperand& r = operands[o];
      if (step.outputs[i].resident && out[i].empty()) {
        deviceOnly[o] = {at, i};
        continue;
      }
      deviceOnly.erase(o);
      if (out[i].size() != r.storage.size())
        return hal::fail(where, ": NPU output ", i, " has ", out[i].size(), " bytes, expected ",
                         r.storage.size());
      std::copy(out[i].begin(), out[i].end(), r.storage.begin());
    }
    return hal::Status::Ok();
  };
  // The later operations of the fused steps that ran, and each step's results (its last
  // operation's outputs), kept until that operation's turn prepares their storage. (A step
  // that did not run, its shapes not the compiled ones, leaves its operations to the CPU.)
  std::set<uint32_t> fusedRan;
  std::map<uint32_t, std::vector<std::vector<uint8_t>>> fusedResults;
  for (size_t k = 0; k < g.operations.size(); ++k) {
    const hal::Operation& op = g.operations[k];
    const ops::OperationDef* def = ops::operationTable().find(op.type);
    const std::string where = "operation " + std::to_string(k) + " (" +
                              std::string(hal::toString(op.type)) +
                              (op.origin.empty() ? "" : ", " + op.origin) + ")";
    if (!def) return hal::fail(where, ": not implemented");
    const PlannedOperation& po = plan_.operations.at(k);
    // Computed by an earlier operation's fused step: its inputs between the two never left
    // the NPU (they hold values only when the cross-check ran the reference).
    const bool inFusedStep = fusedRan.count(static_cast<uint32_t>(k)) > 0;
    // Inputs this operation's NPU step reads where their producer left them.
    std::set<uint32_t> residentIn;
    if (po.placement.target == Target::kNpu)
      for (const Binding& b : po.step.inputs)
        if (b.resident) residentIn.insert(b.operand);
    HostWork readBack;  // device-only inputs a host reader needs
    for (size_t j = 0; j < op.inputs.size(); ++j) {
      // A fused step read its inputs where they were (the reference of its later operation,
      // under the cross-check only, finds them read back already).
      if (!residentIn.count(op.inputs[j]) && !inFusedStep)
        if (hal::Status st = materialize(op.inputs[j], readBack); !st.ok())
          return hal::fail(where, ": input ", j, ": ", st.error());
      const ops::RuntimeOperand& r = operands[op.inputs[j]];
      if (!r.omitted && !r.hasValue() && !inFusedStep)
        return hal::fail(where, ": input ", j, " has no value");
    }
    ops::OperationContext ctx(model_, op, operands, /*executing=*/true, &subgraphs);
    if (hal::Status st = ops::validateSignature(*def, ctx); !st.ok())
      return hal::fail(where, ": ", st.error());
    if (hal::Status st = def->prepare(ctx); !st.ok()) return hal::fail(where, ": ", st.error());
    if (hal::Status st = ops::checkOmittedInputs(ctx, operands, op); !st.ok())
      return hal::fail(where, ": ", st.error());

    ExecutionReport::Step s;
    s.host += readBack;
    s.operation = static_cast<uint32_t>(k);
    s.type = op.type;
    s.macs = inFusedStep ? 0 : ops::macCount(model_, g, op);
    s.startCycle = rep.npuCycles;
    const auto stepStart = std::chrono::steady_clock::now();
    bool onNpu = po.placement.target == Target::kNpu && !po.fusedInto;
    if (onNpu) {
      // The step was compiled for the declared shapes; anything else runs on the CPU. (A
      // fused step's inputs include its later operations'.)
      auto compiledShape = [&](uint32_t o) {
        return operands[o].omitted || operands[o].shape.dimensions == compiled[o].dimensions;
      };
      for (uint32_t o : op.inputs) onNpu = onNpu && compiledShape(o);
      for (uint32_t o : op.outputs) onNpu = onNpu && compiledShape(o);
      for (const Binding& b : po.step.inputs) onNpu = onNpu && compiledShape(b.operand);
      if (!onNpu) s.note = "shapes differ from the compiled plan";
    }
    // A fused step's cycles are all on its first operation's line, so its MACs are too.
    auto depthwise = [&](const hal::Operation& o) {
      return o.type == hal::OperationType::DEPTHWISE_CONV_2D ? ops::macCount(model_, g, o) : 0;
    };
    if (!inFusedStep) s.depthwiseMacs = depthwise(op);
    if (onNpu)
      for (uint32_t f : po.step.fused) {
        s.macs += ops::macCount(model_, g, g.operations.at(f));
        s.depthwiseMacs += depthwise(g.operations.at(f));
      }
    if (!onNpu)
      for (uint32_t o : residentIn)
        if (hal::Status st = materialize(o, s.host); !st.ok())
          return hal::fail(where, ": ", st.error());
    if (inFusedStep) {
      // Run by operation `at`'s step (its cycles, energy and commands are on that line). The
      // cross-check computes this operation on the reference: a middle operation's output,
      // which never left the NPU, for the next one's check; the last one's against the
      // step's outputs, which it keeps.
      const size_t at = *po.fusedInto;
      if (crossCheck_)
        if (hal::Status st = def->execute(ctx); !st.ok())
          return hal::fail(where, ": reference: ", st.error());
      if (auto last = fusedResults.find(static_cast<uint32_t>(k)); last != fusedResults.end()) {
        const CompiledStep& step = plan_.operations.at(at).step;
        if (crossCheck_) compareOutputs(step, last->second, s);
        NNC_TRY(keepOutputs(step, at, last->second, where));
        fusedResults.erase(last);
      }
      s.target = Target::kNpu;
      s.note = "fused into operation " + std::to_string(at) + "'s step (its cycles there)";
      ++rep.npuSteps;
    } else if (onNpu) {
      std::vector<std::vector<uint8_t>> in;
      for (const Binding& b : po.step.inputs) {
        const ops::RuntimeOperand& r = operands[b.operand];
        if (b.resident)
          in.emplace_back();
        else
          in.emplace_back(r.data, r.data + r.shape.bytes());
      }
      std::vector<const std::vector<uint8_t>*> inPtr;
      for (size_t i = 0; i < in.size(); ++i)
        inPtr.push_back(po.step.inputs[i].resident ? nullptr : &in[i]);
      const std::vector<uint64_t> placement = placementOf(po);
      std::vector<std::vector<uint8_t>> out, results;
      // A cross-check reads resident outputs back to compare them (off the books).
      auto stats =
          runPlaced(device_, po.step, placement, false, inPtr, out, results, &s.host, crossCheck_);
      if (!stats.ok()) return hal::fail(where, ": ", stats.error());
      if (po.step.epilogue) {
        // Hybrid step: the host finishes the operation into its outputs from the NPU's
        // results; the cross-check runs the whole reference first and compares after.
        std::vector<std::vector<uint8_t>> want;
        if (crossCheck_) {
          if (hal::Status st = def->execute(ctx); !st.ok())
            return hal::fail(where, ": reference: ", st.error());
          for (uint32_t o : op.outputs) want.push_back(operands[o].storage);
        }
        if (hal::Status st = timeKernel([&] { return po.step.epilogue.finish(ctx, results); },
                                        operands, op.outputs, s.host);
            !st.ok())
          return hal::fail(where, ": host epilogue: ", st.error());
        if (crossCheck_) {
          s.checked = true;
          for (size_t i = 0; i < op.outputs.size() && s.mismatch.empty(); ++i) {
            const ops::RuntimeOperand& r = operands[op.outputs[i]];
            s.mismatch = firstDifference(r.shape.type, want[i], r.storage, i);
          }
          if (!s.mismatch.empty()) ++rep.mismatches;
        }
      } else if (!po.step.fused.empty()) {
        // A fused step: its outputs are its last operation's, whose turn checks and keeps
        // them; the cross-check computes this operation's outputs on the reference for it.
        if (crossCheck_)
          if (hal::Status st = def->execute(ctx); !st.ok())
            return hal::fail(where, ": reference: ", st.error());
        fusedRan.insert(po.step.fused.begin(), po.step.fused.end());
        fusedResults[po.step.fused.back()] = std::move(out);
        out.clear();
      } else if (crossCheck_) {
        // The reference computes into the outputs' storage; compare, then keep the NPU's.
        if (hal::Status st = def->execute(ctx); !st.ok())
          return hal::fail(where, ": reference: ", st.error());
        compareOutputs(po.step, out, s);
      }
      if (po.step.fused.empty()) NNC_TRY(keepOutputs(po.step, k, out, where));
      s.target = Target::kNpu;
      s.stats = *stats;
      s.note = po.step.report.mapping;
      s.estimatedCycles = po.step.report.estimatedCycles;
      rep.npuCycles += stats->cycles;
      ++rep.npuSteps;
    } else {
      if (hal::Status st =
              timeKernel([&] { return def->execute(ctx); }, operands, op.outputs, s.host);
          !st.ok())
        return hal::fail(where, ": ", st.error());
      // The kernel reads its tensor inputs and writes its outputs in host DRAM.
      for (uint32_t o : op.inputs)
        if (!operands[o].omitted && hal::isTensor(operands[o].shape.type))
          s.host.bytes.cpuBytes += operands[o].shape.bytes();
      for (uint32_t o : op.outputs) s.host.bytes.cpuBytes += operands[o].shape.bytes();
      if (s.note.empty()) s.note = po.placement.reason;
      ++rep.cpuSteps;
    }
    s.hostNanos = rep.hostModel.nanos(s.host);
    EnergyEvents events;
    if (s.target == Target::kNpu) {
      events = streamEvents(po.step.commands);
      events.dramBytes = s.stats.counters.dmaReadBytes + s.stats.counters.dmaWriteBytes;
      events.cycles = s.stats.cycles;
    }
    events.hostDramBytes = s.host.bytes.dramBytes();
    s.energy = rep.energyModel.energy(events);
    rep.energy += s.energy;
    rep.host += s.host;
    rep.hostNanos += s.hostNanos;
    s.wallNanos = nanosSince(stepStart);
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
