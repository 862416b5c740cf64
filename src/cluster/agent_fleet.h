// The fleet of a real --matrix job: rank 0's connection to every rank's agent. A step sends
// each client's agent its run and collects the answers with a deadline; a failure is followed
// by a ping of both ranks before a link is blamed.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "cluster/bootstrap.h"
#include "cluster/fleet.h"
#include "cluster/matrix_options.h"
#include "net/control.h"

namespace fabperf::cluster {

class AgentFleet : public Fleet {
 public:
  AgentFleet(const MatrixOptions& opts, std::string job, std::vector<Result<RankCard>> cards);
  ~AgentFleet() override;

  int64_t now_ns() const override;
  // A rank without a card, with an error in its card, started with other tests, or out of
  // reach is lost, with the reason (32 connections at a time).
  void connect(FleetEvents& events) override;
  void run_step(const StepRequest& step, std::vector<StepRun>& runs, FleetEvents& events) override;
  void check_alive(const std::vector<int>& ranks, FleetEvents& events) override;
  bool finish() override;

 private:
  struct Link {
    std::unique_ptr<ControlChannel> ch;
    bool linger = true;  // may still be running when rank 0 ends (hung, never reached)
  };
  void lose(FleetEvents& events, int rank, const std::string& reason, bool linger);
  // Waits for frames from `ranks` until each is done (per `on_frame`) or the deadline passes;
  // a rank whose channel fails is lost. Returns the ranks still not done.
  template <typename OnFrame>
  std::vector<int> collect(std::vector<int> ranks, const Deadline& deadline, FleetEvents& events,
                           OnFrame on_frame);

  const MatrixOptions& opts_;
  std::string job_;
  std::vector<Result<RankCard>> cards_;
  std::vector<Link> links_;
  std::vector<bool> lost_;
  uint64_t next_step_ = 1;
  uint64_t next_ping_ = 1;
};

}  // namespace fabperf::cluster
