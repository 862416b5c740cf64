// The removal of a dead process's shm regions (net/shm_cleanup.h), over a directory and a
// /proc of the test's own: which names and owners are removed, and that a live process's are not.
#include "net/shm_cleanup.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

namespace fabperf {
namespace {

namespace fs = std::filesystem;

class ShmCleanupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("fabperf-shm-cleanup-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "shm");
    fs::create_directories(root_ / "proc");
    uid_ = geteuid();
  }
  void TearDown() override { fs::remove_all(root_); }

  void touch(const std::string& name) { std::ofstream(shm() + "/" + name) << "x"; }
  // A /proc/PID/stat of the test's /proc saying the process is in `state`.
  void set_state(pid_t pid, char state) {
    fs::create_directories(root_ / "proc" / std::to_string(pid));
    std::ofstream(root_ / "proc" / std::to_string(pid) / "stat")
        << pid << " (a (b) c) " << state << " 1 1 1\n";
  }
  std::string shm() const { return (root_ / "shm").string(); }
  std::string proc() const { return (root_ / "proc").string(); }
  bool exists(const std::string& name) const { return fs::exists(root_ / "shm" / name); }

  fs::path root_;
  uid_t uid_ = 0;
};

std::string region(pid_t pid, uid_t uid, int index) {
  return std::to_string(pid) + ":" + std::to_string(uid) + ":" + std::to_string(index);
}

TEST_F(ShmCleanupTest, RemovesOnlyThePidsRegionsThatTheNamedOwnerOwns) {
  const uid_t other = uid_ + 1;
  for (const std::string& name :
       {region(4321, uid_, 0), region(4321, uid_, 7), region(43210, uid_, 0),
        region(4321, other, 0), std::to_string(4321) + ":" + std::to_string(uid_) + ":0x"}) {
    touch(name);
  }
  fs::create_symlink(root_ / "shm" / region(43210, uid_, 0), root_ / "shm" / region(4321, uid_, 3));

  std::vector<std::string> removed = remove_shm_files_of(4321, uid_, shm());
  std::sort(removed.begin(), removed.end());
  EXPECT_EQ(removed, (std::vector<std::string>{region(4321, uid_, 0), region(4321, uid_, 7)}));
  EXPECT_TRUE(exists(region(43210, uid_, 0)));                         // another pid
  EXPECT_TRUE(exists(region(4321, other, 0)));                         // named for another uid
  EXPECT_TRUE(fs::is_symlink(root_ / "shm" / region(4321, uid_, 3)));  // never followed
}

TEST_F(ShmCleanupTest, ADeadProcessLosesItsRegionsWhoeverTheNameSaysAndTheOwnerConfirms) {
  touch(region(4321, uid_, 0));
  touch(region(4321, uid_ + 1, 0));  // the name says another uid, the file is ours: kept
  touch(region(4322, uid_, 0));
  set_state(4321, 'Z');
  EXPECT_EQ(remove_shm_files_of_dead(4321, 5, shm(), proc()),
            std::vector<std::string>{region(4321, uid_, 0)});
  EXPECT_TRUE(exists(region(4321, uid_ + 1, 0)));
  EXPECT_TRUE(exists(region(4322, uid_, 0)));
  // Gone from /proc altogether: the same.
  touch(region(4325, uid_, 1));
  EXPECT_EQ(remove_shm_files_of_dead(4325, 5, shm(), proc()),
            std::vector<std::string>{region(4325, uid_, 1)});
}

TEST_F(ShmCleanupTest, ALiveProcessKeepsItsRegions) {
  touch(region(4321, uid_, 0));
  set_state(4321, 'S');
  EXPECT_TRUE(remove_shm_files_of_dead(4321, 0.05, shm(), proc()).empty());
  EXPECT_TRUE(exists(region(4321, uid_, 0)));
}

TEST_F(ShmCleanupTest, AMissingDirectoryRemovesNothing) {
  EXPECT_TRUE(remove_shm_files_of(4321, uid_, shm() + "/none").empty());
  EXPECT_TRUE(remove_shm_files_of_dead(4321, 1, shm() + "/none", proc()).empty());
}

}  // namespace
}  // namespace fabperf
