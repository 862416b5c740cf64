// --topology FILE: Slurm's topology.conf (tree or block syntax, host ranges expanded) or a
// two-column "host group" map, read into a Topology. Errors name the file and the line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/topology.h"
#include "core/status.h"

namespace fabperf::cluster {

// Slurm's hostlist syntax: "n[001-016]", "n[1-3,7]", "r[1-2]-n[01-04]" (every combination),
// several expressions separated by top-level commas. Zero padding follows the range's first
// bound. At most `limit` names.
Result<std::vector<std::string>> expand_hostlist(std::string_view text, size_t limit = 10000000);

// The file's text; `origin` names it in errors ("--topology topo.conf").
Result<Topology> parse_topology(std::string_view text, const std::string& origin);
Result<Topology> load_topology(const std::string& path);

// The one warning about hosts in the job but not in the file and the reverse ("" when they
// match). Lists are cut after a few names, with the count.
std::string topology_mismatch(const std::string& origin, const std::vector<std::string>& unused,
                              const std::vector<int>& missing,
                              const std::vector<std::string>& rank_hosts);

}  // namespace fabperf::cluster
