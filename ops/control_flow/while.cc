// WHILE: inputs 0 and 1 are the condition and body subgraphs, then m loop-carried
// (input-output) values, k state-only values and n input-only values; the operation has
// the m outputs. The condition maps all m + k + n values to a TENSOR_BOOL8 [1]; the body
// maps them to m + k new loop-carried and state values, which may change shape from one
// iteration to the next. The outputs are the loop-carried values once the condition is
// false (the inputs themselves when it is false at once).
#include <string>

#include "ops/control_flow/control_flow.h"
#include "ops/executor.h"

namespace nncosim::ops {
namespace {

using namespace control_flow;

constexpr size_t kCondition = 0;
constexpr size_t kBody = 1;
constexpr size_t kFirstInput = 2;

// The bound on body runs: the executor's option, or its default for other runners.
uint64_t maxIterations(const OperationContext& ctx) {
  if (const auto* executor = dynamic_cast<const Executor*>(ctx.runner()))
    return executor->options().maxWhileIterations;
  return ExecutionOptions{}.maxWhileIterations;
}

// "<a> i vs <b> j", naming a pair of operands in errors.
std::string pair(const char* a, size_t i, const char* b, size_t j) {
  return a + std::to_string(i) + " vs " + b + std::to_string(j);
}

Status checkConditionModel(const OperationContext& ctx, uint32_t index) {
  const hal::Subgraph& g = ctx.model().referenced[index];
  const size_t values = ctx.numInputs() - kFirstInput;
  NNC_CHECK_EQ(g.inputIndexes.size(), values, "condition (subgraph ", index, ") has ",
               g.inputIndexes.size(), " inputs, but WHILE passes it ", values, " (inputs 2..",
               ctx.numInputs() - 1, ")");
  NNC_CHECK_EQ(g.outputIndexes.size(), 1, "condition (subgraph ", index, ") has ",
               g.outputIndexes.size(), " outputs, expected 1");
  for (size_t k = 0; k < values; ++k)
    NNC_TRY(checkCompatible(ctx.inputShape(kFirstInput + k),
                            Shape::of(g.operands[g.inputIndexes[k]]),
                            pair("input ", kFirstInput + k, "condition input ", k)));
  return checkCondition(Shape::of(g.operands[g.outputIndexes[0]]), "condition output 0");
}

Status checkBodyModel(const OperationContext& ctx, uint32_t index) {
  const hal::Subgraph& g = ctx.model().referenced[index];
  const size_t values = ctx.numInputs() - kFirstInput;
  const size_t m = ctx.numOutputs();
  NNC_CHECK_EQ(g.inputIndexes.size(), values, "body (subgraph ", index, ") has ",
               g.inputIndexes.size(), " inputs, but WHILE passes it ", values, " (inputs 2..",
               ctx.numInputs() - 1, ")");
  NNC_CHECK_GE(g.outputIndexes.size(), m, "body (subgraph ", index, ") has ",
               g.outputIndexes.size(), " outputs, fewer than the ", m,
               " loop-carried values WHILE outputs");
  NNC_CHECK_LE(g.outputIndexes.size(), values, "body (subgraph ", index, ") has ",
               g.outputIndexes.size(), " outputs, more than its ", values, " inputs");
  for (size_t k = 0; k < values; ++k)
    NNC_TRY(checkCompatible(ctx.inputShape(kFirstInput + k),
                            Shape::of(g.operands[g.inputIndexes[k]]),
                            pair("input ", kFirstInput + k, "body input ", k)));
  for (size_t k = 0; k < m; ++k)
    NNC_TRY(checkCompatible(ctx.outputShape(k), Shape::of(g.operands[g.outputIndexes[k]]),
                            pair("output ", k, "body output ", k)));
  // Body outputs feed back into the body's own inputs.
  for (size_t k = 0; k < g.outputIndexes.size(); ++k)
    NNC_TRY(checkCompatible(Shape::of(g.operands[g.inputIndexes[k]]),
                            Shape::of(g.operands[g.outputIndexes[k]]),
                            pair("body input ", k, "body output ", k)));
  return Status::Ok();
}

}  // namespace

Status validateWhile(const OperationContext& ctx) {
  NNC_CHECK_GE(ctx.numInputs(), 3,
               "WHILE needs at least 3 inputs (condition, body, one loop-carried value), found ",
               ctx.numInputs());
  NNC_CHECK_GE(ctx.numOutputs(), 1, "WHILE needs at least 1 output");
  NNC_ASSIGN_OR_RETURN(auto cond, subgraphIndex(ctx, kCondition, "condition"));
  NNC_TRY(checkConditionModel(ctx, cond));
  NNC_ASSIGN_OR_RETURN(auto body, subgraphIndex(ctx, kBody, "body"));
  NNC_TRY(checkBodyModel(ctx, body));
  return Status::Ok();
}

Status prepareWhile(OperationContext& ctx) {
  NNC_CHECK_NE(ctx.runner(), nullptr, "WHILE needs a subgraph runner");
  NNC_ASSIGN_OR_RETURN(auto cond, subgraphIndex(ctx, kCondition, "condition"));
  NNC_ASSIGN_OR_RETURN(auto body, subgraphIndex(ctx, kBody, "body"));
  const size_t carried = ctx.model().referenced[body].outputIndexes.size();  // m + k
  const uint64_t limit = maxIterations(ctx);

  std::vector<hal::TensorValue> values, outputs;
  for (size_t i = kFirstInput; i < ctx.numInputs(); ++i) values.push_back(inputValue(ctx, i));
  for (uint64_t iteration = 0;; ++iteration) {
    if (Status st = ctx.runner()->runSubgraph(cond, values, outputs); !st.ok())
      return hal::fail("condition, iteration ", iteration, ": ", st.error());
    NNC_CHECK(outputs.size() == 1 && outputs[0].type == OperandType::TENSOR_BOOL8 &&
                  outputs[0].bytes.size() == 1,
              "condition, iteration ", iteration, ": expected one TENSOR_BOOL8 [1] output");
    if (outputs[0].bytes[0] == 0) break;
    if (iteration == limit)
      return hal::fail("the loop did not end within ", limit,
                       " iterations (ExecutionOptions::maxWhileIterations)");
    if (Status st = ctx.runner()->runSubgraph(body, values, outputs); !st.ok())
      return hal::fail("body, iteration ", iteration, ": ", st.error());
    NNC_CHECK_EQ(outputs.size(), carried, "body, iteration ", iteration, ": produced ",
                 outputs.size(), " outputs, expected ", carried);
    for (size_t k = 0; k < carried; ++k) {
      NNC_CHECK_EQ(outputs[k].type, values[k].type, "body, iteration ", iteration, ": output ", k,
                   " is ", hal::toString(outputs[k].type), ", the loop value is ",
                   hal::toString(values[k].type));
      values[k] = std::move(outputs[k]);
    }
  }
  for (size_t k = 0; k < ctx.numOutputs(); ++k) NNC_TRY(storeOutput(ctx, k, values[k], "WHILE"));
  return Status::Ok();
}

}  // namespace nncosim::ops
