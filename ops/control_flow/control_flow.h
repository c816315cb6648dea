// IF and WHILE, and what they share: reading SUBGRAPH operands, checking that a referenced
// subgraph's inputs and outputs match the operation's operands, and moving values in and
// out of subgraph runs.
//
// Both operations produce their outputs in prepare: the output shapes are only known once
// the subgraphs have run (a branch or a loop body may output tensors of unknown or growing
// size), so prepare runs them and stores the values; execute has nothing left to do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hal/tensor_value.h"
#include "ops/operation.h"

namespace nncosim::ops {

Status validateIf(const OperationContext& ctx);
Status prepareIf(OperationContext& ctx);
Status validateWhile(const OperationContext& ctx);
Status prepareWhile(OperationContext& ctx);
// The values were stored by prepare.
Status executeControlFlow(OperationContext& ctx);

namespace control_flow {

// The referenced subgraph named by input i (a SUBGRAPH operand with a value).
Result<uint32_t> subgraphIndex(const OperationContext& ctx, size_t i, const char* role);

// NNAPI's operand compatibility between an operation operand and a subgraph's input or
// output: same type, scale, zero point and per-channel parameters; same rank and equal
// dimensions wherever both are known. `what` names the pair in the error.
Status checkCompatible(const Shape& outer, const Shape& inner, const std::string& what);

// The condition operand of IF / the output of a WHILE condition: a TENSOR_BOOL8 [1].
Status checkCondition(const Shape& s, const std::string& what);

// The value of input i, to pass into a subgraph.
hal::TensorValue inputValue(const OperationContext& ctx, size_t i);

// Sets output i's shape from a subgraph's output value and stores its bytes.
Status storeOutput(OperationContext& ctx, size_t i, const hal::TensorValue& v,
                   const std::string& what);

}  // namespace control_flow
}  // namespace nncosim::ops
