// A fixed schedule's rounds, pass after pass.
#include "cluster/round_source.h"

namespace fabperf::cluster {

ScheduleRounds::ScheduleRounds(std::vector<Schedule> passes) : passes_(std::move(passes)) {}

std::optional<PlannedRound> ScheduleRounds::next(const MatrixRun&) {
  while (pass_ < passes_.size() && round_ >= passes_[pass_].rounds()) {
    ++pass_;
    round_ = 0;
  }
  if (pass_ >= passes_.size()) return std::nullopt;
  PlannedRound r;
  r.pairs = passes_[pass_].round(round_++);
  return r;
}

size_t ScheduleRounds::rounds_total() const {
  size_t total = 0;
  for (const Schedule& s : passes_) total += s.rounds();
  return total;
}

size_t ScheduleRounds::rounds_left() const {
  size_t left = 0;
  for (size_t p = pass_; p < passes_.size(); ++p) left += passes_[p].rounds();
  return left - (pass_ < passes_.size() ? std::min(round_, passes_[pass_].rounds()) : 0);
}

}  // namespace fabperf::cluster
