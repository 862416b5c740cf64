// The fab_* tools' modes (rows of app/mode_table.cc): serve, run a client or loopback through
// the one engine, with the tools' own banner, summary tables and buffers.
#include "cxi/cxi_main.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/tool_grammar.h"
#include "core/cycle_clock.h"
#include "cxi/cxi_plan.h"
#include "cxi/cxi_reporter.h"
#include "cxi/sysfs.h"
#include "fabric/gpu_runtime.h"
#include "options/gpu_spec.h"
#include "report/outputs.h"
#include "stats/latency.h"

namespace fabperf::cxi {

namespace {

// The originals exit 1 for every error.
Status fail(const std::string& message) { return Status::failed(message); }

// The originals' "Found N GPU(s)": the devices this process's GPU runtime reports, when one of
// its own buffers is on a GPU (-1: none is, or the runtime does not say).
int gpus_found(const ProgramOptions& p) {
  if (p.tx_gpu < 0 && p.rx_gpu < 0) return -1;
  const int64_t index = p.tx_gpu >= 0 ? p.tx_gpu : p.rx_gpu;
  auto spec = parse_gpu_spec(p.gpu_type.empty() ? std::to_string(index)
                                                : p.gpu_type + ":" + std::to_string(index));
  if (!spec.ok()) return -1;
  auto runtime = open_gpu(*spec);
  if (!runtime.ok()) return -1;
  auto count = (*runtime)->device_count();
  return count.ok() ? *count : -1;
}

}  // namespace

std::string tool_help(const Tool& tool) {
  std::string out = "Usage:\n" + tool_synopsis(tool);
  out += std::string("\n") + tool.name + ": " + tool.summary + " (" + tool.original +
         " on any libfabric provider).\n\nOptions:\n";
  return out + tool_usage_options(tool.bit);
}

namespace {

// The originals' check before allocating (get_hugepages_needed): this side's pages are free,
// else "Insufficient 2M huge pages. Need N to run".
Status check_free_hugepages(const Tool& tool, const SummaryView& view) {
  const uint64_t needed = hugepages_needed(tool, view, false);
  if (needed == 0) return Status::success();
  const uint64_t page = hugepage_bytes(view.run.use_hp);
  const std::string name = page == (uint64_t{1} << 30) ? "1G" : "2M";
  const std::string file = sysfs_root() + "/kernel/mm/hugepages/hugepages-" +
                           std::to_string(page / 1024) + "kB/free_hugepages";
  const std::string text = read_line(file);
  if (text.empty()) return Status::failed("Unable to open " + file);
  if (std::strtoull(text.c_str(), nullptr, 10) < needed) {
    return Status::failed("Insufficient " + name + " huge pages. Need " + std::to_string(needed) +
                          " to run");
  }
  return Status::success();
}

}  // namespace

Status run_tool_client(const Tool& tool, Invocation& cl, RunInfo& info, const SessionEnv& env,
                       bool loopback) {
  auto plan = plan_tool(tool, cl, *env.tests);
  if (!plan.ok()) return fail(plan.status().message());  // the originals exit 1 for any error
  if (!plan->cxi_warning.empty()) {
    std::fprintf(stderr, "%s: warning: %s\n", tool.name, plan->cxi_warning.c_str());
  }
  const ProgramOptions& p = cl.program;
  // -c cycles: cxi_send_lat's check that the CPUs run at one frequency (the counter's rate is
  // fitted against CLOCK_MONOTONIC_RAW either way).
  if (plan->runs.at(0).params.local.clock == "cycles" && !p.ignore_cpu_freq_mismatch) {
    std::ifstream in("/proc/cpuinfo");
    std::stringstream text;
    text << in.rdbuf();
    std::string mismatch = cpu_frequency_mismatch(text.str());
    if (!mismatch.empty()) std::fprintf(stderr, "%s\n", mismatch.c_str());
  }
  info.percentiles = default_percentiles();
  if (!p.percentiles.empty()) info.percentiles = *parse_percentiles(p.percentiles);
  Endpoints ep{plan->device, plan->provider, false, "", loopback ? "127.0.0.1" : cl.host,
               "",           std::nullopt};
  // The run as this client asks for it: its summary, and (in HELLO) the server's.
  const RunOptions& first = plan->runs.at(0).params.local;
  // On cxi this side's NIC address and the VNI of its auth key.
  if (plan->provider == "cxi") {
    CxiOwnAddress mine = cxi_own_address(first.domain, first.svc_id, tool_caps(tool));
    ep.cxi_hex = mine.hex;
    ep.vni = mine.vni;
  }
  SummaryView view =
      own_summary_view(p, first, plan->by_duration, plan->sizes.front(), plan->sizes.back());
  if (plan->tx_queue > 0 && plan->tx_queue < first.tx_depth) view.asked.in_flight = plan->tx_queue;
  view.gpus_found = gpus_found(p);
  if (Status pages = check_free_hugepages(tool, view); !pages.ok()) return fail(pages.message());
  // fabperf's JSON document and its HTML report, beside the tool's own tables, which keep
  // standard output.
  OutputSpec outputs = outputs_of(p);
  outputs.own = make_tool_reporter(tool, p, view, ep, loopback);
  outputs.own_keeps_stdout = true;
  auto reporters = make_reporters(std::move(outputs));
  if (!reporters.ok()) return reporters.status();
  // The client's own buffers and the run it asks for, for the server's summary.
  nlohmann::json own = SideMemory::of(p).to_json();
  own["iters"] = p.iters;
  own["run"] = view.asked.to_json();
  if (!ep.cxi_hex.empty()) own["cxi_addr"] = ep.cxi_hex;
  return run_client_mode(cl, plan->runs, info, *reporters, loopback, tool.name, env, own);
}

namespace {

// A fab_* server's own -t/-r/-g/-v/-d, as each of the originals' processes keeps its own:
// they replace the client's on every run, and the client learns the buffers for its summary.
// GPU buffers that cannot exist here are said at start.
Result<OwnOptions> server_own_options(const Tool& tool, const Invocation& cl) {
  const ProgramOptions& p = cl.program;
  const RunOptions& mine = cl.own;
  for (int64_t gpu : {p.tx_gpu, p.rx_gpu}) {
    if (gpu < 0) continue;
    auto spec = parse_gpu_spec(p.gpu_type.empty() ? std::to_string(gpu)
                                                  : p.gpu_type + ":" + std::to_string(gpu));
    if (!spec.ok()) return spec.status();
    auto runtime = open_gpu(*spec);
    if (!runtime.ok()) return runtime.status();
  }
  OwnOptions own;
  own.said = SideMemory::of(p).to_json();
  // This server's cxi address, for its client's Remote line (none off cxi).
  CxiOwnAddress cxi = cxi_own_address(mine.domain, mine.svc_id, tool_caps(tool));
  if (!cxi.hex.empty()) own.said["cxi_addr"] = cxi.hex;
  own.apply = [&tool, p, mine](const TestSpec& spec, RunOptions& opts) -> Status {
    auto gpu = own_buffer(tool, p, true, spec.kind == TestKind::kBiBandwidth);
    if (!gpu.ok()) return gpu.status();
    opts.gpu = *gpu;
    opts.domain = mine.domain;
    opts.svc_id = mine.svc_id;
    return Status::success();
  };
  return own;
}

}  // namespace

bool is_cxi_program(const std::string& program) { return find_tool(program) != nullptr; }

void note_tool_options(const Tool& tool, const Invocation& cl) {
  if (cl.program.emu_mode) {
    std::fprintf(stderr,
                 "%s: note: --emu-mode times runs on Cassini emulation hardware (the "
                 "NIC's elapsed-time CSR); it has no meaning here and is ignored\n",
                 tool.name);
  }
}

Status run_tool_server(const Tool& tool, const Invocation& cl, const SessionEnv& env) {
  auto own = server_own_options(tool, cl);
  if (!own.ok()) return fail(own.status().message());
  auto observer = make_tool_server_observer(tool, cl.program, stdout, gpus_found(cl.program));
  return run_server_mode(
      cl, env, observer.get(),
      "Listening on port " + std::to_string(cl.program.listen_port) + " for client to connect...\n",
      tool.name, &*own);
}

}  // namespace fabperf::cxi
