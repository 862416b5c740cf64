// Fabric models for the tests of --simulate and the fabric verdicts: small dragonflies and fat
// trees in the model file's format (../shared/reference/fabric-model.md), with chosen faults.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fabperf::testing {

// A model document: `topology` as the file writes it, `hosts` hosts, the reference's path
// classes, `jitter` noise and no outliers, and `faults` (a JSON list).
nlohmann::json fabric_model(int hosts, const nlohmann::json& topology,
                            const nlohmann::json& faults = nlohmann::json::array(),
                            double jitter = 0.02);
// 4 groups x 4 switches x 4 hosts (64 hosts), and 16 leaves x 4 hosts (64 hosts).
nlohmann::json small_dragonfly_topology();
nlohmann::json small_fat_tree_topology();

}  // namespace fabperf::testing
