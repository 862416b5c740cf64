// fab_heatsink_check's sensors: the NIC's own hwmon chip, read through sysfs, with the
// original's limits for the sensors it names; and the board, by part number.
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <fstream>

#include "cxi/heatsink.h"
#include "cxi/sysfs.h"

namespace fabperf::cxi {

namespace {

constexpr const char* kDegC =
    "\xC2\xB0"
    "C";                            // the originals print "°C" in UTF-8
constexpr int kNotAvailable = -41;  // QSFP_INT_NA / OSFP_INT_NA: no module

// The sensors cxi_heatsink_check knows by their hwmon label (the prefix it compares), with
// its column, limits and place in the row (powers first, then temperatures).
struct KnownSensor {
  const char* label;   // "Cassini 0 Temperature"
  const char* column;  // "ASIC_0"
  bool power;
  int fail, abort_at;  // fail at or above `fail`, stop the run at or above `abort_at` (deg C)
  int width;           // the column's width
  int order;
  bool may_be_absent;  // -41 means "no module" (QSFP/OSFP internal)
};

const KnownSensor kKnown[] = {
    {"Cassini 0 Temperature", "ASIC_0", false, 85, 90, 10, 10, false},
    {"Cassini 1 Temperature", "ASIC_1", false, 85, 90, 10, 11, false},
    {"3.3V QSFP VR Temperature", "QSFP_VR", false, 125, 130, 11, 12, false},
    {"QSFP Internal Temperature", "QSFP_INT", false, 70, 75, 12, 13, true},
    {"OSFP Internal Temperature", "OSFP_INT", false, 70, 75, 12, 14, true},
    {"0.85V S0 Power", "VDD", true, 0, 0, 6, 0, false},
    {"0.765V Power", "VDD", true, 0, 0, 6, 0, false},
    {"0.9V S0 Power", "AVDD", true, 0, 0, 7, 1, false},
    {"VDDA 0.75V Power", "AVDD", true, 0, 0, 7, 1, false},
    {"TRVDD 0.9V Power", "TRVDD", true, 0, 0, 8, 2, false},
    {"3.3V QSFP Power", "QSFP", true, 0, 0, 7, 3, false},
};

// Is this hwmon chip the device's own? Its `device` link leads to the device's sysfs
// directory, or (cxi) its name is the device's, as the original finds "cxiN" among the chips.
bool chip_of_device(const std::string& chip_dir, const std::string& chip_name,
                    const std::string& device, const std::string& dev_dir) {
  if (!dev_dir.empty() && real_path(chip_dir + "/device") == dev_dir) return true;
  if (device.rfind("cxi", 0) != 0) return false;
  size_t at = chip_name.find(device);
  if (at == std::string::npos) return false;
  size_t after = at + device.size();
  return after == chip_name.size() || !std::isdigit(static_cast<unsigned char>(chip_name[after]));
}

}  // namespace

int Sensor::read() const {
  std::ifstream in(path);
  double raw = 0;
  if (!(in >> raw)) return INT32_MIN;
  return static_cast<int>(std::lround(power ? raw / 1e6 : raw / 1e3));  // uW, m deg C
}

bool Sensor::absent(int v) const { return may_be_absent && v <= kNotAvailable; }

// Display width of UTF-8 text (the degree sign is two bytes, one column).
int display_width(const std::string& s) {
  int n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The temperature and power sensors of the device's own hwmon chips.
std::vector<Sensor> find_sensors(const std::string& device, const std::string& dev_dir,
                                 const ProgramOptions& o) {
  const std::string root = hwmon_root();
  std::vector<Sensor> out;
  for (const std::string& chip : list_dir(root)) {
    std::string base = root + "/" + chip;
    std::string chip_name = read_line(base + "/name");
    if (!chip_of_device(base, chip_name, device, dev_dir)) continue;
    for (const std::string& f : list_dir(base)) {
      auto ends = [&](const char* tail) {
        std::string t = tail;
        return f.size() > t.size() && f.compare(f.size() - t.size(), t.size(), t) == 0;
      };
      bool temp = f.rfind("temp", 0) == 0 && ends("_input");
      bool power = f.rfind("power", 0) == 0 && (ends("_input") || ends("_average"));
      if (!temp && !power) continue;
      std::string stem = f.substr(0, f.find('_'));
      std::string label = read_line(base + "/" + stem + "_label");
      Sensor s;
      s.path = base + "/" + f;
      s.power = power;
      s.name = label.empty() ? (chip_name.empty() ? chip : chip_name) + " " + stem : label;
      for (const KnownSensor& k : kKnown) {
        if (k.power == power && label.rfind(k.label, 0) == 0) {
          s.known = true;
          s.short_name = k.column;
          s.name = k.label;
          s.fail = k.fail;
          s.abort_at = k.abort_at;
          s.order = k.order;
          s.width = k.width;
          s.may_be_absent = k.may_be_absent;
          break;
        }
      }
      bool duplicate = false;  // the original takes the first sensor of each kind
      for (const Sensor& other : out) duplicate |= s.known && other.short_name == s.short_name;
      if (duplicate || s.read() == INT32_MIN) continue;
      if (!s.known) {
        // Other sensors of the NIC's chip: --max-temp (abort 5 degrees above, as the
        // originals' limits) and --max-power.
        s.short_name = s.name;
        if (!power) s.fail = o.max_temp, s.abort_at = o.max_temp + 5;
        if (power) s.fail = o.max_power;
      }
      s.column = s.short_name + (power ? "[W]" : std::string("[") + kDegC + "]");
      s.width = std::max(s.width, display_width(s.column));
      out.push_back(s);
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Sensor& a, const Sensor& b) { return a.order < b.order; });
  return out;
}

// Part number prefixes of cxi_heatsink_check (brz/saw/was/ken/sou_pn_pref).
std::string board_type(const std::string& cxi_dir) {
  static const std::pair<const char*, const char*> kBoards[] = {
      {"10232510", "Brazos"},  {"P41345-", "Brazos"},     {"10225100", "Sawtooth"},
      {"P43012-", "Sawtooth"}, {"P48765-", "Washington"}, {"P52930-", "Kennebec"},
      {"P68492-", "Souhegan"}};
  std::string part = read_line(cxi_dir + "/fru/part_number");
  for (const auto& [prefix, board] : kBoards) {
    if (part.rfind(prefix, 0) == 0) return board;
  }
  return "Unknown";
}

}  // namespace fabperf::cxi
