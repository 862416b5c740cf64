// Scoring a run's findings against the faults injected into a simulated fabric, as
// ../shared/reference/fabric-model.md defines it: a fault is found when a finding of its kind
// names it; a finding that names nothing injected is false (a node behind a bad switch, local
// link or uplink included). The simulated run's JSON carries the score; the tests and
// bench/fleet.py read it from there.
#pragma once

#include <nlohmann/json.hpp>

namespace fabperf::cluster {

// `findings` and `faults` as the JSON spells them. `pair_faults`: score slow_link and
// flapping_link too (a run that measured every pair); else they count neither way.
// Returns {"injected", "found", "recall", "named", "false", "false_rate", "precision",
// "firm": {"named","false"}, "by_kind": {kind: {"injected","found"}}, "missed": [...],
// "false_findings": [...]} (lists cut at 50).
nlohmann::json score_findings(const nlohmann::json& findings, const nlohmann::json& faults,
                              bool pair_faults);

}  // namespace fabperf::cluster
