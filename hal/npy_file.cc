#include "hal/npy_file.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace nncosim::hal {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

std::string shapeString(const std::vector<uint64_t>& s) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << (s.size() == 1 ? ",)" : ")");
  return os.str();
}

// The value text of `key` in the header dict, up to the next top-level comma or brace.
Result<std::string> dictValue(const std::string& h, const std::string& key,
                              const std::string& name) {
  const size_t k = h.find("'" + key + "'");
  if (k == std::string::npos) return fail(name, ": header has no '", key, "' key: ", h);
  size_t p = h.find(':', k);
  if (p == std::string::npos) return fail(name, ": header: '", key, "' has no value");
  ++p;
  while (p < h.size() && h[p] == ' ') ++p;
  size_t e = p;
  if (e < h.size() && h[e] == '(') {
    e = h.find(')', e);
    if (e == std::string::npos) return fail(name, ": header: unterminated shape tuple");
    return h.substr(p, e - p + 1);
  }
  if (e < h.size() && h[e] == '\'') {
    e = h.find('\'', e + 1);
    if (e == std::string::npos) return fail(name, ": header: unterminated '", key, "' string");
    return h.substr(p + 1, e - p - 1);
  }
  while (e < h.size() && h[e] != ',' && h[e] != '}') ++e;
  std::string v = h.substr(p, e - p);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

Result<std::vector<uint64_t>> parseShape(const std::string& t, const std::string& name) {
  std::vector<uint64_t> s;
  size_t p = 1;  // past '('
  while (p < t.size()) {
    while (p < t.size() && (t[p] == ' ' || t[p] == ',')) ++p;
    if (p >= t.size() || t[p] == ')') break;
    if (t[p] < '0' || t[p] > '9') return fail(name, ": header: bad shape ", t);
    uint64_t v = 0;
    while (p < t.size() && t[p] >= '0' && t[p] <= '9') {
      v = v * 10 + static_cast<uint64_t>(t[p] - '0');
      if (v > (uint64_t{1} << 40)) return fail(name, ": header: shape dimension too large in ", t);
      ++p;
    }
    s.push_back(v);
  }
  return s;
}

size_t descrSize(const std::string& d) {
  if (d.size() < 3) return 0;
  return static_cast<size_t>(std::atoi(d.c_str() + 2));
}

}  // namespace

Result<NpyArray> parseNpy(const std::vector<uint8_t>& b, const std::string& name) {
  if (b.size() < kMagicSize + 4 || std::memcmp(b.data(), kMagic, kMagicSize) != 0)
    return fail(name, ": not a .npy file (no \\x93NUMPY magic)");
  const int major = b[6], minor = b[7];
  size_t headerLen = 0, start = 0;
  if (major == 1) {
    headerLen = b[8] | (size_t{b[9]} << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return fail(name, ": truncated .npy header");
    headerLen = b[8] | (size_t{b[9]} << 8) | (size_t{b[10]} << 16) | (size_t{b[11]} << 24);
    start = 12;
  } else {
    return fail(name, ": .npy version ", major, ".", minor, " (expected 1.0, 2.0 or 3.0)");
  }
  if (headerLen > b.size() - start)
    return fail(name, ": header of ", headerLen, " bytes runs past the end of the file (", b.size(),
                " bytes)");
  const std::string h(reinterpret_cast<const char*>(b.data() + start), headerLen);
  NpyArray a;
  NNC_ASSIGN_OR_RETURN(auto descr, dictValue(h, "descr", name));
  a.descr = descr;
  NNC_ASSIGN_OR_RETURN(auto fortran, dictValue(h, "fortran_order", name));
  if (fortran != "False")
    return fail(name, ": fortran_order is ", fortran, " (only C order is read)");
  NNC_ASSIGN_OR_RETURN(auto shape, dictValue(h, "shape", name));
  if (shape.empty() || (shape)[0] != '(')
    return fail(name, ": header: shape ", shape, " is not a tuple");
  NNC_ASSIGN_OR_RETURN(auto dims, parseShape(shape, name));
  a.shape = dims;
  const size_t elem = descrSize(a.descr);
  if (elem == 0 || (a.descr[0] != '<' && a.descr[0] != '|' && a.descr[0] != '='))
    return fail(name, ": dtype '", a.descr, "' is not a little-endian numeric type");
  uint64_t n = 1;
  for (uint64_t d : a.shape) {
    n *= d;
    if (n > (uint64_t{1} << 34))
      return fail(name, ": shape ", shapeString(a.shape), " is too large");
  }
  const size_t dataStart = start + headerLen;
  if (b.size() - dataStart != n * elem)
    return fail(name, ": ", b.size() - dataStart, " data bytes, but shape ", shapeString(a.shape),
                " of '", a.descr, "' needs ", n * elem);
  a.data.assign(b.begin() + static_cast<std::ptrdiff_t>(dataStart), b.end());
  return a;
}

Result<NpyArray> readNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(path, ": cannot open file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  return parseNpy(bytes, path);
}

std::string npyDescr(OperandType t) {
  switch (t) {
    case OperandType::TENSOR_FLOAT32:
      return "<f4";
    case OperandType::TENSOR_FLOAT16:
      return "<f2";
    case OperandType::TENSOR_INT32:
      return "<i4";
    case OperandType::TENSOR_QUANT8_ASYMM:
      return "|u1";
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
      return "|i1";
    case OperandType::TENSOR_QUANT16_SYMM:
      return "<i2";
    case OperandType::TENSOR_QUANT16_ASYMM:
      return "<u2";
    case OperandType::TENSOR_BOOL8:
      return "|b1";
    default:
      return "";
  }
}

Result<std::vector<uint8_t>> npyDataFor(const NpyArray& a, const Operand& o,
                                        const std::string& name) {
  const std::string want = npyDescr(o.type);
  if (want.empty()) return fail(name, ": operand type ", toString(o.type), " has no .npy dtype");
  // '<' and '=' mean the same on the little-endian hosts this runs on; '|' for one byte.
  auto norm = [](std::string d) {
    if (!d.empty() && (d[0] == '=' || d[0] == '|')) d[0] = '<';
    return d;
  };
  if (norm(a.descr) != norm(want))
    return fail(name, ": dtype '", a.descr, "' but the model input is ", toString(o.type), " ('",
                want, "')");
  std::vector<uint64_t> dims(o.dimensions.begin(), o.dimensions.end());
  bool match = a.shape.size() == dims.size();
  for (size_t i = 0; match && i < dims.size(); ++i) match = dims[i] == 0 || dims[i] == a.shape[i];
  if (!match)
    return fail(name, ": shape ", shapeString(a.shape), " but the model input is ",
                shapeString(dims));
  return a.data;
}

Status writeNpy(const std::string& path, OperandType type, const std::vector<uint32_t>& dims,
                const std::vector<uint8_t>& data) {
  const std::string descr = npyDescr(type);
  if (descr.empty()) return fail(path, ": operand type ", toString(type), " has no .npy dtype");
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " +
                  shapeString(std::vector<uint64_t>(dims.begin(), dims.end())) + ", }";
  // Pad with spaces so that magic + version + length + header is a multiple of 64, ending in \n.
  while ((kMagicSize + 4 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) return fail(path, ": cannot create file");
  out.write(kMagic, kMagicSize);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const uint16_t len = static_cast<uint16_t>(h.size());
  const char lenBytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(lenBytes, 2);
  out << h;
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out) return fail(path, ": write failed");
  return Status::Ok();
}

}  // namespace nncosim::hal
