#include "hal/tflite/tflite_import.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "hal/json_fields.h"
#include "hal/model_file.h"
#include "tflite_importer.h"

namespace nncosim::tflite {
namespace {

using hal::OperandLifeTime;
using hal::OperandType;

size_t tfliteElementSize(fb::TensorType t) {
  switch (t) {
    case fb::TensorType::FLOAT32:
    case fb::TensorType::INT32:
    case fb::TensorType::UINT32:
      return 4;
    case fb::TensorType::FLOAT16:
    case fb::TensorType::INT16:
    case fb::TensorType::UINT16:
      return 2;
    case fb::TensorType::UINT8:
    case fb::TensorType::INT8:
    case fb::TensorType::BOOL:
      return 1;
    case fb::TensorType::INT64:
    case fb::TensorType::UINT64:
    case fb::TensorType::FLOAT64:
      return 8;
    default:
      return 0;
  }
}

// Zero point k. The verifier checks a vector's length word but not that its int64
// elements are 8-byte aligned, so they are copied out rather than loaded in place.
int64_t zeroPointAt(const fb::QuantizationParameters& q, uint32_t k) {
  int64_t v;
  std::memcpy(&v, reinterpret_cast<const uint8_t*>(q.zero_point()->data()) + 8 * size_t{k}, 8);
  return v;
}

std::string typeName(fb::TensorType t) {
  const char* n = fb::EnumNameTensorType(t);
  return n && *n ? n : "type " + std::to_string(static_cast<int>(t));
}

std::string tensorName(const fb::Tensor& t, int32_t index) {
  std::string s = "tensor " + std::to_string(index);
  if (t.name() && t.name()->size()) s += " (" + t.name()->str() + ")";
  return s;
}

// The builtins whose NNAPI operations take TENSOR_QUANT16_SYMM in the 16x8 mode
// (docs/quantization.md section 10).
bool builtinTakesInt16(int32_t code) {
  switch (static_cast<fb::BuiltinOperator>(code)) {
    case fb::BuiltinOperator::CONV_2D:
    case fb::BuiltinOperator::DEPTHWISE_CONV_2D:
    case fb::BuiltinOperator::FULLY_CONNECTED:
    case fb::BuiltinOperator::AVERAGE_POOL_2D:
    case fb::BuiltinOperator::MAX_POOL_2D:
    case fb::BuiltinOperator::ADD:
    case fb::BuiltinOperator::SUB:
    case fb::BuiltinOperator::PAD:
    case fb::BuiltinOperator::PADV2:
    case fb::BuiltinOperator::STRIDED_SLICE:
    case fb::BuiltinOperator::LEAKY_RELU:
    case fb::BuiltinOperator::QUANTIZE:
    case fb::BuiltinOperator::TRANSPOSE_CONV:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string builtinName(int32_t code) {
  const char* n = fb::EnumNameBuiltinOperator(static_cast<fb::BuiltinOperator>(code));
  return n && *n ? n : "builtin " + std::to_string(code);
}

Importer::Importer(const TfliteFile& file, const ImportOptions& options)
    : file_(file), options_(options) {}

uint32_t Importer::addOperand(hal::Operand o) {
  model_.main.operands.push_back(std::move(o));
  return static_cast<uint32_t>(model_.main.operands.size() - 1);
}

uint32_t Importer::constant(OperandType type, std::vector<uint32_t> dims, const void* bytes,
                            size_t size, float scale, int32_t zeroPoint) {
  hal::Operand o;
  o.type = type;
  o.dimensions = std::move(dims);
  o.scale = scale;
  o.zeroPoint = zeroPoint;
  o.lifetime = OperandLifeTime::CONSTANT_COPY;
  const auto* p = static_cast<const uint8_t*>(bytes);
  o.location = hal::appendOperandValue(model_.operandValues, std::vector<uint8_t>(p, p + size));
  return addOperand(std::move(o));
}

uint32_t Importer::temporary(const hal::Operand& like, std::vector<uint32_t> dims) {
  hal::Operand o = like;
  o.dimensions = std::move(dims);
  o.lifetime = OperandLifeTime::TEMPORARY_VARIABLE;
  o.location = {};
  o.name.clear();
  return addOperand(std::move(o));
}

const uint8_t* Importer::constantBytes(int32_t t, size_t* size) const {
  const TfliteFile::Span s = file_.bufferData(tensor(t).buffer());
  *size = s.size;
  return s.size ? file_.bytes().data() + s.offset : nullptr;
}

hal::Result<uint32_t> Importer::operandOf(int32_t t) {
  auto it = tensorOperand_.find(t);
  if (it != tensorOperand_.end()) return it->second;
  auto r = createOperand(t);
  if (!r.ok()) return hal::fail(tensorName(tensor(t), t), ": ", r.error());
  tensorOperand_.emplace(t, *r);
  return *r;
}

hal::Result<uint32_t> Importer::createOperand(int32_t t) {
  const fb::Tensor& T = tensor(t);
  if (T.sparsity()) return hal::fail("sparse tensors are not supported");
  if (T.is_variable()) return hal::fail("variable tensors are not supported");
  hal::Operand o;
  if (T.name()) o.name = T.name()->str();
  if (T.shape())
    for (int32_t d : *T.shape()) o.dimensions.push_back(static_cast<uint32_t>(d));
  const fb::QuantizationParameters* q = T.quantization();
  if (q && q->details()) return hal::fail("custom quantization is not supported");
  const uint32_t scales = q && q->scale() ? q->scale()->size() : 0;
  const int64_t zp0 = q && q->zero_point() && q->zero_point()->size() ? zeroPointAt(*q, 0) : 0;
  if (zp0 < std::numeric_limits<int32_t>::min() || zp0 > std::numeric_limits<int32_t>::max())
    return hal::fail("zero point ", zp0, " outside int32");
  auto perTensor = [&](OperandType type) {
    o.type = type;
    o.scale = q->scale()->Get(0);
    o.zeroPoint = static_cast<int32_t>(zp0);
  };
  const size_t bytes = tfliteElementSize(T.type());
  size_t dataSize = 0;
  const uint8_t* data = constantBytes(t, &dataSize);
  std::vector<uint8_t> converted;  // INT64 constants narrowed to INT32
  switch (T.type()) {
    case fb::TensorType::FLOAT32:
      o.type = OperandType::TENSOR_FLOAT32;
      break;
    case fb::TensorType::FLOAT16:
      o.type = OperandType::TENSOR_FLOAT16;
      break;
    case fb::TensorType::BOOL:
      o.type = OperandType::TENSOR_BOOL8;
      break;
    case fb::TensorType::INT32:
      o.type = OperandType::TENSOR_INT32;
      // A per-tensor quantized int32 (a bias) keeps its scale; per-channel biases take
      // NNAPI's convention, scale 0 (the operation derives input * filter[c] itself).
      if (scales == 1) o.scale = q->scale()->Get(0);
      break;
    case fb::TensorType::UINT8:
      if (scales != 1) return hal::fail("UINT8 needs one scale (found ", scales, ")");
      perTensor(OperandType::TENSOR_QUANT8_ASYMM);
      break;
    case fb::TensorType::INT8:
      if (scales == 0) return hal::fail("INT8 without quantization parameters has no NNAPI type");
      if (scales == 1) {
        perTensor(OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
      } else {
        o.type = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
        hal::SymmPerChannelQuantParams pc;
        pc.channelDim = static_cast<uint32_t>(q->quantized_dimension());
        if (pc.channelDim >= o.dimensions.size() || o.dimensions[pc.channelDim] != scales)
          return hal::fail("quantization: ", scales, " scales along quantized_dimension ",
                           pc.channelDim, " of a rank ", o.dimensions.size(), " tensor");
        for (uint32_t c = 0; c < scales; ++c) {
          pc.scales.push_back(q->scale()->Get(c));
          const int64_t z = q->zero_point()->size() == 1 ? zp0 : zeroPointAt(*q, c);
          if (z != 0)
            return hal::fail("per-channel INT8 zero point ", z, " at channel ", c,
                             " (NNAPI's TENSOR_QUANT8_SYMM_PER_CHANNEL is symmetric)");
        }
        o.channelQuant = std::move(pc);
      }
      break;
    case fb::TensorType::INT16:
      if (scales != 1) return hal::fail("INT16 needs one scale (found ", scales, ")");
      if (zp0 != 0) return hal::fail("INT16 zero point ", zp0, " (the 16x8 mode is symmetric)");
      perTensor(OperandType::TENSOR_QUANT16_SYMM);
      model_.quant16x8 = true;
      break;
    case fb::TensorType::INT64: {
      if (!data)
        return hal::fail(
            "INT64 activations have no NNAPI type (only INT64 constants, as "
            "index tensors, are narrowed to INT32)");
      const size_t n = dataSize / 8;
      converted.resize(n * 4);
      for (size_t k = 0; k < n; ++k) {
        int64_t v;
        std::memcpy(&v, data + 8 * k, 8);
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
          return hal::fail("INT64 constant element ", k, " = ", v, " does not fit INT32");
        const int32_t w = static_cast<int32_t>(v);
        std::memcpy(converted.data() + 4 * k, &w, 4);
      }
      o.type = OperandType::TENSOR_INT32;
      break;
    }
    default:
      return hal::fail(typeName(T.type()), " tensors have no NNAPI type");
  }

  const auto& outs = *graph_->outputs();
  const bool isOutput = std::find(outs.begin(), outs.end(), t) != outs.end();
  const auto& ins = *graph_->inputs();
  const bool isInput = std::find(ins.begin(), ins.end(), t) != ins.end();
  if (isInput && isOutput) return hal::fail("is both a model input and a model output");
  if (data) {
    if (isInput || isOutput) return hal::fail("a model input or output has constant data");
    const auto n = hal::elementCount(o.dimensions);
    if (!n || *n * bytes != dataSize)
      return hal::fail("buffer ", T.buffer(), " holds ", dataSize, " bytes; shape ",
                       o.dimensions.size(), "-D of ", n ? *n : 0, " ", typeName(T.type()),
                       " elements needs ", n ? *n * bytes : 0);
    if (!converted.empty() || dataSize < options_.poolMinBytes || !options_.referenceFile) {
      const uint8_t* p = converted.empty() ? data : converted.data();
      const size_t size = converted.empty() ? dataSize : converted.size();
      o.lifetime = OperandLifeTime::CONSTANT_COPY;
      o.location = hal::appendOperandValue(model_.operandValues, std::vector<uint8_t>(p, p + size));
    } else {
      o.lifetime = OperandLifeTime::CONSTANT_POOL;
      o.location.poolIndex = 0;
      o.location.offset = static_cast<uint32_t>(data - file_.bytes().data());
      o.location.length = static_cast<uint32_t>(dataSize);
      usesFilePool_ = true;
    }
  } else {
    o.lifetime = isInput    ? OperandLifeTime::SUBGRAPH_INPUT
                 : isOutput ? OperandLifeTime::SUBGRAPH_OUTPUT
                            : OperandLifeTime::TEMPORARY_VARIABLE;
  }
  return addOperand(std::move(o));
}

hal::Result<hal::Model> Importer::run() {
  const fb::Model& m = file_.model();
  graph_ = m.subgraphs()->Get(0);
  const std::string where = file_.name() + ": ";
  if (!graph_->inputs() || !graph_->outputs() || graph_->outputs()->size() == 0)
    return hal::fail(where, "subgraph 0 has no inputs or no outputs");
  for (int32_t t : *graph_->inputs()) {
    if (tensorOperand_.count(t))
      return hal::fail(where, "tensor ", t, " is listed twice as an input");
    auto o = operandOf(t);
    if (!o.ok()) return hal::fail(where, "input: ", o.error());
    model_.main.inputIndexes.push_back(*o);
  }
  const uint32_t numOps = graph_->operators() ? graph_->operators()->size() : 0;
  for (uint32_t k = 0; k < numOps; ++k) {
    const fb::Operator& op = *graph_->operators()->Get(k);
    const fb::OperatorCode& code = *m.operator_codes()->Get(op.opcode_index());
    const int32_t builtin = std::max<int32_t>(code.deprecated_builtin_code(),
                                              static_cast<int32_t>(code.builtin_code()));
    if (builtin == static_cast<int32_t>(fb::BuiltinOperator::CUSTOM)) {
      const std::string custom = code.custom_code() ? code.custom_code()->str() : "";
      return hal::fail(where, "operator ", k, " (CUSTOM '", custom,
                       "'): custom operators have no "
                       "NNAPI equivalent; nncosim cannot run '",
                       custom, "'");
    }
    const std::string name = builtinName(builtin);
    BuiltinMapper map = builtinMapper(builtin);
    if (!map)
      return hal::fail(where, "operator ", k, " (", name,
                       "): no NNAPI mapping for this builtin "
                       "in nncosim's importer");
    OpContext ctx(*this, k, name, op);
    const size_t firstOperation = model_.main.operations.size();
    if (auto st = map(ctx); !st.ok()) return hal::fail(where, st.error());
    // Later messages (validation, execution) name the TFLite operator as well.
    for (size_t i = firstOperation; i < model_.main.operations.size(); ++i)
      model_.main.operations[i].origin = "TFLite operator " + std::to_string(k) + " (" + name + ")";
    // int16 activations only where nncosim's 16x8 mode defines the operation; anything
    // else is refused here, naming the TFLite operator, rather than later by index of
    // the NNAPI operation it became.
    if (!builtinTakesInt16(builtin))
      for (size_t i = firstOperation; i < model_.main.operations.size(); ++i)
        for (const auto* list :
             {&model_.main.operations[i].inputs, &model_.main.operations[i].outputs})
          for (uint32_t x : *list)
            if (operand(x).type == OperandType::TENSOR_QUANT16_SYMM)
              return hal::fail(where, "operator ", k, " (", name,
                               "): int16 tensors (the 16x8 mode) "
                               "are supported only by CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, "
                               "AVERAGE_POOL_2D, MAX_POOL_2D, ADD, SUB, PAD, PADV2, STRIDED_SLICE, "
                               "LEAKY_RELU, QUANTIZE (int16 <-> int32) and TRANSPOSE_CONV");
  }
  for (int32_t t : *graph_->outputs()) {
    auto o = operandOf(t);
    if (!o.ok()) return hal::fail(where, "output: ", o.error());
    if (operand(*o).lifetime != OperandLifeTime::SUBGRAPH_OUTPUT)
      return hal::fail(where, "output ", tensorName(tensor(t), t), " is not computed by the model");
    model_.main.outputIndexes.push_back(*o);
  }
  if (usesFilePool_) model_.pools.push_back(file_.bytes());
  if (!options_.referenceFile) hal::moveLargeConstantsToPool(model_, options_.poolMinBytes);
  return std::move(model_);
}

// ---- OpContext ----

hal::Status OpContext::checkCounts(size_t minIn, size_t maxIn, size_t outs) const {
  if (numInputs() < minIn || numInputs() > maxIn)
    return fail(numInputs(), " inputs, expected ", minIn == maxIn ? "" : "between ", minIn,
                minIn == maxIn ? "" : " and " + std::to_string(maxIn));
  if (numOutputs() != outs) return fail(numOutputs(), " outputs, expected ", outs);
  return hal::Status::Ok();
}

hal::Result<uint32_t> OpContext::in(size_t i) {
  if (!hasInput(i)) return fail("input ", i, " is missing");
  auto r = im_.operandOf(inputTensor(i));
  if (!r.ok()) return fail("input ", i, ": ", r.error());
  return *r;
}

hal::Result<uint32_t> OpContext::out(size_t i) {
  if (i >= numOutputs()) return fail("output ", i, " is missing");
  auto r = im_.operandOf(outputTensor(i));
  if (!r.ok()) return fail("output ", i, ": ", r.error());
  const hal::Operand& o = im_.operand(*r);
  if (o.lifetime != hal::OperandLifeTime::TEMPORARY_VARIABLE &&
      o.lifetime != hal::OperandLifeTime::SUBGRAPH_OUTPUT)
    return fail("output ", i, ": ", tensorName(im_.tensor(outputTensor(i)), outputTensor(i)),
                " is a constant or a model input");
  return *r;
}

hal::Result<std::vector<int32_t>> OpContext::constInts(size_t i) {
  if (!hasInput(i)) return fail("input ", i, " is missing");
  const int32_t t = inputTensor(i);
  const fb::Tensor& T = im_.tensor(t);
  size_t size = 0;
  const uint8_t* p = im_.constantBytes(t, &size);
  if (!p) return fail("input ", i, " (", tensorName(T, t), ") must be a constant");
  uint64_t n = 1;
  if (T.shape())
    for (int32_t d : *T.shape()) {
      n *= static_cast<uint64_t>(d);  // shapes were checked >= 0
      if (n > (uint64_t{1} << 32)) return fail("input ", i, ": ", n, "+ elements is too many");
    }
  const size_t es = T.type() == fb::TensorType::INT64 ? 8 : 4;
  if (n * es != size)
    return fail("input ", i, " (", tensorName(T, t), "): buffer holds ", size, " bytes for ", n,
                " elements");
  std::vector<int32_t> v;
  if (T.type() == fb::TensorType::INT32) {
    v.resize(size / 4);
    if (!v.empty()) std::memcpy(v.data(), p, v.size() * 4);
  } else if (T.type() == fb::TensorType::INT64) {
    for (size_t k = 0; k + 8 <= size; k += 8) {
      int64_t x;
      std::memcpy(&x, p + k, 8);
      if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max())
        return fail("input ", i, ": value ", x, " does not fit INT32");
      v.push_back(static_cast<int32_t>(x));
    }
  } else {
    return fail("input ", i, " (", tensorName(T, t), "): expected INT32 or INT64, found ",
                typeName(T.type()));
  }
  return v;
}

std::vector<uint32_t> OpContext::outputDims(size_t i) const {
  std::vector<uint32_t> d;
  const fb::Tensor& T = im_.tensor(outputTensor(i));
  if (T.shape())
    for (int32_t x : *T.shape()) d.push_back(static_cast<uint32_t>(x));
  return d;
}

hal::Result<hal::Model> importModel(const TfliteFile& file, const ImportOptions& options) {
  Importer im(file, options);
  return im.run();
}

hal::Result<hal::Model> readTfliteFile(const std::string& path, const ImportOptions& options) {
  NNC_ASSIGN_OR_RETURN(auto f, TfliteFile::openPath(path));
  return importModel(f, options);
}

}  // namespace nncosim::tflite
