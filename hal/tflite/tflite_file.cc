#include "hal/tflite/tflite_file.h"

#include <cstring>
#include <limits>

#include "tflite_subset_generated.h"

namespace nncosim::tflite {
namespace {

// TFLite's own limit for the number of dimensions of a tensor is far below this; it only
// bounds the work on hostile files.
constexpr uint32_t kMaxRank = 8;

hal::Status checkTensorIndexList(const flatbuffers::Vector<int32_t>* v, size_t tensors,
                                 bool allowMinusOne, const std::string& where) {
  if (!v) return hal::Status::Ok();
  for (uint32_t k = 0; k < v->size(); ++k) {
    const int32_t t = v->Get(k);
    if (allowMinusOne && t == -1) continue;
    if (t < 0 || static_cast<size_t>(t) >= tensors)
      return hal::fail(where, "[", k, "]: tensor index ", t, " outside [0, ", tensors, ")");
  }
  return hal::Status::Ok();
}

hal::Status checkTensor(const fb::Tensor& t, size_t buffers, const std::string& where) {
  if (t.buffer() >= buffers && t.buffer() != 0)  // buffer 0: "no data", even when absent
    return hal::fail(where, ".buffer: index ", t.buffer(), " outside [0, ", buffers, ")");
  const uint32_t rank = t.shape() ? t.shape()->size() : 0;
  if (rank > kMaxRank) return hal::fail(where, ".shape: rank ", rank, " above ", kMaxRank);
  for (uint32_t d = 0; d < rank; ++d)
    if (t.shape()->Get(d) < 0)
      return hal::fail(where, ".shape[", d, "]: dimension ", t.shape()->Get(d), " is negative");
  if (const fb::QuantizationParameters* q = t.quantization()) {
    const uint32_t scales = q->scale() ? q->scale()->size() : 0;
    const uint32_t zps = q->zero_point() ? q->zero_point()->size() : 0;
    if (scales != zps && !(scales > 0 && zps == 1) && !(scales == 0 && zps <= 1))
      return hal::fail(where, ".quantization: ", scales, " scales but ", zps, " zero points");
    // Biases of per-channel layers sometimes name the filter's dimension (3) while
    // having rank 1; the importer checks quantized_dimension where it matters (int8).
    if (q->quantized_dimension() < 0)
      return hal::fail(where, ".quantization.quantized_dimension: ", q->quantized_dimension(),
                       " is negative");
  }
  return hal::Status::Ok();
}

}  // namespace

bool looksLikeTflite(const uint8_t* head, size_t size) {
  return size >= 8 && std::memcmp(head + 4, fb::ModelIdentifier(), 4) == 0;
}

hal::Result<TfliteFile> TfliteFile::open(hal::MemoryPool bytes, const std::string& name) {
  if (bytes.size() < 8 || !looksLikeTflite(bytes.data(), bytes.size()))
    return hal::fail(name, ": not a TFLite model (no \"TFL3\" identifier at byte offset 4)");
  if (bytes.size() >= (size_t{1} << 31))
    return hal::fail(name, ": ", bytes.size(), " bytes; models of 2 GiB or more are not supported");
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!fb::VerifyModelBuffer(verifier))
    return hal::fail(name,
                     ": the flatbuffer does not verify against the TFLite schema "
                     "(truncated file, or an offset, vector or string outside the file)");
  const fb::Model* m = fb::GetModel(bytes.data());
  const size_t buffers = m->buffers() ? m->buffers()->size() : 0;
  const size_t codes = m->operator_codes() ? m->operator_codes()->size() : 0;
  if (!m->subgraphs() || m->subgraphs()->size() == 0)
    return hal::fail(name, ": model has no subgraphs");
  for (uint32_t b = 0; b < buffers; ++b) {
    const fb::Buffer* buf = m->buffers()->Get(b);
    if (buf->offset() > 1) {
      if (buf->data() && buf->data()->size() > 0)
        return hal::fail(name, ": buffers[", b, "]: both inline data and an offset");
      if (buf->offset() > bytes.size() || buf->size() > bytes.size() - buf->offset())
        return hal::fail(name, ": buffers[", b, "]: data at offset ", buf->offset(), " size ",
                         buf->size(), " outside the file (", bytes.size(), " bytes)");
    }
  }
  for (uint32_t s = 0; s < m->subgraphs()->size(); ++s) {
    const fb::SubGraph* g = m->subgraphs()->Get(s);
    const std::string gw = name + ": subgraphs[" + std::to_string(s) + "]";
    const size_t tensors = g->tensors() ? g->tensors()->size() : 0;
    for (uint32_t t = 0; t < tensors; ++t)
      NNC_TRY(
          checkTensor(*g->tensors()->Get(t), buffers, gw + ".tensors[" + std::to_string(t) + "]"));
    NNC_TRY(checkTensorIndexList(g->inputs(), tensors, false, gw + ".inputs"));
    NNC_TRY(checkTensorIndexList(g->outputs(), tensors, false, gw + ".outputs"));
    const uint32_t ops = g->operators() ? g->operators()->size() : 0;
    for (uint32_t o = 0; o < ops; ++o) {
      const fb::Operator* op = g->operators()->Get(o);
      const std::string ow = gw + ".operators[" + std::to_string(o) + "]";
      if (op->opcode_index() >= codes)
        return hal::fail(ow, ".opcode_index: ", op->opcode_index(), " outside [0, ", codes, ")");
      NNC_TRY(checkTensorIndexList(op->inputs(), tensors, true, ow + ".inputs"));
      NNC_TRY(checkTensorIndexList(op->outputs(), tensors, false, ow + ".outputs"));
      NNC_TRY(checkTensorIndexList(op->intermediates(), tensors, true, ow + ".intermediates"));
    }
  }
  TfliteFile f;
  f.bytes_ = std::move(bytes);
  f.model_ = m;
  f.name_ = name;
  return f;
}

hal::Result<TfliteFile> TfliteFile::openPath(const std::string& path) {
  NNC_ASSIGN_OR_RETURN(auto pool, hal::MemoryPool::mapFile(path));
  return open(std::move(pool), path);
}

TfliteFile::Span TfliteFile::bufferData(uint32_t buffer) const {
  if (!model_->buffers() || buffer >= model_->buffers()->size()) return {};
  const fb::Buffer* b = model_->buffers()->Get(buffer);
  if (b->offset() > 1) return {static_cast<size_t>(b->offset()), static_cast<size_t>(b->size())};
  if (!b->data() || b->data()->size() == 0) return {};
  return {static_cast<size_t>(b->data()->data() - bytes_.data()), b->data()->size()};
}

}  // namespace nncosim::tflite
