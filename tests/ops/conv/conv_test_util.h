// The conv family's tests build their one-operation models with the shared OneOpModel
// (tests/util/one_op_model.h): tensors fed as inputs, parameters as constants, run
// through validateOperations and the Executor as the driver would.
#pragma once

#include <gtest/gtest.h>

#include "tests/util/one_op_model.h"

namespace nncosim::ops::conv_test {

using hal::OperandType;
using hal::OperationType;
using OneOp = test_util::OneOpModel;

}  // namespace nncosim::ops::conv_test
