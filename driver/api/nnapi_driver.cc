#include "driver/api/nnapi_driver.h"

#include <algorithm>
#include <chrono>

#include "driver/compiler/lowering_table.h"
#include "hal/validation.h"
#include "hal/model_builder.h"
#include "ops/executor.h"
#include "ops/registry.h"

namespace nncosim::driver {
namespace {

using hal::OperandType;

// The calibration layer: a quantized 3x3 CONV_2D, 32x32x32 -> 32 channels, SAME, ReLU;
// int8, or in the 16x8 mode (int16 activations, int8 weights) when `wide`.
hal::Model calibrationModel(bool wide, std::vector<hal::TensorValue>* inputs) {
  hal::ModelBuilder b;
  b.setQuant16x8(wide);
  const auto t = wide ? OperandType::TENSOR_QUANT16_SYMM : OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const float inScale = wide ? 0.0005f : 0.05f;
  const uint32_t in = b.addInput(t, {1, 32, 32, 32}, inScale, wide ? 0 : -3);
  std::vector<int8_t> w(32 * 9 * 32);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<int8_t>(static_cast<int>((i * 37) % 255) - 127);
  const uint32_t wt =
      b.addConstant(wide ? OperandType::TENSOR_QUANT8_SYMM : t, {32, 3, 3, 32}, w, 0.01f, 0);
  std::vector<int32_t> bias(32);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<int32_t>(i * 17) - 200;
  const uint32_t bs = b.addConstant(OperandType::TENSOR_INT32, {32}, bias, inScale * 0.01f, 0);
  const uint32_t out = b.addOutput(t, {1, 32, 32, 32}, wide ? 0.005f : 0.5f, wide ? 0 : -10);
  b.addOperation(hal::OperationType::CONV_2D,
                 {in, wt, bs, b.addInt32(1), b.addInt32(1), b.addInt32(1), b.addInt32(1)}, {out});
  hal::Model m = b.build();
  hal::TensorValue v;
  v.type = t;
  v.dimensions = {1, 32, 32, 32};
  v.bytes.resize(size_t{32 * 32 * 32} * (wide ? 2 : 1));
  for (size_t i = 0; i < v.bytes.size(); ++i) v.bytes[i] = static_cast<uint8_t>(i * 13);
  inputs->assign(1, v);
  return m;
}

}  // namespace

hal::Result<NnapiDriver::Calibration> NnapiDriver::measure(bool wide) {
  std::vector<hal::TensorValue> inputs, outputs;
  const hal::Model m = calibrationModel(wide, &inputs);
  Calibration c;
  // CPU: the reference's wall time, median of five runs.
  std::vector<double> cpu;
  for (int i = 0; i < 5; ++i) {
    ops::Executor ex(m);
    const auto t0 = std::chrono::steady_clock::now();
    NNC_TRY(ex.run(inputs, outputs));
    cpu.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(cpu.begin(), cpu.end());
  c.cpuMicros = cpu[cpu.size() / 2];
  // NPU: the step's cycles at the device clock.
  if (!device_) return hal::fail("no NPU to calibrate");
  LoweringOptions lo;
  lo.npu = device_->config();
  NNC_ASSIGN_OR_RETURN(auto plan, compileModel(m, lo));
  resident_ = nullptr;  // the calibration takes the device memory
  device_->freeAll();
  NpuExecutor ex(m, plan, *device_);
  ExecutionReport rep;
  NNC_TRY(ex.run(inputs, outputs, &rep));
  if (rep.npuSteps != 1) return hal::fail("calibration layer did not run on the NPU");
  // End to end: the device's cycles and the host's passes around the step.
  c.npuMicros = static_cast<double>(rep.npuCycles) / options_.clockMHz + rep.hostNanos / 1000.0;
  c.npuPicojoules = rep.energy.total();
  const HostModel& host = options_.lowering.host;
  c.cpuPicojoules = c.cpuMicros * host.cpuScale * host.corePowerW * 1e6;  // us x W = uJ
  device_->freeAll();
  return c;
}

hal::Status NnapiDriver::calibrate() {
  auto q8 = measure(false);
  NNC_TRY(q8);
  auto q16 = measure(true);
  NNC_TRY(q16);
  npuMicros_ = q8->npuMicros;
  cpuMicros_ = q8->cpuMicros;
  narrow_ = *q8;
  wide_ = *q16;

  // execTime: time relative to the CPU; powerUsage: energy relative to the CPU.
  auto perf = [](const Calibration& c) {
    return hal::PerformanceInfo{static_cast<float>(c.npuMicros / c.cpuMicros),
                                static_cast<float>(c.npuPicojoules / c.cpuPicojoules)};
  };
  const hal::PerformanceInfo npuPerf = perf(narrow_), npu16Perf = perf(wide_), cpuPerf{1.0f, 1.0f};
  caps_.float32Performance = cpuPerf;
  caps_.relaxedFloat32toFloat16PerformanceScalar = cpuPerf;
  caps_.relaxedFloat32toFloat16PerformanceTensor = cpuPerf;
  caps_.quantized8Performance = npuPerf;
  caps_.ifPerformance = cpuPerf;
  caps_.whilePerformance = cpuPerf;
  caps_.operandPerformance.clear();
  for (int t = 0; t < hal::kNumOperandTypes; ++t) {
    const auto type = static_cast<OperandType>(t);
    const bool npu =
        type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    // TENSOR_QUANT16_SYMM: the 16x8 mode's activations (models that select it).
    const bool npu16 = type == OperandType::TENSOR_QUANT16_SYMM;
    caps_.operandPerformance.push_back({type, npu ? npuPerf : npu16 ? npu16Perf : cpuPerf});
  }
  calibrated_ = true;
  return hal::Status::Ok();
}

const hal::Capabilities& NnapiDriver::getCapabilities() {
  if (!calibrated_) {
    if (auto st = calibrate(); !st.ok()) {
      // No NPU measurement: report the fallback's (1.0) everywhere rather than a guess.
      caps_ = hal::Capabilities{};
      for (int t = 0; t < hal::kNumOperandTypes; ++t)
        caps_.operandPerformance.push_back({static_cast<OperandType>(t), {}});
      calibrated_ = true;
    }
  }
  return caps_;
}

hal::Status validateModelForExecution(const hal::Model& model) {
  auto issues = hal::validateModel(model);
  if (!issues.empty()) {
    std::string msg = "invalid model: " + issues.front().str();
    if (issues.size() > 1) msg += " (and " + std::to_string(issues.size() - 1) + " more)";
    return hal::Error{msg};
  }
  if (auto st = ops::validateOperations(model); !st.ok())
    return hal::Error{"invalid operation: " + st.error()};
  return hal::Status::Ok();
}

hal::Result<std::vector<OperationSupport>> NnapiDriver::getSupportedOperations(
    const hal::Model& model) {
  NNC_TRY(validateModelForExecution(model));
  std::vector<OperationSupport> out;
  if (!device_) {
    for (const auto& op : model.main.operations) {
      OperationSupport s;
      s.supported = ops::operationTable().find(op.type) != nullptr;
      s.reason = s.supported ? "this driver has no NPU (reference only)" : "not implemented";
      out.push_back(std::move(s));
    }
    return out;
  }
  const Partition p = partition(model, device_->config());
  for (const auto& op : p.operations) {
    OperationSupport s;
    s.supported = ops::operationTable().find(op.type) != nullptr;
    s.onNpu = op.target == Target::kNpu;
    s.reason = s.supported ? op.reason : "not implemented";
    // On the NPU: which unit runs it (the lowering table's entry).
    if (s.onNpu)
      s.reason = std::string("on the ") + toString(npuLoweringTable().find(op.type)->unit);
    out.push_back(std::move(s));
  }
  return out;
}

hal::Result<std::unique_ptr<PreparedModel>> NnapiDriver::prepareModel(
    const hal::Model& model, hal::ExecutionPreference preference, std::optional<bool> fuseLayers) {
  NNC_TRY(validateModelForExecution(model));
  std::unique_ptr<ModelPlan> plan;
  if (device_) {
    LoweringOptions lo = options_.lowering;
    lo.deviceClockMHz = options_.clockMHz;
    lo.npu = device_->config();
    lo.preference = preference;
    if (fuseLayers) lo.fuseLayers = *fuseLayers;
    auto compiled = compileModel(model, lo);
    if (!compiled) return hal::Error{"compile: " + compiled.error()};
    plan = std::make_unique<ModelPlan>(std::move(*compiled));
  }
  return std::unique_ptr<PreparedModel>(new PreparedModel(*this, model, std::move(plan)));
}

PreparedModel::~PreparedModel() {
  if (driver_.resident_ == this) driver_.resident_ = nullptr;
}

hal::Result<ExecutionResult> PreparedModel::execute(const hal::Request& request,
                                                    const ExecuteOptions& options) {
  const auto& g = model_.main;
  if (request.inputs.size() != g.inputIndexes.size())
    return hal::fail("request has ", request.inputs.size(), " inputs, the model ",
                     g.inputIndexes.size());
  std::vector<hal::TensorValue> inputs;
  for (size_t k = 0; k < request.inputs.size(); ++k) {
    const auto& arg = request.inputs[k];
    const auto& o = g.operands[g.inputIndexes[k]];
    hal::TensorValue v;
    v.type = o.type;
    v.dimensions = arg.dimensions.empty() ? o.dimensions : arg.dimensions;
    v.omitted = arg.hasNoValue;
    v.bytes = arg.data;
    inputs.push_back(std::move(v));
  }
  return execute(inputs, options);
}

hal::Result<ExecutionResult> PreparedModel::execute(const std::vector<hal::TensorValue>& inputs,
                                                    const ExecuteOptions& options) {
  ExecutionResult r;
  NpuDevice* device = driver_.device_;
  if (!device) {
    // No NPU: the whole model on the reference, one step per operation.
    const auto t0 = std::chrono::steady_clock::now();
    ops::Executor ex(model_);
    NNC_TRY(ex.run(inputs, r.outputs));
    r.report.cpuSteps = static_cast<int>(model_.main.operations.size());
    r.timing.cpuMicros =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    r.timing.hostMicros =
        driver_.options_.lowering.host.cpuNanos(static_cast<uint64_t>(r.timing.cpuMicros * 1000)) /
        1000;
    r.timing.endToEndMicros = r.timing.hostMicros;
    r.timing.stepCycles.assign(model_.main.operations.size(), 0);
  } else {
    if (driver_.resident_ != this || !executor_) {
      // Another model's constants are on the device: start from empty device memory.
      device->freeAll();
      executor_ = std::make_unique<NpuExecutor>(model_, *plan_, *device);
      driver_.resident_ = this;
    }
    executor_->setCrossCheck(options.crossCheck);
    device->resetTimeline();
    NNC_TRY(executor_->run(inputs, r.outputs, &r.report));
    r.commands = device->commandTimeline();
    r.timing.npuCycles = r.report.npuCycles;
    r.timing.npuMicros = static_cast<double>(r.report.npuCycles) / driver_.options_.clockMHz;
    for (const auto& s : r.report.steps) {
      r.timing.stepCycles.push_back(s.target == Target::kNpu ? s.stats.cycles : 0);
      if (s.target != Target::kNpu) r.timing.cpuMicros += s.wallNanos / 1000.0;
    }
    r.timing.hostMicros = r.report.hostNanos / 1000.0;
    r.timing.endToEndMicros = r.timing.npuMicros + r.timing.hostMicros;
  }
  for (const auto& o : r.outputs) r.outputShapes.push_back(hal::OutputShape{o.dimensions, true});
  return r;
}

}  // namespace nncosim::driver
