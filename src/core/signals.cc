// The signal thread.
#include "core/signals.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <thread>

namespace fabperf {

namespace {

std::atomic<bool> g_stop{false};
std::mutex g_mu;
std::map<int, std::function<void()>>& callbacks() {
  static auto* map = new std::map<int, std::function<void()>>();
  return *map;
}
int g_next_id = 1;

sigset_t owned_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

void signal_loop() {
  sigset_t set = owned_signals();
  for (int received = 0;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (++received > 1) _exit(128 + sig);  // a second ^C: at once
    g_stop.store(true);
    std::map<int, std::function<void()>> to_run;
    {
      std::lock_guard<std::mutex> lock(g_mu);
      to_run = callbacks();
    }
    for (auto& [id, fn] : to_run) fn();
  }
}

}  // namespace

void start_signal_thread() {
  static std::once_flag once;
  std::call_once(once, [] {
    sigset_t set = owned_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    signal(SIGPIPE, SIG_IGN);
    std::thread(signal_loop).detach();
  });
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
  for (int sig : {SIGINT, SIGTERM, SIGPIPE}) signal(sig, SIG_DFL);
}

}  // namespace fabperf
