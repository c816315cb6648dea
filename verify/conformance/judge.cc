#include "verify/conformance/judge.h"

#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include "hal/half.h"

namespace nncosim::verify {
namespace {

using hal::OperandType;

bool isIntegerType(OperandType t) { return !hal::isFloat(t); }

// Element i as a double, for comparison and messages.
double elementAt(const hal::TensorValue& v, size_t i) {
  const uint8_t* p = v.bytes.data() + i * hal::elementSize(v.type);
  switch (v.type) {
    case OperandType::FLOAT32:
    case OperandType::TENSOR_FLOAT32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case OperandType::FLOAT16:
    case OperandType::TENSOR_FLOAT16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return hal::halfBitsToFloat(h);
    }
    case OperandType::INT32:
    case OperandType::TENSOR_INT32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case OperandType::UINT32: {
      uint32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8:
      return *p;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
      return static_cast<int8_t>(*p);
    case OperandType::TENSOR_QUANT16_ASYMM: {
      uint16_t x;
      std::memcpy(&x, p, 2);
      return x;
    }
    case OperandType::TENSOR_QUANT16_SYMM: {
      int16_t x;
      std::memcpy(&x, p, 2);
      return x;
    }
    default:
      return 0;
  }
}

std::string dims(const std::vector<uint32_t>& d) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < d.size(); ++i) os << (i ? "," : "") << d[i];
  os << "]";
  return os.str();
}

// RANDOM_MULTINOMIAL: per batch row, each class's frequency within the tolerance.
bool judgeDistribution(const hal::TensorValue& exp, const hal::TensorValue& act, float tolerance,
                       std::string* reason) {
  if (exp.dimensions.size() != 2) {
    *reason = "multinomial output must be 2-D";
    return false;
  }
  const size_t batches = exp.dimensions[0], samples = exp.dimensions[1];
  for (size_t b = 0; b < batches; ++b) {
    std::map<long, double> fe, fa;
    for (size_t s = 0; s < samples; ++s) {
      fe[static_cast<long>(elementAt(exp, b * samples + s))] += 1.0 / samples;
      fa[static_cast<long>(elementAt(act, b * samples + s))] += 1.0 / samples;
    }
    for (auto& [cls, f] : fe) fa[cls] += 0;  // make every expected class present
    for (auto& [cls, f] : fa) {
      const double diff = std::abs(f - fe[cls]);
      if (diff > tolerance) {
        std::ostringstream os;
        os << "batch " << b << " class " << cls << ": frequency " << f << " vs expected " << fe[cls]
           << " (tolerance " << tolerance << ")";
        *reason = os.str();
        return false;
      }
    }
  }
  return true;
}

}  // namespace

bool usesRelaxedTolerance(const hal::Model& model) {
  if (model.relaxComputationFloat32toFloat16) return true;
  for (int s = -1; s < static_cast<int>(model.referenced.size()); ++s)
    for (const auto& o : model.subgraph(s).operands)
      if (o.type == OperandType::TENSOR_FLOAT16) return true;
  return false;
}

Verdict judgeOutputs(const hal::ConformanceTest& test,
                     const std::vector<hal::TensorValue>& actual) {
  Verdict v;
  if (actual.size() != test.expectedOutputs.size()) {
    v.reason = "produced " + std::to_string(actual.size()) + " outputs, expected " +
               std::to_string(test.expectedOutputs.size());
    return v;
  }
  const bool relaxed = usesRelaxedTolerance(test.model);
  bool allInteger = true, allExact = true, compared = false;
  for (size_t k = 0; k < actual.size(); ++k) {
    if (test.outputIgnored[k]) continue;
    const hal::TensorValue& exp = test.expectedOutputs[k];
    const hal::TensorValue& act = actual[k];
    const std::string out = "output " + std::to_string(k);
    if (act.type != exp.type) {
      v.reason = out + ": type " + std::string(hal::toString(act.type)) + ", expected " +
                 std::string(hal::toString(exp.type));
      return v;
    }
    bool known = !exp.dimensions.empty() || hal::isScalar(exp.type);
    for (uint32_t d : exp.dimensions) known = known && d != 0;
    if (known && act.dimensions != exp.dimensions) {
      v.reason = out + ": shape " + dims(act.dimensions) + ", expected " + dims(exp.dimensions);
      return v;
    }
    if (act.bytes.size() != exp.bytes.size()) {
      v.reason = out + ": " + std::to_string(act.bytes.size()) + " bytes (shape " +
                 dims(act.dimensions) + "), expected " + std::to_string(exp.bytes.size());
      return v;
    }
    compared = true;
    const size_t n = exp.bytes.size() / hal::elementSize(exp.type);
    if (test.multinomialTolerance > 0) {
      std::string why;
      if (!judgeDistribution(exp, act, test.multinomialTolerance, &why)) {
        v.reason = out + ": " + why;
        return v;
      }
      allExact = false;
      continue;
    }
    const bool integer = isIntegerType(exp.type);
    allInteger = allInteger && integer;
    const bool isHalf = exp.type == OperandType::TENSOR_FLOAT16 || exp.type == OperandType::FLOAT16;
    for (size_t i = 0; i < n; ++i) {
      const double e = elementAt(exp, i), a = elementAt(act, i);
      if (e != a) allExact = false;
      double tol;
      if (!integer) {
        tol = (relaxed || isHalf) ? 5.0 / 1024 + 5.0 / 1024 * std::abs(e)
                                  : 1e-5 + 5.0 * std::ldexp(1.0, -23) * std::abs(e);
      } else {
        const bool isBool = exp.type == OperandType::TENSOR_BOOL8 || exp.type == OperandType::BOOL;
        tol = isBool ? 0.0 : 1.0;
      }
      const bool ok = integer ? std::abs(a - e) <= tol
                              : (std::isnan(e) ? std::isnan(a) : std::abs(a - e) <= tol);
      if (!ok) {
        std::ostringstream os;
        os.precision(9);
        os << out << "[" << i << "]: got " << a << ", expected " << e << " (tolerance " << tol
           << ")";
        v.reason = os.str();
        return v;
      }
    }
  }
  v.passed = true;
  v.integerOutputs = compared && allInteger && test.multinomialTolerance <= 0;
  v.bitExact = v.integerOutputs && allExact;
  return v;
}

}  // namespace nncosim::verify
