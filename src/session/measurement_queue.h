// MeasurementQueue: by default one client's measurement runs at a time and the others wait
// their turn in order (so runs never disturb each other); with --concurrent they run together
// and each learns which others overlapped it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"

namespace fabperf {

class MeasurementQueue {
 public:
  explicit MeasurementQueue(bool concurrent) : concurrent_(concurrent) {}

  // Waits until the run described by `who` ("127.0.0.1 tcp_bw") may measure, calling
  // on_wait(runs ahead) when it first has to wait and about once a second after that (a failed
  // call ends the wait with its Status). Timeout after limit_s; Interrupted once *stop is set.
  // Returns the run's ticket.
  Result<uint64_t> enter(const std::string& who, double limit_s, const std::atomic<bool>& stop,
                         const std::function<Status(size_t ahead)>& on_wait);
  // The run is over: its turn passes on. Returns the runs that measured while it did.
  std::vector<std::string> leave(uint64_t ticket);

  size_t running() const;
  size_t waiting() const;

 private:
  struct Running {
    std::string who;
    std::vector<std::string> overlapped;
  };
  bool may_start(uint64_t ticket) const;

  const bool concurrent_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  uint64_t next_ticket_ = 1;
  std::deque<uint64_t> waiting_;
  std::map<uint64_t, Running> running_;
};

}  // namespace fabperf
