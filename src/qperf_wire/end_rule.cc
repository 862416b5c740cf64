// qperf's end-of-test rule: the timer, the peer's word on the control connection, the idle limit.
#include "qperf_wire/end_rule.h"

#include "core/text.h"
#include "qperf_wire/stat_times.h"

namespace fabperf::qperf_wire {

namespace {

// As often as qperf's timer re-fires: a peer's '.' ends this side within 10 ms.
constexpr int64_t kControlCheckNs = 10'000'000;

}  // namespace

EndRule::EndRule(double seconds, QperfControl& control, const std::atomic<bool>* stop)
    : duration_ns_(static_cast<int64_t>(seconds * 1e9)), control_(control), stop_(stop) {}

void EndRule::start() {
  take_times(start_times_);
  start_ns_ = now_ns();
  start_times_[kReal] = static_cast<uint64_t>(start_ns_ / 1000);
  deadline_ns_ = duration_ns_ > 0 ? start_ns_ + duration_ns_ : INT64_MAX;
  next_check_ns_ = start_ns_ + kControlCheckNs;
  last_progress_ns_ = start_ns_;
  clock_.restart(start_ns_);
  moved_ = waited_ = false;
  finished_ = false;
}

void EndRule::finish_at(int64_t end_ns) {
  if (finished_) return;
  finished_ = true;
  // A side that noticed its deadline late (a blocked call woken by the watchdog) moved
  // nothing since: its interval ends at the deadline, as qperf's SIGALRM ends it.
  end_ns_ = std::clamp(end_ns, start_ns_, std::max(start_ns_, deadline_ns_));
  take_times(end_times_);
  end_times_[kReal] = static_cast<uint64_t>(end_ns_ / 1000);
}

bool EndRule::check(int64_t now) {
  if (moved_) {
    moved_ = false;
    last_progress_ns_ = now;
  }
  if (now >= deadline_ns_ || (stop_ != nullptr && stop_->load(std::memory_order_relaxed))) {
    finish_at(now);
    return true;
  }
  if (now < next_check_ns_) return false;
  next_check_ns_ = now + kControlCheckNs;
  if (idle_limit_ns_ > 0 && now - last_progress_ns_ > idle_limit_ns_) {
    control_status_ = Status::timeout(
        "nothing from the " + control_.peer() + " within the timeout (" +
        seconds_text(static_cast<double>(idle_limit_ns_) / 1e9) + "; stopped or gone?)");
    finish_at(now);
    return true;
  }
  Status s = control_.check();
  if (!s.ok()) {
    control_status_ = s;
    finish_at(now);
    return true;
  }
  if (control_.peer_finished()) {
    // The peer ended the test ('.', or its results already coming): this side's interval
    // ends with its last transfer, not when the 10 ms look noticed.
    finish_at(last_progress_ns_);
    return true;
  }
  return false;
}

}  // namespace fabperf::qperf_wire
