// Progress of a --matrix job on rank 0: a line per round ("round k of R, elapsed, ETA, suspects
// so far"), or one bar redrawn in place when standard error is a terminal.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace fabperf::cluster {

class Progress {
 public:
  Progress(std::FILE* out, bool terminal) : out_(out), terminal_(terminal) {}
  ~Progress() { done(); }

  void line(const std::string& text);  // a message of its own, never overwritten
  // After round `done` (1-based) of `total`; the ETA is drawn from the rounds' own pace
  // (`rounds_s`), the elapsed time is the job's.
  void round(size_t done, size_t total, double elapsed_s, double rounds_s, uint64_t suspects,
             int unreachable);
  void done();  // ends a bar's line

 private:
  std::FILE* out_;
  bool terminal_;
  bool bar_open_ = false;
};

// "1.2 s", "3 min 4 s", "2 h 5 min": the time left, readable at a glance.
std::string duration_text(double seconds);

}  // namespace fabperf::cluster
