// The signal thread.
#include "core/signals.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <thread>

#include "core/private_fds.h"

namespace fabperf {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_received{0};  // SIGINT and SIGTERM taken, by whichever signal thread
std::mutex g_mu;
std::map<int, std::function<void()>>& callbacks() {
  static auto* map = new std::map<int, std::function<void()>>();
  return *map;
}
int g_next_id = 1;

// Wakes one signal thread to see whether it is retired: real-time, blocked everywhere, and
// taken only by sigwait (the stall watchdog's is SIGRTMIN + 7).
int retire_signal() { return SIGRTMIN + 6; }

sigset_t owned_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, retire_signal());
  return set;
}

// One signal thread: on the process's descriptor table, or on a copy of it (SignalsOffTable).
class SignalThread {
 public:
  // Off the table (SignalsOffTable) before the caller goes on: its next calls borrow their
  // files.
  explicit SignalThread(bool own_table)
      : thread_(own_table ? start_thread_off_table([this] { loop(); })
                          : std::thread([this] { loop(); })) {}
  // Ends the thread once it has run any callbacks it is in.
  void retire() {
    retired_.store(true);
    pthread_kill(thread_.native_handle(), retire_signal());
    thread_.join();
  }

 private:
  void loop() {
    sigset_t set = owned_signals();
    for (;;) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0) continue;
      if (sig == retire_signal()) {
        if (retired_.load()) break;
        continue;
      }
      if (g_received.fetch_add(1) + 1 > 1) _exit(128 + sig);  // a second ^C: at once
      g_stop.store(true);
      std::map<int, std::function<void()>> to_run;
      {
        std::lock_guard<std::mutex> lock(g_mu);
        to_run = callbacks();
      }
      for (auto& [id, fn] : to_run) fn();
    }
  }

  std::atomic<bool> retired_{false};
  std::thread thread_;  // last: it runs loop(), which reads the members above
};

// The thread taking the signals now; never destroyed while running (a process ends with it).
std::mutex g_thread_mu;
SignalThread* g_thread = nullptr;
int g_off_table = 0;  // SignalsOffTable scopes alive

void replace_signal_thread(bool own_table) {
  // The new thread waits before the old one goes: a signal is always taken, by one of them.
  auto* next = new SignalThread(own_table);
  g_thread->retire();
  delete g_thread;
  g_thread = next;
}

}  // namespace

void start_signal_thread() {
  static std::once_flag once;
  std::call_once(once, [] {
    sigset_t set = owned_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    signal(SIGPIPE, SIG_IGN);
    // A forked child has no signal thread (fork copies only its caller): it must not retire
    // its parent's, and the lock is not left held by a thread the child lacks.
    pthread_atfork([] { g_thread_mu.lock(); }, [] { g_thread_mu.unlock(); },
                   [] {
                     g_thread = nullptr;
                     g_off_table = 0;
                     g_thread_mu.unlock();
                   });
    std::lock_guard<std::mutex> lock(g_thread_mu);
    g_thread = new SignalThread(false);
  });
}

SignalsOffTable::SignalsOffTable() {
  std::lock_guard<std::mutex> lock(g_thread_mu);
  if (g_off_table++ == 0 && g_thread != nullptr) replace_signal_thread(true);
}

SignalsOffTable::~SignalsOffTable() {
  std::lock_guard<std::mutex> lock(g_thread_mu);
  if (--g_off_table == 0 && g_thread != nullptr) replace_signal_thread(false);
}

const std::atomic<bool>& stop_flag() { return g_stop; }

int add_stop_callback(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(g_mu);
  int id = g_next_id++;
  callbacks()[id] = std::move(fn);
  return id;
}

void remove_stop_callback(int id) {
  std::lock_guard<std::mutex> lock(g_mu);
  callbacks().erase(id);
}

void reset_signals_for_child() {
  sigset_t set = owned_signals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  for (int sig : {SIGINT, SIGTERM, SIGPIPE, retire_signal()}) signal(sig, SIG_DFL);
}

}  // namespace fabperf
