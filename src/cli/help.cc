// Help topics in qperf's shape, derived from the tables so they cannot drift from the code.
#include "cli/help.h"

#include <algorithm>
#include <map>

#include "engine/registry.h"
#include "options/option_table.h"

namespace fabperf {

namespace {

// Columns every help line fits in (a terminal's 80).
constexpr size_t kHelpWidth = 80;

// Appends `text` to `out`, whose last line already holds `column` characters, wrapping at
// word boundaries so no line passes kHelpWidth; continuation lines start at `indent`. A word
// longer than a whole line stays whole.
void append_wrapped(std::string& out, size_t column, const std::string& text, size_t indent) {
  size_t pos = 0;
  bool first = true;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    size_t need = (first ? 0 : 1) + word.size();
    if (!first && column + need > kHelpWidth) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
      need = word.size();
    } else if (!first) {
      out += ' ';
    }
    out += word;
    column += need;
    first = false;
  }
  out += "\n";
}

// One "    NAME  help..." row: the help starts at `at`, or on the next line when NAME is wider.
std::string help_row(const std::string& head, const std::string& help, size_t at) {
  std::string out = head;
  size_t column = head.size();
  if (column + 1 > at) {
    out += "\n";
    column = 0;
  }
  out.append(at - column, ' ');
  append_wrapped(out, at, help, at);
  return out;
}

std::string main_text(const std::vector<std::string>& synopsis) {
  std::string out = "Synopsis\n";
  for (const std::string& line : synopsis) out += "    " + line + "\n";
  return out + R"(
Description
    fabperf measures bandwidth, latency and message rate between two nodes,
    over kernel sockets (TCP, UDP, SCTP, SDP, RDS) and RDMA fabrics through
    libfabric.  Run it with no arguments on the server node; on the client
    node give the server's name and the tests.  --loopback runs a server
    inside the same process on 127.0.0.1.  --matrix, under mpirun or
    srun --mpi=pmix, measures every pair of the job's ranks and names the
    slow links and nodes (docs/cluster.md).

    fabperf --help categories   The help topics
    fabperf --help examples     Some examples
    fabperf --help opts         Summary of options
    fabperf --help options      Description of options
    fabperf --help tests        Summary of the tests
    fabperf --help TESTNAME     More on test TESTNAME
    fabperf compare --help      Runs side by side, each difference tested

Exit status
    0 success, 1 a test failed (connection, peer error, verification),
    2 bad usage, 130 interrupted.
)";
}

std::string categories_text(const TestRegistry& tests) {
  std::string out =
      "Categories\n    fabperf --help CATEGORY, where CATEGORY is one of:\n"
      "        categories          This list\n"
      "        examples            Some examples\n"
      "        opts                A short description of the options\n"
      "        options             A long list of options\n"
      "        tests               A list of the tests\n"
      "    or a test:\n";
  for (const std::string& name : tests.names()) out += "        " + name + "\n";
  return out;
}

std::string examples_text() {
  return R"(Examples
    Run fabperf with no arguments on the node myserver, then on another node:
        * TCP bandwidth and latency:
            fabperf myserver tcp_bw tcp_lat
        * UDP latency, then make the server quit:
            fabperf myserver udp_lat quit
        * TCP latency for message sizes 1 to 64K, doubling:
            fabperf myserver -oo msg_size:1:64K:*2 -vu tcp_lat
        * Latency percentiles and a JSON record:
            fabperf myserver -v --percentiles 50,99,99.99 --json r.json tcp_lat
        * Charts of a size sweep, and of saved runs side by side:
            fabperf myserver -oo msg_size:1:64K:*2 --html sweep.html tcp_lat
            fabperf report before.json after.json -o compare.html
        * Did a change help?  Five runs of each, side by side, tested:
            fabperf myserver --repeat 5 --json before.json tcp_lat tcp_bw
            fabperf myserver --repeat 5 --json after.json tcp_lat tcp_bw
            fabperf compare before.json after.json
        * No second node needed:
            fabperf --loopback tcp_lat udp_bw
        * Over IPv6 on a chosen interface:
            fabperf fe80::1%eth0 tcp_lat
        * The other way, and both ways at once:
            fabperf myserver -R tcp_bw
            fabperf myserver tcp_bi_bw udp_bi_bw
        * Fabric (libfabric) tests; quote a layered provider for the shell:
            fabperf --list-fabrics
            fabperf myserver -P 'tcp;ofi_rxm' rdm_write_lat rdm_write_bw
            fabperf myserver -P shm --verify -v rdm_send_bw
            fabperf myserver -P cxi --gpu 0 -m 1M rdm_write_bw
            fabperf myserver --atomic_op CSWAP --cswap_op GE rdm_atomic_lat
        * The CXI diagnostics' tools (the same binary under their names):
            fab_write_lat                      (on myserver)
            fab_write_lat myserver -D 1 -s 1:1024
            fab_send_bw myserver -b -s 65536   (-b: both ways)
        * Every link of a 64-node job, with a JSON matrix:
            mpirun --enable-recovery -np 64 --map-by node \
                fabperf --matrix tcp_lat tcp_bw --json m.json
)";
}

std::string spellings_of(const OptionSpec& spec) {
  std::string s = std::string("--") + spec.name;
  if (spec.arg_name != nullptr && spec.type != OptType::kFlag)
    s += std::string(" ") + spec.arg_name;
  if (spec.short_name != nullptr) s += std::string(" (-") + spec.short_name + ")";
  return s;
}

std::string opts_text(bool long_form) {
  std::string out = long_form ? "Options\n" : "Opts\n";
  const char* groups[] = {"test",   "socket",  "fabric", "cxi",    "verbs", "connection",
                          "server", "display", "output", "matrix", "misc"};
  for (const char* group : groups) {
    out += std::string("  ") + group + "\n";
    for (const OptionSpec& spec : option_table()) {
      if (std::string(spec.group) != group || !spec.qperf) continue;
      if (long_form) {
        std::string help = spec.help;
        if (spec.default_text[0] != '\0' && spec.type != OptType::kFlag) {
          help += std::string(" (default ") + spec.default_text + ")";
        }
        out += "    " + spellings_of(spec) + "\n          ";
        append_wrapped(out, 10, help, 10);
        if (spec.scope == OptScope::kPerSide) {
          out += std::string("      --loc_") + spec.name + ", --rem_" + spec.name +
                 (spec.short_name
                      ? std::string(" (-l") + spec.short_name + ", -r" + spec.short_name + ")"
                      : "") +
                 "\n          Set it for the local or the remote side only.\n";
        }
      } else {
        out += help_row("    " + spellings_of(spec), spec.help, 39);
      }
    }
  }
  if (long_form) {
    out +=
        "\n  Sizes take k/kb (1000), m/mb, g/gb and K/kib (1024), M/mib, G/gib.\n"
        "  Times take s, m, h, d.  OnOff options also have the form -X1 (-cp1, -ar1).\n"
        "  Options apply to the tests after them; options after the last test apply\n"
        "  to every test.\n";
  }
  return out;
}

std::string tests_text(const TestRegistry& tests) {
  std::string out = "Tests\n";
  std::map<std::string, std::vector<const TestSpec*>> groups;
  for (const TestSpec* t : tests.all()) {
    std::string g = t->family == TransportFamily::kSocket   ? "Socket Based"
                    : t->family == TransportFamily::kFabric ? "Fabric (libfabric)"
                                                            : "Miscellaneous";
    groups[g].push_back(t);
  }
  for (const auto& [group, tests] : groups) {
    out += "    " + group + "\n";
    for (const TestSpec* t : tests)
      out += help_row("        " + std::string(t->name), t->summary, 33);
  }
  return out;
}

std::string test_text(const TestSpec& t) {
  std::string out = std::string(t.name) + "\n    Purpose\n        ";
  append_wrapped(out, 8, t.summary, 8);
  out += "    Options\n";
  if (t.options.empty()) out += "        None\n";
  for (const char* name : t.options) {
    const OptionSpec* spec = find_option(name);
    if (spec) out += help_row("        " + spellings_of(*spec), spec->help, 43);
  }
  out += "    Other Options\n        --listen_port, --timeout, --wait_server, --bind\n";
  out += "    Display Options\n        ";
  append_wrapped(out, 8,
                 "--precision, --unify_nodes, --unify_units, --use_bits_per_sec, "
                 "--verbose, --percentiles, --json, --csv, --html",
                 8);
  out += "    Description\n        ";
  append_wrapped(out, 8, t.description, 8);
  return out;
}

}  // namespace

Result<std::string> help_text(const std::string& topic, const TestRegistry& tests,
                              const std::vector<std::string>& synopsis) {
  if (topic.empty()) return main_text(synopsis);
  if (topic == "categories") return categories_text(tests);
  if (topic == "examples") return examples_text();
  if (topic == "opts") return opts_text(false);
  if (topic == "options") return opts_text(true);
  if (topic == "tests") return tests_text(tests);
  if (const TestSpec* t = tests.find(topic)) return test_text(*t);
  std::vector<std::string> topics = {"categories", "examples", "opts", "options", "tests"};
  for (const std::string& n : tests.names()) topics.push_back(n);
  std::string msg = "cannot find help category " + topic;
  std::string guess = nearest(topic, topics);
  if (!guess.empty()) msg += " (did you mean " + guess + "?)";
  return Status::usage(msg + "; try: fabperf --help categories");
}

}  // namespace fabperf
