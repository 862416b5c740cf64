// The --matrix test job: a wrapper script per rank, mpirun (optionally in a namespace), cleanup.
#include "e2e_cluster_util.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "e2e_util.h"

namespace fabperf::testing {

namespace {

constexpr const char* kWrapper = R"SH(#!/bin/sh
# One rank of a --matrix test job: records its pid and exit status; can misplace itself.
# Arguments: DIR BIND_BASE BAD_BIND_RANK ABSENT_RANK FABPERF ARGS...
D=$1; BASE=$2; BAD=$3; ABSENT=$4; shift 4
R=${OMPI_COMM_WORLD_RANK:-$PMIX_RANK}
if [ "$BASE" -gt 0 ]; then ADDR="127.0.0.$((BASE + R))"; else ADDR=127.0.0.1; fi
set -- "$@" --bind "$ADDR"
if [ "$R" = "$BAD" ]; then set -- "$@" --bind 192.0.2.1; fi
if [ "$R" = "$ABSENT" ]; then echo $$ > "$D/pid.$R"; exec sleep 300; fi
if [ "$R" = "${FP_LATE_RANK:-x}" ]; then sleep "${FP_LATE_S:-2}"; fi
if [ "$R" = "${FP_PIN_RANK:-x}" ]; then set -- taskset -c 0 "$@"; fi  # this rank on one CPU
busy=""
if [ "$R" = "${FP_BUSY_RANK:-x}" ]; then
  # This rank shares one CPU with a busy loop that takes the larger share: alive and
  # answering, every link slower. The loop runs 10 nice levels above the rank (about 9 in 10 of
  # the CPU) whatever the niceness the suite itself runs at: as root the loop is raised, since
  # a rank lowered by 10 from an already niced suite stops at 19, level with the loop.
  if [ "$(id -u)" = 0 ]; then
    taskset -c 0 nice -n -10 sh -c 'while :; do :; done' &
    set -- taskset -c 0 "$@"
  else
    taskset -c 0 sh -c 'while :; do :; done' &
    set -- taskset -c 0 nice -n 10 "$@"
  fi
  busy=$!
fi
"$@" &
child=$!
echo $child > "$D/pid.$R"
trap 'kill -TERM $child 2>/dev/null' TERM INT
wait $child
echo $? > "$D/exit.$R"
[ -n "$busy" ] && kill -KILL $busy
exit 0
)SH";

int read_number(const std::string& path) {
  std::ifstream in(path);
  int v = -1;
  if (!(in >> v)) return -1;
  return v;
}

}  // namespace

std::string mpirun_path() {
  for (const char* p : {"/usr/bin/mpirun", "/usr/local/bin/mpirun"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

std::string ip_command() {
  for (const char* p : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

MatrixJob::MatrixJob(const JobShape& shape, const std::vector<std::string>& fabperf_args)
    : shape_(shape) {
  write_file(dir_.file("rank.sh"), kWrapper, 0700);
  // Root may run mpirun only when it says so (Open MPI refuses otherwise).
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  std::vector<std::string> args;
  std::string program = mpirun_path();
  if (!shape.netns.empty()) {
    program = ip_command();
    args = {"netns", "exec", shape.netns, mpirun_path()};
  }
  args.insert(args.end(), {"--oversubscribe", "-np", std::to_string(shape.ranks)});
  args.insert(args.end(), shape.mpirun_args.begin(), shape.mpirun_args.end());
  args.insert(args.end(), {"/bin/sh", dir_.file("rank.sh"), dir_.path(),
                           std::to_string(shape.bind_base), std::to_string(shape.bad_bind_rank),
                           std::to_string(shape.absent_rank), fabperf_bin(), "--matrix"});
  args.insert(args.end(), fabperf_args.begin(), fabperf_args.end());
  if (shape.reports)
    args.insert(args.end(), {"--json", dir_.file("m.json"), "--csv", dir_.file("m.csv")});
  proc_ = std::make_unique<Proc>(args, program);
}

MatrixJob::~MatrixJob() {
  if (proc_->wait(0) < 0) {
    proc_->signal(SIGKILL);
    proc_->wait(5);
  }
  for (int r = 0; r < shape_.ranks; ++r) {
    int p = pid(r);
    if (p > 0) kill(p, SIGKILL);  // a rank mpirun left behind; a stale pid is long gone
  }
}

int MatrixJob::pid(int rank) const { return read_number(dir_.file("pid." + std::to_string(rank))); }

int MatrixJob::exit_code(int rank) const {
  return read_number(dir_.file("exit." + std::to_string(rank)));
}

nlohmann::json MatrixJob::json() const {
  return nlohmann::json::parse(read_file(dir_.file("m.json")), nullptr, false);
}

bool MatrixJob::wait_for_err(const std::string& text, double timeout_s) const {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < end) {
    if (contains(proc_->err(), text)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace fabperf::testing
