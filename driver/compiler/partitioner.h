// Partitioning: for each operation of a model's main subgraph, NPU or CPU, and why.
//
// On the NPU (docs/driver.md):
//   MAC array     CONV_2D, DEPTHWISE_CONV_2D, GROUPED_CONV_2D, FULLY_CONNECTED with
//                 TENSOR_QUANT8_ASYMM[_SIGNED] data (per-channel
//                 TENSOR_QUANT8_SYMM_PER_CHANNEL filters too), constant bias (FULLY_CONNECTED
//                 also takes runtime weights, e.g. from a DENSIFY), constant filters otherwise,
//                 any fused activation; BATCH_MATMUL on TENSOR_QUANT8_ASYMM_SIGNED.
//   densify unit  DENSIFY of every element type, with constant sparsity metadata.
//   hybrid        QUANTIZED_16BIT_LSTM and QUANTIZED_LSTM with constant weights and
//                 parameters: the gate products on the MAC array (int16 / int32 outputs
//                 of the requant unit), the cell on the CPU (ops/recurrent's cell phase,
//                 the reference's own code) in the same step; runtime weights -> CPU.
// Everything else, and any of the above whose shapes are not fully known, whose
// parameters are not constant, or whose signature the reference rejects, runs on the CPU
// (the reference), with the reason in the report. Operations of referenced subgraphs
// (IF / WHILE bodies) run with their control-flow operation on the CPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/isa_model/npu_config.h"
#include "hal/model.h"
#include "ops/operation.h"
#include "ops/shape.h"

namespace nncosim::driver {

enum class Target { kNpu, kCpu };

// Operations whose NPU step is hybrid: matrix products on the NPU, the rest on the host.
bool isHybrid(hal::OperationType type);

struct OperationPlacement {
  uint32_t operation = 0;  // index in the main subgraph
  hal::OperationType type = hal::OperationType::ADD;
  Target target = Target::kCpu;
  ops::Placement engine = ops::Placement::kReferenceOnly;
  std::string reason;  // why it stays on the CPU (empty for NPU operations)
};

struct Partition {
  std::vector<OperationPlacement> operations;
  int npuOperations() const;
  int cpuOperations() const;
  // One line per operation: "#3 CONV_2D  npu (MAC array)" / "#4 SOFTMAX  cpu: ...".
  std::string describe() const;
};

// With the model's declared shapes.
Partition partition(const hal::Model& model, const NpuConfig& npu = {});
// With explicit shapes, one per main-subgraph operand (e.g. after shape inference).
Partition partition(const hal::Model& model, const std::vector<ops::Shape>& shapes,
                    const NpuConfig& npu = {});

}  // namespace nncosim::driver
