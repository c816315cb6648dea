#include "python/settings.h"

#include "python/errors.h"

namespace nncosim::python {

std::vector<std::string> keyValues(py::handle settings, const char* argument) {
  std::vector<std::string> out;
  if (settings.is_none()) return out;
  if (!py::isinstance<py::dict>(settings))
    throw Error(std::string(argument) + " must be a dict of setting -> value, not " +
                py::str(py::type::handle_of(settings).attr("__name__")).cast<std::string>());
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(settings))
    out.push_back(py::str(key).cast<std::string>() + "=" +
                  (py::isinstance<py::str>(value) ? value.cast<std::string>()
                                                  : py::repr(value).cast<std::string>()));
  return out;
}

}  // namespace nncosim::python
