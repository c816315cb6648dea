#include "hal/capabilities.h"

namespace nncosim::hal {

std::string_view toString(ExecutionPreference p) {
  switch (p) {
    case ExecutionPreference::LOW_POWER:
      return "LOW_POWER";
    case ExecutionPreference::FAST_SINGLE_ANSWER:
      return "FAST_SINGLE_ANSWER";
    case ExecutionPreference::SUSTAINED_SPEED:
      return "SUSTAINED_SPEED";
  }
  return "<bad ExecutionPreference>";
}

std::string_view toString(ErrorStatus s) {
  switch (s) {
    case ErrorStatus::NONE:
      return "NONE";
    case ErrorStatus::DEVICE_UNAVAILABLE:
      return "DEVICE_UNAVAILABLE";
    case ErrorStatus::GENERAL_FAILURE:
      return "GENERAL_FAILURE";
    case ErrorStatus::OUTPUT_INSUFFICIENT_SIZE:
      return "OUTPUT_INSUFFICIENT_SIZE";
    case ErrorStatus::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case ErrorStatus::MISSED_DEADLINE_TRANSIENT:
      return "MISSED_DEADLINE_TRANSIENT";
    case ErrorStatus::MISSED_DEADLINE_PERSISTENT:
      return "MISSED_DEADLINE_PERSISTENT";
    case ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT:
      return "RESOURCE_EXHAUSTED_TRANSIENT";
    case ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT:
      return "RESOURCE_EXHAUSTED_PERSISTENT";
  }
  return "<bad ErrorStatus>";
}

}  // namespace nncosim::hal
