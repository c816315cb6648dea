#include "hal/validation.h"

#include <atomic>
#include <cmath>
#include <functional>
#include <sstream>

namespace nncosim::hal {
namespace {

std::string sgName(int index) {
  return index < 0 ? std::string("main") : "referenced[" + std::to_string(index) + "]";
}

template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

class Validator {
 public:
  explicit Validator(const Model& m) : m_(m) {}

  std::vector<ValidationIssue> run() {
    checkSubgraph(-1, m_.main);
    for (size_t i = 0; i < m_.referenced.size(); ++i)
      checkSubgraph(static_cast<int>(i), m_.referenced[i]);
    checkReferenceCycles();
    return std::move(issues_);
  }

 private:
  void add(std::string where, std::string rule) {
    issues_.push_back({std::move(where), std::move(rule)});
  }

  void checkSubgraph(int sg, const Subgraph& g) {
    const std::string name = sgName(sg);
    const size_t n = g.operands.size();
    for (size_t i = 0; i < n; ++i) checkOperand(sg, i, g.operands[i]);

    if (g.inputIndexes.empty()) add(name, "has no inputs (at least one is required)");
    if (g.outputIndexes.empty()) add(name, "has no outputs (at least one is required)");
    // Every SUBGRAPH_INPUT/OUTPUT operand appears exactly once in the index lists.
    std::vector<int> inCount(n, 0), outCount(n, 0);
    checkIndexList(name, "inputIndexes", g.inputIndexes, n, inCount);
    checkIndexList(name, "outputIndexes", g.outputIndexes, n, outCount);
    for (size_t i = 0; i < n; ++i) {
      const auto lt = g.operands[i].lifetime;
      const std::string where = str(name, " operand ", i);
      if (lt == OperandLifeTime::SUBGRAPH_INPUT && inCount[i] != 1)
        add(where, str("SUBGRAPH_INPUT listed ", inCount[i], " times in inputIndexes (must be 1)"));
      if (lt != OperandLifeTime::SUBGRAPH_INPUT && inCount[i] > 0)
        add(where, str("listed in inputIndexes but its lifetime is ", toString(lt)));
      if (lt == OperandLifeTime::SUBGRAPH_OUTPUT && outCount[i] != 1)
        add(where,
            str("SUBGRAPH_OUTPUT listed ", outCount[i], " times in outputIndexes (must be 1)"));
      if (lt != OperandLifeTime::SUBGRAPH_OUTPUT && outCount[i] > 0)
        add(where, str("listed in outputIndexes but its lifetime is ", toString(lt)));
    }

    // Execution order: each TEMPORARY_VARIABLE / SUBGRAPH_OUTPUT is written exactly once,
    // before any operation reads it.
    std::vector<bool> written(n, false);
    for (size_t k = 0; k < g.operations.size(); ++k) {
      const Operation& op = g.operations[k];
      const std::string where = str(name, " operation ", k, " (", toString(op.type),
                                    op.origin.empty() ? "" : ", " + op.origin, ")");
      if (operationIndex(op.type) >= kNumOperationTypes)
        add(where, str("unknown operation type code ", static_cast<int32_t>(op.type)));
      if (op.outputs.empty()) add(where, "has no outputs");
      for (size_t j = 0; j < op.inputs.size(); ++j) {
        const uint32_t idx = op.inputs[j];
        if (idx >= n) {
          add(where, str("input ", j, " = operand ", idx, " out of range (", n, " operands)"));
          continue;
        }
        const auto lt = g.operands[idx].lifetime;
        if ((lt == OperandLifeTime::TEMPORARY_VARIABLE || lt == OperandLifeTime::SUBGRAPH_OUTPUT) &&
            !written[idx])
          add(where, str("input ", j, " reads operand ", idx,
                         " before any operation writes it (operations out of execution order)"));
      }
      for (size_t j = 0; j < op.outputs.size(); ++j) {
        const uint32_t idx = op.outputs[j];
        if (idx >= n) {
          add(where, str("output ", j, " = operand ", idx, " out of range (", n, " operands)"));
          continue;
        }
        const auto lt = g.operands[idx].lifetime;
        if (lt != OperandLifeTime::TEMPORARY_VARIABLE && lt != OperandLifeTime::SUBGRAPH_OUTPUT) {
          add(where,
              str("output ", j, " writes operand ", idx, " whose lifetime is ", toString(lt)));
          continue;
        }
        if (written[idx]) add(where, str("output ", j, " writes operand ", idx, " a second time"));
        written[idx] = true;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const auto lt = g.operands[i].lifetime;
      if ((lt == OperandLifeTime::TEMPORARY_VARIABLE || lt == OperandLifeTime::SUBGRAPH_OUTPUT) &&
          !written[i])
        add(str(name, " operand ", i), str(toString(lt), " is never written by any operation"));
    }
  }

  void checkIndexList(const std::string& name, const char* list, const std::vector<uint32_t>& idx,
                      size_t n, std::vector<int>& count) {
    for (size_t j = 0; j < idx.size(); ++j) {
      if (idx[j] >= n)
        add(name, str(list, "[", j, "] = ", idx[j], " out of range (", n, " operands)"));
      else
        ++count[idx[j]];
    }
  }

  void checkOperand(int sg, size_t i, const Operand& o) {
    const std::string where = str(sgName(sg), " operand ", i);
    if (auto e = checkOperandType(o); !e.empty()) add(where, e);
    const auto& loc = o.location;
    switch (o.lifetime) {
      case OperandLifeTime::CONSTANT_COPY:
        if (loc.poolIndex != 0)
          add(where, str("CONSTANT_COPY with poolIndex ", loc.poolIndex, " (must be 0)"));
        if (uint64_t{loc.offset} + loc.length > m_.operandValues.size())
          add(where,
              str("CONSTANT_COPY data [", loc.offset, ", ", uint64_t{loc.offset} + loc.length,
                  ") outside operandValues (", m_.operandValues.size(), " bytes)"));
        checkLength(where, o);
        break;
      case OperandLifeTime::CONSTANT_POOL:
        if (loc.poolIndex >= m_.pools.size()) {
          add(where, str("CONSTANT_REFERENCE to pool ", loc.poolIndex, " but the model has ",
                         m_.pools.size(), " pools"));
        } else if (uint64_t{loc.offset} + loc.length > m_.pools[loc.poolIndex].size()) {
          add(where, str("CONSTANT_REFERENCE data [", loc.offset, ", ",
                         uint64_t{loc.offset} + loc.length, ") outside pool ", loc.poolIndex, " (",
                         m_.pools[loc.poolIndex].size(), " bytes)"));
        }
        checkLength(where, o);
        break;
      case OperandLifeTime::SUBGRAPH:
        if (o.type != OperandType::SUBGRAPH)
          add(where, str("lifetime SUBGRAPH needs type SUBGRAPH, not ", toString(o.type)));
        if (loc.offset >= m_.referenced.size())
          add(where, str("names subgraph ", loc.offset, " but the model has ", m_.referenced.size(),
                         " referenced subgraphs"));
        break;
      case OperandLifeTime::TEMPORARY_VARIABLE:
      case OperandLifeTime::SUBGRAPH_INPUT:
      case OperandLifeTime::SUBGRAPH_OUTPUT:
      case OperandLifeTime::NO_VALUE:
        if (loc.length != 0 || loc.offset != 0 || loc.poolIndex != 0)
          add(where, str(toString(o.lifetime), " must have an empty location"));
        break;
      default:
        add(where, str("unknown lifetime ", static_cast<int32_t>(o.lifetime)));
    }
    if (o.type == OperandType::SUBGRAPH && o.lifetime != OperandLifeTime::SUBGRAPH)
      add(where, str("type SUBGRAPH needs lifetime SUBGRAPH, not ", toString(o.lifetime)));
  }

  void checkLength(const std::string& where, const Operand& o) {
    // A constant's dimensions are its real extent; a 0 dimension is an empty tensor.
    if (isTensor(o.type) && o.dimensions.empty()) {
      add(where, "constant tensor with unknown rank");
      return;
    }
    uint64_t count = 1;
    for (uint32_t d : o.dimensions) {
      count *= d;
      if (count > (uint64_t{1} << 31)) return;  // overflow already reported
    }
    const uint64_t want = count * elementSize(o.type);
    if (o.location.length != want)
      add(where, str("constant holds ", o.location.length,
                     " bytes but its type and dimensions need ", want));
  }

  // SUBGRAPH operands form a graph over subgraphs; a cycle would recurse forever.
  void checkReferenceCycles() {
    const size_t n = m_.referenced.size();
    std::vector<int> state(n, 0);  // 0 new, 1 on stack, 2 done
    std::function<bool(const Subgraph&, std::vector<int>&)> visitRefs;
    std::function<bool(size_t)> visit = [&](size_t s) -> bool {
      if (state[s] == 1) return false;
      if (state[s] == 2) return true;
      state[s] = 1;
      for (const auto& o : m_.referenced[s].operands) {
        if (o.lifetime != OperandLifeTime::SUBGRAPH || o.location.offset >= n) continue;
        if (!visit(o.location.offset)) {
          add(sgName(static_cast<int>(s)),
              str("is part of a cycle of subgraph references (via referenced[", o.location.offset,
                  "])"));
          state[s] = 2;
          return true;  // report once per member, keep going
        }
      }
      state[s] = 2;
      return true;
    };
    for (size_t s = 0; s < n; ++s) visit(s);
  }

  const Model& m_;
  std::vector<ValidationIssue> issues_;
};

}  // namespace

std::string checkOperandType(const Operand& o) {
  if (static_cast<int32_t>(o.type) < 0 || static_cast<int32_t>(o.type) >= kNumOperandTypes)
    return str("unknown operand type code ", static_cast<int32_t>(o.type));
  const std::string tn(toString(o.type));
  if (isScalar(o.type) || o.type == OperandType::SUBGRAPH) {
    if (!o.dimensions.empty())
      return str(tn, " is a scalar but has ", o.dimensions.size(), " dimensions");
  } else if (!o.dimensions.empty()) {
    uint64_t n = 1;
    bool unknown = false;
    for (uint32_t d : o.dimensions) {
      if (d == 0)
        unknown = true;
      else
        n *= d;
      if (n > (uint64_t{1} << 31))
        return str("element count of dimensions overflows (more than 2^31)");
    }
    (void)unknown;
  }
  if (std::isnan(o.scale) || std::isinf(o.scale)) return str("scale is not finite (", o.scale, ")");
  if (o.scale < 0) return str("scale is negative (", o.scale, ")");
  if (needsPositiveScale(o.type) && !(o.scale > 0))
    return str(tn, " needs scale > 0, has ", o.scale);
  if (isQuantized(o.type)) {
    const auto r = zeroPointRange(o.type);
    if (o.zeroPoint < r.lo || o.zeroPoint > r.hi)
      return str(tn, " zeroPoint ", o.zeroPoint, " outside [", r.lo, ", ", r.hi, "]");
  }
  if (o.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    if (!o.channelQuant) return str(tn, " needs per-channel quantization parameters");
    const auto& cq = *o.channelQuant;
    if (cq.channelDim >= o.dimensions.size())
      return str("channelDim ", cq.channelDim, " outside rank ", o.dimensions.size());
    if (o.dimensions[cq.channelDim] == 0)
      return str("per-channel dimension ", cq.channelDim, " is unknown");
    if (cq.scales.size() != o.dimensions[cq.channelDim])
      return str(cq.scales.size(), " per-channel scales but dimension ", cq.channelDim, " is ",
                 o.dimensions[cq.channelDim]);
    for (size_t c = 0; c < cq.scales.size(); ++c)
      if (!(cq.scales[c] > 0) || std::isinf(cq.scales[c]))
        return str("per-channel scale ", c, " is ", cq.scales[c], " (must be finite and > 0)");
  } else if (o.channelQuant) {
    return str(tn, " cannot have per-channel quantization parameters");
  }
  return {};
}

namespace {
std::atomic<uint64_t> validations{0};
}  // namespace

std::vector<ValidationIssue> validateModel(const Model& model) {
  ++validations;
  return Validator(model).run();
}

uint64_t modelValidations() { return validations.load(); }

}  // namespace nncosim::hal
