// The fab_* man pages' OUTPUT, EXAMPLES and EXIT STATUS sections.
#include "manual/tool_sections.h"

#include <string_view>
#include <utility>
#include <vector>

#include "cli/command_line.h"
#include "cli/tool_grammar.h"
#include "cxi/cxi_format.h"
#include "cxi/cxi_plan.h"
#include "manual/roff.h"

namespace fabperf::manual {

namespace {

using cxi::Tool;
using cxi::ToolKind;

std::string item(std::string_view term, std::string_view text) {
  return ".TP\n" + italic(term) + "\n" + roff_escape(text) + "\n";
}

// Text kept as laid out (a terminal's lines), escaped.
std::string verbatim(const std::string& text) {
  std::string out = ".PP\n.nf\n";
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line = std::string_view(text).substr(pos, end - pos);
    out += line.empty() ? std::string(".sp\n") : roff_escape(line) + "\n";
    pos = end + 1;
  }
  return out + ".fi\n";
}

// What one measured latency is, per tool.
const char* latency_definition(const Tool& tool) {
  if (tool.bit & kCxiSendLat) {
    return "half the round trip: the client sends, the server sends the message back, and the "
           "time from the first send to the answer's arrival is halved";
  }
  if (tool.bit & kCxiReadLat) {
    return "from just before the read is issued to its completion, when the data has arrived";
  }
  if (tool.bit & kCxiAtomicLat) {
    return "from just before the operation is issued to its completion (fetching: once the "
           "old value has arrived)";
  }
  return "from just before the write is issued to its completion, which means the data is in "
         "the target buffer (FI_DELIVERY_COMPLETE where the provider offers it)";
}

std::string latency_output(const Tool& tool) {
  std::string out =
      ".PP\n" +
      roff_escape(std::string("With --report-all, the client prints each latency as "
                              "it is measured, in two columns:")) +
      "\n" + item(tool.sample_label, "The measurement number.") +
      item("Latency[us]", std::string("The latency in microseconds: ") + latency_definition(tool) +
                              ".  Times come from CLOCK_MONOTONIC_RAW" +
                              ((tool.bit & kCxiSendLat)
                                   ? " (\\-c cycles: the CPU's cycle counter, calibrated against "
                                     "it)."
                                   : ".")) +
      ".PP\nAfter each size, a row of six columns:\n" +
      item(tool.size_label, std::string("The size of the operations.")) +
      item(tool.op_label, "The number measured.") + item("Min[us]", "The smallest latency.") +
      item("Max[us]", "The largest latency.") + item("Mean[us]", "The mean latency.") +
      item("StdDev[us]", "The standard deviation of the latencies.") + ".PP\n" +
      roff_escape(
          "--percentiles adds a column per percentile.  The server prints "
          "\"See client for results.\" once per size.") +
      "\n";
  return out;
}

std::string bandwidth_output(const Tool& tool) {
  const bool atomic = tool.bit & kCxiAtomicBw;
  const bool loopback = tool.kind == ToolKind::kLoopback;
  std::string out = ".PP\n";
  out +=
      roff_escape(
          loopback ? std::string("Each iteration posts -n writes as one list and waits for all of "
                                 "them.  After each size, a row of four columns:")
                   : std::string("Each iteration posts a list of -l operations and waits for all "
                                 "of it (--stream: -l kept in flight instead, after a warm-up "
                                 "list); the time runs from a start barrier to an end barrier.  "
                                 "After each size, both sides print a row of four columns (one "
                                 "way, the server's count column shows -; with -b each side counts "
                                 "its own operations and the rates are both sides' summed):")) +
      "\n";
  out += item(tool.size_label, "The size of the operations.");
  out += item(tool.op_label, "The number measured.");
  out += loopback ? item("BW[Gb/s]", "Payload bits per second, in 10^9.")
                  : item("BW[MB/s]", "Payload bytes per second, in 10^6.");
  out += atomic ? item("OpRate[M/s]", "Operations per second, in 10^6.")
                : item("PktRate[Mpkt/s]",
                       "Packets per second, in 10^6: operations times the 2048-byte packets "
                       "each takes.");
  return out;
}

// The client's summary and table header for `args` on a Slingshot node, as this tool prints
// them ("" where the arguments are not the tool's).
std::string client_text(const Tool& tool, const std::vector<std::string>& args) {
  auto parsed = parse_tool_command_line(args, tool.bit, tool.name, true);
  if (!parsed.ok()) return "";
  // Resolved as the tool's client resolves it, but for the GPU type this machine's devices name.
  auto cl = cxi::resolve_tool_invocation(tool, std::move(*parsed), false, true);
  if (!cl.ok()) return "";
  std::vector<uint64_t> sizes = cxi::tool_sizes(*cl);
  cxi::SummaryView view = cxi::own_summary_view(cl->program, cl->own, cxi::duration_given(*cl),
                                                sizes.front(), sizes.back());
  cxi::Endpoints ep{"cxi0",           "cxi", false,       "NIC 0x13 PID 0 VNI 10",
                    "NIC 0x12 PID 0", "",    std::nullopt};
  std::string out = cxi::summary_block(tool, view, ep);
  if (tool.kind == ToolKind::kLatency) {
    out += cl->program.report_all ? cxi::sample_header(tool) : cxi::latency_header(tool, {});
  } else {
    out += cxi::bandwidth_header(tool);
  }
  return out + "...\n";
}

std::string example(const Tool& tool, const std::string& title,
                    const std::vector<std::string>& args) {
  std::string command = std::string("$ ") + tool.name;
  for (const std::string& a : args) command += " " + a;
  std::string out = ".SS " + roff_escape(title) + "\n";
  if (tool.kind == ToolKind::kLatency || tool.kind == ToolKind::kBandwidth) {
    out += ".PP\nServer:\n" +
           verbatim(std::string("$ ") + tool.name +
                    "\nListening on port 49194 for client to connect...") +
           ".PP\nClient:\n";
  }
  return out + verbatim(command + "\n" + client_text(tool, args));
}

}  // namespace

std::string tool_output_section(const Tool& tool) {
  std::string out = ".SH OUTPUT\n";
  switch (tool.kind) {
    case ToolKind::kLatency:
    case ToolKind::kBandwidth:
      out += roff_escape(
                 "Once the client has connected, the server and the client each print a summary "
                 "of the run the client asked for (the server adopts its options), with the "
                 "device each side uses (Device) and both endpoints (Local, Remote).") +
             "\n";
      return out +
             (tool.kind == ToolKind::kLatency ? latency_output(tool) : bandwidth_output(tool));
    case ToolKind::kLoopback:
      return out + roff_escape("A summary of the run, then the table.") + "\n" +
             bandwidth_output(tool);
    case ToolKind::kHeatsink:
      return out +
             roff_escape(
                 "A summary of the check (device, board, workers and the cores they "
                 "run on, where the rate comes from), then every -i seconds a row: "
                 "Time[s], Rate[GB/s] (the writes' payload, from the NIC's counter "
                 "where its telemetry has it, else from the workers' completions) and "
                 "a column per sensor of the NIC (W, or degrees C).  Then a line per "
                 "sensor and for the average rate: its limit or target, the worst "
                 "reading, and PASS, FAIL, NA (no module) or ---- (not judged).") +
             "\n";
    case ToolKind::kStat:
      return out +
             roff_escape(
                 "Per device: Description, Part and Serial Number (cxi), FW Version, "
                 "Network device, MAC, NID and PID granule (cxi), PCIE speed/width and "
                 "slot, Link layer retry, loopback and media (cxi), Link MTU, speed and "
                 "state; -r adds Rates (codewords per second, BER, pause), -a the AER "
                 "counters.  -l and -m print bare names or MACs, one a line.") +
             "\n";
  }
  return out;
}

std::string tool_examples_section(const Tool& tool) {
  std::string out = ".SH EXAMPLES\n";
  const bool atomic = tool.bit & (kCxiAtomicLat | kCxiAtomicBw);
  switch (tool.kind) {
    case ToolKind::kLatency:
      out += example(tool, "Example 1",
                     atomic ? std::vector<std::string>{"10.1.1.8", "-D", "1"}
                            : std::vector<std::string>{"10.1.1.8", "-D", "1", "-s", "1:1024"});
      out += ".PP\n" +
             roff_escape(atomic ? "One second of operations."
                                : "A second for each size from 1 to 1024 bytes.") +
             "\n";
      out += example(tool, "Example 2", {"10.1.1.8", "-n", "5", "--report-all"});
      return out + ".PP\nFive measurements, each printed, then the row.\n";
    case ToolKind::kBandwidth:
      out += example(tool, "Example 1",
                     atomic ? std::vector<std::string>{"10.1.1.8", "-D", "1"}
                            : std::vector<std::string>{"10.1.1.8", "-D", "1", "-s", "1:1024"});
      out += example(tool, "Example 2", {"10.1.1.8", "-b"});
      return out + ".PP\nBoth directions at once: each side counts its own operations.\n";
    case ToolKind::kLoopback:
      return out + example(tool, "Example", {"-s", "65536", "-n", "256"});
    case ToolKind::kHeatsink:
      return out + ".PP\nA 60-second check, a row every 10 seconds:\n" +
             verbatim("$ fab_heatsink_check -D 60 -i 10");
    case ToolKind::kStat:
      return out +
             ".PP\nThe devices' names, then one device with its link rates over a "
             "second:\n" +
             verbatim("$ fab_stat -l\ncxi0\n$ fab_stat -d cxi0 -r -p 1");
  }
  return out;
}

std::string tool_exit_section(const Tool& tool) {
  std::string out =
      ".SH EXIT STATUS\n0 success; 1 an error, bad usage included (as the "
      "originals); 130 interrupted";
  if (tool.kind == ToolKind::kHeatsink) {
    out +=
        "; 2 a temperature or power limit or the bandwidth target failed, or the check "
        "stopped over temperature";
  }
  return out + ".\n";
}

}  // namespace fabperf::manual
