// Resource limits and the privilege drop of a session child.
#include "session/child_limits.h"

#include <grp.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <fstream>
#include <optional>
#include <vector>

#include "net/peer_process.h"
#include "net/socket.h"
#include "security/limits.h"

namespace fabperf {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

uint64_t u64_field(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

// Sets soft and hard. Root may raise a hard limit; anyone else keeps a lower one already in
// force rather than failing on it.
Status set_limit(int resource, const char* name, rlim_t soft, rlim_t hard) {
  rlimit lim{soft, hard};
  if (setrlimit(resource, &lim) == 0) return Status::success();
  rlimit old{};
  if (errno == EPERM && getrlimit(resource, &old) == 0 && hard > old.rlim_max) {
    lim.rlim_max = old.rlim_max;
    lim.rlim_cur = soft > old.rlim_max ? old.rlim_max : soft;
    if (setrlimit(resource, &lim) == 0) return Status::success();
  }
  return Status::failed(errno_text(name));
}

// The effective capabilities line of /proc/self/status: all zero once the drop worked.
bool has_capabilities() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) == 0 || line.rfind("CapPrm:", 0) == 0) {
      if (line.find_first_not_of("0\t ", line.find(':') + 1) != std::string::npos) return true;
    }
  }
  return false;
}

}  // namespace

nlohmann::json ChildLimits::to_json() const {
  return {{"memory_bytes", memory_bytes},
          {"open_files", open_files},
          {"cpu_seconds", cpu_seconds},
          {"run_as", run_as}};
}

Result<ChildLimits> ChildLimits::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Status::failed("child request: limits are not an object");
  ChildLimits limits;
  limits.memory_bytes = u64_field(j, "memory_bytes");
  limits.open_files = u64_field(j, "open_files");
  limits.cpu_seconds = u64_field(j, "cpu_seconds");
  if (auto it = j.find("run_as"); it != j.end() && it->is_string()) limits.run_as = *it;
  return limits;
}

ChildLimits child_limits_for(uint64_t admitted_memory, double run_bound_s,
                             const std::string& run_as) {
  ChildLimits limits;
  limits.memory_bytes = admitted_memory + kChildBaseMemory;
  limits.open_files = kChildOpenFiles;
  // The test's thread and a provider's progress thread may each keep a CPU busy for the whole
  // run; the wall-clock deadline ends the child first, this is the backstop.
  limits.cpu_seconds = static_cast<uint64_t>(std::ceil(2 * run_bound_s)) + 10;
  limits.run_as = run_as;
  return limits;
}

bool memory_limit_supported() { return !kAsan; }

Result<nlohmann::json> apply_child_limits(const ChildLimits& limits) {
  nlohmann::json done = nlohmann::json::object();
  if (limits.memory_bytes == 0) {
    done["memory"] = "none";
  } else if (!memory_limit_supported()) {
    done["memory"] = kMemoryLimitSkipped;
  } else {
    // RLIMIT_DATA, not RLIMIT_AS: it counts what the child writes to (heap, buffers, provider
    // queues) and not address space merely reserved (glibc's 64 MiB per-thread arenas, thread
    // stacks, libraries), which RLIMIT_AS would charge many times over.
    FP_RETURN_IF_ERROR(
        set_limit(RLIMIT_DATA, "setrlimit(RLIMIT_DATA)", limits.memory_bytes, limits.memory_bytes));
    done["memory"] = "RLIMIT_DATA " + size_text(limits.memory_bytes);
  }
  if (limits.memory_bytes != 0) {
    // Hardware providers pin the buffers they register. Set while still root, so that a child
    // dropped to nobody may lock what it was admitted (nobody's default is 8 MiB), and no more.
    FP_RETURN_IF_ERROR(set_limit(RLIMIT_MEMLOCK, "setrlimit(RLIMIT_MEMLOCK)", limits.memory_bytes,
                                 limits.memory_bytes));
    rlimit locked{};
    getrlimit(RLIMIT_MEMLOCK, &locked);
    done["locked_memory"] = size_text(locked.rlim_cur);
  }
  if (limits.open_files != 0) {
    FP_RETURN_IF_ERROR(
        set_limit(RLIMIT_NOFILE, "setrlimit(RLIMIT_NOFILE)", limits.open_files, limits.open_files));
    done["open_files"] = limits.open_files;
  }
  if (limits.cpu_seconds != 0) {
    FP_RETURN_IF_ERROR(
        set_limit(RLIMIT_CPU, "setrlimit(RLIMIT_CPU)", limits.cpu_seconds, limits.cpu_seconds + 1));
    done["cpu_seconds"] = limits.cpu_seconds;
  }
  // A core dump of a provider's memory is neither wanted nor small.
  FP_RETURN_IF_ERROR(set_limit(RLIMIT_CORE, "setrlimit(RLIMIT_CORE)", 0, 0));
  return done;
}

Result<UserIds> lookup_user(const std::string& user) {
  if (user.empty()) return Status::usage("--run_as: empty user name");
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  int rc = getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found);
  if (rc != 0) return Status::failed(errno_text(("looking up user " + user).c_str(), rc));
  if (found == nullptr) {
    return Status::usage("--run_as " + user + ": no such user on this host");
  }
  return UserIds{found->pw_name, found->pw_uid, found->pw_gid};
}

Result<uid_t> drop_privileges(const std::string& user) {
  // No exec after this point may gain privileges (setuid binaries, file capabilities).
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return Status::failed(errno_text("prctl(PR_SET_NO_NEW_PRIVS)"));
  }
  if (user.empty()) return geteuid();
  auto ids = lookup_user(user);
  if (!ids.ok()) return ids.status();
  if (geteuid() != 0) {
    if (ids->uid == geteuid()) return ids->uid;
    return Status::failed("cannot run as " + user + ": only a server started as root can");
  }
  if (ids->uid == 0) return uid_t{0};  // the operator chose root (--run_as root)
  gid_t gid = ids->gid;
  if (setgroups(1, &gid) != 0) return Status::failed(errno_text("setgroups"));
  if (setgid(gid) != 0) return Status::failed(errno_text("setgid"));
  if (setuid(ids->uid) != 0) return Status::failed(errno_text("setuid"));
  // Verify rather than trust: root must be out of reach for good.
  if (setuid(0) == 0 || seteuid(0) == 0 || setgid(0) == 0 || setegid(0) == 0) {
    return Status::failed("dropping privileges to " + user + " failed: root could be regained");
  }
  if (getuid() != ids->uid || geteuid() != ids->uid || getgid() != gid || getegid() != gid) {
    return Status::failed("dropping privileges to " + user + " failed: ids did not change");
  }
  if (has_capabilities()) {
    return Status::failed("dropping privileges to " + user + " failed: capabilities remain");
  }
  // The uid change made us undumpable, which denies our peers of the same user the cross
  // memory attach (process_vm_writev) that the shm provider moves large messages with.
  // Undumpable guards a process that was privileged; this one never will be again.
  if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) return Status::failed(errno_text("PR_SET_DUMPABLE"));
  return ids->uid;
}

std::string default_run_as() { return geteuid() == 0 ? "nobody" : ""; }

Status check_run_as(const std::string& user) {
  if (user.empty()) return Status::success();
  auto ids = lookup_user(user);
  if (!ids.ok()) return ids.status();
  if (geteuid() != 0 && ids->uid != geteuid()) {
    return Status::usage("--run_as " + user +
                         ": only a server started as root can run sessions as another user");
  }
  return Status::success();
}

Result<std::string> client_user(const std::vector<pid_t>& pids) {
  if (pids.empty()) return Status::failed("the client is not a process on this host");
  std::optional<uid_t> uid;
  for (pid_t pid : pids) {
    auto found = process_uid(pid);
    if (!found.ok()) return found.status();
    if (uid.has_value() && *uid != *found) {
      return Status::failed("the client's processes run as several users");
    }
    uid = *found;
  }
  passwd pw{};
  passwd* named = nullptr;
  std::vector<char> buf(16384);
  int rc = getpwuid_r(*uid, &pw, buf.data(), buf.size(), &named);
  if (rc != 0 || named == nullptr) {
    return Status::failed("uid " + std::to_string(*uid) + " has no user name on this host");
  }
  return std::string(named->pw_name);
}

Result<uid_t> child_uid_for(const std::string& run_as) {
  if (run_as.empty() || geteuid() != 0) return geteuid();
  auto ids = lookup_user(run_as);
  if (!ids.ok()) return ids.status();
  return ids->uid;
}

}  // namespace fabperf
