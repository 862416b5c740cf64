// Status and Result: the error value every fallible call returns (no exit() in library code).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace fabperf {

// What kind of failure; decides the process exit code (README.md, "Exit status": 0 ok, 1 a run
// failed, 2 bad usage, 130 interrupted).
enum class Code {
  kOk = 0,
  kUsage,        // bad command line: unknown option, bad value, unknown test
  kFailed,       // a run failed: connection, peer error, verification mismatch
  kTimeout,      // a deadline passed
  kUnsupported,  // the kernel, provider or device cannot do what was asked
  kInterrupted,  // stopped by a signal
  kCheckFailed,  // a check ran and a target failed it (fab_heatsink_check's FAIL: exit 2, as
                 // the original's)
};

// [[nodiscard]]: a dropped Status is a bug; say so with ignore_error() where it is meant.
class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status success() { return Status(); }
  static Status usage(std::string msg) { return Status(Code::kUsage, std::move(msg)); }
  static Status failed(std::string msg) { return Status(Code::kFailed, std::move(msg)); }
  static Status timeout(std::string msg) { return Status(Code::kTimeout, std::move(msg)); }
  static Status unsupported(std::string msg) { return Status(Code::kUnsupported, std::move(msg)); }
  static Status interrupted(std::string msg) { return Status(Code::kInterrupted, std::move(msg)); }

  // A failure already told to the user where it happened: no message, so fabperf_main, which
  // prints a mode's failure, adds nothing; the code still decides the exit status.
  static Status reported(Code code) { return Status(code, ""); }

  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // The same failure with context in front: "connect to host: " + message.
  Status prefixed(const std::string& context) const {
    return ok() ? *this : Status(code_, context + ": " + message_);
  }

  // For the few calls whose failure changes nothing (a goodbye to a peer that has gone).
  void ignore_error() const {}

  // Process exit status for this outcome: the one mapping. fabperf_main alone exits with it
  // (app/fabperf_app.cc); a session child's own _exit and the matrix JSON's record of the job's
  // status use it too, so that they say the same number.
  int exit_code() const {
    switch (code_) {
      case Code::kOk:
        return 0;
      case Code::kUsage:
        return 2;
      case Code::kCheckFailed:
        return 2;
      case Code::kInterrupted:
        return 130;
      default:
        return 1;
    }
  }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or the Status saying why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  // A Result without a value carries the reason; an Ok status here is a programming error.
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok())
      status_ = Status::failed("internal error: a result with no value and no error");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace fabperf

// Early return on failure: FP_RETURN_IF_ERROR(do_thing());
#define FP_RETURN_IF_ERROR(expr)               \
  do {                                         \
    ::fabperf::Status fp_status__ = (expr);    \
    if (!fp_status__.ok()) return fp_status__; \
  } while (0)
