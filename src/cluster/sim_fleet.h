// The fleet of a simulated fabric (--simulate): rank i is host i of the model, a step's answers
// are drawn from it, and time is the fabric's simulated clock (each step costs -t and the
// model's overhead, a host that never answers the deadlines a real one would), so --budget
// means what it would on the real fabric.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "cluster/fabric_model.h"
#include "cluster/fleet.h"

namespace fabperf::cluster {

class SimFleet : public Fleet {
 public:
  SimFleet(const FabricModel& model, double timeout_s) : model_(model), timeout_s_(timeout_s) {}

  int64_t now_ns() const override { return clock_ns_; }
  void connect(FleetEvents&) override {}
  void run_step(const StepRequest& step, std::vector<StepRun>& runs, FleetEvents& events) override;
  void check_alive(const std::vector<int>& ranks, FleetEvents& events) override;
  bool finish() override { return true; }

 private:
  void advance(double seconds) { clock_ns_ += static_cast<int64_t>(seconds * 1e9); }
  // Per run, the bandwidth left to it on its most shared link (0: not limited).
  std::vector<double> shares(const std::vector<StepRun>& runs);

  const FabricModel& model_;
  double timeout_s_;  // -to: how long a ping waits
  int64_t clock_ns_ = 0;
  uint64_t steps_ = 0;
  std::unordered_map<ElementId, uint32_t> flows_;
};

}  // namespace fabperf::cluster
