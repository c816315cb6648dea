#include "python/arrays.h"

#include <cstdint>
#include <cstring>
#include <sstream>
#include <vector>

#include "python/errors.h"

namespace nncosim::python {
namespace {

using hal::OperandType;

std::string shapeText(const std::vector<int64_t>& dims) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? ", " : "") << dims[i];
  os << (dims.size() == 1 ? ",)" : ")");
  return os.str();
}

std::string typeName(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

}  // namespace

std::string dtypeName(OperandType type) {
  switch (type) {
    case OperandType::FLOAT32:
    case OperandType::TENSOR_FLOAT32:
      return "float32";
    case OperandType::FLOAT16:
    case OperandType::TENSOR_FLOAT16:
      return "float16";
    case OperandType::INT32:
    case OperandType::TENSOR_INT32:
      return "int32";
    case OperandType::UINT32:
      return "uint32";
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8:
      return "bool";  // NumPy's bool is one byte, 0 or 1: BOOL8's storage
    case OperandType::TENSOR_QUANT8_ASYMM:
      return "uint8";
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
      return "int8";
    case OperandType::TENSOR_QUANT16_SYMM:
      return "int16";
    case OperandType::TENSOR_QUANT16_ASYMM:
      return "uint16";
    case OperandType::SUBGRAPH:
      break;
  }
  return "";
}

py::dtype dtypeOf(OperandType type) {
  const std::string name = dtypeName(type);
  if (name.empty())
    throw Error("operand type " + std::string(hal::toString(type)) + " has no NumPy dtype");
  return py::dtype(name);
}

hal::TensorValue tensorFromArray(py::handle value, const hal::Operand& operand,
                                 const std::string& what) {
  hal::TensorValue v;
  v.type = operand.type;
  if (value.is_none()) {  // the driver decides whether this input may be omitted
    v.omitted = true;
    v.dimensions = operand.dimensions;
    return v;
  }
  const std::string want = dtypeName(operand.type);
  if (want.empty())
    throw InputError(what + ": the model input is " + std::string(hal::toString(operand.type)) +
                     ", which takes no array");
  const std::string typeText = std::string(hal::toString(operand.type)) + " (numpy." + want + ")";
  if (!py::isinstance<py::array>(value))
    throw InputError(what + ": expected a numpy.ndarray of " + want + " for " +
                     std::string(hal::toString(operand.type)) + ", got " + typeName(value));
  auto a = py::reinterpret_borrow<py::array>(value);
  // Exact dtype, native byte order: a silent conversion would hide a wrong input.
  if (!a.dtype().attr("__eq__")(dtypeOf(operand.type)).cast<bool>())
    throw InputError(what + ": dtype " + py::str(a.dtype()).cast<std::string>() + " ('" +
                     py::str(a.dtype().attr("str")).cast<std::string>() +
                     "') but the model input is " + typeText +
                     "; convert it explicitly if the values are meant for that type");
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  const auto& dims = operand.dimensions;
  const bool scalar = hal::isScalar(operand.type);
  bool match = true;
  if (scalar) {
    match = shape.empty();
  } else if (!dims.empty()) {  // no dimensions: unknown rank, any shape
    match = shape.size() == dims.size();
    for (size_t i = 0; match && i < dims.size(); ++i)
      match = dims[i] == 0 || static_cast<int64_t>(dims[i]) == shape[i];
  }
  if (!match) {
    std::vector<int64_t> declared(dims.begin(), dims.end());
    throw InputError(what + ": shape " + shapeText(shape) + " but the model input " + typeText +
                     " is " + (scalar ? "a scalar (a 0-d array)" : shapeText(declared)) +
                     (scalar ? "" : " (0 = any size)"));
  }
  if (!(a.flags() & py::array::c_style))
    throw InputError(what +
                     ": the array is not C-contiguous (a transposed or strided view); "
                     "pass numpy.ascontiguousarray(array)");
  for (int64_t d : shape) {
    if (d > static_cast<int64_t>(UINT32_MAX))
      throw InputError(what + ": dimension " + std::to_string(d) + " is beyond 2^32 - 1");
    v.dimensions.push_back(static_cast<uint32_t>(d));
  }
  const auto* data = static_cast<const uint8_t*>(a.data());
  v.bytes.assign(data, data + a.nbytes());
  return v;
}

py::array arrayFromTensor(const hal::TensorValue& value, const std::string& what) {
  const py::dtype dt = dtypeOf(value.type);
  std::vector<py::ssize_t> shape;
  uint64_t count = 1;
  for (uint32_t d : value.dimensions) {
    shape.push_back(static_cast<py::ssize_t>(d));
    count *= d;
  }
  const uint64_t need = count * static_cast<uint64_t>(dt.itemsize());
  if (value.bytes.size() != need)
    throw Error(what + ": " + std::to_string(value.bytes.size()) + " bytes for " +
                std::string(hal::toString(value.type)) + " of shape " +
                shapeText(std::vector<int64_t>(shape.begin(), shape.end())) + ", which needs " +
                std::to_string(need));
  py::array a(dt, shape);
  if (need) std::memcpy(a.mutable_data(), value.bytes.data(), need);
  return a;
}

}  // namespace nncosim::python
