// The NPU lowering table: one entry per operation type the NPU can run, the way ops/
// registers its operations (ops/registry.h). Each lowering family registers its entries
// (registerConvLowerings in conv_lowering.cc, ...); partitioning and lowering read the
// table, and nothing else in the compiler switches over operation types.
#pragma once

#include <array>
#include <cstdint>

#include "driver/compiler/compiled_step.h"
#include "driver/compiler/lowering.h"
#include "driver/compiler/lowering_internal.h"
#include "hal/model.h"
#include "hal/operation_type.h"
#include "hal/result.h"

namespace nncosim::driver {

// Where an operation's step runs.
enum class NpuUnit {
  kMacArray,            // GEMMs on the MAC array
  kDepthwiseUnit,       // DWCONVs on the depthwise unit beside it
  kArrayOrDepthwise,    // either, by the mapping the cost model picks
  kDensifyUnit,         // the DENSIFY unit
  kEltwiseUnit,         // ELTWISE on the elementwise unit
  kPoolingUnit,         // POOL on the pooling unit
  kDepthwiseOrPooling,  // DWCONV where the depthwise unit takes it, else POOL
  kHybrid,              // matrix products on the MAC array, the rest in the step's host epilogue
};
const char* toString(NpuUnit unit);

struct NpuLowering {
  hal::OperationType type = hal::OperationType::ADD;
  NpuUnit unit = NpuUnit::kMacArray;
  // Ok when this operation (its shapes known, its signature valid) can run on the NPU;
  // else the reason it stays on the CPU.
  hal::Status (*support)(const internal::OpView& v) = nullptr;
  hal::Result<CompiledStep> (*lower)(const hal::Model& model, uint32_t index,
                                     const internal::OpView& v,
                                     const LoweringOptions& options) = nullptr;
};

class NpuLoweringTable {
 public:
  // Registering a type twice is a programming error (aborts).
  void add(const NpuLowering& lowering);
  // nullptr when the operation has no NPU mapping.
  const NpuLowering* find(hal::OperationType type) const;

 private:
  std::array<NpuLowering, hal::kNumOperationTypes> entries_{};
  std::array<bool, hal::kNumOperationTypes> present_{};
};

// Every NPU lowering, built on first use.
const NpuLoweringTable& npuLoweringTable();

// Family registration functions, one per lowering file.
void registerConvLowerings(NpuLoweringTable& t);
void registerMatmulLowerings(NpuLoweringTable& t);
void registerDensifyLowerings(NpuLoweringTable& t);
void registerLstmLowerings(NpuLoweringTable& t);
void registerEltwiseLowerings(NpuLoweringTable& t);
void registerPoolLowerings(NpuLoweringTable& t);

}  // namespace nncosim::driver
