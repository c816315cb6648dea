// Registers the recurrent operations.
#include "ops/recurrent/operations.h"
#include "ops/registry.h"

namespace nncosim::ops {

void registerRecurrentOperations(OperationTable& t) {
  t.add(recurrent::lstmOperation());
  t.add(recurrent::unidirectionalSequenceLstmOperation());
  t.add(recurrent::bidirectionalSequenceLstmOperation());
  t.add(recurrent::rnnOperation());
  t.add(recurrent::unidirectionalSequenceRnnOperation());
  t.add(recurrent::bidirectionalSequenceRnnOperation());
  t.add(recurrent::svdfOperation());
  t.add(recurrent::quantized16BitLstmOperation());
  t.add(recurrent::quantizedLstmOperation());
}

}  // namespace nncosim::ops
