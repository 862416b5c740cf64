// One thread owns SIGINT and SIGTERM for the whole process, whatever the libraries it loads
// install (libfabric's providers replace handlers; a blocked signal never reaches them).
#pragma once

#include <atomic>
#include <functional>

namespace fabperf {

// Blocks SIGINT and SIGTERM (and the signal that retires a signal thread) in the calling thread and
// ignores SIGPIPE, then starts the thread that takes them. Call it in main before any other thread
// starts, so every later thread (libfabric's included) inherits the mask. A forked child has no
// signal thread (fork copies only its caller). The first signal sets stop_flag() and runs the
// on_stop callbacks on the signal thread; a second one ends the process at once (exit 130).
void start_signal_thread();

// Set by the first SIGINT or SIGTERM.
const std::atomic<bool>& stop_flag();

// Runs `fn` on the signal thread at the first signal (e.g. a server's stop()). Returns an id
// for remove_stop_callback.
int add_stop_callback(std::function<void()> fn);
void remove_stop_callback(int id);

// While one exists, the signal thread runs on a copy of the descriptor table
// (core/private_fds.h take_fd_table_copy) instead of the process's: a fabric client's loop,
// with the stuck-call watch off the table too, is then alone on it, and each of its system
// calls borrows its file instead of taking and dropping a reference (1.2-1.6% of a udp;ofi_rxd
// latency row: bench/README.md, "The client's threads"). A stop callback run meanwhile may use
// only descriptors open when the first such scope began. Made and destroyed on one thread;
// scopes nest. Where start_signal_thread never ran, it does nothing.
class SignalsOffTable {
 public:
  SignalsOffTable();
  ~SignalsOffTable();
  SignalsOffTable(const SignalsOffTable&) = delete;
  SignalsOffTable& operator=(const SignalsOffTable&) = delete;
};

// Restores the default signal mask and dispositions: for a child process before it runs.
void reset_signals_for_child();

}  // namespace fabperf
