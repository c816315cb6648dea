#include "hal/model_file.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "hal/json_fields.h"

namespace nncosim::hal {
namespace {

constexpr const char* kFormat = "nncosim-model/1";

Result<Subgraph> parseSubgraph(const Json& j, const std::string& where, Model& model) {
  Subgraph g;
  NNC_ASSIGN_OR_RETURN(auto ops, field(j, "operands", where));
  if (!(ops)->is_array()) return fail(where, ".operands: expected an array");
  for (size_t i = 0; i < (ops)->size(); ++i) {
    const Json& oj = (*ops)[i];
    const std::string ow = where + ".operands[" + std::to_string(i) + "]";
    NNC_ASSIGN_OR_RETURN(auto o, parseOperandHeader(oj, ow));
    switch (o.lifetime) {
      case OperandLifeTime::CONSTANT_COPY: {
        NNC_ASSIGN_OR_RETURN(auto data, field(oj, "data", ow));
        NNC_ASSIGN_OR_RETURN(auto bytes, valuesToBytes(*data, o.type, ow + ".data"));
        o.location = appendOperandValue(model.operandValues, bytes);
        break;
      }
      case OperandLifeTime::CONSTANT_POOL: {
        NNC_ASSIGN_OR_RETURN(auto loc, field(oj, "location", ow));
        const std::string lw = ow + ".location";
        NNC_ASSIGN_OR_RETURN(auto pool, intField(*loc, "pool", 0, UINT32_MAX, lw));
        NNC_ASSIGN_OR_RETURN(auto off, intField(*loc, "offset", 0, UINT32_MAX, lw));
        NNC_ASSIGN_OR_RETURN(auto len, intField(*loc, "length", 0, UINT32_MAX, lw));
        o.location = DataLocation{static_cast<uint32_t>(pool), static_cast<uint32_t>(off),
                                  static_cast<uint32_t>(len)};
        break;
      }
      case OperandLifeTime::SUBGRAPH: {
        NNC_ASSIGN_OR_RETURN(auto s, intField(oj, "subgraph", 0, UINT32_MAX, ow));
        o.location.offset = static_cast<uint32_t>(s);
        break;
      }
      default:
        break;
    }
    g.operands.push_back(std::move(o));
  }
  NNC_TRY(parseOperationsAndIndexes(j, where, g));
  return g;
}

Json dumpSubgraph(const Subgraph& g, const Model& m) {
  Json j = Json::object();
  Json ops = Json::array();
  for (const Operand& o : g.operands) {
    Json oj = Json::object();
    oj["type"] = std::string(toString(o.type));
    oj["dimensions"] = o.dimensions;
    oj["scale"] = o.scale;
    oj["zeroPoint"] = o.zeroPoint;
    oj["lifetime"] = std::string(toString(o.lifetime));
    if (!o.name.empty()) oj["name"] = o.name;
    if (o.channelQuant) {
      oj["channelQuant"] = {{"channelDim", o.channelQuant->channelDim},
                            {"scales", o.channelQuant->scales}};
    }
    switch (o.lifetime) {
      case OperandLifeTime::CONSTANT_COPY:
        oj["data"] =
            bytesToValues(m.operandValues.data() + o.location.offset, o.location.length, o.type);
        break;
      case OperandLifeTime::CONSTANT_POOL:
        oj["location"] = {{"pool", o.location.poolIndex},
                          {"offset", o.location.offset},
                          {"length", o.location.length}};
        break;
      case OperandLifeTime::SUBGRAPH:
        oj["subgraph"] = o.location.offset;
        break;
      default:
        break;
    }
    ops.push_back(std::move(oj));
  }
  j["operands"] = std::move(ops);
  Json opers = Json::array();
  for (const Operation& op : g.operations)
    opers.push_back(
        {{"type", std::string(toString(op.type))}, {"inputs", op.inputs}, {"outputs", op.outputs}});
  j["operations"] = std::move(opers);
  j["inputIndexes"] = g.inputIndexes;
  j["outputIndexes"] = g.outputIndexes;
  return j;
}

std::string poolFileName(const std::string& jsonPath, size_t i) {
  std::filesystem::path p(jsonPath);
  return p.stem().string() + ".pool" + std::to_string(i) + ".bin";
}

}  // namespace

Result<Model> parseModelJson(const std::string& text, const std::string& baseDir,
                             const std::string& name) {
  NNC_ASSIGN_OR_RETURN(auto parsed, parseJsonText(text, name));
  const Json& j = parsed;
  NNC_ASSIGN_OR_RETURN(auto fmt, stringField(j, "format", name));
  if (fmt != kFormat)
    return fail(name, ".format: unsupported format \"", fmt, "\" (want ", kFormat, ")");
  Model m;
  if (auto it = j.find("relaxComputationFloat32toFloat16"); it != j.end()) {
    NNC_ASSIGN_OR_RETURN(auto r, boolField(j, "relaxComputationFloat32toFloat16", name));
    m.relaxComputationFloat32toFloat16 = r;
  }
  if (auto it = j.find("quant16x8"); it != j.end()) {
    NNC_ASSIGN_OR_RETURN(auto r, boolField(j, "quant16x8", name));
    m.quant16x8 = r;
  }
  if (auto it = j.find("pools"); it != j.end()) {
    if (!it->is_array()) return fail(name, ".pools: expected an array");
    for (size_t i = 0; i < it->size(); ++i) {
      const std::string pw = name + ".pools[" + std::to_string(i) + "]";
      NNC_ASSIGN_OR_RETURN(auto file, stringField((*it)[i], "file", pw));
      std::filesystem::path p(file);
      if (p.is_relative()) p = std::filesystem::path(baseDir) / p;
      auto pool = MemoryPool::mapFile(p.string());
      if (!pool) return fail(pw, ".file: ", pool.error());
      if (auto sz = (*it)[i].find("size"); sz != (*it)[i].end()) {
        NNC_ASSIGN_OR_RETURN(auto want, intField((*it)[i], "size", 0, INT64_MAX, pw));
        if (static_cast<uint64_t>(want) != pool->size())
          return fail(pw, ": pool file ", p.string(), " has ", pool->size(),
                      " bytes, the model says ", want);
      }
      m.pools.push_back(std::move(*pool));
    }
  }
  NNC_ASSIGN_OR_RETURN(auto mainj, field(j, "main", name));
  NNC_ASSIGN_OR_RETURN(auto main, parseSubgraph(*mainj, name + ": main", m));
  m.main = std::move(main);
  if (auto it = j.find("referenced"); it != j.end()) {
    if (!it->is_array()) return fail(name, ".referenced: expected an array");
    for (size_t s = 0; s < it->size(); ++s) {
      NNC_ASSIGN_OR_RETURN(
          auto sg, parseSubgraph((*it)[s], name + ": referenced[" + std::to_string(s) + "]", m));
      m.referenced.push_back(std::move(sg));
    }
  }
  return m;
}

Result<Model> readModelFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(path, ": cannot open model file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parseModelJson(text, std::filesystem::path(path).parent_path().string(), path);
}

Status writeModelFile(const Model& model, const std::string& path) {
  Json j = Json::object();
  j["format"] = kFormat;
  j["relaxComputationFloat32toFloat16"] = model.relaxComputationFloat32toFloat16;
  if (model.quant16x8) j["quant16x8"] = true;
  Json pools = Json::array();
  const auto dir = std::filesystem::path(path).parent_path();
  for (size_t i = 0; i < model.pools.size(); ++i) {
    const std::string fname = poolFileName(path, i);
    const auto full = dir / fname;
    std::ofstream out(full, std::ios::binary | std::ios::trunc);
    if (!out) return fail(full.string(), ": cannot write pool file");
    out.write(reinterpret_cast<const char*>(model.pools[i].data()),
              static_cast<std::streamsize>(model.pools[i].size()));
    if (!out) return fail(full.string(), ": write failed");
    pools.push_back({{"file", fname}, {"size", model.pools[i].size()}});
  }
  j["pools"] = std::move(pools);
  j["main"] = dumpSubgraph(model.main, model);
  Json refs = Json::array();
  for (const auto& g : model.referenced) refs.push_back(dumpSubgraph(g, model));
  j["referenced"] = std::move(refs);
  std::ofstream out(path, std::ios::trunc);
  if (!out) return fail(path, ": cannot write model file");
  out << j.dump(1) << "\n";
  if (!out) return fail(path, ": write failed");
  return Status::Ok();
}

void moveLargeConstantsToPool(Model& model, size_t minBytes) {
  std::vector<uint8_t> pool;
  const uint32_t poolIndex = static_cast<uint32_t>(model.pools.size());
  auto visit = [&](Subgraph& g) {
    for (Operand& o : g.operands) {
      if (o.lifetime != OperandLifeTime::CONSTANT_COPY || o.location.length < minBytes) continue;
      std::vector<uint8_t> bytes(
          model.operandValues.begin() + o.location.offset,
          model.operandValues.begin() + o.location.offset + o.location.length);
      DataLocation loc = appendOperandValue(pool, bytes);
      loc.poolIndex = poolIndex;
      o.location = loc;
      o.lifetime = OperandLifeTime::CONSTANT_POOL;
    }
  };
  visit(model.main);
  for (auto& g : model.referenced) visit(g);
  if (!pool.empty()) model.pools.push_back(MemoryPool::fromBytes(std::move(pool)));
  // Re-pack operandValues with what stays inline, in operand order (the readers' layout).
  std::vector<uint8_t> values;
  auto repack = [&](Subgraph& g) {
    for (Operand& o : g.operands) {
      if (o.lifetime != OperandLifeTime::CONSTANT_COPY) continue;
      std::vector<uint8_t> bytes(
          model.operandValues.begin() + o.location.offset,
          model.operandValues.begin() + o.location.offset + o.location.length);
      o.location = appendOperandValue(values, bytes);
    }
  };
  repack(model.main);
  for (auto& g : model.referenced) repack(g);
  model.operandValues = std::move(values);
}

bool sameModel(const Model& a, const Model& b) {
  if (!(a.main == b.main) || a.referenced != b.referenced ||
      a.relaxComputationFloat32toFloat16 != b.relaxComputationFloat32toFloat16 ||
      a.quant16x8 != b.quant16x8 || a.operandValues != b.operandValues ||
      a.pools.size() != b.pools.size())
    return false;
  for (size_t i = 0; i < a.pools.size(); ++i) {
    if (a.pools[i].size() != b.pools[i].size()) return false;
    if (a.pools[i].size() &&
        std::memcmp(a.pools[i].data(), b.pools[i].data(), a.pools[i].size()) != 0)
      return false;
  }
  return true;
}

}  // namespace nncosim::hal
