#include "ops/executor.h"

#include <atomic>

#include "ops/registry.h"

namespace nncosim::ops {
namespace {

std::string sgName(int index) {
  return index < 0 ? std::string("main") : "referenced[" + std::to_string(index) + "]";
}

// "main operation 7 (CONV_2D)", or with its origin: "(CONV_2D, TFLite operator 3 (CONV_2D))".
std::string opWhere(const std::string& sg, size_t k, const hal::Operation& op) {
  return sg + " operation " + std::to_string(k) + " (" + std::string(hal::toString(op.type)) +
         (op.origin.empty() ? "" : ", " + op.origin) + ")";
}

}  // namespace

std::vector<RuntimeOperand> bindConstants(const hal::Model& model, const hal::Subgraph& g) {
  std::vector<RuntimeOperand> ops(g.operands.size());
  for (size_t i = 0; i < g.operands.size(); ++i) {
    const hal::Operand& o = g.operands[i];
    RuntimeOperand& r = ops[i];
    r.shape = Shape::of(o);
    switch (o.lifetime) {
      case hal::OperandLifeTime::CONSTANT_COPY:
      case hal::OperandLifeTime::CONSTANT_POOL:
        r.data = model.constantData(o);
        r.constant = true;
        break;
      case hal::OperandLifeTime::NO_VALUE:
        r.omitted = true;
        break;
      case hal::OperandLifeTime::SUBGRAPH: {
        const uint32_t index = o.location.offset;
        r.storage.resize(4);
        std::memcpy(r.storage.data(), &index, 4);
        r.data = r.storage.data();
        r.constant = true;
        break;
      }
      default:
        break;
    }
  }
  return ops;
}

// An omitted input (NO_VALUE, or an empty model input) that the operation's validate and
// prepare never asked about is one it requires. Checked at execution only: some
// operations ask in prepare, which validation does not run.
Status checkOmittedInputs(const OperationContext& ctx, const std::vector<RuntimeOperand>& operands,
                          const hal::Operation& op) {
  for (size_t j = 0; j < op.inputs.size(); ++j)
    if (operands[op.inputs[j]].omitted && !ctx.presenceAsked(j))
      return hal::fail("input ", j, " (operand ", op.inputs[j], ") has no value, but ",
                       hal::toString(op.type), " requires it");
  return Status::Ok();
}

Status bindInput(const hal::TensorValue& v, RuntimeOperand& r, const std::string& where) {
  const auto& declared = r.shape.dimensions;
  if (!declared.empty() && !v.dimensions.empty()) {
    if (declared.size() != v.dimensions.size())
      return hal::fail(where, ": rank ", v.dimensions.size(), " but declared ", toString(declared));
    for (size_t d = 0; d < declared.size(); ++d)
      if (declared[d] != 0 && declared[d] != v.dimensions[d])
        return hal::fail(where, ": dimensions ", toString(v.dimensions), " disagree with declared ",
                         toString(declared));
  }
  if (!v.dimensions.empty() || hal::isScalar(r.shape.type)) r.shape.dimensions = v.dimensions;
  hal::Operand probe;
  probe.type = r.shape.type;
  probe.dimensions = r.shape.dimensions;
  if (!hal::fullySpecified(probe))
    return hal::fail(where, ": dimensions ", toString(r.shape.dimensions),
                     " are not fully specified");
  if (v.bytes.size() != r.shape.bytes())
    return hal::fail(where, ": ", v.bytes.size(), " bytes given, shape ",
                     toString(r.shape.dimensions), " of ", hal::toString(r.shape.type), " needs ",
                     r.shape.bytes());
  r.data = v.bytes.data();
  return Status::Ok();
}

namespace {
std::atomic<uint64_t> declaredValidations{0}, actualValidations{0};
}  // namespace

Status validateSignature(const OperationDef& def, const OperationContext& ctx) {
  ++(ctx.executing() ? actualValidations : declaredValidations);
  return def.validate(ctx);
}

SignatureValidations signatureValidations() {
  return {declaredValidations.load(), actualValidations.load()};
}

Status validateOperations(const hal::Model& model) {
  const auto& table = operationTable();
  for (int s = -1; s < static_cast<int>(model.referenced.size()); ++s) {
    const hal::Subgraph& g = model.subgraph(s);
    auto operands = bindConstants(model, g);
    for (size_t k = 0; k < g.operations.size(); ++k) {
      const hal::Operation& op = g.operations[k];
      const OperationDef* def = table.find(op.type);
      if (!def) return hal::fail(opWhere(sgName(s), k, op), ": operation is not implemented");
      OperationContext ctx(model, op, operands, /*executing=*/false);
      if (Status st = validateSignature(*def, ctx); !st.ok())
        return hal::fail(opWhere(sgName(s), k, op), ": ", st.error());
    }
  }
  return Status::Ok();
}

std::optional<hal::OperationType> firstUnsupportedOperation(const hal::Model& model) {
  const auto& table = operationTable();
  for (int s = -1; s < static_cast<int>(model.referenced.size()); ++s)
    for (const auto& op : model.subgraph(s).operations)
      if (!table.find(op.type)) return op.type;
  return std::nullopt;
}

Status Executor::run(const std::vector<hal::TensorValue>& inputs,
                     std::vector<hal::TensorValue>& outputs) {
  depth_ = 0;
  return runGraph(model_.main, "main", inputs, outputs);
}

Status Executor::runSubgraph(uint32_t index, const std::vector<hal::TensorValue>& inputs,
                             std::vector<hal::TensorValue>& outputs) {
  if (index >= model_.referenced.size())
    return hal::fail("subgraph ", index, " does not exist (", model_.referenced.size(),
                     " referenced)");
  if (depth_ >= options_.maxSubgraphDepth)
    return hal::fail("subgraph nesting deeper than ", options_.maxSubgraphDepth);
  ++depth_;
  Status st = runGraph(model_.referenced[index], sgName(static_cast<int>(index)), inputs, outputs);
  --depth_;
  return st;
}

Status Executor::runGraph(const hal::Subgraph& g, const std::string& name,
                          const std::vector<hal::TensorValue>& inputs,
                          std::vector<hal::TensorValue>& outputs) {
  if (inputs.size() != g.inputIndexes.size())
    return hal::fail(name, ": ", inputs.size(), " inputs given, the subgraph has ",
                     g.inputIndexes.size());
  auto operands = bindConstants(model_, g);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const hal::TensorValue& v = inputs[k];
    RuntimeOperand& r = operands[g.inputIndexes[k]];
    if (v.omitted) {
      r.omitted = true;
      continue;
    }
    NNC_TRY(bindInput(v, r, name + " input " + std::to_string(k)));
  }

  const auto& table = operationTable();
  for (size_t k = 0; k < g.operations.size(); ++k) {
    const hal::Operation& op = g.operations[k];
    const OperationDef* def = table.find(op.type);
    if (!def) return hal::fail(opWhere(name, k, op), ": operation is not implemented");
    for (size_t j = 0; j < op.inputs.size(); ++j) {
      const RuntimeOperand& r = operands[op.inputs[j]];
      if (!r.omitted && !r.hasValue())
        return hal::fail(opWhere(name, k, op), ": input ", j, " (operand ", op.inputs[j],
                         ") has no value");
    }
    OperationContext ctx(model_, op, operands, /*executing=*/true, this);
    if (Status st = validateSignature(*def, ctx); !st.ok())
      return hal::fail(opWhere(name, k, op), ": ", st.error());
    if (Status st = def->prepare(ctx); !st.ok())
      return hal::fail(opWhere(name, k, op), ": ", st.error());
    if (Status st = checkOmittedInputs(ctx, operands, op); !st.ok())
      return hal::fail(opWhere(name, k, op), ": ", st.error());
    for (size_t j = 0; j < op.outputs.size(); ++j) {
      const RuntimeOperand& r = operands[op.outputs[j]];
      if (!r.hasValue() || r.data != r.storage.data())
        return hal::fail(opWhere(name, k, op), ": prepare did not set the shape of output ", j);
    }
    if (Status st = def->execute(ctx); !st.ok())
      return hal::fail(opWhere(name, k, op), ": ", st.error());
  }

  outputs.clear();
  for (size_t k = 0; k < g.outputIndexes.size(); ++k) {
    const RuntimeOperand& r = operands[g.outputIndexes[k]];
    hal::TensorValue v;
    v.type = r.shape.type;
    v.dimensions = r.shape.dimensions;
    if (r.omitted || !r.hasValue()) return hal::fail(name, " output ", k, " was never produced");
    if (r.data) v.bytes.assign(r.data, r.data + r.shape.bytes());
    outputs.push_back(std::move(v));
  }
  return Status::Ok();
}

}  // namespace nncosim::ops
