// Errors as values across module boundaries. A failure carries a classification (what the caller
// can do about it) and the original message, including the provider's own words where there are
// any. GCC 12 has no std::expected, hence this small type.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace burst {

enum class ErrorCode {
  kInvalid,       // bad input: spec, config, arguments
  kAuth,          // credentials missing or refused
  kNotFound,      // the thing does not exist (a pod already gone, a file missing)
  kNoCapacity,    // provider has no machine of that kind right now
  kRateLimited,   // slow down and retry
  kUnavailable,   // transient server or network trouble
  kTimeout,       // a deadline passed
  kConnection,    // a connection was lost or refused
  kInterrupted,   // the user asked us to stop (SIGINT/SIGTERM)
  kRemoteFailed,  // a remote command ran and failed
  kInternal,      // a bug or an unexpected local failure
};

const char* to_string(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;

  // Whether trying the same thing again later may succeed.
  bool retryable() const {
    return code == ErrorCode::kRateLimited || code == ErrorCode::kUnavailable ||
           code == ErrorCode::kTimeout || code == ErrorCode::kConnection ||
           code == ErrorCode::kNoCapacity;
  }
};

inline Error make_error(ErrorCode code, std::string message) {
  return Error{code, std::move(message)};
}

// Prefixes context onto an error message: "local: create pod: " + original.
inline Error with_context(Error e, const std::string& context) {
  e.message = context + ": " + e.message;
  return e;
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  // On a temporary Result, by value: `for (auto& x : *store.f())` or `f().value()` then outlive
  // the Result (a reference into it dangled; ASan caught one in a test).
  T value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T operator*() && { return std::move(*this).value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

// Result of an operation that yields nothing but success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  static Status Ok() { return Status(); }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    assert(!ok_);
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace burst
