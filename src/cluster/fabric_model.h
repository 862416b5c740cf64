// A simulated fabric (--simulate FABRIC.json, ../shared/reference/fabric-model.md): hosts, a
// dragonfly, fat-tree or flat topology, the latency and bandwidth of each path class, noise,
// injected faults, and (an extension) the capacity of shared links that pairs measured in the
// same step share. It draws one pair's figure; the matrix pipeline does everything else.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cluster/figure_matrix.h"
#include "cluster/topology.h"
#include "core/status.h"

namespace fabperf::cluster {

enum class FaultKind {
  kSlowLink,       // one pair end to end
  kFlappingLink,   // one pair, in a fraction of its measurements
  kSlowNode,       // every pair with that host
  kDeadNode,       // never answers
  kSlowSwitch,     // every pair with a host on that switch (intra-switch pairs included)
  kSlowLocalLink,  // dragonfly: every pair between hosts of the two switches
  kSlowUplink,     // dragonfly: every pair between two groups; fat tree: a leaf and the rest
};
const char* fault_kind_name(FaultKind kind);

struct Fault {
  FaultKind kind = FaultKind::kSlowLink;
  int a = -1, b = -1;  // hosts (links, nodes), switches (switch, local link), groups, or a leaf
  double factor = 1;
  double fraction = 1;  // flapping: the share of measurements it touches
};

struct PathFigures {
  double latency_ns = 0;     // one way
  double bandwidth_Bps = 0;  // bytes per second
};

struct ModelNoise {
  double jitter = 0;  // relative spread of a lognormal factor on every measurement
  double outlier_rate = 0;
  double outlier_factor = 1;
};

// Shared links' capacity (B/s, 0: unlimited): pairs of one step crossing the same link share it.
struct ModelContention {
  double local_link_Bps = 0;   // dragonfly local links
  double global_link_Bps = 0;  // dragonfly global links
  double uplink_Bps = 0;       // a fat-tree leaf's uplinks, together
};

class FabricModel {
 public:
  static Result<FabricModel> load(const std::string& path);
  // `origin` names the file in errors.
  static Result<FabricModel> parse(std::string_view text, const std::string& origin);

  uint64_t seed() const { return seed_; }
  int hosts() const { return static_cast<int>(host_names_.size()); }
  const std::vector<std::string>& host_names() const { return host_names_; }
  // The model's topology with rank i placed on host i.
  const Topology& topology() const { return topology_; }
  const std::vector<Fault>& faults() const { return faults_; }
  const ModelNoise& noise() const { return noise_; }
  const ModelContention& contention() const { return contention_; }
  bool dead(int host) const { return dead_[static_cast<size_t>(host)]; }
  // Rank 0's cost of one step beyond -t: sending the runs, collecting the answers.
  double step_overhead_s() const { return overhead_s_; }

  // One measurement of `figure` from `client` to `server`; `draw` makes it distinct from every
  // other measurement (the same draw, the same value). `cap_Bps` (0: none) is the bandwidth
  // left to it on its most shared link.
  double measure(FigureKind figure, int client, int server, uint64_t draw, double cap_Bps) const;
  // The capacity of a shared element a step's pairs divide among them (0: not limited).
  double capacity(ElementId element) const;
  // A fault as the model file writes it (names, not indexes).
  nlohmann::json fault_json(const Fault& f) const;

 private:
  FabricModel() : topology_(TopologyKind::kFlat) {}
  Status read(const nlohmann::json& doc, const std::string& origin);
  Status read_topology(const nlohmann::json& doc, const std::string& origin);
  Status read_fault(const nlohmann::json& f, const std::string& place);
  void apply_faults();

  uint64_t seed_ = 1;
  std::vector<std::string> host_names_;
  Topology topology_;
  PathFigures classes_[kPathClasses];
  ModelNoise noise_;
  ModelContention contention_;
  double overhead_s_ = 0.1;
  std::vector<Fault> faults_;
  std::vector<bool> dead_;
  std::vector<double> element_factor_;  // by element id: nodes, switches, local links, uplinks
  std::vector<double> capacity_;        // by element id: shared links' capacity, 0: unlimited
  struct PairFault {
    double factor = 1;       // always
    double flap_factor = 1;  // in a fraction of the measurements
    double flap_fraction = 0;
  };
  std::unordered_map<uint64_t, PairFault> pair_faults_;
};

}  // namespace fabperf::cluster
