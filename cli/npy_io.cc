#include "cli/npy_io.h"

#include <filesystem>
#include <sstream>

#include "hal/npy_file.h"

namespace nncosim::cli {
namespace {

std::vector<std::string> splitList(const std::string& spec) {
  std::vector<std::string> items;
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

bool isNpyList(const std::string& spec) {
  const auto items = splitList(spec);
  if (items.empty()) return false;
  for (const auto& i : items)
    if (!endsWith(i, ".npy")) return false;
  return true;
}

hal::Result<std::vector<hal::TensorValue>> readNpyInputs(const std::string& spec,
                                                         const hal::Model& m) {
  const auto files = splitList(spec);
  if (files.size() != m.main.inputIndexes.size())
    return hal::fail("--inputs: ", files.size(), " .npy files, the model has ",
                     m.main.inputIndexes.size(), " inputs (give them in the model's input order)");
  std::vector<hal::TensorValue> out;
  for (size_t k = 0; k < files.size(); ++k) {
    const hal::Operand& o = m.main.operands[m.main.inputIndexes[k]];
    NNC_ASSIGN_OR_RETURN(auto a, hal::readNpy(files[k]));
    NNC_ASSIGN_OR_RETURN(auto bytes,
                         hal::npyDataFor(a, o, files[k] + " (input " + std::to_string(k) + ")"));
    hal::TensorValue v;
    v.type = o.type;
    v.dimensions.assign(a.shape.begin(), a.shape.end());
    v.bytes = std::move(bytes);
    out.push_back(std::move(v));
  }
  return out;
}

hal::Status writeNpyOutputs(const std::string& dir, const std::vector<hal::TensorValue>& outputs) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return hal::fail(dir, ": cannot create folder: ", ec.message());
  for (size_t k = 0; k < outputs.size(); ++k) {
    const std::string path =
        (std::filesystem::path(dir) / ("output" + std::to_string(k) + ".npy")).string();
    NNC_TRY(hal::writeNpy(path, outputs[k].type, outputs[k].dimensions, outputs[k].bytes));
  }
  return hal::Status::Ok();
}

}  // namespace nncosim::cli
