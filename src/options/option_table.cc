// The option table and what derives from it: spellings, value parsing, suggestions.
#include "options/option_table.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/units.h"

namespace fabperf {

namespace {

constexpr double kU64Max = 18446744073709551615.0;
constexpr double kTiB = 1099511627776.0;

std::vector<OptionSpec> build_table() {
  using T = OptType;
  using S = OptScope;
  return {
      // name, short, type, default, min, max, scope, per_test, group, arg, help
      // --- what a test does
      {"msg_size", "m", T::kSize, "0", 0, kTiB, S::kShared, true, "test", "Size",
       "Message size (default depends on the test: bw 64K, lat 1, atomics 8)"},
      {"time", "t", T::kTime, "2", 0, 1e8, S::kShared, true, "test", "Time",
       "Test duration (s, or with suffix m, h, d)"},
      {"no_msgs", "n", T::kCount, "0", 0, 1e15, S::kShared, true, "test", "N",
       "Send N messages (or iterations) instead of running for --time"},
      {"warmup", nullptr, T::kCount, "10", 0, 1e9, S::kShared, true, "test", "N",
       "Iterations run first and left out of the statistics"},
      {"access_recv", "ar", T::kOnOff, "0", 0, 1, S::kShared, true, "test", "OnOff",
       "Touch every received byte, as an application would"},
      {"cpu_affinity", "ca", T::kString, "", 0, 0, S::kPerSide, true, "test", "PN",
       "Pin to CPU PN (a number, or \"any\")"},
      {"cq_poll", "cp", T::kOnOff, "0", 0, 1, S::kPerSide, true, "test", "OnOff",
       "Busy-poll instead of blocking waits (sockets: non-blocking spin; fabrics: CQ poll)"},
      {"streams", nullptr, T::kCount, "1", 1, 256, S::kShared, true, "test", "N",
       "Bandwidth tests: N data connections (or endpoints) on N threads per side; "
       "aggregate and per-stream figures (-n counts per stream)"},
      {"rate", nullptr, T::kCount, "0", 0, 1e8, S::kShared, true, "test", "MsgsPerSec",
       "Latency tests: open loop, sending on a fixed schedule of this many messages a second "
       "and timing each from its intended send time (0: closed-loop ping-pong)"},
      {"sock_buf_size", "sb", T::kSize, "0", 0, 1 << 30, S::kPerSide, true, "socket", "Size",
       "Socket send and receive buffer size (SO_SNDBUF/SO_RCVBUF)"},
      {"ip_port", "ip", T::kCount, "0", 0, 65535, S::kShared, true, "socket", "Port",
       "Port the socket tests' data connection uses on the server (default: ephemeral)"},
      {"verify", nullptr, T::kFlag, "0", 0, 1, S::kShared, true, "fabric", nullptr,
       "Check the data of every write, read and send, and atomic results"},
      {"id", "i", T::kString, "", 0, 0, S::kPerSide, true, "fabric", "Device:Port",
       "RDMA device and port (maps onto the libfabric domain)"},
      {"provider", "P", T::kString, "", 0, 0, S::kPerSide, true, "fabric", "Name",
       "libfabric provider (tcp, shm, verbs, cxi, efa, \"tcp;ofi_rxm\" ...; default: best)"},
      {"domain", nullptr, T::kString, "", 0, 0, S::kPerSide, true, "fabric", "Name",
       "libfabric domain (NIC)"},
      {"fabric", nullptr, T::kString, "", 0, 0, S::kPerSide, true, "fabric", "Name",
       "libfabric fabric name"},
      {"tx_depth", nullptr, T::kCount, "128", 1, 65536, S::kShared, true, "fabric", "N",
       "Operations kept in flight by bandwidth tests"},
      {"rd_atomic", "nr", T::kCount, "16", 1, 65536, S::kPerSide, true, "fabric", "Max",
       "RDMA reads and atomics in flight"},
      {"mtu_size", "mt", T::kSize, "0", 0, 1 << 20, S::kShared, true, "fabric", "Size",
       "MTU where the provider allows it (0: provider default)"},
      {"use_hp", nullptr, T::kString, "", 0, 0, S::kPerSide, true, "fabric", "2M|1G",
       "Allocate buffers from huge pages of this size"},
      {"gpu", nullptr, T::kString, "", 0, 0, S::kPerSide, true, "fabric", "[Type:]N",
       "Place the buffers in GPU N's memory (Type NVIDIA, AMD or INTEL; default: the type "
       "found); needs a provider with FI_HMEM"},
      {"atomic_op", nullptr, T::kString, "SUM", 0, 0, S::kShared, true, "fabric", "Op",
       "Atomic operation: MIN MAX SUM LOR LAND BOR BAND LXOR BXOR SWAP CSWAP"},
      {"atomic_type", nullptr, T::kString, "UINT64", 0, 0, S::kShared, true, "fabric", "Type",
       "Atomic datatype: INT8..UINT64 FLOAT DOUBLE ..."},
      {"cswap_op", nullptr, T::kString, "EQ", 0, 0, S::kShared, true, "fabric", "Op",
       "Compare operation of CSWAP: EQ NE LE LT GE GT"},
      {"fetching", nullptr, T::kFlag, "0", 0, 1, S::kShared, true, "fabric", nullptr,
       "Use fetching atomics (the old value comes back)"},
      // qperf's InfiniBand-only knobs: known, so they draw "set but not used", not "bad option".
      {"alt_port", "ap", T::kCount, "0", 0, 255, S::kPerSide, true, "verbs", "Port",
       "Alternate path port (verbs only)"},
      {"service_level", "sl", T::kCount, "0", 0, 15, S::kPerSide, true, "verbs", "SL",
       "Service level (verbs only)"},
      {"src_path_bits", "sp", T::kCount, "0", 0, 255, S::kPerSide, true, "verbs", "N",
       "Source path bits (verbs only)"},
      {"static_rate", "sr", T::kString, "", 0, 0, S::kPerSide, true, "verbs", "Rate",
       "InfiniBand static rate (verbs only)"},
      {"use_cm", "cm", T::kOnOff, "0", 0, 1, S::kShared, true, "verbs", "OnOff",
       "Use the RDMA connection manager (libfabric always does for FI_EP_MSG)"},
      // --- connection
      {"listen_port", "lp", T::kCount, "19765", 1, 65535, S::kAny, false, "connection", "Port",
       "Server's listen port"},
      {"host", "H", T::kString, "", 0, 0, S::kClient, false, "connection", "Host",
       "Server node (or the first non-option argument)"},
      {"bind", nullptr, T::kString, "", 0, 0, S::kAny, false, "connection", "Addr",
       "Local address to bind (client: source address; server: listen address)"},
      {"loopback", nullptr, T::kFlag, "0", 0, 1, S::kClient, false, "connection", nullptr,
       "Run a server inside this process on 127.0.0.1 and test against it"},
      {"timeout", "to", T::kTime, "5", 0.001, 86400, S::kPerSide, false, "connection", "Time",
       "Deadline for every control message and stalled data transfer"},
      {"wait_server", "ws", T::kTime, "5", 0, 86400, S::kClient, false, "connection", "Time",
       "Keep trying to connect to the server this long"},
      {"loop", "oo", T::kLoop, "", 0, 0, S::kClient, false, "test", "Var:Init:Last:Incr",
       "Run each following test once per value (Incr *N multiplies); may be nested"},
      // --- server: access control and limits (security.md); never sent by a client
      {"max_clients", nullptr, T::kCount, "16", 1, 4096, S::kServer, false, "connection", "N",
       "Server: clients served at once; one more is told \"busy, try again\""},
      {"max_msg_size", nullptr, T::kSize, "1G", 1, kTiB, S::kServer, false, "connection",
       "Size", "Server: largest -m a client may ask for"},
      {"max_time", nullptr, T::kTime, "1h", 1, 1e8, S::kServer, false, "connection", "Time",
       "Server: longest -t or -to a client may ask for; a run going longer is ended"},
      {"max_msgs", nullptr, T::kCount, "1000000000", 1, 1e15, S::kServer, false, "connection",
       "N", "Server: largest -n or --warmup a client may ask for"},
      {"max_memory", nullptr, T::kSize, "2G", 1 << 20, kTiB, S::kServer, false, "connection",
       "Size", "Server: buffer memory all clients' runs may hold at once"},
      {"allow", nullptr, T::kString, "", 0, 0, S::kServer, false, "connection", "CIDR,...",
       "Server: serve only clients from these address blocks (IPv4 or IPv6; default: any)"},
      {"auth_key_file", nullptr, T::kString, "", 0, 0, S::kAny, false, "connection", "File",
       "Pre-shared key (16+ bytes, mode 600); client and server prove they hold it "
       "(HMAC-SHA256 challenge-response; the key never crosses the network)"},
      // --- display
      {"precision", "e", T::kInt, "3", 1, 15, S::kClient, false, "display", "Digits",
       "Significant digits in results"},
      {"unify_nodes", "un", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "Name figures loc_/rem_ instead of send_/recv_"},
      {"unify_units", "uu", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "Show every figure in its base unit, without commas (for scripts)"},
      {"use_bits_per_sec", "ub", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "Show bandwidth in bits per second"},
      {"percentiles", nullptr, T::kString, "50,90,99,99.9,99.99", 0, 0, S::kClient, false,
       "display", "List", "Latency percentiles shown with -v/-vs and in JSON and CSV"},
      {"verbose", "v", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "Verbose: all of -vc -vs -vt -vu",
       {"verbose_conf", "verbose_stat", "verbose_time", "verbose_used"}},
      {"verbose_conf", "vc", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "Show configuration (provider, completion level, clock)"},
      {"verbose_stat", "vs", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "Show statistics: message rate, latency distribution"},
      {"verbose_time", "vt", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "Show CPU usage and costs"},
      {"verbose_used", "vu", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "Show the parameters that were set"},
      {"verbose_more", "vv", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "More verbose: all of -v and -vvc -vvs -vvt -vvu",
       {"verbose_conf", "verbose_stat", "verbose_time", "verbose_used", "verbose_more_conf",
        "verbose_more_stat", "verbose_more_time", "verbose_more_used"}},
      {"verbose_more_conf", "vvc", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "Show more configuration", {"verbose_conf"}},
      {"verbose_more_stat", "vvs", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "Show more statistics: byte and message counts", {"verbose_stat"}},
      {"verbose_more_time", "vvt", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "Show more timing: CPU split, real and CPU time", {"verbose_time"}},
      {"verbose_more_used", "vvu", T::kFlag, "0", 0, 1, S::kClient, false, "display", nullptr,
       "Show every parameter in use", {"verbose_used"}},
      // --- output
      {"json", nullptr, T::kString, "", 0, 0, S::kClient, false, "output", "File",
       "Write one JSON document with every result (- for standard output)"},
      {"csv", nullptr, T::kString, "", 0, 0, S::kClient, false, "output", "File",
       "Write one CSV row per result, with a header (- for standard output)"},
      // --- misc
      {"help", "h", T::kFlag, "0", 0, 1, S::kClient, false, "misc", "Topic",
       "Help on a topic: categories, examples, opts, options, tests, or a test name"},
      {"version", "V", T::kFlag, "0", 0, 1, S::kClient, false, "misc", nullptr,
       "Print the version"},
      {"list_fabrics", nullptr, T::kFlag, "0", 0, 1, S::kClient, false, "misc", nullptr,
       "List the libfabric providers and domains (devices) on this host, as fab_stat -l"},
  };
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

const std::vector<OptionSpec>& option_table() {
  static const std::vector<OptionSpec> table = build_table();
  return table;
}

const OptionSpec* find_option(std::string_view name) {
  for (const OptionSpec& spec : option_table()) {
    if (name == spec.name || (spec.short_name != nullptr && name == spec.short_name)) {
      return &spec;
    }
  }
  return nullptr;
}

const std::vector<Spelling>& option_spellings() {
  static const std::vector<Spelling> spellings = [] {
    std::vector<Spelling> out;
    for (const OptionSpec& spec : option_table()) {
      std::string name = spec.name;
      out.push_back({"--" + name, &spec, Side::kBoth, false});
      if (spec.short_name) out.push_back({std::string("-") + spec.short_name, &spec, Side::kBoth, false});
      if (spec.type == OptType::kOnOff && spec.short_name) {
        out.push_back({std::string("-") + spec.short_name + "1", &spec, Side::kBoth, true});
      }
      if (spec.scope == OptScope::kPerSide) {
        out.push_back({"--loc_" + name, &spec, Side::kLocal, false});
        out.push_back({"--rem_" + name, &spec, Side::kRemote, false});
        if (spec.short_name) {
          std::string s = spec.short_name;
          out.push_back({"-l" + s, &spec, Side::kLocal, false});
          out.push_back({"-r" + s, &spec, Side::kRemote, false});
          if (spec.type == OptType::kOnOff) {
            out.push_back({"-l" + s + "1", &spec, Side::kLocal, true});
            out.push_back({"-r" + s + "1", &spec, Side::kRemote, true});
          }
        }
      }
    }
    // Friendlier spellings users of other tools type.
    out.push_back({"--poll", find_option("cq_poll"), Side::kBoth, true});
    out.push_back({"--list-fabrics", find_option("list_fabrics"), Side::kBoth, false});
    return out;
  }();
  return spellings;
}

const Spelling* find_spelling(std::string_view text) {
  for (const Spelling& s : option_spellings()) {
    if (s.text == text) return &s;
  }
  return nullptr;
}

Result<ParamValue> parse_option_value(const OptionSpec& spec, std::string_view text,
                                      std::string_view spelling) {
  std::string who(spelling);
  auto range_error = [&](const std::string& shown) {
    return Status::Usage(who + ": " + shown + " is out of range (" +
                         param_value_text(ParamValue(static_cast<uint64_t>(spec.min))) + " to " +
                         (spec.max >= kU64Max ? std::string("max")
                                              : param_value_text(ParamValue(
                                                    static_cast<uint64_t>(spec.max)))) +
                         ")");
  };
  switch (spec.type) {
    case OptType::kSize:
    case OptType::kCount: {
      auto v = spec.type == OptType::kSize ? parse_size(text)
                                           : [&]() -> Result<uint64_t> {
        auto i = parse_int(text, 0, std::numeric_limits<int64_t>::max());
        if (!i.ok()) return i.status();
        return static_cast<uint64_t>(*i);
      }();
      if (!v.ok()) return Status::Usage(who + ": " + v.status().message());
      double d = static_cast<double>(*v);
      if (d < spec.min || d > spec.max) return range_error(std::string(text));
      return ParamValue(*v);
    }
    case OptType::kInt: {
      auto v = parse_int(text, static_cast<int64_t>(spec.min), static_cast<int64_t>(spec.max));
      if (!v.ok()) return Status::Usage(who + ": " + v.status().message());
      return ParamValue(*v);
    }
    case OptType::kTime: {
      auto v = parse_time(text);
      if (!v.ok()) return Status::Usage(who + ": " + v.status().message());
      if (*v < spec.min || *v > spec.max) {
        return Status::Usage(who + ": " + std::string(text) + " is out of range (" +
                             param_value_text(ParamValue(spec.min)) + " to " +
                             param_value_text(ParamValue(spec.max)) + " seconds)");
      }
      return ParamValue(*v);
    }
    case OptType::kOnOff:
    case OptType::kFlag: {
      auto v = parse_on_off(text);
      if (!v.ok()) return Status::Usage(who + ": " + v.status().message());
      return ParamValue(*v);
    }
    case OptType::kString:
    case OptType::kLoop:
      return ParamValue(std::string(text));
  }
  return Status::Usage(who + ": unknown option type");
}

std::string param_value_text(const ParamValue& value) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "1" : "0"; }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(uint64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const {
      if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
        return std::to_string(static_cast<int64_t>(v));
      }
      char buf[64];
      snprintf(buf, sizeof buf, "%g", v);
      return buf;
    }
    std::string operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, value);
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string w = lower(word);
  std::string best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const std::string& candidate : candidates) {
    std::string c = lower(candidate);
    std::vector<size_t> prev(c.size() + 1), cur(c.size() + 1);
    for (size_t j = 0; j <= c.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= w.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= c.size(); ++j) {
        size_t cost = w[i - 1] == c[j - 1] ? 0 : 1;
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      }
      std::swap(prev, cur);
    }
    if (prev[c.size()] < best_distance) {
      best_distance = prev[c.size()];
      best = candidate;
    }
  }
  // Close enough to be a typo: at most a third of the word, and at most 3 edits.
  size_t limit = std::min<size_t>(3, std::max<size_t>(1, w.size() / 3));
  return best_distance <= limit ? best : "";
}

}  // namespace fabperf
