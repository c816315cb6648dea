// An operation's origin (set by importers: "TFLite operator 3 (CONV_2D)") is named in
// every message about it, beside its index in the NNAPI model.
#include <gtest/gtest.h>

#include "hal/model_builder.h"
#include "hal/validation.h"
#include "ops/executor.h"

namespace nncosim::ops {
namespace {

TEST(OperationOrigin, ValidationMessagesNameTheImportedOperator) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t c = b.addInput(hal::OperandType::TENSOR_INT32, {2});  // ADD's inputs must agree
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {2});
  b.addOperation(hal::OperationType::ADD, {a, c, b.addInt32(0)}, {out});
  hal::Model m = b.build();
  m.main.operations[0].origin = "TFLite operator 3 (ADD)";
  const Status st = validateOperations(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("main operation 0 (ADD, TFLite operator 3 (ADD))"), std::string::npos)
      << st.error();
  m.main.operations[0].origin.clear();
  const Status plain = validateOperations(m);
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.error().find("main operation 0 (ADD)"), std::string::npos) << plain.error();
}

}  // namespace
}  // namespace nncosim::ops
