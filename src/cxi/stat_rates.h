// fab_stat -r: cxi_stat's link rates (codewords, BER, pause) from the cxi driver's telemetry
// counters in sysfs, two samples -p seconds apart.
#pragma once

#include <string>
#include <vector>

namespace fabperf::cxi {

// One reading of a device's rate counters (telemetry/<name>: "value@seconds" or a value).
class LinkCounters {
 public:
  // Reads what `cxi_dir` (<sysfs>/class/cxi/NAME/device) has; none where it is "".
  static LinkCounters read(const std::string& cxi_dir);
  bool any() const;

  // cxi_stat's "Rates:" lines (print_cxi_status): Good, Corrected and Uncorrected CW/s, the
  // Corrected and Uncorrected BER (from the link speed, "<" the smallest the pause can show
  // when nothing was corrected), the TX/RX pause state and, by that state, the percentage of
  // time paused per PCP (pfc) or in all (std/global). Lines whose counters the device lacks
  // are left out; "N/A (...)" when it has none.
  std::string report(const LinkCounters& later, double pause_s, const std::string& link_speed,
                     const std::string& pause_state) const;

 private:
  struct Reading {
    bool ok = false;
    double value = 0, when = -1;  // when: the counter's own time stamp (-1: none)
  };
  Reading at(const std::string& name) const;
  // Per second between this reading and `later` (-1 when either lacks the counter).
  double rate(const LinkCounters& later, const std::string& name, double pause_s) const;

  std::vector<std::pair<std::string, Reading>> counters_;
};

// Bit errors per codeword rate at the link speed cxi_stat knows (rate_to_ber): BS_200G,
// CK_400G, BJ_100G, CD_100G, CD_50G; 0 for an unknown speed.
double rate_to_ber(double rate, const std::string& link_speed);

}  // namespace fabperf::cxi
