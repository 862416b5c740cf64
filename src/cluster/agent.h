// The agent every --matrix rank runs beside its fabperf server. On rank 0's request, and only
// rank 0's (it proves this rank's per-job key), it runs one test against another rank of the
// job, named by rank and looked up in the job's own table, and returns the figure. It can be
// made to measure nothing else: it is not a reflector.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli/run_plan.h"
#include "cluster/agent_protocol.h"
#include "cluster/bootstrap.h"
#include "cluster/figure_matrix.h"
#include "net/socket.h"
#include "security/access.h"

namespace fabperf::cluster {

class Agent {
 public:
  struct Config {
    int rank = 0;
    int size = 0;
    const std::vector<PlannedRun>* runs = nullptr;  // the job's tests (matrix_options.h)
    Bootstrap* boot = nullptr;
    std::string key;   // this rank's per-job key
    std::string bind;  // listen address (and the source address of its runs)
    double timeout_s = 5;
    const std::atomic<bool>* stop = nullptr;  // SIGINT/SIGTERM
  };

  static Result<std::unique_ptr<Agent>> listen(Config config);
  ~Agent();

  uint16_t port() const { return port_; }
  // Addresses rank 0 connects from (empty: any); only before serve().
  void set_allow(AllowList allow) { allow_ = std::move(allow); }
  // Serves rank 0 until it ends the job (Ok); Failed when rank 0 does not connect within
  // `connect_wait_s`, its connection breaks, or the deadline it announced passes;
  // Interrupted on *stop.
  Status serve(double connect_wait_s);
  // Ends Serve soon, from any thread (rank 0 ends its own agent so).
  void stop() { end(Status::success()); }

 private:
  // The one measurement this agent may have running.
  struct Worker {
    std::thread thread;
    std::atomic<bool> stop{false};
    std::atomic<bool> done{true};
    uint64_t step = 0;
  };

  Agent(Config config, Fd listener, uint16_t port);
  void session_loop(ControlChannel& ch);
  void start_run(ControlChannel& ch, const nlohmann::json& body);
  // Stops the running measurement; false when it did not end within the timeout.
  bool stop_worker(double wait_s);
  void end(Status why);

  Config config_;
  std::vector<FigureDef> figures_;
  Fd listener_;
  uint16_t port_;
  AllowList allow_;
  std::atomic<bool> closing_{false};
  std::atomic<int64_t> deadline_ns_{0};
  std::atomic<bool> coordinated_{false};
  // A connection's thread; finished ones are joined as new ones come, so a port scan can
  // neither pile up threads nor fill the session slots rank 0 needs.
  struct SessionThread {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
    std::shared_ptr<std::atomic<bool>> cut;  // set: it ends (a stranger making room)
    int64_t accepted_ns = 0;
  };
  void session(int fd, const std::atomic<bool>* cut);
  // Makes room for a new connection: cuts the oldest one that has not proved the key.
  void cut_oldest();
  void reap(bool all);

  std::mutex mu_;  // guards result_
  bool ended_ = false;
  Status result_;
  std::vector<SessionThread> sessions_;  // the Serve thread's own
  Worker worker_;
};

}  // namespace fabperf::cluster
