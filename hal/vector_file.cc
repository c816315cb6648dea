#include "hal/vector_file.h"

#include <algorithm>
#include <filesystem>

#include "hal/json_fields.h"

namespace nncosim::hal {
namespace {

struct SubgraphParse {
  Subgraph graph;
  std::vector<TensorValue> inputs, outputs;
  std::vector<bool> ignored;
};

// CONSTANT_REFERENCE data in a vector file is inline; it goes into pool 0 of the model
// so the operand stays a genuine pool reference.
Result<SubgraphParse> parseSubgraph(const Json& j, const std::string& where, Model& model,
                                    std::vector<uint8_t>& poolBytes, bool isMain) {
  SubgraphParse out;
  NNC_ASSIGN_OR_RETURN(auto ops, field(j, "operands", where));
  if (!(ops)->is_array()) return fail(where, ".operands: expected an array");
  std::vector<const Json*> dataOf;
  for (size_t i = 0; i < (ops)->size(); ++i) {
    const Json& oj = (*ops)[i];
    const std::string ow = where + ".operands[" + std::to_string(i) + "]";
    NNC_ASSIGN_OR_RETURN(auto o, parseOperandHeader(oj, ow));
    const Json* data = nullptr;
    if (auto it = oj.find("data"); it != oj.end() && !it->is_null()) data = &*it;
    switch (o.lifetime) {
      case OperandLifeTime::CONSTANT_COPY:
      case OperandLifeTime::CONSTANT_POOL: {
        if (!data) return fail(ow, ".data: a constant needs data");
        NNC_ASSIGN_OR_RETURN(auto bytes, valuesToBytes(*data, o.type, ow + ".data"));
        if (o.lifetime == OperandLifeTime::CONSTANT_COPY) {
          o.location = appendOperandValue(model.operandValues, bytes);
        } else {
          o.location = appendOperandValue(poolBytes, bytes);  // pool 0, set up by caller
        }
        break;
      }
      case OperandLifeTime::SUBGRAPH: {
        if (!data || !data->is_array() || data->size() != 1 || !(*data)[0].is_number_unsigned())
          return fail(ow, ".data: a SUBGRAPH operand needs one referenced-subgraph index");
        const uint64_t idx = (*data)[0].get<uint64_t>();
        if (idx > UINT32_MAX) return fail(ow, ".data: subgraph index ", idx, " out of range");
        o.location.offset = static_cast<uint32_t>(idx);
        break;
      }
      default:
        break;
    }
    dataOf.push_back(data);
    out.graph.operands.push_back(std::move(o));
  }
  NNC_TRY(parseOperationsAndIndexes(j, where, out.graph));
  if (!isMain) return out;

  // Inputs to feed and outputs to expect, by position in the index lists.
  auto valueOf = [&](uint32_t idx, const char* list, size_t pos) -> Result<TensorValue> {
    if (idx >= out.graph.operands.size())
      return fail(where, ".", list, "[", pos, "]: operand ", idx, " out of range");
    const Operand& o = out.graph.operands[idx];
    TensorValue v;
    v.type = o.type;
    v.dimensions = o.dimensions;
    const Json* d = dataOf[idx];
    const std::string ow = where + ".operands[" + std::to_string(idx) + "].data";
    if (!d || (d->is_array() && d->empty())) {
      v.omitted = true;  // an empty input is an omitted optional input
      return v;
    }
    NNC_ASSIGN_OR_RETURN(auto bytes, valuesToBytes(*d, o.type, ow));
    v.bytes = std::move(bytes);
    // A fully specified operand's value must fill it: the executor reads it by its shape.
    if (isTensor(o.type) && fullySpecified(o)) {
      const auto count = elementCount(o.dimensions);
      const size_t esize = elementSize(o.type);
      if (count && esize && v.bytes.size() != *count * esize)
        return fail(ow, ": ", v.bytes.size() / esize, " values for dimensions of ", *count,
                    " elements");
    }
    return v;
  };
  for (size_t p = 0; p < out.graph.inputIndexes.size(); ++p) {
    NNC_ASSIGN_OR_RETURN(auto v, valueOf(out.graph.inputIndexes[p], "inputIndexes", p));
    out.inputs.push_back(std::move(v));
  }
  for (size_t p = 0; p < out.graph.outputIndexes.size(); ++p) {
    NNC_ASSIGN_OR_RETURN(auto v, valueOf(out.graph.outputIndexes[p], "outputIndexes", p));
    out.outputs.push_back(std::move(v));
    const Json& oj = (*ops)[out.graph.outputIndexes[p]];
    auto ig = oj.find("isIgnored");
    out.ignored.push_back(ig != oj.end() && ig->is_boolean() && ig->get<bool>());
  }
  return out;
}

Result<ConformanceTest> parseTest(const Json& t, const std::string& where) {
  ConformanceTest test;
  NNC_ASSIGN_OR_RETURN(auto name, stringField(t, "name", where));
  test.name = name;
  const std::string tw = where + "(" + test.name + ")";
  if (auto v = stringField(t, "minSupportedVersion", tw)) test.minSupportedVersion = *v;
  NNC_ASSIGN_OR_RETURN(auto relaxed, boolField(t, "isRelaxed", tw));
  test.model.relaxComputationFloat32toFloat16 = relaxed;
  NNC_ASSIGN_OR_RETURN(auto ef, boolField(t, "expectFailure", tw));
  test.expectFailure = ef;
  if (auto it = t.find("expectedMultinomialDistributionTolerance");
      it != t.end() && it->is_number())
    test.multinomialTolerance = it->get<float>();

  std::vector<uint8_t> poolBytes;
  NNC_ASSIGN_OR_RETURN(auto mainj, field(t, "main", tw));
  NNC_ASSIGN_OR_RETURN(auto main, parseSubgraph(*mainj, tw + ".main", test.model, poolBytes, true));
  test.model.main = std::move(main.graph);
  test.inputs = std::move(main.inputs);
  test.expectedOutputs = std::move(main.outputs);
  test.outputIgnored = std::move(main.ignored);
  if (auto it = t.find("referenced"); it != t.end() && !it->is_null()) {
    if (!it->is_array()) return fail(tw, ".referenced: expected an array");
    for (size_t s = 0; s < it->size(); ++s) {
      NNC_ASSIGN_OR_RETURN(auto sg,
                           parseSubgraph((*it)[s], tw + ".referenced[" + std::to_string(s) + "]",
                                         test.model, poolBytes, false));
      test.model.referenced.push_back(std::move(sg.graph));
    }
  }
  if (!poolBytes.empty()) test.model.pools.push_back(MemoryPool::fromBytes(std::move(poolBytes)));
  return test;
}

}  // namespace

Result<VectorFile> readVectorFile(const std::string& path) {
  NNC_ASSIGN_OR_RETURN(auto j, readJsonFile(path));
  return parseVectorJson(j, path);
}

Result<VectorFile> parseVectorText(const std::string& text, const std::string& path) {
  NNC_ASSIGN_OR_RETURN(auto j, parseJsonText(text, path));
  return parseVectorJson(j, path);
}

Result<VectorFile> parseVectorJson(const Json& json, const std::string& path) {
  const Json* j = &json;
  VectorFile vf;
  vf.path = path;
  NNC_ASSIGN_OR_RETURN(auto fmt, stringField(*j, "format", path));
  if (fmt != "nnapi-test-vectors/1")
    return fail(path, ".format: unsupported format \"", fmt, "\" (want nnapi-test-vectors/1)");
  if (auto it = j->find("source"); it != j->end() && it->is_string())
    vf.source = it->get<std::string>();
  NNC_ASSIGN_OR_RETURN(auto tests, field(*j, "tests", path));
  if (!(tests)->is_array()) return fail(path, ".tests: expected an array");
  for (size_t i = 0; i < (tests)->size(); ++i) {
    NNC_ASSIGN_OR_RETURN(auto t,
                         parseTest((*tests)[i], path + ": tests[" + std::to_string(i) + "]"));
    t.file = path;
    vf.tests.push_back(std::move(t));
  }
  return vf;
}

std::vector<std::string> listVectorFiles(const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (auto it = fs::recursive_directory_iterator(path, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".json")
        files.push_back(it->path().string());
  } else {
    files.push_back(path);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace nncosim::hal
