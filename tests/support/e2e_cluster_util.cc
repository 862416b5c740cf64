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
  # This rank shares one CPU with busy loops that take about 8 in 9 of it: alive and
  # answering, every link slower. What the loops get depends on the niceness this machine
  # lets us set, so it is measured, not assumed: raise the loops 10 levels above the rank
  # where allowed (root with CAP_SYS_NICE; a container's root often lacks it), else lower
  # the rank as far as it goes (at most to 19: a suite already at nice 19 gets no gap), and
  # make up any gap short of 10 levels with more loops (each level is 1.25x the weight).
  cur=$(nice)
  loop_nice=0; rank_nice=0
  if [ "$(nice -n -10 nice 2>/dev/null)" -le $((cur - 10)) ]; then
    loop_nice=-10; gap=10
  else
    rank_nice=10; gap=$(( $(nice -n 10 nice) - cur ))
  fi
  case $gap in
    10) loops=1 ;; 8|9) loops=2 ;; 5|6|7) loops=3 ;; 4) loops=4 ;; 3) loops=5 ;;
    2) loops=6 ;; 1) loops=7 ;; *) loops=8 ;;
  esac
  i=0
  while [ $i -lt $loops ]; do
    taskset -c 0 nice -n $loop_nice sh -c 'while :; do :; done' &
    busy="$busy $!"
    i=$((i + 1))
  done
  set -- taskset -c 0 nice -n $rank_nice "$@"
  echo "rank $R shares CPU 0 with $loops busy loop(s), $gap nice levels above it" >&2
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
