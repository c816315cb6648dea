// Executor: runs a Model on the software reference, operation by operation, in the
// order the model lists them. IF and WHILE run referenced subgraphs through it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hal/model.h"
#include "hal/tensor_value.h"
#include "ops/operation.h"

namespace nncosim::ops {

struct ExecutionOptions {
  // A WHILE loop that runs more iterations than this fails the execution (NNAPI
  // bounds loops by a timeout; an iteration count is deterministic).
  uint64_t maxWhileIterations = 100000;
  // Nesting limit for IF/WHILE bodies calling further subgraphs.
  int maxSubgraphDepth = 64;
};

// Runs every operation's validate() over every subgraph with the declared shapes and
// the constant values. Errors name the subgraph, operation index and type.
Status validateOperations(const hal::Model& model);
// Every call of an operation's validate() goes through here, counted: `declared` with the
// model's declared shapes (validateOperations, once per preparation), `actual` with an
// execution's shapes (the executors check each operation again before its prepare(), as
// shapes may only be known then). Tests read the counts to hold the driver to one
// signature check per operation per preparation.
Status validateSignature(const OperationDef& def, const OperationContext& ctx);
struct SignatureValidations {
  uint64_t declared = 0, actual = 0;
};
SignatureValidations signatureValidations();
// Binds a request value (not omitted) to a model input: its dimensions must agree with the
// declared ones and fill a fully specified shape exactly. Errors start with `where`.
Status bindInput(const hal::TensorValue& v, RuntimeOperand& r, const std::string& where);
// After an operation's validate and prepare at execution: an omitted input that neither
// asked about (isOmitted, hasInputValue) is one the operation requires; the error names it.
Status checkOmittedInputs(const OperationContext& ctx, const std::vector<RuntimeOperand>& operands,
                          const hal::Operation& op);

// The first operation type, in any subgraph, that has no implementation.
std::optional<hal::OperationType> firstUnsupportedOperation(const hal::Model& model);

class Executor : public SubgraphRunner {
 public:
  explicit Executor(const hal::Model& model, ExecutionOptions options = {})
      : model_(model), options_(options) {}

  // Runs the main subgraph. `inputs` follow main.inputIndexes; `outputs` receives one
  // value per main.outputIndexes with its actual dimensions.
  Status run(const std::vector<hal::TensorValue>& inputs, std::vector<hal::TensorValue>& outputs);

  Status runSubgraph(uint32_t index, const std::vector<hal::TensorValue>& inputs,
                     std::vector<hal::TensorValue>& outputs) override;

  const ExecutionOptions& options() const { return options_; }

 private:
  Status runGraph(const hal::Subgraph& g, const std::string& name,
                  const std::vector<hal::TensorValue>& inputs,
                  std::vector<hal::TensorValue>& outputs);

  const hal::Model& model_;
  ExecutionOptions options_;
  int depth_ = 0;
};

// Builds the runtime operands of a subgraph with constants bound (shared with the
// driver, which runs single steps).
std::vector<RuntimeOperand> bindConstants(const hal::Model& model, const hal::Subgraph& g);

}  // namespace nncosim::ops
