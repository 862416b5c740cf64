// The signal thread.
#include "core/signals.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
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

// The tick of a process that takes its signals without a thread (take_signals_on_tick): a
// timer's real-time signal at the thread that armed it, handled there.
int tick_signal() { return SIGRTMIN + 8; }
constexpr long kTickNs = 200'000'000;

// A SIGINT or SIGTERM taken, by the signal thread or the tick: async-signal-safe.
void take_signal(int sig) {
  if (g_received.fetch_add(1) + 1 > 1) _exit(128 + sig);  // a second ^C: at once
  g_stop.store(true);
}

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
      take_signal(sig);
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

// The tick (take_signals_on_tick): armed once, on one thread; it takes SIGINT and SIGTERM until
// a signal thread starts, and calls its hook while one is set.
bool g_tick_armed = false;
pid_t g_tick_tid = 0;
std::atomic<bool> g_tick_takes_signals{false};
std::atomic<TickHook*> g_tick_hook{nullptr};

void replace_signal_thread(bool own_table) {
  // The new thread waits before the old one goes: a signal is always taken, by one of them.
  auto* next = new SignalThread(own_table);
  g_thread->retire();
  delete g_thread;
  g_thread = next;
}

// Once a process: SIGINT and SIGTERM (and the retire signal) blocked in the calling thread,
// whose mask every later thread inherits; SIGPIPE ignored; fork's handlers.
void block_owned_signals() {
  static std::once_flag once;
  std::call_once(once, [] {
    sigset_t set = owned_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    signal(SIGPIPE, SIG_IGN);
    // A forked child has no signal thread (fork copies only its caller) and no tick (timers
    // are not inherited): it must not retire its parent's thread, and the lock is not left
    // held by a thread the child lacks.
    pthread_atfork([] { g_thread_mu.lock(); }, [] { g_thread_mu.unlock(); },
                   [] {
                     g_thread = nullptr;
                     g_off_table = 0;
                     g_tick_armed = false;
                     g_tick_takes_signals.store(false);
                     g_tick_hook.store(nullptr);
                     g_thread_mu.unlock();
                   });
  });
}

// The caller holds g_thread_mu.
void start_thread_locked() {
  if (g_thread != nullptr) return;
  // From here the thread takes the signals; a tick, if one runs, only calls its hook.
  g_tick_takes_signals.store(false);
  g_thread = new SignalThread(false);
}

// The tick's handler, on the thread that armed it, between two of its instructions.
void on_tick(int) {
  const int saved_errno = errno;
  if (g_tick_takes_signals.load(std::memory_order_relaxed)) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    const timespec now{0, 0};
    siginfo_t info;
    for (int sig; (sig = sigtimedwait(&set, &info, &now)) > 0;) take_signal(sig);
  }
  if (TickHook* hook = g_tick_hook.load(std::memory_order_acquire)) hook->on_tick();
  errno = saved_errno;
}

}  // namespace

void start_signal_thread() {
  block_owned_signals();
  std::lock_guard<std::mutex> lock(g_thread_mu);
  start_thread_locked();
}

bool take_signals_on_tick() {
  block_owned_signals();
  std::lock_guard<std::mutex> lock(g_thread_mu);
  if (g_thread != nullptr) return false;
  if (g_tick_armed) return true;
  struct sigaction action {};
  action.sa_handler = on_tick;
  action.sa_flags = SA_RESTART;  // the system calls it interrupts go on where they can
  sigemptyset(&action.sa_mask);
  if (sigaction(tick_signal(), &action, nullptr) != 0) {
    start_thread_locked();
    return false;
  }
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = tick_signal();
  event._sigev_un._tid = static_cast<pid_t>(gettid());  // sigev_notify_thread_id: glibc 2.35+
  timer_t timer;
  if (timer_create(CLOCK_MONOTONIC, &event, &timer) != 0) {
    start_thread_locked();
    return false;
  }
  const timespec period{0, kTickNs};
  const itimerspec spec{period, period};
  g_tick_takes_signals.store(true);
  if (timer_settime(timer, 0, &spec, nullptr) != 0) {
    timer_delete(timer);
    start_thread_locked();
    return false;
  }
  g_tick_armed = true;
  g_tick_tid = static_cast<pid_t>(gettid());
  return true;
}

bool set_tick_hook(TickHook* hook) {
  std::lock_guard<std::mutex> lock(g_thread_mu);
  if (!g_tick_armed || static_cast<pid_t>(gettid()) != g_tick_tid) return false;
  TickHook* expected = nullptr;
  return g_tick_hook.compare_exchange_strong(expected, hook, std::memory_order_acq_rel);
}

void clear_tick_hook(TickHook* hook) {
  TickHook* expected = hook;
  g_tick_hook.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel);
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
  {
    // Callbacks run on the signal thread: a process that took its signals on a tick starts
    // one now (it has threads of its own by then, e.g. --streams').
    std::lock_guard<std::mutex> lock(g_thread_mu);
    if (g_tick_armed) start_thread_locked();
  }
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
  for (int sig : {SIGINT, SIGTERM, SIGPIPE, retire_signal(), tick_signal()}) signal(sig, SIG_DFL);
}

}  // namespace fabperf
