// --json-stream FILE|-: the run as JSON lines, one object per line, each flushed as written, so
// a long run can be watched (tail -f) or killed and what was written still parses. Records,
// in order: "start" (the run's parameters), then per run of the plan "run" (its test and
// parameters), its "interval" records (--interval) and its "result" (the object the --json
// document's results hold), and at the end "end".
#pragma once

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "report/reporter.h"

namespace fabperf {

// Writes one compact JSON object and '\n' per call, flushing each line. Invalid UTF-8 in
// strings is replaced, never thrown on. The first failure sticks (a full disk, a closed pipe).
class JsonLineWriter {
 public:
  explicit JsonLineWriter(std::FILE* f) : f_(f) {}
  Status write(const nlohmann::json& record);
  const Status& status() const { return status_; }

 private:
  std::FILE* f_;
  Status status_;
};

// The records. `run` is the 0-based position of the run in the plan (one per loop value).
nlohmann::json stream_start_record(const RunInfo& info, double interval_s);
nlohmann::json stream_run_record(size_t run, const TestResult& pending);
// The interval's counts (interval_counts_json), its real start_s and end_s from the start of
// the measured phase, its rates, and for latency tests latency_ns (samples, mean, p99) and the
// interval's own latency_histogram (merged over a run's intervals: the result's histogram).
nlohmann::json stream_interval_record(size_t run, const TestResult& pending,
                                      const IntervalRecord& record);
nlohmann::json stream_result_record(size_t run, const TestResult& result);
// How the run ended: results written, how many failed, whether ^C cut it short.
nlohmann::json stream_end_record(size_t results, size_t errors, bool interrupted);

}  // namespace fabperf
