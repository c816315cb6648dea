#include "driver/compiler/lowering.h"

#include <cmath>

#include "driver/compiler/lowering_internal.h"
#include "driver/compiler/lowering_table.h"
#include "hal/operand.h"
#include "ops/executor.h"
#include "ops/registry.h"

namespace nncosim::driver {
namespace internal {

OpView::OpView(const hal::Model& model, uint32_t operationIndex,
               const std::vector<ops::Shape>& shapes)
    : model_(model),
      op_(model.main.operations.at(operationIndex)),
      operands_(ops::bindConstants(model, model.main)),
      ctx_(model, op_, operands_, /*executing=*/false) {
  for (size_t i = 0; i < operands_.size() && i < shapes.size(); ++i) operands_[i].shape = shapes[i];
}

bool OpView::isConstant(size_t i) const {
  if (i >= op_.inputs.size()) return false;
  const hal::Operand& o = model_.main.operands.at(op_.inputs[i]);
  return o.lifetime == hal::OperandLifeTime::CONSTANT_COPY ||
         o.lifetime == hal::OperandLifeTime::CONSTANT_POOL;
}

const uint8_t* OpView::constantBytes(size_t i) const {
  return isConstant(i) ? model_.constantData(model_.main.operands.at(op_.inputs[i])) : nullptr;
}

hal::Status OpView::check() const {
  // The signature was validated with these declared shapes when the model was prepared
  // (NnapiDriver::prepareModel); only what the NPU needs beyond it is checked here.
  if (!ops::operationTable().find(op_.type)) return hal::fail("no reference implementation");
  auto known = [](const ops::Shape& s) {
    if (!hal::isTensor(s.type)) return true;
    if (s.dimensions.empty()) return false;
    for (uint32_t d : s.dimensions)
      if (d == 0) return false;
    return true;
  };
  for (size_t i = 0; i < op_.inputs.size(); ++i) {
    // A constant's shape is exact even with a zero dimension (an empty array).
    if (ctx_.isOmitted(i) || isConstant(i)) continue;
    if (!known(ctx_.inputShape(i)))
      return hal::fail("input ", i, " has unknown or empty dimensions ",
                       ops::toString(ctx_.inputShape(i).dimensions));
  }
  for (size_t i = 0; i < op_.outputs.size(); ++i)
    if (!known(ctx_.outputShape(i)))
      return hal::fail("output ", i, " has unknown or empty dimensions ",
                       ops::toString(ctx_.outputShape(i).dimensions));
  return hal::Status::Ok();
}

StepBuilder::StepBuilder(const hal::Model& model, uint32_t operationIndex) : model_(model) {
  step_.operation = operationIndex;
  step_.type = model.main.operations.at(operationIndex).type;
}

size_t StepBuilder::addBuffer(const std::string& name, BufferRole role, uint64_t bytes) {
  StepBuffer b;
  b.name = name;
  b.role = role;
  // Never empty: every buffer has an address that relocation can recognise.
  b.bytes = bytes ? bytes : 1;
  step_.buffers.push_back(std::move(b));
  return step_.buffers.size() - 1;
}

size_t StepBuilder::addConstant(const std::string& name, std::vector<uint8_t> contents) {
  const size_t i = addBuffer(name, BufferRole::kConstant, contents.size());
  step_.buffers[i].contents = std::move(contents);
  step_.buffers[i].contents.resize(step_.buffers[i].bytes, 0);
  return i;
}

hal::Result<size_t> StepBuilder::bindInput(uint32_t operand, const TensorLayout& layout,
                                           const std::string& name) {
  const hal::Operand& o = model_.main.operands.at(operand);
  const ops::Shape s = ops::Shape::of(o);
  if (o.lifetime == hal::OperandLifeTime::CONSTANT_COPY ||
      o.lifetime == hal::OperandLifeTime::CONSTANT_POOL) {
    const uint8_t* p = model_.constantData(o);
    std::vector<uint8_t> raw(p, p + o.location.length);
    auto packed = packTensor(layout, raw);
    if (!packed.ok()) return hal::fail(name, ": ", packed.error());
    return addConstant(name, std::move(*packed));
  }
  const uint64_t bytes = layout.deviceBytes(s.bytes());
  const size_t i = addBuffer(name, BufferRole::kInput, bytes);
  step_.inputs.push_back(Binding{operand, i, layout});
  return i;
}

size_t StepBuilder::bindOutput(uint32_t operand, const TensorLayout& layout, uint64_t bytes,
                               const std::string& name) {
  const size_t i = addBuffer(name, BufferRole::kOutput, bytes);
  step_.outputs.push_back(Binding{operand, i, layout});
  return i;
}

hal::Status StepBuilder::layout() {
  uint64_t at = kStepLocalBase;
  for (StepBuffer& b : step_.buffers) {
    b.localAddress = at;
    at += deviceAligned(b.bytes);
  }
  if (at > 0xFFFFFFFFull)
    return hal::fail("the step needs ", at - kStepLocalBase,
                     " bytes of device memory, beyond the ISA's 32-bit DRAM addresses");
  step_.localBytes = at - kStepLocalBase;
  return hal::Status::Ok();
}

std::string operationName(const hal::Model& model, uint32_t operationIndex) {
  return std::string(hal::toString(model.main.operations.at(operationIndex).type)) + " #" +
         std::to_string(operationIndex);
}

void putI32(std::vector<uint8_t>& bytes, size_t at, int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  for (int b = 0; b < 4; ++b) bytes[at + b] = static_cast<uint8_t>(u >> (8 * b));
}

firmware::DmaLoad inpRowsLoad(bool fill, uint8_t fillValue, uint64_t dram, uint32_t buf,
                              uint64_t rowBytes, uint32_t rows, uint64_t dramStride1,
                              uint32_t bufStride1, uint32_t planes, uint64_t dramStride2,
                              uint32_t bufStride2) {
  firmware::DmaLoad d;
  d.bufId = firmware::Buffer::kInp;
  d.elemWidth = firmware::ElemWidth::kW8;
  d.fill = fill;
  d.fillValue = fill ? fillValue : 0;
  d.dramAddr = fill ? 0 : static_cast<uint32_t>(dram);
  d.bufAddr = buf;
  d.count0 = static_cast<uint32_t>(rowBytes);
  d.count1 = rows;
  d.dramStride1 = fill ? 0 : static_cast<uint32_t>(dramStride1);
  d.bufStride1 = bufStride1;
  d.count2 = planes;
  d.dramStride2 = fill ? 0 : static_cast<uint32_t>(dramStride2);
  d.bufStride2 = bufStride2;
  return d;
}

std::vector<uint8_t> prmImage(uint32_t channels, uint32_t cols, const int32_t* bias,
                              const std::vector<int32_t>& multipliers,
                              const std::vector<int32_t>& shifts) {
  const uint32_t tiles = (channels + cols - 1) / cols;
  const uint32_t tileBytes = prmTileBytes(cols);
  std::vector<uint8_t> out(size_t{tiles} * tileBytes, 0);
  for (uint32_t c = 0; c < channels; ++c) {
    const size_t base = size_t{c / cols} * tileBytes;
    const uint32_t j = c % cols;
    putI32(out, base + 4 * j, bias ? bias[c] : 0);
    putI32(out, base + 4 * cols + 4 * j, multipliers[c]);
    out[base + 8 * cols + j] = static_cast<uint8_t>(static_cast<int8_t>(shifts[c]));
  }
  return out;
}

}  // namespace internal

std::vector<ops::Shape> declaredShapes(const hal::Model& model) {
  std::vector<ops::Shape> shapes;
  shapes.reserve(model.main.operands.size());
  for (const hal::Operand& o : model.main.operands) shapes.push_back(ops::Shape::of(o));
  return shapes;
}

hal::Status npuSupport(const hal::Model& model, uint32_t operationIndex,
                       const std::vector<ops::Shape>& shapes, const NpuConfig& npu) {
  if (operationIndex >= model.main.operations.size())
    return hal::fail("operation ", operationIndex, " does not exist");
  const hal::OperationType type = model.main.operations[operationIndex].type;
  const NpuLowering* lowering = npuLoweringTable().find(type);
  if (!lowering) return hal::fail(hal::toString(type), " has no NPU mapping");
  internal::OpView v(model, operationIndex, shapes);
  NNC_TRY(v.check());
  return lowering->support(v);
}

hal::Result<CompiledStep> lowerOperation(const hal::Model& model, uint32_t operationIndex,
                                         const std::vector<ops::Shape>& shapes,
                                         const LoweringOptions& options) {
  if (hal::Status st = npuSupport(model, operationIndex, shapes, options.npu); !st.ok())
    return hal::fail(internal::operationName(model, operationIndex),
                     ": not NPU-eligible: ", st.error());
  internal::OpView v(model, operationIndex, shapes);
  const NpuLowering* lowering = npuLoweringTable().find(model.main.operations[operationIndex].type);
  hal::Result<CompiledStep> step = lowering->lower(model, operationIndex, v, options);
  if (!step.ok())
    return hal::fail(internal::operationName(model, operationIndex), ": ", step.error());
  step->report.operation = internal::operationName(model, operationIndex);
  step->report.preference = options.preference;
  step->report.hostBytes = hostTraffic(model, *step, options.deviceLayouts);
  step->report.hostNanos = options.host.passNanos(step->report.hostBytes);
  return step;
}

HostBytes hostTraffic(const hal::Model& model, const CompiledStep& step,
                      const DeviceLayouts* onDevice) {
  HostBytes h;
  for (const Binding& b : step.inputs) {
    if (b.resident) continue;
    const uint64_t operandBytes = ops::Shape::of(model.main.operands.at(b.operand)).bytes();
    if (onDevice)
      if (auto it = onDevice->find(b.operand); it != onDevice->end()) {
        if (it->second == b.layout) continue;
        // On the device in another layout: the host reads it back first (its producer's
        // unpack, which the producer's books will carry), then packs it.
        (it->second.kind == TensorLayout::Kind::kRaw ? h.copiedOut : h.unpacked) += operandBytes;
        h.sourceBytes += it->second.deviceBytes(operandBytes);
      }
    (b.layout.kind == TensorLayout::Kind::kRaw ? h.copiedIn : h.packed) +=
        b.layout.deviceBytes(operandBytes);
    if (b.betweenNpuSteps) h.betweenNpuSteps += b.layout.deviceBytes(operandBytes);
    h.sourceBytes += operandBytes;
  }
  for (const Binding& b : step.outputs) {
    if (b.resident) continue;
    const uint64_t deviceBytes = step.buffers.at(b.buffer).bytes;
    if (b.layout.kind == TensorLayout::Kind::kRaw) {
      h.copiedOut += deviceBytes;
      if (b.betweenNpuSteps) h.betweenNpuSteps += deviceBytes;
    } else {
      const uint64_t operandBytes = ops::Shape::of(model.main.operands.at(b.operand)).bytes();
      h.unpacked += operandBytes;
      if (b.betweenNpuSteps) h.betweenNpuSteps += operandBytes;
      h.sourceBytes += deviceBytes;
    }
  }
  for (size_t b : step.epilogue.results) h.copiedOut += step.buffers.at(b).bytes;
  return h;
}

double estimatedEnergyPj(const hal::Model& model, const CompiledStep& step,
                         const LoweringOptions& options) {
  EnergyEvents e = streamEvents(step.commands);
  e.cycles = step.report.estimatedCycles;
  e.hostDramBytes = hostTraffic(model, step, options.deviceLayouts).dramBytes();
  return options.energy.energy(e).total();
}

double hostCycles(const hal::Model& model, const CompiledStep& step,
                  const LoweringOptions& options) {
  const double hostNanos = options.host.passNanos(hostTraffic(model, step, options.deviceLayouts));
  return hostNanos * options.deviceClockMHz / 1000.0;
}

double endToEndCycles(const hal::Model& model, const CompiledStep& step,
                      const LoweringOptions& options) {
  return static_cast<double>(step.report.estimatedCycles) + hostCycles(model, step, options);
}

uint64_t cycleLimitFor(const hal::Model& model, const CompiledStep& step,
                       const LoweringOptions& options) {
  if (!std::isfinite(options.costLimit)) return IsaInterpreter::kNoLimit;
  // Device cycles d >= ceil(x) + 1 give d + host >= costLimit + 1 (less far under a
  // cycle of rounding): more than the limit.
  const double x = options.costLimit - hostCycles(model, step, options);
  if (x < 0) return 0;  // the host's passes alone cost more
  if (x > 1e18) return IsaInterpreter::kNoLimit;
  return static_cast<uint64_t>(std::ceil(x)) + 1;
}

}  // namespace nncosim::driver
