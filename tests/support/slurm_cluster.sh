#!/bin/sh
# A private Slurm for the --matrix tests: munged, slurmctld and N emulated nodes (N slurmd on
# this host, n1..nN, all on 127.0.0.1), every file under DIR, every port picked free, so it
# collides with no other Slurm (or copy of this test) on the machine.
#   slurm_cluster.sh start DIR [NODES [OWNER]]   exit 0 ready (DIR/slurm.conf; export
#                          SLURM_CONF), 77 cannot run here (why on stderr), else 1; with OWNER
#                          (a pid), the cluster stops by itself once that process is gone
#   slurm_cluster.sh stop DIR            ends every process it started, by the pids it recorded
# How the tests use it, and what Slurm needs on Debian: docs/cluster.md, "Under Slurm".
set -u
cmd=${1:-}; D=${2:-}
[ -n "$cmd" ] && [ -n "$D" ] || { echo "usage: $0 start|stop DIR [NODES]" >&2; exit 1; }
SBIN=/usr/sbin

skip() { echo "$*" >&2; exit 77; }
# As root everything needed is there (make deps installs it): a Slurm that cannot start is a
# failure to look into, never a quiet skip.
fail() { echo "$*" >&2; exit 1; }

# A TCP port nothing listens on now (Slurm's daemons take fixed ports).
free_port() {
  for _ in $(seq 100); do
    p=$(( $(od -An -N2 -tu2 /dev/urandom) % 20000 + 20000 ))
    [ -z "$(ss -Htan "sport = :$p" 2>/dev/null)" ] && ! grep -q ":$p " "$D/ports" 2>/dev/null &&
      { echo ":$p " >> "$D/ports"; echo $p; return; }
  done
  echo 0
}

# Our slurmstepds: they hold a file under DIR open (the node's log), which tells them from any
# other Slurm's on this host.
our_stepds() {
  for p in $(pgrep -x slurmstepd 2>/dev/null); do
    if ls -l /proc/$p/fd 2>/dev/null | grep -q " $D/"; then echo $p; fi
  done
}

stop() {
  [ -f "$D/slurm.conf" ] && SLURM_CONF=$D/slurm.conf timeout 5 scancel --quiet --user=root \
    >/dev/null 2>&1
  pids=""
  for f in "$D"/run/*.pid; do
    [ -f "$f" ] && pids="$pids $(cat "$f")"
  done
  pids="$pids $(our_stepds)"
  for p in $pids; do kill -TERM "$p" 2>/dev/null; done
  i=0
  while [ $i -lt 50 ]; do
    alive=""
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    [ -z "$alive" ] && break
    sleep 0.1; i=$((i + 1))
  done
  for p in $alive $(our_stepds); do kill -KILL "$p" 2>/dev/null; done
  rm -f "$D"/run/*.pid
  exit 0
}

# Stops the cluster once process $1 has ended (a test killed before it could), checking every
# second for at most 3 hours.
watch_owner() {
  (
    i=0
    while [ $i -lt 10800 ] && kill -0 "$1" 2>/dev/null; do sleep 1; i=$((i + 1)); done
    "$0" stop "$D"
  ) </dev/null >/dev/null 2>&1 &
  echo $! > "$D/run/watch.pid"
}

start() {
  nodes=${3:-4}
  owner=${4:-}
  [ "$(id -u)" = 0 ] || skip "needs root (slurmd starts tasks as their user)"
  for b in munged slurmctld slurmd; do
    [ -x $SBIN/$b ] || fail "$b is not installed (make deps installs slurmctld, slurmd, munge)"
  done
  for b in srun sinfo scancel ss; do
    command -v $b >/dev/null || fail "$b is not installed (make deps)"
  done
  ls /usr/lib/*/slurm-wlm/mpi_pmix*.so >/dev/null 2>&1 || fail "Slurm's mpi/pmix plugin is missing (make deps installs slurmd)"
  mkdir -p "$D/munge" "$D/run" "$D/log" "$D/state" || exit 1
  chmod 711 "$D" "$D/munge"
  # munge: a key of our own, its own socket.
  head -c 128 /dev/urandom > "$D/munge/munge.key" && chmod 600 "$D/munge/munge.key" || exit 1
  $SBIN/munged --force --socket="$D/munge/sock" --key-file="$D/munge/munge.key" \
    --pid-file="$D/run/munged.pid" --log-file="$D/log/munged.log" \
    --seed-file="$D/munge/seed" </dev/null >/dev/null 2>&1 ||
    fail "munged does not start: $(tail -3 "$D/log/munged.log")"
  H=$(hostname)
  ctl=$(free_port)
  {
    echo "ClusterName=fp$$"
    echo "SlurmctldHost=$H(127.0.0.1)"
    echo "SlurmUser=root"
    echo "AuthType=auth/munge"
    echo "CredType=cred/munge"
    echo "AuthInfo=socket=$D/munge/sock"
    echo "SlurmctldPort=$ctl"
    echo "StateSaveLocation=$D/state"
    echo "SlurmdSpoolDir=$D/spool/%n"
    echo "SlurmctldPidFile=$D/run/slurmctld.pid"
    echo "SlurmdPidFile=$D/run/slurmd-%n.pid"
    echo "SlurmctldLogFile=$D/log/slurmctld.log"
    echo "SlurmdLogFile=$D/log/slurmd-%n.log"
    # The PMIx plugin makes its client directory under TmpFS: one per node, or the emulated
    # nodes' steps collide.
    echo "TmpFS=$D/tmpfs/%n"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core"
    echo "MpiDefault=none"
    echo "ReturnToService=2"
    echo "SchedulerType=sched/builtin"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobCompType=jobcomp/none"
    echo "SlurmdTimeout=60"
    echo "InactiveLimit=0"
    echo "KillWait=2"
    i=1
    while [ $i -le "$nodes" ]; do
      echo "NodeName=n$i NodeHostname=$H NodeAddr=127.0.0.1 Port=$(free_port)" \
        "CPUs=$(nproc) RealMemory=500 State=UNKNOWN"
      mkdir -p "$D/spool/n$i" "$D/tmpfs/n$i"
      i=$((i + 1))
    done
    echo "PartitionName=fp Nodes=n[1-$nodes] Default=YES MaxTime=10 State=UP OverSubscribe=FORCE"
  } > "$D/slurm.conf"
  export SLURM_CONF="$D/slurm.conf"
  $SBIN/slurmctld -f "$D/slurm.conf" </dev/null >/dev/null 2>&1 ||
    fail "slurmctld does not start: $(tail -3 "$D/log/slurmctld.log")"
  i=1
  while [ $i -le "$nodes" ]; do
    $SBIN/slurmd -f "$D/slurm.conf" -N n$i </dev/null >/dev/null 2>&1 ||
      fail "slurmd does not start: $(tail -3 "$D/log/slurmd-n$i.log" 2>/dev/null)"
    i=$((i + 1))
  done
  # Ready when every node is idle (bounded: 30 s).
  i=0
  while [ $i -lt 150 ]; do
    idle=$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
    if [ "$idle" -ge "$nodes" ]; then
      [ -n "$owner" ] && watch_owner "$owner"
      exit 0
    fi
    sleep 0.2; i=$((i + 1))
  done
  echo "Slurm did not come up: sinfo says: $(sinfo -N 2>&1 | tr '\n' ' ')" >&2
  tail -5 "$D/log/slurmctld.log" >&2
  exit 1
}

case "$cmd" in
  start) start "$@" ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop DIR [NODES]" >&2; exit 1 ;;
esac
