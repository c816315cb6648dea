// A TensorFlow Lite flatbuffer ("TFL3"), verified and range-checked, ready to import.
//
// Opening a file runs flatbuffers::Verifier over the whole buffer first (every offset,
// vector and string inside the bytes), then checks what the verifier cannot know: every
// tensor, buffer, operator-code and subgraph input/output index is in range, shapes are
// non-negative, quantization vectors agree in length, and buffer data lies in the file.
// After that the importer may index without checking again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "hal/memory_pool.h"
#include "hal/result.h"

namespace nncosim::tflite {

namespace fb {
struct Model;
}

// True when `head` (the first bytes of a file) carries the TFLite identifier "TFL3" at
// byte offset 4.
bool looksLikeTflite(const uint8_t* head, size_t size);

class TfliteFile {
 public:
  // Verifies and checks `bytes`; `name` (usually the path) prefixes every error.
  static hal::Result<TfliteFile> open(hal::MemoryPool bytes, const std::string& name);
  // Maps the file and opens it.
  static hal::Result<TfliteFile> openPath(const std::string& path);

  const fb::Model& model() const { return *model_; }
  const hal::MemoryPool& bytes() const { return bytes_; }
  const std::string& name() const { return name_; }
  // Where a buffer's data lies in bytes() (inline vector or the >2 GB offset/size form);
  // size 0 when the buffer is empty. The index was range-checked by open().
  struct Span {
    size_t offset = 0;
    size_t size = 0;
  };
  Span bufferData(uint32_t buffer) const;

 private:
  hal::MemoryPool bytes_;
  const fb::Model* model_ = nullptr;
  std::string name_;
};

}  // namespace nncosim::tflite
