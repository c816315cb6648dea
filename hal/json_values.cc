#include "hal/json_values.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "hal/half.h"

namespace nncosim::hal {
namespace {

template <typename T>
void put(std::vector<uint8_t>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

template <typename T>
T get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

Result<float> toFloat(const Json& v, const std::string& where, size_t i) {
  if (v.is_number()) return v.get<float>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "inf") return std::numeric_limits<float>::infinity();
    if (s == "-inf") return -std::numeric_limits<float>::infinity();
    if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
  }
  return fail(where, "[", i, "]: expected a number, got ", v.dump());
}

Result<int64_t> toInt(const Json& v, int64_t lo, int64_t hi, const std::string& where, size_t i) {
  if (!v.is_number_integer()) return fail(where, "[", i, "]: expected an integer, got ", v.dump());
  int64_t x = v.is_number_unsigned()
                  ? static_cast<int64_t>(std::min<uint64_t>(v.get<uint64_t>(), uint64_t{1} << 62))
                  : v.get<int64_t>();
  if (x < lo || x > hi) return fail(where, "[", i, "]: ", x, " outside [", lo, ", ", hi, "]");
  return x;
}

}  // namespace

Result<std::vector<uint8_t>> valuesToBytes(const Json& values, OperandType type,
                                           const std::string& where) {
  if (!values.is_array()) return fail(where, ": expected an array of values");
  std::vector<uint8_t> out;
  out.reserve(values.size() * elementSize(type));
  for (size_t i = 0; i < values.size(); ++i) {
    const Json& v = values[i];
    switch (type) {
      case OperandType::FLOAT32:
      case OperandType::TENSOR_FLOAT32: {
        NNC_ASSIGN_OR_RETURN(auto f, toFloat(v, where, i));
        put<float>(out, f);
        break;
      }
      case OperandType::FLOAT16:
      case OperandType::TENSOR_FLOAT16: {
        NNC_ASSIGN_OR_RETURN(auto f, toFloat(v, where, i));
        put<uint16_t>(out, floatToHalfBits(f));
        break;
      }
      case OperandType::BOOL:
      case OperandType::TENSOR_BOOL8: {
        if (v.is_boolean()) {
          put<uint8_t>(out, v.get<bool>() ? 1 : 0);
        } else {
          NNC_ASSIGN_OR_RETURN(auto x, toInt(v, 0, 1, where, i));
          put<uint8_t>(out, static_cast<uint8_t>(x));
        }
        break;
      }
      default: {
        int64_t lo = 0, hi = 0;
        switch (type) {
          case OperandType::INT32:
          case OperandType::TENSOR_INT32:
            lo = INT32_MIN;
            hi = INT32_MAX;
            break;
          case OperandType::UINT32:
          case OperandType::SUBGRAPH:
            lo = 0;
            hi = UINT32_MAX;
            break;
          case OperandType::TENSOR_QUANT8_ASYMM:
            lo = 0;
            hi = 255;
            break;
          case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
          case OperandType::TENSOR_QUANT8_SYMM:
          case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
            lo = -128;
            hi = 127;
            break;
          case OperandType::TENSOR_QUANT16_ASYMM:
            lo = 0;
            hi = 65535;
            break;
          case OperandType::TENSOR_QUANT16_SYMM:
            lo = -32768;
            hi = 32767;
            break;
          default:
            return fail(where, ": cannot hold values of type ", toString(type));
        }
        NNC_ASSIGN_OR_RETURN(auto x, toInt(v, lo, hi, where, i));
        switch (elementSize(type)) {
          case 1:
            put<uint8_t>(out, static_cast<uint8_t>(x));
            break;
          case 2:
            put<uint16_t>(out, static_cast<uint16_t>(x));
            break;
          default:
            put<uint32_t>(out, static_cast<uint32_t>(x));
            break;
        }
      }
    }
  }
  return out;
}

Json bytesToValues(const uint8_t* data, size_t bytes, OperandType type) {
  Json arr = Json::array();
  const size_t es = elementSize(type);
  for (size_t off = 0; off + es <= bytes; off += es) {
    const uint8_t* p = data + off;
    switch (type) {
      case OperandType::FLOAT32:
      case OperandType::TENSOR_FLOAT32: {
        float f = get<float>(p);
        if (std::isnan(f))
          arr.push_back("nan");
        else if (std::isinf(f))
          arr.push_back(f > 0 ? "inf" : "-inf");
        else
          arr.push_back(f);
        break;
      }
      case OperandType::FLOAT16:
      case OperandType::TENSOR_FLOAT16: {
        float f = halfBitsToFloat(get<uint16_t>(p));
        if (std::isnan(f))
          arr.push_back("nan");
        else if (std::isinf(f))
          arr.push_back(f > 0 ? "inf" : "-inf");
        else
          arr.push_back(f);
        break;
      }
      case OperandType::BOOL:
      case OperandType::TENSOR_BOOL8:
        arr.push_back(*p != 0);
        break;
      case OperandType::INT32:
      case OperandType::TENSOR_INT32:
        arr.push_back(get<int32_t>(p));
        break;
      case OperandType::UINT32:
      case OperandType::SUBGRAPH:
        arr.push_back(get<uint32_t>(p));
        break;
      case OperandType::TENSOR_QUANT8_ASYMM:
        arr.push_back(*p);
        break;
      case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      case OperandType::TENSOR_QUANT8_SYMM:
      case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
        arr.push_back(static_cast<int8_t>(*p));
        break;
      case OperandType::TENSOR_QUANT16_ASYMM:
        arr.push_back(get<uint16_t>(p));
        break;
      case OperandType::TENSOR_QUANT16_SYMM:
        arr.push_back(get<int16_t>(p));
        break;
    }
  }
  return arr;
}

namespace {

// A SAX consumer that accepts every event and keeps the parse error's message, so the
// error of a failed parse can be reported without an exception being thrown.
struct ParseErrorCatcher : nlohmann::json_sax<Json> {
  std::string message;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    message = e.what();
    return false;
  }
};

}  // namespace

Result<Json> parseJsonText(const std::string& text, const std::string& name) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded()) return j;
  ParseErrorCatcher catcher;
  Json::sax_parse(text, &catcher);
  return fail(name,
              ": malformed JSON: ", catcher.message.empty() ? "invalid text" : catcher.message);
}

Result<Json> readJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(path, ": cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parseJsonText(ss.str(), path);
}

}  // namespace nncosim::hal
