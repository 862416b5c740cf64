// SIGINT and SIGTERM are blocked in every thread, whatever the libraries a process loads
// install (libfabric's providers replace handlers; a blocked signal never reaches them), and
// taken by one thread that waits for them, or, in a process that should stay single-threaded,
// by a tick on its one thread.
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

// Takes SIGINT and SIGTERM without a thread, for a process that measures on its one thread (a
// client: glibc leaves out its locks' atomics in a process that has never had a second thread,
// and libfabric's shm takes a mutex in every completion read; bench/README.md, "A client on
// one thread"). The signals are blocked as above; a timer's real-time signal at the calling
// thread every 200 ms runs a handler there that takes them, with start_signal_thread's rules,
// and then the tick hook. The system calls it interrupts restart where the kernel can (poll
// returns EINTR; the loops around it look again). The first add_stop_callback starts the
// signal thread (a callback needs a thread to run on); from then the thread takes them. Call
// it in main before any other thread starts. False where no tick could be armed (a signal
// thread runs already, or timer_create failed): then the signal thread takes them.
bool take_signals_on_tick();

// Work the tick does on its thread, in its signal handler: async-signal-safe, or what may run
// where its thread stands still (StuckCallWatch's take-over, which ends the process).
class TickHook {
 public:
  virtual void on_tick() = 0;

 protected:
  ~TickHook() = default;
};
// Sets the one hook; false where no tick runs, on another thread than the caller, or another
// hook is set. Cleared by its owner before it goes.
bool set_tick_hook(TickHook* hook);
void clear_tick_hook(TickHook* hook);

// Set by the first SIGINT or SIGTERM.
const std::atomic<bool>& stop_flag();

// Runs `fn` on the signal thread at the first signal (e.g. a server's stop()), starting that
// thread where a tick took the signals. Returns an id for remove_stop_callback.
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
