// Small fabric models for the tests.
#include "fabric_test_util.h"

namespace fabperf::testing {

nlohmann::json fabric_model(int hosts, const nlohmann::json& topology, const nlohmann::json& faults,
                            double jitter) {
  return {{"seed", 11},
          {"hosts", hosts},
          {"topology", topology},
          {"links",
           {{"same_switch", {{"latency_us", 1.8}, {"bandwidth_gbps", 190}}},
            {"same_group", {{"latency_us", 2.3}, {"bandwidth_gbps", 185}}},
            {"other_group", {{"latency_us", 2.9}, {"bandwidth_gbps", 175}}}}},
          {"noise", {{"jitter", jitter}, {"outlier_rate", 0}, {"outlier_factor", 1}}},
          {"faults", faults}};
}

nlohmann::json small_dragonfly_topology() {
  return {{"kind", "dragonfly"}, {"groups", 4}, {"switches_per_group", 4}, {"hosts_per_switch", 4}};
}

nlohmann::json small_fat_tree_topology() {
  return {{"kind", "fat_tree"}, {"leaves", 16}, {"hosts_per_leaf", 4}, {"spines", 2}};
}

}  // namespace fabperf::testing
