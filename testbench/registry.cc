#include "testbench/testbench.h"

namespace nncosim::testbench {

std::map<std::string, TestbenchDef>& testbenchRegistry() {
  static std::map<std::string, TestbenchDef> registry;  // built before first use
  return registry;
}

}  // namespace nncosim::testbench
