// The first error of a fabric session, shared by its capabilities (memory, completions, peer
// sync): whichever fails first sets it, and the role returns it.
#pragma once

#include <utility>

#include "core/status.h"

namespace fabperf {

class SessionError {
 public:
  // Keeps the first failure; always false, so a caller can `return fail(...)`.
  bool fail(Status status) {
    if (error_.ok()) error_ = std::move(status);
    return false;
  }
  const Status& error() const { return error_; }
  // The first error, or Ok; the Status role functions return.
  Status status() const { return error_; }

 private:
  Status error_;
};

}  // namespace fabperf
