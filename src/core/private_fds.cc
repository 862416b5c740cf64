// A measuring thread's own descriptor table (private_fds.h).
#include "core/private_fds.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <future>
#include <utility>

namespace fabperf {
namespace {

// close_range(2) by number: glibc 2.34 has a wrapper, older ones do not.
int close_fds(unsigned first, unsigned last) {
  return static_cast<int>(syscall(SYS_close_range, first, last, 0U));
}

}  // namespace

bool take_private_fds(std::vector<int> keep) {
  // Asked first, before anything changes: a range past any descriptor closes nothing.
  if (close_fds(UINT_MAX, UINT_MAX) != 0) return false;
  if (unshare(CLONE_FILES) != 0) return false;
  keep.erase(std::remove_if(keep.begin(), keep.end(), [](int fd) { return fd <= STDERR_FILENO; }),
             keep.end());
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  unsigned next = STDERR_FILENO + 1;  // the first descriptor not yet closed or kept
  for (int fd : keep) {
    if (static_cast<unsigned>(fd) > next) close_fds(next, static_cast<unsigned>(fd) - 1);
    next = static_cast<unsigned>(fd) + 1;
  }
  close_fds(next, UINT_MAX);
  return true;
}

bool take_fd_table_copy() {
  if (close_fds(UINT_MAX, UINT_MAX) != 0) return false;  // drop_private_fds needs close_range
  return unshare(CLONE_FILES) == 0;
}

std::thread start_thread_off_table(std::function<void()> body) {
  std::promise<void> off;
  std::future<void> taken = off.get_future();
  // The thread owns the promise: the caller may return while set_value is still finishing.
  std::thread thread([off = std::move(off), body = std::move(body)]() mutable {
    const bool copied = take_fd_table_copy();
    off.set_value();
    body();
    if (copied) drop_private_fds();  // closed before a join returns
  });
  taken.wait();
  return thread;
}

void drop_private_fds() { close_fds(STDERR_FILENO + 1, UINT_MAX); }

}  // namespace fabperf
