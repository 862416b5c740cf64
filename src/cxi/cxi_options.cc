// The CXI tools' option table and getopt_long-style parser; usage text derives from the table.
#include "cxi/cxi_options.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "options/option_table.h"
#include "core/units.h"
#include "fabric/atomic_ops.h"

namespace fabperf::cxi {

namespace {

using Apply = std::function<Status(CxiOptions&, const std::string&)>;

struct OptRow {
  char short_name;        // 0: long only
  const char* long_name;
  bool takes_arg;
  uint32_t tools;         // ToolBit mask
  const char* arg_name;
  const char* help;
  Apply apply;
};

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// Plain decimal (strtoul's grammar without its sign and whitespace leniency).
bool parse_u64(const std::string& text, uint64_t* out) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool parse_seconds(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v) || v <= 0 || v > 1e8) return false;
  *out = v;
  return true;
}

Apply count(uint64_t CxiOptions::*field, const char* message, uint64_t min = 1,
            uint64_t max = UINT64_MAX) {
  return [=](CxiOptions& o, const std::string& v) {
    uint64_t n;
    if (!parse_u64(v, &n) || n < min || n > max) return Status::Usage(message);
    o.*field = n;
    return Status::Ok();
  };
}

Apply seconds(double CxiOptions::*field, const char* message) {
  return [=](CxiOptions& o, const std::string& v) {
    if (!parse_seconds(v, &(o.*field))) return Status::Usage(message);
    return Status::Ok();
  };
}

Apply number(double CxiOptions::*field, const char* message) {
  return [=](CxiOptions& o, const std::string& v) {
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !std::isfinite(d) || d < 0) return Status::Usage(message);
    o.*field = d;
    return Status::Ok();
  };
}

Apply flag(bool CxiOptions::*field) {
  return [=](CxiOptions& o, const std::string&) {
    o.*field = true;
    return Status::Ok();
  };
}

Apply text(std::string CxiOptions::*field) {
  return [=](CxiOptions& o, const std::string& v) {
    o.*field = v;
    return Status::Ok();
  };
}

Apply gpu(int CxiOptions::*field) {
  return [=](CxiOptions& o, const std::string& v) {
    uint64_t n;
    if (!parse_u64(v, &n) || n > 1024) return Status::Usage("Invalid GPU index: " + v);
    o.*field = static_cast<int>(n);
    return Status::Ok();
  };
}

bool power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

Status apply_size(CxiOptions& o, const std::string& v) {
  size_t colon = v.find(':');
  std::string lo = v.substr(0, colon);
  std::string hi = colon == std::string::npos ? lo : v.substr(colon + 1);
  auto a = parse_size(lo), b = parse_size(hi);
  if (!a.ok() || !b.ok() || *a == 0 || *b == 0 || *a > kMaxSize || *b > kMaxSize) {
    return Status::Usage("Invalid size: " + v + " (sizes are 1 to 4294967295 bytes)");
  }
  if (colon != std::string::npos) {
    if (!power_of_two(*a) || !power_of_two(*b)) {
      return Status::Usage("Invalid size: " + v + " (ranges must be powers of 2)");
    }
    if (*a > *b) return Status::Usage("Invalid size: " + v + " (MIN is above MAX)");
  }
  o.min_size = *a;
  o.max_size = *b;
  return Status::Ok();
}

Status apply_hugepages(CxiOptions& o, const std::string& v) {
  std::string u = upper(v);
  if (u != "2M" && u != "1G") return Status::Usage("Invalid hugepage type: " + v + ". Must be 2M or 1G");
  o.use_hp = u;
  return Status::Ok();
}

Status apply_gpu_type(CxiOptions& o, const std::string& v) {
  std::string u = upper(v);
  if (u != "AMD" && u != "NVIDIA" && u != "INTEL") {
    return Status::Usage("Invalid GPU type: " + v + ". Must be AMD, NVIDIA or INTEL");
  }
  o.gpu_type = u;
  return Status::Ok();
}

Status apply_port(CxiOptions& o, const std::string& v) {
  uint64_t n;
  if (!parse_u64(v, &n) || n == 0 || n > 65535) return Status::Usage("Invalid port");
  o.port = static_cast<uint16_t>(n);
  return Status::Ok();
}

Status apply_svc_id(CxiOptions& o, const std::string& v) {
  uint64_t n;
  if (!parse_u64(v, &n) || n == 0 || n > 0xffffffffu) return Status::Usage("Invalid service ID: " + v);
  o.svc_id = static_cast<uint32_t>(n);
  o.svc_id_set = true;
  return Status::Ok();
}

Status apply_clock(CxiOptions& o, const std::string& v) {
  if (v != "clock_gettime" && v != "cycles") {
    return Status::Usage("Invalid clock: " + v + ". Must be clock_gettime or cycles");
  }
  o.clock = v;
  return Status::Ok();
}

Status apply_upper(std::string CxiOptions::*field, CxiOptions& o, const std::string& v) {
  o.*field = upper(v);
  return Status::Ok();
}

const std::vector<OptRow>& option_rows() {
  constexpr uint32_t kGpuTools = kPairTools | kLoopbackBw;
  constexpr uint32_t kRunTools = kPairTools | kLoopbackBw | kHeatsink;
  static const std::vector<OptRow> rows = {
      {'d', "device", true, kAllTools, "DEV",
       "The device (libfabric domain) to use. Default: the provider's first", text(&CxiOptions::device)},
      {0, "provider", true, kAllTools, "PROV",
       "The libfabric provider (cxi, tcp, shm, verbs, ...). Default: the best RDM provider",
       text(&CxiOptions::provider)},
      {'P', "provider", true, kAllTools & ~kHeatsink, "PROV", nullptr, text(&CxiOptions::provider)},
      {'v', "svc-id", true, kRunTools, "SVC_ID",
       "The service ID to use (cxi provider only). Default: 1", apply_svc_id},
      {'p', "port", true, kPairTools, "PORT",
       "The TCP port of the client/server connection. Default: 49194", apply_port},
      {'t', "tx-gpu", true, kGpuTools, "GPU", "The GPU for TX buffers. Default: system memory",
       gpu(&CxiOptions::tx_gpu)},
      {'r', "rx-gpu", true, kGpuTools, "GPU", "The GPU for RX buffers. Default: system memory",
       gpu(&CxiOptions::rx_gpu)},
      {'g', "gpu-type", true, kGpuTools, "TYPE",
       "AMD, NVIDIA or INTEL. Default: the type whose device files are found", apply_gpu_type},
      {'n', "iters", true, kPairTools, "ITERS", "Number of iterations",
       count(&CxiOptions::iters, "Invalid iteration count")},
      {'i', "iters", true, kLoopbackBw, "ITERS", "Number of iterations. Default: 25",
       count(&CxiOptions::iters, "Invalid iteration count")},
      {'n', "num-xfers", true, kLoopbackBw, "XFERS", "Writes per iteration. Default: 8192",
       count(&CxiOptions::num_xfers, "Invalid number of transfers")},
      {'D', "duration", true, kPairTools | kLoopbackBw | kHeatsink, "DURATION",
       "Run for DURATION seconds (per size) instead of a number of iterations",
       seconds(&CxiOptions::duration, "Invalid duration")},
      {0, "warmup", true, kLatTools, "WARMUP", "Warm-up iterations, not measured. Default: 10",
       count(&CxiOptions::warmup, "Invalid warmup count", 0)},
      {0, "latency-gap", true, kLatTools, "GAP",
       "Microseconds between iterations (a real gap). Default: 1000",
       count(&CxiOptions::gap_us, "Invalid iteration gap", 0, 60'000'000)},
      {'s', "size", true, kRunTools & ~(kAtomicLat | kAtomicBw), "MIN[:MAX]",
       "Size, or a range of powers of two, 1 to 4294967295 bytes", apply_size},
      {'l', "list-size", true, kBwTools | kHeatsink, "SIZE",
       "Operations per iteration (kept in flight). Default: 256 (atomics 4096)",
       count(&CxiOptions::list_size, "Invalid list size", 1, 65536)},
      {0, "buf-sz", true, kWriteBw | kReadBw | kSendBw, "SIZE",
       "Largest RDMA buffer. Default: 4294967296",
       count(&CxiOptions::buf_size, "Invalid buffer size")},
      {0, "buf-align", true, kWriteBw | kReadBw | kSendBw, "ALIGN",
       "RDMA buffer alignment. Default: 64",
       count(&CxiOptions::buf_align, "Invalid buffer alignment")},
      {'b', "bidirectional", false, kWriteBw | kSendBw, nullptr,
       "Measure bidirectional bandwidth", flag(&CxiOptions::bidirectional)},
      {'A', "atomic-op", true, kAtomicLat | kAtomicBw, "OP",
       "MIN MAX SUM LOR LAND BOR BAND LXOR BXOR SWAP CSWAP AXOR. Default: SUM",
       [](CxiOptions& o, const std::string& v) { return apply_upper(&CxiOptions::atomic_op, o, v); }},
      {'C', "cswap-op", true, kAtomicLat | kAtomicBw, "OP", "EQ NE LE LT GE GT. Default: EQ",
       [](CxiOptions& o, const std::string& v) { return apply_upper(&CxiOptions::cswap_op, o, v); }},
      {'T', "atomic-type", true, kAtomicLat | kAtomicBw, "TYPE",
       "INT8..UINT64 FLOAT DOUBLE FLOAT_COMPLEX DOUBLE_COMPLEX UINT128. Default: UINT64",
       [](CxiOptions& o, const std::string& v) {
         return apply_upper(&CxiOptions::atomic_type, o, v);
       }},
      {0, "fetching", false, kAtomicLat | kAtomicBw, nullptr, "Use fetching atomics",
       flag(&CxiOptions::fetching)},
      {0, "matching", false, kAtomicLat | kAtomicBw, nullptr,
       "Use matching (tagged) atomics (cxi only)", flag(&CxiOptions::matching)},
      {0, "unrestricted", false, kWriteLat | kReadLat | kAtomicLat | kWriteBw | kReadBw | kAtomicBw,
       nullptr, "Use unrestricted operations (cxi only)", flag(&CxiOptions::unrestricted)},
      {0, "no-idc", false,
       kWriteLat | kSendLat | kAtomicLat | kWriteBw | kSendBw | kAtomicBw | kHeatsink, nullptr,
       "Disable Immediate Data Commands (cxi only)", flag(&CxiOptions::no_idc)},
      {0, "no-ll", false, kLatTools, nullptr, "Disable low-latency command issue (cxi only)",
       flag(&CxiOptions::no_ll)},
      {0, "no-hrp", false, kWriteBw | kAtomicBw | kHeatsink, nullptr,
       "Disable high rate puts (cxi only)", flag(&CxiOptions::no_hrp)},
      {0, "no-ple", false, kHeatsink, nullptr, "Disable posted list entries (cxi only)",
       flag(&CxiOptions::no_ple)},
      {'R', "rdzv", false, kSendLat | kSendBw, nullptr, "Use rendezvous sends (cxi only)",
       flag(&CxiOptions::rdzv)},
      {'c', "clock", true, kSendLat, "CLOCK", "clock_gettime or cycles. Default: clock_gettime",
       apply_clock},
      {0, "report-all", false, kLatTools, nullptr, "Print each latency as it is measured",
       flag(&CxiOptions::report_all)},
      {0, "use-hp", true, kGpuTools, "HP_SIZE", "Allocate buffers from 2M or 1G huge pages",
       apply_hugepages},
      {0, "percentiles", true, kLatTools, "LIST",
       "Append percentile columns, e.g. 50,99,99.9", text(&CxiOptions::percentiles)},
      {0, "json", true, kPairTools | kLoopbackBw, "FILE",
       "Also write fabperf's JSON document (- for standard output)", text(&CxiOptions::json)},
      {'P', "procs", true, kHeatsink, "PROCS", "Worker processes. Default: CPUs / 4",
       count(&CxiOptions::procs, "Invalid process count", 1, 4096)},
      {'i', "interval", true, kHeatsink, "INTERVAL", "Seconds between rows. Default: 10",
       seconds(&CxiOptions::interval, "Invalid interval")},
      {'c', "cpu-list", true, kHeatsink, "LIST", "CPUs the workers are pinned to (e.g. 0-3,8)",
       text(&CxiOptions::cpu_list)},
      {0, "max-temp", true, kHeatsink, "DEG_C", "Temperature limit of every sensor. Default: 85",
       number(&CxiOptions::max_temp, "Invalid temperature limit")},
      {0, "max-power", true, kHeatsink, "WATTS", "Power limit of every sensor. Default: none",
       number(&CxiOptions::max_power, "Invalid power limit")},
      {0, "min-rate", true, kHeatsink, "GB_S", "Lowest acceptable average rate. Default: none",
       number(&CxiOptions::min_rate, "Invalid rate")},
      {'p', "pause", true, kStat, "SECONDS", "Seconds between rate samples (-r). Default: 4",
       seconds(&CxiOptions::pause, "Invalid pause")},
      {'l', "list", false, kStat, nullptr, "List the devices only", flag(&CxiOptions::list)},
      {'m', "mac-list", false, kStat, nullptr, "List MAC addresses", flag(&CxiOptions::mac_list)},
      {'a', "aer", false, kStat, nullptr, "Show PCIe AER counters where sysfs has them",
       flag(&CxiOptions::aer)},
      {'r', "rates", false, kStat, nullptr, "Show traffic rates where counters exist",
       flag(&CxiOptions::rates)},
      {'h', "help", false, kAllTools, nullptr, "Display this help and exit", flag(&CxiOptions::help)},
      {'V', "version", false, kAllTools, nullptr, "Display the program version and exit",
       flag(&CxiOptions::version)},
  };
  return rows;
}

std::vector<const OptRow*> rows_for(const Tool& tool) {
  std::vector<const OptRow*> out;
  for (const OptRow& r : option_rows()) {
    if (r.tools & tool.bit) out.push_back(&r);
  }
  return out;
}

void apply_defaults(const Tool& tool, CxiOptions& o) {
  o.iters = tool.iters;
  o.min_size = o.max_size = tool.size;
  o.list_size = tool.list_size;
  if (tool.kind == ToolKind::kLoopback) o.num_xfers = tool.list_size;
  if (tool.kind == ToolKind::kHeatsink) {
    o.duration = 600;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o.procs = static_cast<uint64_t>(std::max(1L, cpus / 4));
  }
}

Status check_combination(const Tool& tool, CxiOptions& o, bool iters_set) {
  if (iters_set && o.by_duration() && tool.kind != ToolKind::kHeatsink) {
    return Status::Usage("-n/--iters and -D/--duration cannot both be given");
  }
  if (!o.percentiles.empty()) {
    // The same grammar as fabperf's --percentiles.
    for (char c : o.percentiles) {
      if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != ',') {
        return Status::Usage("Invalid percentiles: " + o.percentiles);
      }
    }
  }
  if (tool.bit & (kAtomicLat | kAtomicBw)) {
    // The fabric layer's table of ops and types, so the two dialects never disagree.
    auto spec = make_atomic_spec(o.atomic_op, o.atomic_type, o.cswap_op, o.fetching);
    if (!spec.ok()) return spec.status();
  }
  if (tool.kind == ToolKind::kHeatsink && o.interval > o.duration) o.interval = o.duration;
  return Status::Ok();
}

}  // namespace

std::vector<uint64_t> CxiOptions::sizes() const {
  std::vector<uint64_t> out;
  if (!is_range()) return {min_size};
  for (uint64_t s = min_size; s <= max_size && s != 0; s *= 2) out.push_back(s);
  return out;
}

Result<CxiOptions> parse_cxi_options(const Tool& tool, const std::vector<std::string>& args) {
  CxiOptions o;
  apply_defaults(tool, o);
  const auto rows = rows_for(tool);
  bool iters_set = false;
  auto run = [&](const OptRow& row, const std::string& value) {
    if (std::string(row.long_name) == "iters") iters_set = true;
    return row.apply(o, value);
  };
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      bool takes_server = tool.kind == ToolKind::kLatency || tool.kind == ToolKind::kBandwidth;
      if (!o.server_addr.empty() || !takes_server) {
        return Status::Usage("Unexpected argument: " + arg);
      }
      o.server_addr = arg;
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg.rfind("--", 0) == 0) {
      std::string name = arg.substr(2), value;
      bool inline_value = false;
      if (size_t eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        inline_value = true;
      }
      // Exact name first, then a unique prefix (getopt_long's abbreviations).
      const OptRow* row = nullptr;
      std::vector<const OptRow*> prefixed;
      for (const OptRow* r : rows) {
        if (name == r->long_name) {
          row = r;
          break;
        }
        if (std::string(r->long_name).rfind(name, 0) == 0 &&
            std::none_of(prefixed.begin(), prefixed.end(),
                         [&](const OptRow* p) { return std::string(p->long_name) == r->long_name; })) {
          prefixed.push_back(r);
        }
      }
      if (row == nullptr && prefixed.size() == 1 && !name.empty()) row = prefixed[0];
      if (row == nullptr) {
        std::string msg = prefixed.size() > 1
                              ? "option '" + arg + "' is ambiguous"
                              : "unrecognized option '" + arg + "'";
        std::vector<std::string> names;
        for (const OptRow* r : rows) names.push_back(std::string("--") + r->long_name);
        std::string guess = nearest("--" + name, names);
        if (!guess.empty() && prefixed.size() <= 1) msg += " (did you mean " + guess + "?)";
        return Status::Usage(std::string(tool.name) + ": " + msg + "\nTry '" + tool.name +
                             " --help' for more information.");
      }
      if (!row->takes_arg && inline_value) {
        return Status::Usage(std::string(tool.name) + ": option '--" + row->long_name +
                             "' doesn't allow an argument");
      }
      if (row->takes_arg && !inline_value) {
        if (i + 1 >= args.size()) {
          return Status::Usage(std::string(tool.name) + ": option '--" + row->long_name +
                               "' requires an argument");
        }
        value = args[++i];
      }
      FP_RETURN_IF_ERROR(run(*row, value));
      continue;
    }
    // A cluster of short options: -bR, -n5, -n 5.
    for (size_t k = 1; k < arg.size(); ++k) {
      char c = arg[k];
      const OptRow* row = nullptr;
      for (const OptRow* r : rows) {
        if (r->short_name == c) {
          row = r;
          break;
        }
      }
      if (row == nullptr) {
        return Status::Usage(std::string(tool.name) + ": invalid option -- '" + std::string(1, c) +
                             "'\nTry '" + tool.name + " --help' for more information.");
      }
      if (!row->takes_arg) {
        FP_RETURN_IF_ERROR(run(*row, ""));
        continue;
      }
      std::string value;
      if (k + 1 < arg.size()) {
        value = arg.substr(k + 1);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return Status::Usage(std::string(tool.name) + ": option requires an argument -- '" +
                             std::string(1, c) + "'");
      }
      FP_RETURN_IF_ERROR(run(*row, value));
      break;
    }
  }
  FP_RETURN_IF_ERROR(check_combination(tool, o, iters_set));
  return o;
}

std::string cxi_usage(const Tool& tool) {
  std::string out = "Usage:\n";
  switch (tool.kind) {
    case ToolKind::kLatency:
    case ToolKind::kBandwidth:
      out += std::string("  ") + tool.name + " [-d DEV] [-p PORT]\n  " + tool.name +
             " [OPTIONS] SERVER_ADDR\n";
      break;
    default:
      out += std::string("  ") + tool.name + " [OPTIONS]\n";
  }
  out += std::string("\n") + tool.name + ": " + tool.summary + " (" + tool.original +
         " on any libfabric provider).\n\nOptions:\n";
  for (const OptRow* r : rows_for(tool)) {
    if (r->help == nullptr) continue;  // an alias shown with its main spelling
    std::string spell = r->short_name ? std::string("  -") + r->short_name + ", " : "      ";
    spell += std::string("--") + r->long_name;
    if (r->takes_arg) spell += std::string("=") + r->arg_name;
    if (std::string(r->long_name) == "provider" && (tool.bit & ~kHeatsink)) {
      spell = std::string("  -P, --provider=") + r->arg_name;
    }
    if (spell.size() < 30) spell.resize(30, ' ');
    else spell += "\n" + std::string(30, ' ');
    std::string help = r->help;
    if (std::string(r->long_name) == "iters" && tool.iters > 0) {
      help += ". Default: " + std::to_string(tool.iters);
    }
    out += spell + help + "\n";
  }
  return out;
}

nlohmann::json CxiOptions::to_json() const {
  return {{"svc_id", svc_id},       {"svc_id_set", svc_id_set}, {"tx_gpu", tx_gpu},
          {"rx_gpu", rx_gpu},       {"gpu_type", gpu_type},     {"iters", iters},
          {"duration", duration},   {"warmup", warmup},         {"gap_us", gap_us},
          {"min_size", min_size},   {"max_size", max_size},     {"list_size", list_size},
          {"buf_size", buf_size},   {"buf_align", buf_align},   {"report_all", report_all},
          {"use_hp", use_hp},       {"bidirectional", bidirectional},
          {"atomic_op", atomic_op}, {"atomic_type", atomic_type}, {"cswap_op", cswap_op},
          {"fetching", fetching},   {"clock", clock},           {"unrestricted", unrestricted},
          {"no_idc", no_idc},       {"no_ll", no_ll},           {"no_hrp", no_hrp},
          {"matching", matching},   {"rdzv", rdzv},             {"provider", provider}};
}

Result<CxiOptions> CxiOptions::from_json(const nlohmann::json& j, const Tool& tool) {
  CxiOptions o;
  apply_defaults(tool, o);
  try {
    o.svc_id = j.at("svc_id").get<uint32_t>();
    o.svc_id_set = j.at("svc_id_set").get<bool>();
    o.tx_gpu = j.at("tx_gpu").get<int>();
    o.rx_gpu = j.at("rx_gpu").get<int>();
    o.gpu_type = j.at("gpu_type").get<std::string>();
    o.iters = j.at("iters").get<uint64_t>();
    o.duration = j.at("duration").get<double>();
    o.warmup = j.at("warmup").get<uint64_t>();
    o.gap_us = j.at("gap_us").get<uint64_t>();
    o.min_size = j.at("min_size").get<uint64_t>();
    o.max_size = j.at("max_size").get<uint64_t>();
    o.list_size = j.at("list_size").get<uint64_t>();
    o.buf_size = j.at("buf_size").get<uint64_t>();
    o.buf_align = j.at("buf_align").get<uint64_t>();
    o.report_all = j.at("report_all").get<bool>();
    o.use_hp = j.at("use_hp").get<std::string>();
    o.bidirectional = j.at("bidirectional").get<bool>();
    o.atomic_op = j.at("atomic_op").get<std::string>();
    o.atomic_type = j.at("atomic_type").get<std::string>();
    o.cswap_op = j.at("cswap_op").get<std::string>();
    o.fetching = j.at("fetching").get<bool>();
    o.clock = j.at("clock").get<std::string>();
    o.unrestricted = j.at("unrestricted").get<bool>();
    o.no_idc = j.at("no_idc").get<bool>();
    o.no_ll = j.at("no_ll").get<bool>();
    o.no_hrp = j.at("no_hrp").get<bool>();
    o.matching = j.at("matching").get<bool>();
    o.rdzv = j.at("rdzv").get<bool>();
    o.provider = j.at("provider").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    return Status::Failed(std::string("client's options are malformed: ") + e.what());
  }
  if (o.min_size == 0 || o.max_size < o.min_size || o.max_size > kMaxSize ||
      (o.iters == 0 && o.duration <= 0) || o.list_size > 65536 || o.duration > 1e8 ||
      (o.use_hp != "" && o.use_hp != "2M" && o.use_hp != "1G")) {
    return Status::Failed("client's options are out of range");
  }
  return o;
}

}  // namespace fabperf::cxi
