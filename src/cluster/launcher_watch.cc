// The parent-death signal, armed with the parent it was armed for checked afterwards.
#include "cluster/launcher_watch.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace fabperf::cluster {

Status end_with_launcher() {
  const pid_t parent = getppid();
  // SIGKILL: the only signal a stopped process does not keep pending.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
    return Status::failed(std::string("PR_SET_PDEATHSIG: ") + std::strerror(errno));
  }
  // A parent that ended before the signal was armed has handed this process on already.
  if (getppid() != parent) return Status::failed("the launcher that started this rank is gone");
  return Status::success();
}

}  // namespace fabperf::cluster
