// The order in which clients' measurements run, and the record of overlaps.
#include "session/measurement_queue.h"

#include <algorithm>
#include <chrono>

#include "core/clock.h"
#include "core/text.h"

namespace fabperf {

bool MeasurementQueue::may_start(uint64_t ticket) const {
  if (concurrent_) return true;
  return running_.empty() && !waiting_.empty() && waiting_.front() == ticket;
}

Result<uint64_t> MeasurementQueue::enter(const std::string& who, double limit_s,
                                         const std::atomic<bool>& stop,
                                         const std::function<Status(size_t ahead)>& on_wait) {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t ticket = next_ticket_++;
  waiting_.push_back(ticket);
  const Deadline deadline = Deadline::after(limit_s);
  int64_t next_notice = 0;
  auto forget = [&] { waiting_.erase(std::find(waiting_.begin(), waiting_.end(), ticket)); };
  while (!may_start(ticket)) {
    if (stop.load()) {
      forget();
      changed_.notify_all();
      return Status::interrupted("server shutting down");
    }
    if (deadline.expired()) {
      forget();
      changed_.notify_all();
      return Status::failed("server busy: waited " + seconds_text(limit_s) +
                            " for other clients' measurements to end (server option "
                            "--queue_timeout); try again later");
    }
    int64_t now = now_ns();
    if (now >= next_notice) {
      next_notice = now + 1'000'000'000;
      size_t ahead = running_.size() +
                     static_cast<size_t>(std::find(waiting_.begin(), waiting_.end(), ticket) -
                                         waiting_.begin());
      lock.unlock();
      Status told = on_wait(ahead);
      lock.lock();
      if (!told.ok()) {
        forget();
        changed_.notify_all();
        return told;
      }
      continue;
    }
    // Woken by a change; the slice bounds how late a stop or the deadline is seen.
    changed_.wait_for(lock, std::chrono::milliseconds(100));
  }
  forget();
  Running entry{who, {}};
  for (auto& [id, other] : running_) {
    other.overlapped.push_back(who);
    entry.overlapped.push_back(other.who);
  }
  running_.emplace(ticket, std::move(entry));
  changed_.notify_all();
  return ticket;
}

std::vector<std::string> MeasurementQueue::leave(uint64_t ticket) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> overlapped;
  auto it = running_.find(ticket);
  if (it != running_.end()) {
    overlapped = std::move(it->second.overlapped);
    running_.erase(it);
  }
  changed_.notify_all();
  return overlapped;
}

size_t MeasurementQueue::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_.size();
}

size_t MeasurementQueue::waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_.size();
}

}  // namespace fabperf
