// One thread owns SIGINT and SIGTERM for the whole process, whatever the libraries it loads
// install (libfabric's providers replace handlers; a blocked signal never reaches them).
#pragma once

#include <atomic>
#include <functional>

namespace fabperf {

// Blocks SIGINT and SIGTERM in the calling thread and ignores SIGPIPE, then starts the thread
// that takes them. Call it in main before any other thread starts, so every later thread
// (libfabric's included) inherits the mask. The first signal sets stop_flag() and runs the
// on_stop callbacks on the signal thread; a second one ends the process at once (exit 130).
void start_signal_thread();

// Set by the first SIGINT or SIGTERM.
const std::atomic<bool>& stop_flag();

// Runs `fn` on the signal thread at the first signal (e.g. a server's stop()). Returns an id
// for remove_stop_callback.
int add_stop_callback(std::function<void()> fn);
void remove_stop_callback(int id);

// Restores the default signal mask and dispositions: for a child process before it runs.
void reset_signals_for_child();

}  // namespace fabperf
