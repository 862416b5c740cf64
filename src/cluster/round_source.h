// What the coordinator measures next: the rounds of a fixed pattern (schedule.h), repeated
// --passes times, or the adaptive plan (adaptive_plan.h), which chooses each round from what
// the rounds before it measured.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cluster/schedule.h"

namespace fabperf::cluster {

struct MatrixRun;

struct PlannedRound {
  std::vector<Pair> pairs;    // a rank at most once
  std::vector<size_t> tests;  // the tests to run (empty: every test of the job)
  bool alone = false;         // re-measuring suspects, the pairs sharing no fabric element
};

class RoundSource {
 public:
  virtual ~RoundSource() = default;
  // The next round, seeing what the rounds so far measured; nullopt when the plan is done.
  virtual std::optional<PlannedRound> next(const MatrixRun& run) = 0;
  // Rounds still to come as far as known now (the ETA, and fitting -t into --budget).
  virtual size_t rounds_left() const = 0;
  // Pairs a test will measure, as far as known at the start (for the matrix layout).
  virtual uint64_t pairs_planned() const = 0;
  virtual bool ordered() const = 0;
  // The plan re-measures its own suspects alone: the coordinator's --retest step is skipped.
  virtual bool retests_suspects() const { return false; }
};

// A fixed schedule, `passes` times in a row (with --randomize, each pass in its own order).
class ScheduleRounds : public RoundSource {
 public:
  ScheduleRounds(std::vector<Schedule> passes);
  std::optional<PlannedRound> next(const MatrixRun& run) override;
  size_t rounds_left() const override;
  uint64_t pairs_planned() const override { return passes_.front().pair_count(); }
  bool ordered() const override { return passes_.front().ordered(); }
  size_t rounds_total() const;

 private:
  std::vector<Schedule> passes_;
  size_t pass_ = 0, round_ = 0;
};

}  // namespace fabperf::cluster
