// DENSIFY on the densify unit: the sparsity metadata (constant) becomes a descriptor with
// its arrays in one constant buffer; the stored values are the input buffer; one DENSIFY
// command writes the dense output (filled with the zero point first, as the reference).
#include <cstring>

#include "driver/isa_model/densify_descriptor.h"
#include "driver/compiler/lowering_internal.h"
#include "driver/compiler/lowering_table.h"

namespace nncosim::driver::internal {
namespace {

using hal::OperandType;

constexpr size_t kFirstSegments = 5;

// Input i as an int32 array: empty when omitted or empty (as the reference reads it).
std::vector<int32_t> readArray(const OpView& v, size_t i) {
  if (v.ctx().isOmitted(i)) return {};
  const uint64_t n = v.inShape(i).elements();
  if (n == 0) return {};
  std::vector<int32_t> out(static_cast<size_t>(n));
  std::memcpy(out.data(), v.constantBytes(i), n * 4);
  return out;
}

hal::Result<ops::SparseFormat> readFormat(const OpView& v) {
  for (size_t i = 1; i < v.op().inputs.size(); ++i)
    if (!v.ctx().isOmitted(i) && !v.isConstant(i))
      return hal::fail("sparsity metadata input ", i, " is not a constant");
  ops::SparseFormat f;
  f.traversalOrder = readArray(v, 1);
  f.blockMap = readArray(v, 2);
  f.dimFormat = readArray(v, 3);
  f.dimensions = readArray(v, 4);
  const size_t levels = f.traversalOrder.size();
  if (v.op().inputs.size() != kFirstSegments + 2 * levels)
    return hal::fail("input count does not match ", levels, " levels");
  for (size_t l = 0; l < levels; ++l) {
    f.segments.push_back(readArray(v, kFirstSegments + 2 * l));
    f.indices.push_back(readArray(v, kFirstSegments + 2 * l + 1));
  }
  return f;
}

uint32_t log2Bytes(size_t bytes) { return bytes == 4 ? 2 : bytes == 2 ? 1 : 0; }

// The fill the reference writes: the zero point for asymmetric quantized types.
uint32_t fillOf(const ops::Shape& s) {
  switch (s.type) {
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return static_cast<uint32_t>(s.zeroPoint) & 0xFFu;
    case OperandType::TENSOR_QUANT16_ASYMM:
      return static_cast<uint32_t>(s.zeroPoint) & 0xFFFFu;
    default:
      return 0;
  }
}

}  // namespace

hal::Status densifySupport(const OpView& v) {
  const size_t eb = hal::elementSize(v.inShape(0).type);
  if (eb != 1 && eb != 2 && eb != 4)
    return hal::fail("element size ", eb, " is not 1, 2 or 4 bytes");
  NNC_ASSIGN_OR_RETURN(auto f, readFormat(v));
  if (f.traversalOrder.size() > kDensifyMaxLevels)
    return hal::fail(f.traversalOrder.size(), " levels: the densify unit takes at most ",
                     kDensifyMaxLevels);
  NNC_ASSIGN_OR_RETURN(auto w, ops::DensifyWalker::create(f));
  if (w.numValues() != v.inShape(0).elements())
    return hal::fail("the metadata stores ", w.numValues(), " values, input 0 has ",
                     v.inShape(0).elements());
  if (w.denseElements() == 0) return hal::fail("empty dense output");
  if (w.denseElements() * eb > 0xFFFFFFFFull) return hal::fail("dense output beyond 4 GiB");
  if (v.outShape(0).elements() != w.denseElements())
    return hal::fail("output has ", v.outShape(0).elements(), " elements, the dense tensor ",
                     w.denseElements());
  return hal::Status::Ok();
}

hal::Result<CompiledStep> lowerDensify(const hal::Model& model, uint32_t index, const OpView& v,
                                       const LoweringOptions& options) {
  NNC_ASSIGN_OR_RETURN(auto f, readFormat(v));
  NNC_ASSIGN_OR_RETURN(auto w, ops::DensifyWalker::create(f));
  const ops::Shape& values = v.inShape(0);
  const size_t eb = hal::elementSize(values.type);
  const uint32_t elemLog2 = log2Bytes(eb);
  const uint64_t outBytes = w.denseElements() * eb;

  StepBuilder sb(model, index);
  NNC_ASSIGN_OR_RETURN(auto valBuf, sb.bindInput(v.inOperand(0), TensorLayout{}, "values"));
  // Sized now (the image's size does not depend on its addresses), filled after layout.
  NNC_ASSIGN_OR_RETURN(auto sized, buildDensifyImage(f, 0, elemLog2, 0, 0, 0, 0, 0));
  const size_t descBuf =
      sb.addConstant("densify descriptor", std::vector<uint8_t>(sized.bytes.size()));
  const size_t outBuf = sb.bindOutput(v.outOperand(0), TensorLayout{}, outBytes, "output");
  NNC_TRY(sb.layout());

  NNC_ASSIGN_OR_RETURN(auto image,
                       buildDensifyImage(f, sb.address(descBuf), elemLog2, sb.address(valBuf),
                                         static_cast<uint32_t>(w.numValues()), sb.address(outBuf),
                                         static_cast<uint32_t>(w.denseElements()), fillOf(values)));
  CompiledStep& step = sb.step();
  StepBuffer& desc = step.buffers[descBuf];
  desc.contents = std::move(image.bytes);
  desc.addressWords = std::move(image.addressWords);

  firmware::Densify d;
  d.elemWidth = static_cast<firmware::ElemWidth>(elemLog2);
  d.descAddr = sb.address(descBuf);
  d.valuesAddr = sb.address(valBuf);
  d.outAddr = sb.address(outBuf);
  d.outSize = static_cast<uint32_t>(outBytes);
  firmware::End end;
  end.irq = true;
  end.tag = options.tag & 0xFFFF;
  step.commands = {firmware::Command{{}, d}, firmware::Command{{}, end}};
  step.report.mapping = "densify unit, " + std::to_string(f.traversalOrder.size()) + " levels, " +
                        std::to_string(w.numValues()) + " stored values -> " +
                        std::to_string(w.denseElements()) + " x " + std::to_string(eb) + " B";
  step.report.weightMode = "-";
  step.report.loadBytes = desc.contents.size() + w.numValues() * eb;
  step.report.storeBytes = outBytes;
  step.report.commands = step.commands.size();
  return std::move(step);
}

}  // namespace nncosim::driver::internal

namespace nncosim::driver {

void registerDensifyLowerings(NpuLoweringTable& t) {
  t.add({hal::OperationType::DENSIFY, NpuUnit::kDensifyUnit, &internal::densifySupport,
         &internal::lowerDensify});
}

}  // namespace nncosim::driver
