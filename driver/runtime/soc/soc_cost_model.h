// The ISA model's timing for a simulated SoC: the interpreter's cost model is calibrated
// against the default SoC, so its DRAM latency moves by the SoC's change, and its bandwidth
// and read order (ARQOS or request order) are the SoC's. The ISA backend simulates with
// it, and the compiler of either backend plans with it: a driver is tuned for the memory
// system of its SoC, so a sweep over DRAM settings sees the plans a driver would choose
// there, not the default SoC's plans run on slower memory.
#pragma once

#include "driver/isa_model/isa_interpreter.h"
#include "sim/soc_config.h"

namespace nncosim::driver {

CostModel costModelFor(const sim::SocConfig& soc);

}  // namespace nncosim::driver
