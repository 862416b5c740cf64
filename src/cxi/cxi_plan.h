// A fab_* tool's run plan: its options (the CXI spellings of the one option table) mapped
// onto the fabperf test the tool runs, once per size, with the tool's own defaults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/invocation.h"
#include "cli/run_plan.h"
#include "cxi/cxi_format.h"
#include "cxi/cxi_tools.h"
#include "engine/registry.h"
#include "fabric/cxi_controls.h"

namespace fabperf::cxi {

struct ToolPlan {
  std::vector<PlannedRun> runs;  // one per size
  std::vector<uint64_t> sizes;
  std::string provider, device;  // where the runs happen, chosen before they start
  uint64_t tx_queue = 0;         // the provider's transmit queue (0: unknown)
  bool by_duration = false;      // -D given
  CxiControls cxi;               // the cxi switches as the provider's controls
  std::string cxi_warning;       // switches given that do not apply here ("" if none)
};

// A tool's command line resolved (cli/invocation.h). `runs` (a client, fab_loopback_bw,
// fab_heatsink_check): the tool's defaults (iterations, size, list size, warm-up, its buffers'
// --gpu) go under the user's options, who win, and -n becomes iterations of the list for
// bandwidth tools; usage error for -n with -D. `measures`: a GPU type the devices name is
// settled (fill_discovered_gpu_type) first.
Result<Invocation> resolve_tool_invocation(const Tool& tool, CommandLine parsed, bool measures,
                                           bool runs);

// The runs of a resolved tool invocation; the provider is chosen here (the best RDM provider
// with the tool's capabilities, named in `inv` when the user named none) so both sides and the
// summary name the same one. Usage errors name the option as the originals do.
Result<ToolPlan> plan_tool(const Tool& tool, Invocation& inv, const TestRegistry& tests);

// -D was given (the run is timed, not counted).
bool duration_given(const CommandLine& cl);

// The sizes a command line runs: -s MIN[:MAX], else the one size in force.
std::vector<uint64_t> tool_sizes(const Invocation& inv);

// The --gpu text of this process's own buffer ("" in system memory), as the originals keep
// -t/-r per process: the client's -t (the initiator's buffer, also for reads), the server's
// -r (the target's); with -b (the client's -b, or a bi-directional run on a server) one
// buffer both sends and receives, so -t and -r must agree (a usage error otherwise).
Result<std::string> own_buffer(const Tool& tool, const ProgramOptions& p, bool server,
                               bool bidirectional = false);

// The originals' GPU type when -g is not given (get_gpu_type): the type whose device files are
// found under `dev_root`, filled into p.gpu_type when one of this process's buffers is on a
// GPU, so every summary line and each side's --gpu name the type in use, not "(discovered)".
// Nothing changes when no device file is found: opening the GPU then names what is missing.
void fill_discovered_gpu_type(ProgramOptions& p, const std::string& dev_root = "/dev");

// The domain a run of `provider` uses on this side, as the fabric session chooses it: the one
// named (-d), else, for providers that speak IP, the one holding this side's address on the
// control connection (`local_host`), else the provider's first; and the provider as chosen
// ("tcp;ofi_rxm" for "tcp"). The names given when none is found.
struct DomainInUse {
  std::string domain, provider;
};
DomainInUse domain_in_use(const std::string& provider, uint64_t caps, const std::string& domain,
                          const std::string& local_host);

// The numeric IP address of `domain` where `provider` speaks IP ("" otherwise, or unknown).
std::string domain_address(const std::string& provider, const std::string& domain);

// This side's address on the cxi provider, for the summary's Local/Remote lines: the hex of
// the chosen domain's fi_info src_addr (a struct cxip_addr; -d `domain`, "" the provider's
// first) and the VNI of the auth key service `svc_id` gets there. Empty hex where no cxi
// domain is found (every other provider keeps "HOST PID N").
struct CxiOwnAddress {
  std::string hex;
  std::optional<uint16_t> vni;
};
CxiOwnAddress cxi_own_address(const std::string& domain, uint64_t svc_id, uint64_t caps);

// What the tool needs of a provider: FI_RMA, FI_MSG or FI_ATOMIC.
uint64_t tool_caps(const Tool& tool);

// The cxi switches of the tool's runs under options `own` (fabric/cxi_controls.h).
CxiControls tool_cxi_controls(const Tool& tool, const RunOptions& own);

// Bytes of one element of an atomic type name (0 when unknown).
uint64_t atomic_type_bytes(const std::string& type);

}  // namespace fabperf::cxi
