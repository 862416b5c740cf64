// A measured loop on a thread with its own descriptor table (measuring_thread.h).
#include "engine/measuring_thread.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "core/clock.h"
#include "core/private_fds.h"
#include "net/control.h"

namespace fabperf {

Status run_measuring_thread(TestContext& ctx, std::vector<int> descriptors,
                            const std::function<Status()>& body) {
  Status status = Status::success();
  std::exception_ptr thrown;
  descriptors.push_back(ctx.control.fd());
  descriptors.insert(descriptors.end(), ctx.sink_fds.begin(), ctx.sink_fds.end());
  // A new thread takes its creator's CPU affinity and signal mask: pinning (-ca, taskset) and
  // the stall watchdog's interrupt reach it as they reached the caller.
  std::mutex mu;
  std::condition_variable ended_cv;
  bool ended = false;
  std::thread thread([&] {
    {
      PrivateFds own_fds(std::move(descriptors));
      try {
        status = body();
      } catch (...) {
        thrown = std::current_exception();
      }
    }
    std::lock_guard<std::mutex> lock(mu);
    ended = true;
    ended_cv.notify_all();
  });
  {
    // A server's side sends its heartbeats from here while the loop runs (its READY promised
    // them): a client then tells a stopped server from a quiet one within its -to.
    std::unique_lock<std::mutex> lock(mu);
    const auto beat = std::chrono::nanoseconds(kHeartbeatNs / 2);
    while (!ended_cv.wait_for(lock, beat, [&] { return ended; })) {
      if (ctx.role == Role::kServer) ctx.control.heartbeat(now_ns()).ignore_error();
    }
  }
  thread.join();
  if (thrown) std::rethrow_exception(thrown);
  return status;
}

}  // namespace fabperf
