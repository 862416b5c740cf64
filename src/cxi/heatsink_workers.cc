// fab_heatsink_check's workers: forked processes, each running one loopback write run for
// the whole check and counting its completed writes in memory shared with the parent.
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <new>
#include <thread>

#include "core/clock.h"
#include "core/signals.h"
#include "cxi/heatsink.h"
#include "options/option_table.h"
#include "report/reporter.h"
#include "session/client.h"
#include "session/server.h"
#include "session/server_config.h"

namespace fabperf::cxi {

// What the parent and its workers share: each worker's completed writes and the parent's
// word to stop.
struct SharedCounts {
  std::atomic<bool> stop{false};
  std::atomic<uint64_t>* ops = nullptr;  // one per worker, in the same mapping
};

namespace {

// A worker's completed writes reach its parent through the engine's interval meter
// (--interval's, engine/interval.h): every `tick` seconds of the run, this reporter adds the
// writes completed in that interval to the worker's counter in shared memory.
class SharedWriteCounter : public Reporter {
 public:
  explicit SharedWriteCounter(std::atomic<uint64_t>* ops) : ops_(ops) {}
  void on_interval(const RunInfo&, const TestResult&, const IntervalRecord& r) override {
    ops_->fetch_add(r.counts.send_msgs, std::memory_order_relaxed);
  }
  void on_result(const RunInfo&, const TestResult&) override {}
  Status finish(const RunInfo&) override { return Status::success(); }

 private:
  std::atomic<uint64_t>* ops_;
};

// One worker: a server in this process and a client of it running one write run for the
// whole check (ended by the parent through `shared->stop`), its completions counted in
// shared memory every `tick` seconds. Never returns.
[[noreturn]] void worker(const ToolPlan& plan, const TestRegistry& tests, int index, int cpu,
                         double tick, SharedCounts* shared) {
  reset_signals_for_child();
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
  }
  ServerOptions server_options = default_server_options(tests);
  server_options.bind_addr = "127.0.0.1";
  server_options.port = 0;
  server_options.log = false;
  server_options.concurrent = true;
  // The one run lasts the whole check, which may be longer than a server's default cap.
  server_options.limits.max_time =
      std::max(server_options.limits.max_time, plan.runs.at(0).params.local.time + 120);
  auto server = Server::listen(server_options);
  if (!server.ok()) {
    std::fprintf(stderr, "worker %d: %s\n", index, server.status().message().c_str());
    _exit(1);  // a forked worker's own exit: the parent reads 0 or not, never a mode's Status
  }
  std::thread serving([&] { (*server)->serve().ignore_error(); });
  ClientConfig config = client_config_of(default_program_options());
  config.host = "127.0.0.1";
  config.port = (*server)->port();
  config.wait_server_s = 0;
  config.stop = &shared->stop;
  config.interval_s = tick;
  config.noise_warnings = false;  // every worker spins on purpose: its rows judge the rate
  RunInfo info;
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(std::make_unique<SharedWriteCounter>(&shared->ops[index]));
  Status outcome = run_plan(plan.runs, config, info, reporters);
  (*server)->stop();
  serving.join();
  // A forked worker's own exit (0 or 1, read by HeatsinkWorkers::stop): a stop the parent
  // asked for is a success.
  const bool asked_stop = outcome.code() == Code::kInterrupted && shared->stop.load();
  _exit(outcome.ok() || asked_stop ? 0 : 1);
}

}  // namespace

HeatsinkWorkers::~HeatsinkWorkers() {
  if (mem_ != nullptr) munmap(mem_, size_);
}

bool HeatsinkWorkers::start(const ToolPlan& plan, const TestRegistry& tests, uint64_t procs,
                            const std::vector<int>& cpus, double tick) {
  procs_ = procs;
  static_assert(sizeof(SharedCounts) <= 64);
  size_ = 64 + sizeof(std::atomic<uint64_t>) * procs_;
  mem_ = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem_ == MAP_FAILED) {
    mem_ = nullptr;
    std::perror("fab_heatsink_check: mmap");
    return false;
  }
  shared_ = new (mem_) SharedCounts;
  shared_->ops = reinterpret_cast<std::atomic<uint64_t>*>(static_cast<char*>(mem_) + 64);
  for (uint64_t i = 0; i < procs_; ++i) new (&shared_->ops[i]) std::atomic<uint64_t>(0);
  for (uint64_t i = 0; i < procs_; ++i) {
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      worker(plan, tests, static_cast<int>(i), cpus.empty() ? -1 : cpus[i], tick, shared_);
    }
    if (pid < 0) {
      std::perror("fab_heatsink_check: fork");
      return false;
    }
    pids_.push_back(pid);
    reaped_.push_back(false);
  }
  return true;
}

uint64_t HeatsinkWorkers::total_ops() const {
  uint64_t n = 0;
  for (uint64_t i = 0; i < procs_; ++i) n += shared_->ops[i].load(std::memory_order_relaxed);
  return n;
}

bool HeatsinkWorkers::all_writing() const {
  for (uint64_t i = 0; i < procs_; ++i) {
    if (shared_->ops[i].load() == 0) return false;
  }
  return true;
}

bool HeatsinkWorkers::one_ended() {
  for (size_t i = 0; i < pids_.size(); ++i) {
    int status = 0;
    if (!reaped_[i] && waitpid(pids_[i], &status, WNOHANG) == pids_[i]) {
      reaped_[i] = true;
      return true;
    }
  }
  return false;
}

bool HeatsinkWorkers::stop() {
  if (shared_ == nullptr) return true;
  shared_->stop.store(true);
  bool ok = true;
  const int64_t stop_ns = now_ns();
  for (size_t i = 0; i < pids_.size(); ++i) {
    int status = 0;
    while (!reaped_[i]) {
      pid_t r = waitpid(pids_[i], &status, WNOHANG);
      if (r == pids_[i]) {
        reaped_[i] = true;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ok = false;
      } else if (r < 0) {
        reaped_[i] = true;
      } else if (now_ns() - stop_ns > 60'000'000'000LL) {
        kill(pids_[i], SIGKILL);
      } else {
        poll(nullptr, 0, 10);
      }
    }
  }
  return ok;
}

}  // namespace fabperf::cxi
