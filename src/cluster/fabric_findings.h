// The findings of a run whose topology has levels above the nodes: the elements the fabric fit
// (locate.h) finds slow, switch before node, and the links those do not explain.
#pragma once

#include <vector>

#include "cluster/findings.h"
#include "cluster/locate.h"

namespace fabperf::cluster {

std::vector<Finding> fabric_findings(const MatrixRun& run, const FabricFit& fit);

}  // namespace fabperf::cluster
