// IF: runs the then- or else-subgraph on inputs 3.. according to the condition (input 0, a
// TENSOR_BOOL8 [1]); the branch's outputs are the operation's outputs.
#include <string>

#include "ops/control_flow/control_flow.h"

namespace nncosim::ops {
namespace {

using namespace control_flow;

constexpr size_t kCondition = 0;
constexpr size_t kThen = 1;
constexpr size_t kElse = 2;
constexpr size_t kFirstInput = 3;

Status checkBranch(const OperationContext& ctx, size_t input, const char* role) {
  NNC_ASSIGN_OR_RETURN(auto index, subgraphIndex(ctx, input, role));
  const hal::Subgraph& g = ctx.model().referenced[index];
  const size_t inputs = ctx.numInputs() - kFirstInput;
  NNC_CHECK_EQ(g.inputIndexes.size(), inputs, role, " (subgraph ", index, ") has ",
               g.inputIndexes.size(), " inputs, but IF passes it ", inputs, " (inputs 3..",
               ctx.numInputs() - 1, ")");
  NNC_CHECK_EQ(g.outputIndexes.size(), ctx.numOutputs(), role, " (subgraph ", index, ") has ",
               g.outputIndexes.size(), " outputs, but IF has ", ctx.numOutputs());
  for (size_t k = 0; k < inputs; ++k)
    NNC_TRY(checkCompatible(ctx.inputShape(kFirstInput + k),
                            Shape::of(g.operands[g.inputIndexes[k]]),
                            "input " + std::to_string(kFirstInput + k) + " vs " + role + " input " +
                                std::to_string(k)));
  for (size_t k = 0; k < ctx.numOutputs(); ++k)
    NNC_TRY(checkCompatible(
        ctx.outputShape(k), Shape::of(g.operands[g.outputIndexes[k]]),
        "output " + std::to_string(k) + " vs " + role + " output " + std::to_string(k)));
  return Status::Ok();
}

}  // namespace

Status validateIf(const OperationContext& ctx) {
  NNC_CHECK_GE(ctx.numInputs(), 3, "IF needs at least 3 inputs (condition, then, else), found ",
               ctx.numInputs());
  NNC_CHECK_GE(ctx.numOutputs(), 1, "IF needs at least 1 output");
  NNC_CHECK(!ctx.isOmitted(kCondition), "input 0 (condition) must not be omitted");
  NNC_TRY(checkCondition(ctx.inputShape(kCondition), "input 0 (condition)"));
  NNC_TRY(checkBranch(ctx, kThen, "then branch"));
  NNC_TRY(checkBranch(ctx, kElse, "else branch"));
  return Status::Ok();
}

Status prepareIf(OperationContext& ctx) {
  NNC_CHECK_NE(ctx.runner(), nullptr, "IF needs a subgraph runner");
  NNC_CHECK(ctx.hasInputValue(kCondition), "input 0 (condition) has no value");
  const bool condition = ctx.input<uint8_t>(kCondition)[0] != 0;
  const size_t branch = condition ? kThen : kElse;
  const char* role = condition ? "then branch" : "else branch";
  NNC_ASSIGN_OR_RETURN(auto index, subgraphIndex(ctx, branch, role));

  std::vector<hal::TensorValue> inputs, outputs;
  for (size_t i = kFirstInput; i < ctx.numInputs(); ++i) inputs.push_back(inputValue(ctx, i));
  if (Status st = ctx.runner()->runSubgraph(index, inputs, outputs); !st.ok())
    return hal::fail(role, ": ", st.error());
  NNC_CHECK_EQ(outputs.size(), ctx.numOutputs(), role, " produced ", outputs.size(),
               " outputs, IF has ", ctx.numOutputs());
  for (size_t k = 0; k < outputs.size(); ++k) NNC_TRY(storeOutput(ctx, k, outputs[k], role));
  return Status::Ok();
}

}  // namespace nncosim::ops
