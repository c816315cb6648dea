#include "driver/runtime/step_runner.h"

#include <chrono>
#include <cstring>

#include "hal/profile.h"

namespace nncosim::driver {

hal::Result<JobStats> runPlaced(NpuDevice& device, const CompiledStep& step,
                                const std::vector<uint64_t>& placement, bool uploadConstants,
                                const std::vector<const std::vector<uint8_t>*>& inputs,
                                std::vector<std::vector<uint8_t>>& outputs,
                                std::vector<std::vector<uint8_t>>& results, HostWork* host,
                                bool readResident) {
  using Clock = std::chrono::steady_clock;
  HostWork work;
  auto since = [](Clock::time_point t0) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
  };
  auto t0 = Clock::now();
  hal::profile::Scope packing("host.pack");
  if (uploadConstants)
    for (size_t b = 0; b < step.buffers.size(); ++b) {
      if (step.buffers[b].role != BufferRole::kConstant) continue;
      NNC_ASSIGN_OR_RETURN(auto bytes, relocatedContents(step, b, placement));
      NNC_TRY(device.write(placement[b], bytes.data(), bytes.size()));
      work.bytes.copiedIn += bytes.size();
      work.bytes.sourceBytes += bytes.size();
    }
  if (inputs.size() != step.inputs.size())
    return hal::fail(step.report.operation, ": ", inputs.size(), " inputs for ", step.inputs.size(),
                     " bindings");
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    const Binding& bnd = step.inputs[i];
    if (bnd.resident) continue;  // where its producer left it
    if (!inputs[i]) return hal::fail(step.report.operation, " input ", i, ": no value");
    auto packed = packTensor(bnd.layout, *inputs[i]);
    if (!packed.ok()) return hal::fail(step.report.operation, " input ", i, ": ", packed.error());
    if (packed->size() > step.buffers[bnd.buffer].bytes)
      return hal::fail(step.report.operation, " input ", i, ": ", packed->size(),
                       " bytes for a buffer of ", step.buffers[bnd.buffer].bytes);
    NNC_TRY(device.write(placement[bnd.buffer], packed->data(), packed->size()));
    (bnd.layout.kind == TensorLayout::Kind::kRaw ? work.bytes.copiedIn : work.bytes.packed) +=
        packed->size();
    if (bnd.betweenNpuSteps) work.bytes.betweenNpuSteps += packed->size();
    work.bytes.sourceBytes += inputs[i]->size();
  }
  work.passNanos += since(t0);
  packing.stop();
  hal::profile::Scope jobsTimed("npu.jobs");
  NNC_ASSIGN_OR_RETURN(auto commands, relocate(step, placement));
  JobStats total;
  const std::vector<std::vector<firmware::Command>> jobs = splitJobs(commands);
  for (size_t j = 0; j < jobs.size(); ++j) {
    auto stats = device.run(jobs[j]);
    if (!stats.ok())
      return hal::fail(step.report.operation, " job ", j + 1, " of ", jobs.size(), ": ",
                       stats.error());
    total += *stats;
    total.jobs = static_cast<uint32_t>(j + 1);
  }
  hal::Result<JobStats> stats = total;
  jobsTimed.stop();
  hal::profile::Scope unpacking("host.unpack");
  t0 = Clock::now();
  outputs.clear();
  uint64_t checkNanos = 0;  // a cross-check's reads, not on the measured time either
  for (const Binding& bnd : step.outputs) {
    const StepBuffer& buf = step.buffers[bnd.buffer];
    if (bnd.resident) {
      // Stays for the NPU steps that read it; a cross-check's read is not the run's work.
      std::vector<uint8_t> value;
      if (readResident) {
        const auto r0 = Clock::now();
        NNC_ASSIGN_OR_RETURN(value, readOutput(device, step, placement, bnd));
        checkNanos += since(r0);
      }
      outputs.push_back(std::move(value));
      continue;
    }
    std::vector<uint8_t> raw(buf.bytes);
    NNC_TRY(device.read(placement[bnd.buffer], raw.data(), raw.size()));
    NNC_ASSIGN_OR_RETURN(auto unpacked, unpackTensor(bnd.layout, raw, buf.bytes));
    if (bnd.layout.kind == TensorLayout::Kind::kRaw) {
      work.bytes.copiedOut += raw.size();
      if (bnd.betweenNpuSteps) work.bytes.betweenNpuSteps += raw.size();
    } else {
      work.bytes.unpacked += unpacked.size();
      if (bnd.betweenNpuSteps) work.bytes.betweenNpuSteps += unpacked.size();
      work.bytes.sourceBytes += raw.size();
    }
    outputs.push_back(std::move(unpacked));
  }
  results.clear();
  for (size_t b : step.epilogue.results) {
    std::vector<uint8_t> raw(step.buffers.at(b).bytes);
    NNC_TRY(device.read(placement[b], raw.data(), raw.size()));
    work.bytes.copiedOut += raw.size();
    results.push_back(std::move(raw));
  }
  work.passNanos += since(t0) - checkNanos;
  if (host) *host += work;
  return stats;
}

hal::Result<std::vector<uint8_t>> readOutput(NpuDevice& device, const CompiledStep& step,
                                             const std::vector<uint64_t>& placement,
                                             const Binding& b) {
  const StepBuffer& buf = step.buffers.at(b.buffer);
  std::vector<uint8_t> raw(buf.bytes);
  NNC_TRY(device.read(placement.at(b.buffer), raw.data(), raw.size()));
  return unpackTensor(b.layout, raw, buf.bytes);
}

hal::Result<JobStats> runStep(NpuDevice& device, const CompiledStep& step,
                              const std::vector<std::vector<uint8_t>>& inputs,
                              std::vector<std::vector<uint8_t>>& outputs) {
  device.freeAll();
  std::vector<uint64_t> placement;
  for (const StepBuffer& b : step.buffers) {
    NNC_ASSIGN_OR_RETURN(auto a, device.allocate(b.bytes, b.name));
    placement.push_back(a);
  }
  std::vector<const std::vector<uint8_t>*> in;
  for (const auto& v : inputs) in.push_back(&v);
  std::vector<std::vector<uint8_t>> results;
  auto stats = runPlaced(device, step, placement, true, in, outputs, results);
  for (std::vector<uint8_t>& r : results) outputs.push_back(std::move(r));
  return stats;
}

}  // namespace nncosim::driver
