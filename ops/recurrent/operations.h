// The recurrent operations, one factory per operation (register.cc adds them).
#pragma once

#include "ops/operation.h"

namespace nncosim::ops::recurrent {

OperationDef lstmOperation();
OperationDef unidirectionalSequenceLstmOperation();
OperationDef bidirectionalSequenceLstmOperation();
OperationDef rnnOperation();
OperationDef unidirectionalSequenceRnnOperation();
OperationDef bidirectionalSequenceRnnOperation();
OperationDef svdfOperation();
OperationDef quantized16BitLstmOperation();
OperationDef quantizedLstmOperation();

}  // namespace nncosim::ops::recurrent
