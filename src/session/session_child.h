// The parent side of running one measurement in a child process: spawn (fork + exec of the
// fabperf executable in its hidden child mode), a deadline it cannot outlive, and an account
// in words of how it ended. The child side is session/child_main.h.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "net/socket.h"
#include "session/child_limits.h"

namespace fabperf {

// What the child is asked to run; travels to it as JSON over its link.
struct ChildRequest {
  std::string test;                                  // test name, as on the wire
  nlohmann::json params = nlohmann::json::object();  // parameters by name, as on the wire
  double timeout_s = 5;                              // the effective -to of the run
  ChildLimits limits;                                // applied by the child before the test
  nlohmann::json peer = nlohmann::json::object();    // the control peer, as the parent saw it
  nlohmann::json to_json() const;
  static Result<ChildRequest> from_json(const nlohmann::json& j);
};

struct ChildOptions {
  // The fabperf executable. /proc/self/exe is the running program, which is fabperf in the
  // server; tests pass the binary they mean (a gtest binary is not fabperf).
  std::string executable = "/proc/self/exe";
  // When the server's patience ends (now_ns() clock): the child is SIGKILLed then, whatever it
  // is doing. INT64_MAX: no deadline.
  int64_t deadline_ns = INT64_MAX;
  // How long that deadline was when the server set it, for the words ("killed at the server's
  // deadline of 12 s"); 0: counted from the child's start, which a loaded machine delays.
  double deadline_span_s = 0;
  // When set and true, the child is asked to end (its control connection is the caller's to
  // shut down) and SIGKILLed if it has not ended within cancel_grace_s.
  const std::atomic<bool>* cancel = nullptr;
  double cancel_grace_s = 2;
  // When set, the control connection is watched (never read): once its peer hangs up, the
  // child has cancel_grace_s to end, as on a cancel. A dead client frees its slot in seconds
  // even where a provider spins on the peer's memory (security review D3).
  int hangup_fd = -1;
  // When > 0 and the child has said its client now owes heartbeats (link message
  // "watch_peer"), the child is SIGKILLed once hangup_fd's peer has sent nothing for this
  // long. The kernel's count of the connection's last received data is read (TCP_INFO), never
  // the data, so a child stuck inside a provider (the shm peer's region lock, review N3) is
  // ended at the server's -to after its client's last sign of life, not at the deadline.
  double peer_silence_s = 0;
  // False: no pidfd, the exit is noticed by polling waitid every 100 ms, as on kernels before
  // 5.3 (where pidfd_open fails and this is what happens anyway); for tests of that path.
  bool use_pidfd = true;
  // What the deadline is called in words: "killed at <deadline_name> of 12 s".
  std::string deadline_name = "the server's deadline";
};

// How the child ended, in facts and in words.
struct ChildOutcome {
  enum class End {
    kExited,            // it exited by itself; exit_code says how
    kKilledAtDeadline,  // we SIGKILLed it at the deadline
    kKilledOnCancel,    // we SIGKILLed it after it ignored a cancel
    kKilledPeerSilent,  // we SIGKILLed it: its client sent nothing for peer_silence_s
    kOutOfMemory,       // its allocation failed under its memory limit
    kCpuLimit,          // it used its CPU time limit (SIGXCPU, then SIGKILL)
    kSignaled,          // another signal ended it (a crash, the OOM killer, an operator)
  };
  End end = End::kExited;
  int exit_code = -1;  // kExited, kOutOfMemory: its exit status
  int signal = 0;      // the signal that ended it, when one did
  pid_t pid = -1;
  std::string description;  // "killed at the server's deadline of 12 s", "exit code 3", ...
  // The child's own account: its stats (ResultSink::send) and the error it reported, if any.
  std::optional<nlohmann::json> result;
  std::optional<Status> child_error;
  // What the child said of its setup: uid it runs as, limits applied or skipped and why.
  nlohmann::json setup = nlohmann::json::object();
  // The most resident memory it held (VmHWM), from its own last report and from the
  // parent's samples of /proc/PID/status every 100 ms and just before a kill; 0 if unknown.
  uint64_t peak_rss_bytes = 0;
  double wall_s = 0;
  std::vector<std::string> shm_removed;  // /dev/shm files of its pid that were removed
  bool peer_hung_up = false;             // its client hung up while it ran

  // Ok when it exited 0; otherwise the child's own error or the description, as a Status.
  Status status() const;
};

// One running child. Start() returns once it is running with its request delivered.
class SessionChild {
 public:
  // `control_fd` is inherited by the child as its only descriptor beyond stdio and its link to
  // us; the caller keeps its own copy and must not read it while the child runs.
  static Result<std::unique_ptr<SessionChild>> Start(int control_fd, const ChildRequest& request,
                                                     const ChildOptions& options);
  // Kills and reaps a child that is still running.
  ~SessionChild();
  SessionChild(const SessionChild&) = delete;
  SessionChild& operator=(const SessionChild&) = delete;

  pid_t pid() const { return pid_; }
  // Waits for the end (see ChildOptions), reaps the child, removes its shm files. Once only.
  ChildOutcome Wait();

 private:
  SessionChild(pid_t pid, Fd pidfd, Fd link, ChildOptions options, uint32_t child_uid);
  void ReadLink();  // takes what the child sent so far
  void Take(const nlohmann::json& message);
  void SampleRss();  // VmHWM of the running child
  void Kill(ChildOutcome::End why);
  void Describe(int wait_status, const rusage& usage);
  bool Ended(int timeout_ms);  // true once the child has exited (still unreaped)

  pid_t pid_;
  Fd pidfd_;  // invalid where pidfd_open is missing: then waitid polling
  Fd link_;
  ChildOptions options_;
  uint32_t child_uid_;
  ChildLimits limits_;
  int64_t started_ns_;
  bool reaped_ = false;
  std::optional<ChildOutcome::End> killed_;
  bool peer_hung_up_ = false;
  bool watching_peer_ = false;  // the child said its client owes heartbeats from now
  // The client's silence (TCP_INFO) is past peer_silence_s: looked at on each wake.
  bool peer_silent();
  std::string inbox_;   // partial line from the child
  int exec_errno_ = 0;  // why exec failed, as the child reported it
  ChildOutcome outcome_;
};

// Start + Wait.
Result<ChildOutcome> run_session_child(int control_fd, const ChildRequest& request,
                                       const ChildOptions& options);

// "Segmentation fault" for 11, with the number: "signal 11 (Segmentation fault)".
std::string signal_words(int signal);

}  // namespace fabperf
