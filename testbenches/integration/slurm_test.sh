#!/usr/bin/env bash
# Runs a small sweep through a real Slurm: starts munge and a one-node Slurm cluster on
# localhost (state, spool and logs in a temporary folder, non-default ports), submits the
# sweep as a job array with `flynn sweep --slurm`, waits for it, collects the table and
# checks it; then shuts the cluster down.
#   usage: slurm_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
FLYNN="$1"
SRC="$2"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
for tool in munged slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is missing (Debian packages slurm-wlm and munge)" >&2; exit 1; }
done
[[ "$(id -u)" -eq 0 ]] || { echo "FAIL: starting a Slurm cluster on localhost needs root" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-slurm.XXXXXX")"
chmod 755 "$WORK"
CONF="$WORK/slurm.conf"
MUNGE_PID=""
cleanup() {
  SLURM_CONF="$CONF" scontrol shutdown >/dev/null 2>&1
  sleep 1
  pkill -f "slurmctld -f $CONF" 2>/dev/null
  pkill -f "slurmd -f $CONF" 2>/dev/null
  [[ -n "$MUNGE_PID" ]] && kill "$MUNGE_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  for f in "$WORK"/log/*.log; do [[ -f "$f" ]] && { echo "--- $f" >&2; tail -20 "$f" >&2; }; done
  exit 1
}

# munge: the authentication Slurm uses; its own socket and pid file in the temporary folder.
mkdir -p "$WORK/munge" "$WORK/log" "$WORK/state" "$WORK/spool" "$WORK/run"
[[ -f /etc/munge/munge.key ]] || { mungekey -c -k /etc/munge/munge.key 2>/dev/null || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null; }
chown munge:munge /etc/munge/munge.key 2>/dev/null; chmod 400 /etc/munge/munge.key
chown munge:munge "$WORK/munge"
MUNGE_SOCKET="$WORK/munge/munge.socket"
runuser -u munge -- munged --force --socket="$MUNGE_SOCKET" --pid-file="$WORK/munge/munged.pid" \
  --log-file="$WORK/munge/munged.log" --seed-file="$WORK/munge/seed" || fail "munged did not start"
MUNGE_PID="$(cat "$WORK/munge/munged.pid")"

HOST="$(hostname)"
MEM="$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)"
cat > "$CONF" <<CONF
ClusterName=flynntest
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/run/slurmctld.pid
SlurmdPidFile=$WORK/run/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
InactiveLimit=0
KillWait=5
NodeName=$HOST CPUs=$(nproc) RealMemory=$MEM State=UNKNOWN
PartitionName=flynn Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$CONF"
slurmctld -f "$CONF" || fail "slurmctld did not start"
slurmd -f "$CONF" || fail "slurmd did not start"
# The waits below end on progress (the node up, the job's tasks finishing) or on a daemon
# that died; their limits only guard against a hang and scale with the machine: 300
# reference runs (at least 180 s) without progress.
. "$SRC/testbenches/machine_scale.sh"
LIMIT_S=$(scaled_limit "$FLYNN" "$SRC" 180 300)
daemons_up() { pgrep -f "slurmctld -f $CONF" >/dev/null && pgrep -f "slurmd -f $CONF" >/dev/null; }
t0=$SECONDS
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
  daemons_up || fail "a Slurm daemon exited before the node came up"
  sinfo -h -o %t 2>/dev/null | grep -qE 'down|drain|fail' && fail "the node came up $(sinfo -h -o %t)"
  (( SECONDS - t0 < LIMIT_S )) || fail "the node did not come up idle in $LIMIT_S s: $(sinfo 2>&1)"
  sleep 1
done
echo "ok - a one-node Slurm cluster is up ($(sinfo -h -o '%P %t %c'))"

cd "$WORK" || exit 1
SWEEP="$SRC/sweeps/vector_banks.json"
"$FLYNN" sweep "$SWEEP" --outdir sw --slurm --sbatch "--partition=flynn" > submit.out 2>&1 || { cat submit.out >&2; fail "sweep --slurm"; }
cat submit.out
JOB="$(cat sw/slurm/job_id)"
[[ -n "$JOB" ]] || fail "no job id"
# The job name of job.sh's quoted #SBATCH line, as sbatch read it (quotes removed); asked
# at once, while the controller surely holds the job's record.
JOB_NAME="$(scontrol show job "$JOB" 2>&1 | grep -o 'JobName=[^ ]*' | head -1)"
# Progress: the job's tasks and their states in the queue, and the points finished.
progress() { squeue -h -r -j "$JOB" -o '%i %t' 2>/dev/null; ls sw/points/*/stats.json 2>/dev/null | wc -l; }
last="$(progress)" t0=$SECONDS
while [[ -n "$(squeue -h -j "$JOB" 2>/dev/null)" ]]; do
  daemons_up || fail "a Slurm daemon exited while job $JOB was queued or running"
  now="$(progress)"
  [[ "$now" != "$last" ]] && { last="$now"; t0=$SECONDS; }
  (( SECONDS - t0 < LIMIT_S )) || fail "job $JOB made no progress in $LIMIT_S s: $(squeue -h -r -j "$JOB" 2>&1)"
  sleep 1
done
echo "ok - job array $JOB ran"
[[ "$JOB_NAME" == "JobName=flynn-vector_banks" ]] || fail "the job is not named flynn-vector_banks: '$JOB_NAME'"
[[ -z "$(ls sw/slurm/task-*.out 2>/dev/null | head -1)" || -f sw/slurm/task-0.out ]] || fail "the tasks' output is not in sw/slurm"
echo "ok - the job is named flynn-vector_banks, its tasks' output in the sweep's slurm folder"

"$FLYNN" sweep "$SWEEP" --outdir sw --collect > collect.out 2>&1 || { cat collect.out sw/points/*.log >&2; fail "sweep --collect"; }
cat collect.out
grep -q "7 points, 7 ok, 0 failed, 0 not run" collect.out || fail "not every point finished through Slurm"
grep -q '^0,points/0000_banks-1,1,ok,569,' sw/results.csv || fail "results.csv: 1 bank should take 569 cycles"
echo "ok - flynn sweep --collect gathered the 7 points run by Slurm"

"$FLYNN" sweep "$SWEEP" --outdir sw --slurm > again.out 2>&1 || fail "second sweep --slurm"
grep -q "nothing to submit" again.out || fail "a finished sweep was submitted again"
echo "ok - a finished sweep is not submitted again"
