#include "python/inputs.h"

#include <pybind11/numpy.h>

#include "python/arrays.h"
#include "python/errors.h"

namespace nncosim::python {
namespace {

const hal::Operand& inputOperand(const hal::Model& m, size_t k) {
  return m.main.operands[m.main.inputIndexes[k]];
}

std::string inputNames(const hal::Model& m) {
  std::string s;
  for (size_t k = 0; k < m.main.inputIndexes.size(); ++k) s += (k ? ", " : "") + inputLabel(m, k);
  return s;
}

}  // namespace

std::string inputLabel(const hal::Model& m, size_t k) {
  const std::string& name = inputOperand(m, k).name;
  return "input " + std::to_string(k) + (name.empty() ? "" : " ('" + name + "')");
}

std::vector<hal::TensorValue> bindInputs(py::handle inputs, const hal::Model& m,
                                         const std::vector<hal::TensorValue>& own,
                                         const std::string& modelName) {
  const size_t count = m.main.inputIndexes.size();
  const std::string prefix = modelName + ": ";
  if (inputs.is_none()) {
    if (own.size() != count) throw InputError(prefix + "no input values (give inputs=...)");
    return own;
  }
  std::vector<py::handle> given(count);
  std::vector<bool> have(count, false);
  if (py::isinstance<py::array>(inputs)) {
    if (count != 1)
      throw InputError(prefix + "one array, the model has " + std::to_string(count) +
                       " inputs (give a list, or a dict by name: " + inputNames(m) + ")");
    given[0] = inputs;
    have[0] = true;
  } else if (py::isinstance<py::list>(inputs) || py::isinstance<py::tuple>(inputs)) {
    auto seq = py::reinterpret_borrow<py::sequence>(inputs);
    if (seq.size() != count)
      throw InputError(prefix + std::to_string(seq.size()) + " arrays, the model has " +
                       std::to_string(count) + " inputs (" + inputNames(m) + ")");
    for (size_t k = 0; k < count; ++k) {
      given[k] = seq[k];
      have[k] = true;
    }
  } else if (py::isinstance<py::dict>(inputs)) {
    for (auto [key, value] : py::reinterpret_borrow<py::dict>(inputs)) {
      size_t k = count;
      if (py::isinstance<py::int_>(key) && !py::isinstance<py::bool_>(key)) {
        const long long i = key.cast<long long>();
        if (i >= 0 && static_cast<size_t>(i) < count) k = static_cast<size_t>(i);
      } else if (py::isinstance<py::str>(key)) {
        const std::string name = key.cast<std::string>();
        for (size_t j = 0; j < count && k == count; ++j)
          if (!name.empty() && inputOperand(m, j).name == name) k = j;
      }
      if (k == count)
        throw InputError(prefix + "no input " + py::repr(key).cast<std::string>() +
                         " (the model's inputs: " + inputNames(m) + ")");
      if (have[k])
        throw InputError(prefix + inputLabel(m, k) + " is given twice (by name and position)");
      given[k] = value;
      have[k] = true;
    }
    for (size_t k = 0; k < count; ++k)
      if (!have[k]) throw InputError(prefix + inputLabel(m, k) + " is missing");
  } else {
    throw InputError(prefix +
                     "inputs must be a numpy.ndarray, a list or tuple of them, or a "
                     "dict by input name, not " +
                     py::str(py::type::handle_of(inputs).attr("__name__")).cast<std::string>());
  }
  std::vector<hal::TensorValue> values;
  for (size_t k = 0; k < count; ++k)
    values.push_back(tensorFromArray(given[k], inputOperand(m, k), prefix + inputLabel(m, k)));
  return values;
}

}  // namespace nncosim::python
