// NumPy arrays and tensor values: the dtype that holds each operand type's values, and
// the checks that refuse an array (not an ndarray, dtype or byte order, shape, memory
// layout) before a byte of it is read, so a bad argument raises InputError and never
// crashes the interpreter. Values are copied both ways: an output array owns its memory.
#pragma once

#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "hal/operand.h"
#include "hal/tensor_value.h"

namespace nncosim::python {

namespace py = pybind11;

// The NumPy type name of an operand type's values ("int8", "float16", "bool", ...); ""
// for SUBGRAPH, which has none.
std::string dtypeName(hal::OperandType type);
// The dtype itself (native byte order); Error for SUBGRAPH.
py::dtype dtypeOf(hal::OperandType type);

// One input value for `operand` from `value`: a C-contiguous numpy.ndarray of the
// operand's dtype whose shape matches its dimensions (0 = any size, no dimensions = any
// rank; a scalar operand takes a 0-d array), or None for an omitted input. `what` names
// the argument in messages, e.g. "input 0 ('image')".
hal::TensorValue tensorFromArray(py::handle value, const hal::Operand& operand,
                                 const std::string& what);
// A new array holding `value` (dtype of its type, shape of its dimensions); Error when
// its bytes do not fill that shape.
py::array arrayFromTensor(const hal::TensorValue& value, const std::string& what);

}  // namespace nncosim::python
