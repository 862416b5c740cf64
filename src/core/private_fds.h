// A measuring thread's own descriptor table.
#pragma once

#include <functional>
#include <thread>
#include <vector>

namespace fabperf {

// While a thread shares its process's descriptor table (every fabperf run has a supervisor and
// a stall watchdog beside its measuring threads; qperf's processes have one thread), each
// system call on a descriptor takes and drops a reference on its file; on a table of its own
// the kernel borrows the file instead. A bare loopback stream with one idle thread beside it
// ran 1.3-4.1% below the same program alone (tcp 4 KiB, udp 64 B and 1 KiB), and 0.4-1.9%
// below with a private table (b2b66f7:bench/results/floor-cubic-3b54112/; that program made
// glibc's cancellable calls, which cost more with a second thread; in fabperf's own
// syscall(2) calls the rest was 0.3 points at udp 64 B,
// b2b66f7:bench/results/threads-fabperf-cubic-1556682/). fabperf
// itself read 1.020 at tcp 4 KiB and 1.047 at 64 B with its private tables against without.
//
// take_private_fds: gives the calling thread a copy of the table (unshare(CLONE_FILES)) and
// closes in the copy every descriptor above stderr but those in `keep`, so the thread holds
// nothing else open: a server runs its socket sessions as threads of one process, and a copy
// of another session's socket would keep it open after that session closed it. Descriptors
// other threads open afterwards are not in the copy: the thread must need none. Returns false,
// having changed nothing, where the kernel has no close_range (Linux < 5.9) or unshare fails.
bool take_private_fds(std::vector<int> keep);

// take_fd_table_copy: gives the calling thread a copy of the whole table and closes nothing:
// for a thread that stands beside a measuring loop (the signal thread, the stuck-call watch)
// and steps off its table so that the loop's calls borrow their files, but may still need any
// descriptor open when it stepped off. What other threads open afterwards is not in the copy;
// what they close stays open in it until the copy is dropped. Returns false, having changed
// nothing, as take_private_fds does.
bool take_fd_table_copy();

// Starts `body` on a new thread that first takes a copy of the table (take_fd_table_copy) and
// drops it (drop_private_fds) once `body` returns; returns once the copy is taken, so the
// caller's next calls already borrow their files. Where no copy can be taken, `body` runs on
// the shared table.
std::thread start_thread_off_table(std::function<void()> body);

// Closes the copy's descriptors above stderr. Call it last on a thread that took a private
// table, so its copies are gone before a join on it returns: an exiting thread wakes its
// joiner before the kernel releases its table.
void drop_private_fds();

// take_private_fds for a scope: taken on construction, dropped on destruction where it was
// taken. Made first on a thread that runs one body and ends, and destroyed last on it.
class PrivateFds {
 public:
  explicit PrivateFds(std::vector<int> keep) : taken_(take_private_fds(std::move(keep))) {}
  ~PrivateFds() {
    if (taken_) drop_private_fds();
  }
  PrivateFds(const PrivateFds&) = delete;
  PrivateFds& operator=(const PrivateFds&) = delete;

 private:
  bool taken_;
};

}  // namespace fabperf
