// The recurrent family's tests build their one-operation models with the shared
// OneOpModel (tests/util/one_op_model.h): tensors as model inputs, parameters as
// constants, omitted operands as NO_VALUE; validated and run through the Executor as the
// driver would.
#pragma once

#include <gtest/gtest.h>

#include "tests/util/one_op_model.h"

namespace nncosim::ops::recurrent_test {

using hal::OperandType;
using hal::OperationType;
using OneOp = test_util::OneOpModel;

}  // namespace nncosim::ops::recurrent_test
