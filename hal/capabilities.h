// Capabilities, ExecutionPreference, Request and error status of the HAL-like driver API.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "hal/operand_type.h"

namespace nncosim::hal {

// Relative cost of a driver against the CPU: lower is better, as in NNAPI.
struct PerformanceInfo {
  float execTime = 1.0f;    // time relative to the CPU reference
  float powerUsage = 1.0f;  // energy relative to the CPU reference
};

struct OperandPerformance {
  OperandType type;
  PerformanceInfo info;
};

struct Capabilities {
  PerformanceInfo relaxedFloat32toFloat16PerformanceScalar;
  PerformanceInfo relaxedFloat32toFloat16PerformanceTensor;
  PerformanceInfo float32Performance;
  PerformanceInfo quantized8Performance;
  std::vector<OperandPerformance> operandPerformance;  // one per OperandType
  PerformanceInfo ifPerformance;
  PerformanceInfo whilePerformance;
};

enum class ExecutionPreference : int32_t {
  LOW_POWER = 0,
  FAST_SINGLE_ANSWER = 1,
  SUSTAINED_SPEED = 2,
};
std::string_view toString(ExecutionPreference p);

enum class ErrorStatus : int32_t {
  NONE = 0,
  DEVICE_UNAVAILABLE = 1,
  GENERAL_FAILURE = 2,
  OUTPUT_INSUFFICIENT_SIZE = 3,
  INVALID_ARGUMENT = 4,
  MISSED_DEADLINE_TRANSIENT = 5,
  MISSED_DEADLINE_PERSISTENT = 6,
  RESOURCE_EXHAUSTED_TRANSIENT = 7,
  RESOURCE_EXHAUSTED_PERSISTENT = 8,
};
std::string_view toString(ErrorStatus s);

// The dimensions an execution produced for one output, and whether the caller's
// buffer was large enough.
struct OutputShape {
  std::vector<uint32_t> dimensions;
  bool isSufficient = true;
};

}  // namespace nncosim::hal
