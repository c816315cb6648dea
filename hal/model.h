// Operation, Subgraph and Model: the NNAPI HAL model a driver receives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hal/memory_pool.h"
#include "hal/operand.h"
#include "hal/operation_type.h"

namespace nncosim::hal {

struct Operation {
  OperationType type = OperationType::ADD;
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
  // Where the operation came from, for error messages ("TFLite operator 3 (CONV_2D)");
  // empty for operations written as such. Not part of the operation's identity.
  std::string origin = {};
  bool operator==(const Operation& o) const {
    return type == o.type && inputs == o.inputs && outputs == o.outputs;
  }
};

struct Subgraph {
  std::vector<Operand> operands;
  std::vector<Operation> operations;  // in execution order
  std::vector<uint32_t> inputIndexes;
  std::vector<uint32_t> outputIndexes;
  bool operator==(const Subgraph& o) const {
    return operands == o.operands && operations == o.operations && inputIndexes == o.inputIndexes &&
           outputIndexes == o.outputIndexes;
  }
};

struct Model {
  Subgraph main;
  std::vector<Subgraph> referenced;    // SUBGRAPH operands index this
  std::vector<uint8_t> operandValues;  // CONSTANT_COPY data
  std::vector<MemoryPool> pools;       // CONSTANT_POOL data
  bool relaxComputationFloat32toFloat16 = false;
  // nncosim's 16x8 quantization mode (docs/quantization.md section 10): CONV_2D,
  // DEPTHWISE_CONV_2D, GROUPED_CONV_2D and FULLY_CONNECTED also accept TENSOR_QUANT16_SYMM
  // activations with TENSOR_QUANT8_SYMM[_PER_CHANNEL] weights, accumulating in 64 bits as
  // TFLite's 16x8 scheme does; AVERAGE_POOL_2D and MAX_POOL_2D pass int16 through. Off:
  // those signatures are rejected, as NNAPI rejects them.
  bool quant16x8 = false;

  // The subgraph with index -1 = main, else referenced[index].
  const Subgraph& subgraph(int index) const { return index < 0 ? main : referenced.at(index); }
  // Bytes of a constant operand (CONSTANT_COPY or CONSTANT_POOL); nullptr otherwise.
  // Assumes a validated model.
  const uint8_t* constantData(const Operand& o) const;
};

}  // namespace nncosim::hal
