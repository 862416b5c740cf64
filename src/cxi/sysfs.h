// Reading sysfs for fab_stat and fab_heatsink_check, under a root the tests can move:
// $FABPERF_SYSFS_ROOT (default /sys), and $FABPERF_HWMON_ROOT for the hwmon class alone
// (default <sysfs root>/class/hwmon).
#pragma once

#include <string>
#include <vector>

namespace fabperf::cxi {

std::string sysfs_root();
std::string hwmon_root();

// The file's first line ("" when it cannot be read).
std::string read_line(const std::string& path);
// The last component of a symbolic link's target ("" when `path` is no link).
std::string link_name(const std::string& path);
// The canonical path ("" when it does not exist).
std::string real_path(const std::string& path);
// The entries of a directory, sorted, without "." and "..".
std::vector<std::string> list_dir(const std::string& dir);

// The sysfs device directory (canonical) of a NIC, found by its name as a cxi device
// (class/cxi/NAME/device), a network interface (class/net/NAME/device), or its PCI address
// (bus/pci/devices/PCI). "" when none is known (lo, shm).
std::string device_dir(const std::string& name, const std::string& pci);

}  // namespace fabperf::cxi
