// RunLimit: when a measured phase ends, by count (-n) or by time (-t from its start).
#pragma once

#include <cstdint>

#include "options/run_options.h"

namespace fabperf {

class RunLimit {
 public:
  explicit RunLimit(const RunOptions& opts)
      : count_(opts.no_msgs), duration_ns_(static_cast<int64_t>(opts.time * 1e9)) {}
  // The measured phase starts now: a time limit counts from here.
  void start(int64_t now) { end_ns_ = now + duration_ns_; }
  // True once `measured` iterations are done (-n), or the time is up (-t).
  bool done(uint64_t measured, int64_t now) const {
    return count_ > 0 ? measured >= count_ : now >= end_ns_;
  }
  bool by_count() const { return count_ > 0; }
  uint64_t count() const { return count_; }
  int64_t end_ns() const { return end_ns_; }

 private:
  uint64_t count_;
  int64_t duration_ns_;
  int64_t end_ns_ = 0;
};

}  // namespace fabperf
