// fab_heatsink_check's parts: the NIC's sensors (heatsink_sensors.cc), the workers' CPUs
// (heatsink_cpus.cc) and the check itself (heatsink.cc).
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "cxi/cxi_plan.h"
#include "engine/registry.h"
#include "options/run_options.h"

namespace fabperf::cxi {

// One temperature or power sensor of the NIC's own hwmon chip, with the original's limits
// where it names the sensor.
struct Sensor {
  std::string name;    // the hwmon label: "Cassini 0 Temperature", or "<chip> temp2"
  std::string column;  // the header cell: "ASIC_0[°C]"
  std::string path;    // .../temp1_input
  bool power = false;
  bool known = false;
  std::string short_name;         // "ASIC_0" (known sensors)
  double fail = 0, abort_at = 0;  // 0: no limit
  bool may_be_absent = false;
  int width = 0;  // display width of the column
  int order = 100;
  int max_seen = INT32_MIN;
  bool absent_always = true;

  // Degrees C or watts, rounded; INT32_MIN when unreadable.
  int read() const;
  // -41 reads as "no module" on the QSFP/OSFP internal sensors.
  bool absent(int v) const;
};

// The temperature and power sensors of the device's own hwmon chips: one whose `device`
// link leads to `dev_dir`, or, for a cxi device, the chip named after it.
std::vector<Sensor> find_sensors(const std::string& device, const std::string& dev_dir,
                                 const ProgramOptions& o);

// Display width of UTF-8 text (the degree sign is two bytes, one column).
int display_width(const std::string& s);

// -c: "0-3,8" (the original's "Invalid CPU list" for anything else).
Result<std::vector<int>> parse_cpu_list(const std::string& text);
// The other way: sorted, runs joined ("0-3,8"), as the original's Processor List.
std::string cpu_list_text(std::vector<int> cpus);

// The CPUs the original pins its writers to without -c (get_proc_affinities): the cores (one
// thread of each) of the NUMA nodes on the socket of the device's node (`dev_dir`/numa_node),
// taken a node at a time in turn, offset among the cxi devices on those nodes so that checks
// of several NICs at once do not share cores; at most `procs`. Empty when sysfs does not say
// (no NUMA node): the workers are then not pinned.
std::vector<int> numa_cpus(const std::string& dev_dir, const std::string& device, uint64_t procs);

// The board a cxi NIC sits on, by its part number's prefix (fru/part_number under `cxi_dir`):
// Brazos, Sawtooth, Washington, Kennebec, Souhegan, or Unknown.
std::string board_type(const std::string& cxi_dir);

struct SharedCounts;

// The worker processes (heatsink_workers.cc): each a server and a client of it in one process,
// running one write run of `plan` for the whole check, pinned to its CPU where one is given,
// its completed writes counted in memory shared with the parent.
class HeatsinkWorkers {
 public:
  HeatsinkWorkers() = default;
  HeatsinkWorkers(const HeatsinkWorkers&) = delete;
  HeatsinkWorkers& operator=(const HeatsinkWorkers&) = delete;
  ~HeatsinkWorkers();
  // Forks `procs` workers (worker i on cpus[i] when given), each counting its completed writes
  // every `tick` seconds; false (said on stderr) when the memory or a fork fails.
  bool start(const ToolPlan& plan, const TestRegistry& tests, uint64_t procs,
             const std::vector<int>& cpus, double tick);
  uint64_t total_ops() const;
  bool all_writing() const;
  // A worker that ended before it was told to has failed: true once one has.
  bool one_ended();
  // Tells every worker to stop and collects them (a stuck one is killed after a minute);
  // false when one failed.
  bool stop();

 private:
  void* mem_ = nullptr;
  size_t size_ = 0;
  uint64_t procs_ = 0;
  SharedCounts* shared_ = nullptr;
  std::vector<int> pids_;
  std::vector<bool> reaped_;
};

}  // namespace fabperf::cxi
