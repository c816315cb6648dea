#include "hal/json_fields.h"

#include <cmath>

namespace nncosim::hal {

Result<const Json*> field(const Json& obj, const char* key, const std::string& where) {
  if (!obj.is_object()) return fail(where, ": expected an object, got ", obj.type_name());
  auto it = obj.find(key);
  if (it == obj.end()) return fail(where, ".", key, ": missing");
  return &*it;
}

Result<int64_t> intField(const Json& obj, const char* key, int64_t lo, int64_t hi,
                         const std::string& where) {
  NNC_ASSIGN_OR_RETURN(auto f, field(obj, key, where));
  const Json& v = *f;
  if (!v.is_number_integer()) return fail(where, ".", key, ": expected an integer, got ", v.dump());
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    return fail(where, ".", key, ": ", v.dump(), " out of range");
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) return fail(where, ".", key, ": ", x, " outside [", lo, ", ", hi, "]");
  return x;
}

Result<float> floatField(const Json& obj, const char* key, const std::string& where) {
  NNC_ASSIGN_OR_RETURN(auto f, field(obj, key, where));
  const Json& v = *f;
  if (v.is_number()) return v.get<float>();
  if (v.is_string() && v.get<std::string>() == "nan") return std::nanf("");
  return fail(where, ".", key, ": expected a number, got ", v.dump());
}

Result<bool> boolField(const Json& obj, const char* key, const std::string& where) {
  NNC_ASSIGN_OR_RETURN(auto f, field(obj, key, where));
  if (!(f)->is_boolean())
    return fail(where, ".", key, ": expected true or false, got ", (f)->dump());
  return (f)->get<bool>();
}

Result<std::string> stringField(const Json& obj, const char* key, const std::string& where) {
  NNC_ASSIGN_OR_RETURN(auto f, field(obj, key, where));
  if (!(f)->is_string()) return fail(where, ".", key, ": expected a string, got ", (f)->dump());
  return (f)->get<std::string>();
}

Result<std::vector<uint32_t>> uintArrayField(const Json& obj, const char* key,
                                             const std::string& where) {
  NNC_ASSIGN_OR_RETURN(auto f, field(obj, key, where));
  const Json& v = *f;
  if (!v.is_array()) return fail(where, ".", key, ": expected an array, got ", v.type_name());
  std::vector<uint32_t> out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const Json& e = v[i];
    if (!e.is_number_integer() || (!e.is_number_unsigned() && e.get<int64_t>() < 0) ||
        e.get<uint64_t>() > UINT32_MAX)
      return fail(where, ".", key, "[", i, "]: expected an unsigned 32-bit integer, got ",
                  e.dump());
    out.push_back(static_cast<uint32_t>(e.get<uint64_t>()));
  }
  return out;
}

Result<Operand> parseOperandHeader(const Json& obj, const std::string& where) {
  Operand o;
  NNC_ASSIGN_OR_RETURN(auto type, stringField(obj, "type", where));
  auto t = operandTypeFromString(type);
  if (!t) return fail(where, ".type: unknown operand type \"", type, "\"");
  o.type = *t;
  NNC_ASSIGN_OR_RETURN(auto dims, uintArrayField(obj, "dimensions", where));
  o.dimensions = std::move(dims);
  NNC_ASSIGN_OR_RETURN(auto scale, floatField(obj, "scale", where));
  o.scale = scale;
  NNC_ASSIGN_OR_RETURN(auto zp, intField(obj, "zeroPoint", INT32_MIN, INT32_MAX, where));
  o.zeroPoint = static_cast<int32_t>(zp);
  NNC_ASSIGN_OR_RETURN(auto lts, stringField(obj, "lifetime", where));
  auto lt = lifetimeFromString(lts);
  if (!lt) return fail(where, ".lifetime: unknown lifetime \"", lts, "\"");
  o.lifetime = *lt;
  if (auto it = obj.find("name"); it != obj.end() && it->is_string())
    o.name = it->get<std::string>();
  if (auto it = obj.find("channelQuant"); it != obj.end() && !it->is_null()) {
    const std::string cw = where + ".channelQuant";
    SymmPerChannelQuantParams cq;
    NNC_ASSIGN_OR_RETURN(auto dim, intField(*it, "channelDim", 0, UINT32_MAX, cw));
    cq.channelDim = static_cast<uint32_t>(dim);
    NNC_ASSIGN_OR_RETURN(auto scales, field(*it, "scales", cw));
    if (!(scales)->is_array()) return fail(cw, ".scales: expected an array");
    for (size_t i = 0; i < (scales)->size(); ++i) {
      const Json& s = (*scales)[i];
      if (!s.is_number()) return fail(cw, ".scales[", i, "]: expected a number, got ", s.dump());
      cq.scales.push_back(s.get<float>());
    }
    o.channelQuant = std::move(cq);
  }
  return o;
}

Result<Operation> parseOperation(const Json& obj, const std::string& where) {
  Operation op;
  NNC_ASSIGN_OR_RETURN(auto type, stringField(obj, "type", where));
  auto t = operationTypeFromString(type);
  if (!t) return fail(where, ".type: unknown operation type \"", type, "\"");
  op.type = *t;
  NNC_ASSIGN_OR_RETURN(auto in, uintArrayField(obj, "inputs", where));
  NNC_ASSIGN_OR_RETURN(auto out, uintArrayField(obj, "outputs", where));
  op.inputs = std::move(in);
  op.outputs = std::move(out);
  return op;
}

Status parseOperationsAndIndexes(const Json& obj, const std::string& where, Subgraph& g) {
  NNC_ASSIGN_OR_RETURN(auto ops, field(obj, "operations", where));
  if (!(ops)->is_array()) return fail(where, ".operations: expected an array");
  for (size_t k = 0; k < (ops)->size(); ++k) {
    NNC_ASSIGN_OR_RETURN(
        auto op, parseOperation((*ops)[k], where + ".operations[" + std::to_string(k) + "]"));
    g.operations.push_back(std::move(op));
  }
  NNC_ASSIGN_OR_RETURN(auto in, uintArrayField(obj, "inputIndexes", where));
  NNC_ASSIGN_OR_RETURN(auto out, uintArrayField(obj, "outputIndexes", where));
  g.inputIndexes = std::move(in);
  g.outputIndexes = std::move(out);
  return Status::Ok();
}

DataLocation appendOperandValue(std::vector<uint8_t>& operandValues,
                                const std::vector<uint8_t>& bytes) {
  const size_t at = (operandValues.size() + 7) & ~size_t{7};
  operandValues.resize(at + bytes.size());
  std::copy(bytes.begin(), bytes.end(), operandValues.begin() + at);
  return DataLocation{0, static_cast<uint32_t>(at), static_cast<uint32_t>(bytes.size())};
}

}  // namespace nncosim::hal
