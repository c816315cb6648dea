#include "driver/compiler/partitioner.h"

#include <sstream>

#include "driver/compiler/lowering.h"
#include "driver/compiler/lowering_table.h"

namespace nncosim::driver {

bool isHybrid(hal::OperationType type) {
  const NpuLowering* l = npuLoweringTable().find(type);
  return l && l->unit == NpuUnit::kHybrid;
}

int Partition::npuOperations() const {
  int n = 0;
  for (const OperationPlacement& p : operations) n += p.target == Target::kNpu;
  return n;
}

int Partition::cpuOperations() const {
  return static_cast<int>(operations.size()) - npuOperations();
}

std::string Partition::describe() const {
  std::ostringstream os;
  for (const OperationPlacement& p : operations) {
    os << "#" << p.operation << " " << hal::toString(p.type) << "  ";
    if (p.target == Target::kNpu) {
      os << "npu (" << toString(npuLoweringTable().find(p.type)->unit) << ")";
    } else {
      os << "cpu: " << p.reason;
    }
    os << "\n";
  }
  os << npuOperations() << " on the NPU, " << cpuOperations() << " on the CPU";
  return os.str();
}

Partition partition(const hal::Model& model, const NpuConfig& npu) {
  return partition(model, declaredShapes(model), npu);
}

Partition partition(const hal::Model& model, const std::vector<ops::Shape>& shapes,
                    const NpuConfig& npu) {
  Partition part;
  for (uint32_t i = 0; i < model.main.operations.size(); ++i) {
    OperationPlacement p;
    p.operation = i;
    p.type = model.main.operations[i].type;
    hal::Status st = npuSupport(model, i, shapes, npu);
    if (st.ok()) {
      p.target = Target::kNpu;
      p.engine = npuLoweringTable().find(p.type)->unit == NpuUnit::kDensifyUnit
                     ? ops::Placement::kDensifyUnit
                     : ops::Placement::kMacArray;
    } else {
      p.reason = st.error();
    }
    part.operations.push_back(std::move(p));
  }
  return part;
}

}  // namespace nncosim::driver
