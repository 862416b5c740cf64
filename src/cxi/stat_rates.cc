// cxi_stat -r's figures from telemetry counters (cxi_stat.c reads the same counters as CSRs).
#include "cxi/stat_rates.h"

#include <cstdio>
#include <cstdlib>

#include "cxi/sysfs.h"

namespace fabperf::cxi {

namespace {

constexpr int kPauses = 8;          // NUM_PAUSES: one per PCP
constexpr double kCassiniHz = 1e9;  // CAS_HZ: the pause counters count clock cycles

std::vector<std::string> counter_names() {
  std::vector<std::string> names = {"hni_pcs_good_cw", "hni_pcs_corrected_cw",
                                    "hni_pcs_uncorrected_cw", "hni_rx_paused_std"};
  for (int i = 0; i < kPauses; ++i) {
    names.push_back("hni_rx_paused_" + std::to_string(i));
    names.push_back("hni_tx_paused_" + std::to_string(i));
  }
  return names;
}

std::string printf_text(const char* fmt, double a, double b = 0) {
  char buf[128];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

}  // namespace

double rate_to_ber(double rate, const std::string& s) {
  auto has = [&](const char* a, const char* b) {
    return s.find(a) != std::string::npos || s.find(b) != std::string::npos;
  };
  if (has("CK_400G", "ck400G")) return rate / 425000000000.0;
  if (has("BS_200G", "bs200G")) return rate / 212500000000.0;
  if (has("BJ_100G", "bj100G")) return rate / 103125000000.0;
  if (has("CD_100G", "cd100G")) return rate / 106250000000.0;
  if (has("CD_50G", "cd50G")) return rate / 53125000000.0;
  return 0;
}

LinkCounters LinkCounters::read(const std::string& cxi_dir) {
  LinkCounters out;
  if (cxi_dir.empty()) return out;
  for (const std::string& name : counter_names()) {
    Reading r;
    std::string text = read_line(cxi_dir + "/telemetry/" + name);
    char* end = nullptr;
    r.value = std::strtod(text.c_str(), &end);
    r.ok = !text.empty() && end != text.c_str();
    if (r.ok && *end == '@') r.when = std::strtod(end + 1, nullptr);
    out.counters_.push_back({name, r});
  }
  return out;
}

bool LinkCounters::any() const {
  for (const auto& [name, r] : counters_) {
    if (r.ok) return true;
  }
  return false;
}

LinkCounters::Reading LinkCounters::at(const std::string& name) const {
  for (const auto& [n, r] : counters_) {
    if (n == name) return r;
  }
  return Reading{};
}

double LinkCounters::rate(const LinkCounters& later, const std::string& name,
                          double pause_s) const {
  Reading a = at(name), b = later.at(name);
  if (!a.ok || !b.ok) return -1;
  // The counters' own time stamps where they have them (cxi_stat uses the CSRs' stamps).
  double dt = a.when >= 0 && b.when > a.when ? b.when - a.when : pause_s;
  return dt > 0 ? (b.value - a.value) / dt : 0;
}

std::string LinkCounters::report(const LinkCounters& later, double pause_s,
                                 const std::string& link_speed,
                                 const std::string& pause_state) const {
  std::string out = "    Rates:\n";
  if (!any() || !later.any()) {
    return out + "        N/A (no link counters for this device; --traffic shows its traffic)\n";
  }
  const double good = rate(later, "hni_pcs_good_cw", pause_s);
  const double corrected = rate(later, "hni_pcs_corrected_cw", pause_s);
  const double uncorrected = rate(later, "hni_pcs_uncorrected_cw", pause_s);
  if (good >= 0) out += printf_text("        Good CW: %.2f/s\n", good);
  if (corrected >= 0) out += printf_text("        Corrected CW: %.2f/s\n", corrected);
  if (uncorrected >= 0) out += printf_text("        Uncorrected CW: %.2f/s\n", uncorrected);
  // "<" the smallest rate the pause can show, when none was seen (cxi_stat's min_ber).
  const double min_ber = rate_to_ber(1.0 / pause_s, link_speed);
  auto ber = [&](const char* label, double r) {
    double b = rate_to_ber(r, link_speed);
    return std::string("        ") + label + (b > 0 ? "" : "<") +
           printf_text("%.3e\n", b > 0 ? b : min_ber);
  };
  if (corrected >= 0) out += ber("Corrected BER: ", corrected);
  if (uncorrected >= 0) out += ber("Uncorrected BER: ", uncorrected);
  if (pause_state.empty()) return out;
  out += "        TX Pause state: " + pause_state + "\n";
  out += "        RX Pause state: " + pause_state + "\n";
  auto pct = [&](const std::string& name) {
    double r = rate(later, name, pause_s);
    return r < 0 ? 0 : r * 100.0 / kCassiniHz;
  };
  if (pause_state.rfind("pfc", 0) == 0) {
    for (int j = 0; j < kPauses; ++j) {
      out += printf_text("            RX Pause PCP %.0f: %3.1f%%\n", j,
                         pct("hni_rx_paused_" + std::to_string(j)));
      out += printf_text("            TX Pause PCP %.0f: %3.1f%%\n", j,
                         pct("hni_tx_paused_" + std::to_string(j)));
    }
  } else if (pause_state.rfind("std", 0) == 0 || pause_state.rfind("global", 0) == 0) {
    // (cxi_stat computes these for "global" and prints them for "std": both here)
    out += printf_text("            RX Pause: %3.1f%%\n", pct("hni_rx_paused_std"));
    out += printf_text("            TX Pause: %3.1f%%\n", pct("hni_tx_paused_0"));
  }
  return out;
}

}  // namespace fabperf::cxi
