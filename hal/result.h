// Result<T>: a value or an error message that carries its context.
// C++17 has no std::expected; this is the small subset the project needs.
#pragma once

#include <optional>
#include <sstream>
#include <string>
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
#define NNC_TRY(expr)                                           \
  do {                                                          \
    auto&& nnc_try_r_ = (expr);                                 \
    if (!nnc_try_r_.ok()) return ::nncosim::hal::Error{nnc_try_r_.error()}; \
  } while (0)

// Checks a condition; on failure returns an error naming the expression and the message.
#define NNC_CHECK(cond, ...)                                                        \
  do {                                                                              \
    if (!(cond)) return ::nncosim::hal::fail(__VA_ARGS__, " (failed: " #cond ")"); \
  } while (0)
