// A measured loop on a thread with its own descriptor table (measuring_thread.h).
#include "engine/measuring_thread.h"

#include <exception>
#include <thread>
#include <utility>

#include "core/private_fds.h"
#include "net/control.h"

namespace fabperf {

Status run_measuring_thread(TestContext& ctx, std::vector<int> descriptors,
                            const std::function<Status()>& body) {
  Status status = Status::Ok();
  std::exception_ptr thrown;
  descriptors.push_back(ctx.control.fd());
  descriptors.insert(descriptors.end(), ctx.sink_fds.begin(), ctx.sink_fds.end());
  // A new thread takes its creator's CPU affinity and signal mask: pinning (-ca, taskset) and
  // the stall watchdog's interrupt reach it as they reached the caller.
  std::thread([&] {
    PrivateFds own_fds(std::move(descriptors));
    try {
      status = body();
    } catch (...) {
      thrown = std::current_exception();
    }
  }).join();
  if (thrown) std::rethrow_exception(thrown);
  return status;
}

}  // namespace fabperf
