// Result<T>: a value or an error message that carries its context.
// C++17 has no std::expected; this is the small subset the project needs.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace nncosim::hal {

struct Error {
  std::string message;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error e) : v_(std::move(e)) {}      // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const std::string& error() const { return std::get<1>(v_).message; }

 private:
  std::variant<T, Error> v_;
};

// Status: Result without a value.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error e) : err_(std::move(e.message)) {}  // NOLINT
  static Status Ok() { return Status(); }
  bool ok() const { return !err_.has_value(); }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return *err_; }

 private:
  std::optional<std::string> err_;
};

// Builds an error message from streamable parts: fail("operand ", i, ": scale ", s).
template <typename... Args>
Error fail(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return Error{os.str()};
}

}  // namespace nncosim::hal

// Propagates an error from a Status or Result expression.
#define NNC_TRY(expr)                                                       \
  do {                                                                      \
    auto&& nnc_try_r_ = (expr);                                             \
    if (!nnc_try_r_.ok()) return ::nncosim::hal::Error{nnc_try_r_.error()}; \
  } while (0)

// Evaluates a Result expression; on error returns it, else declares `decl` with its
// value: NNC_ASSIGN_OR_RETURN(auto plan, compileModel(model, options));
#define NNC_ASSIGN_OR_RETURN(decl, ...) \
  NNC_ASSIGN_OR_RETURN_IMPL_(NNC_CONCAT_(nnc_result_, __LINE__), decl, __VA_ARGS__)
#define NNC_ASSIGN_OR_RETURN_IMPL_(tmp, decl, ...)          \
  auto tmp = (__VA_ARGS__);                                 \
  if (!tmp.ok()) return ::nncosim::hal::Error{tmp.error()}; \
  decl = std::move(tmp).value()
#define NNC_CONCAT_(a, b) NNC_CONCAT_INNER_(a, b)
#define NNC_CONCAT_INNER_(a, b) a##b

// Checks a condition; on failure returns an error naming the expression and the message.
#define NNC_CHECK(cond, ...)                                                       \
  do {                                                                             \
    if (!(cond)) return ::nncosim::hal::fail(__VA_ARGS__, " (failed: " #cond ")"); \
  } while (0)

namespace nncosim::hal::detail {
// Byte-sized integers print as numbers, not characters; enums as their values.
template <typename T, std::enable_if_t<!std::is_enum_v<T>, int> = 0>
const T& printable(const T& v) {
  return v;
}
template <typename T, std::enable_if_t<std::is_enum_v<T>, int> = 0>
long long printable(const T& v) {
  return static_cast<long long>(v);
}
inline int printable(const signed char& v) { return v; }
inline int printable(const unsigned char& v) { return v; }
inline int printable(const char& v) { return v; }
}  // namespace nncosim::hal::detail

namespace nncosim::hal::detail {
// Comparisons that are exact across signedness (a negative int is below every size_t),
// so a check reads as written without sign-compare warnings.
template <typename A, typename B>
constexpr bool mixedSigns() {
  return std::is_integral_v<A> && std::is_integral_v<B> &&
         std::is_signed_v<A> != std::is_signed_v<B>;
}
template <typename A, typename B>
bool checkEq(const A& a, const B& b) {
  if constexpr (mixedSigns<A, B>()) {
    if constexpr (std::is_signed_v<A>)
      return a >= 0 && static_cast<std::make_unsigned_t<A>>(a) == b;
    else
      return b >= 0 && a == static_cast<std::make_unsigned_t<B>>(b);
  } else {
    return a == b;
  }
}
template <typename A, typename B>
bool checkLt(const A& a, const B& b) {
  if constexpr (mixedSigns<A, B>()) {
    if constexpr (std::is_signed_v<A>)
      return a < 0 || static_cast<std::make_unsigned_t<A>>(a) < b;
    else
      return b > 0 && a < static_cast<std::make_unsigned_t<B>>(b);
  } else {
    return a < b;
  }
}
template <typename A, typename B>
bool checkNe(const A& a, const B& b) {
  return !checkEq(a, b);
}
template <typename A, typename B>
bool checkLe(const A& a, const B& b) {
  if constexpr (mixedSigns<A, B>())
    return !checkLt(b, a);
  else
    return a <= b;
}
template <typename A, typename B>
bool checkGt(const A& a, const B& b) {
  if constexpr (mixedSigns<A, B>())
    return checkLt(b, a);
  else
    return a > b;
}
template <typename A, typename B>
bool checkGe(const A& a, const B& b) {
  if constexpr (mixedSigns<A, B>())
    return !checkLt(a, b);
  else
    return a >= b;
}
}  // namespace nncosim::hal::detail

// A comparison check that prints both values: "... (failed: rank == 4: 3 vs 4)". Each
// side is evaluated once.
#define NNC_CHECK_OP(a, cmp, op, b, ...)                                                   \
  do {                                                                                     \
    const auto& nnc_check_a_ = (a);                                                        \
    const auto& nnc_check_b_ = (b);                                                        \
    if (!::nncosim::hal::detail::cmp(nnc_check_a_, nnc_check_b_))                          \
      return ::nncosim::hal::fail(__VA_ARGS__, " (failed: " #a " " #op " " #b ": ",        \
                                  ::nncosim::hal::detail::printable(nnc_check_a_), " vs ", \
                                  ::nncosim::hal::detail::printable(nnc_check_b_), ")");   \
  } while (0)
#define NNC_CHECK_EQ(a, b, ...) NNC_CHECK_OP(a, checkEq, ==, b, __VA_ARGS__)
#define NNC_CHECK_NE(a, b, ...) NNC_CHECK_OP(a, checkNe, !=, b, __VA_ARGS__)
#define NNC_CHECK_LT(a, b, ...) NNC_CHECK_OP(a, checkLt, <, b, __VA_ARGS__)
#define NNC_CHECK_LE(a, b, ...) NNC_CHECK_OP(a, checkLe, <=, b, __VA_ARGS__)
#define NNC_CHECK_GT(a, b, ...) NNC_CHECK_OP(a, checkGt, >, b, __VA_ARGS__)
#define NNC_CHECK_GE(a, b, ...) NNC_CHECK_OP(a, checkGe, >=, b, __VA_ARGS__)
