#!/usr/bin/env bash
# End-to-end test of `experiment --emit slurm` on a real single-node Slurm.
#
# Installs Debian's slurm-wlm and munge when missing, starts munged, slurmctld and
# slurmd on this host with a throw-away configuration under a temporary directory,
# submits the array script that `sdspcaan experiment --emit slurm` prints for a
# small run (3 generated data sets x 2 repeats x 4 methods, quick grid, 6 shards),
# waits for it, merges the shards with `sdspcaan report`, and checks that the
# records (timings aside) and the table are those of a single-process run of the
# same command. Then it runs the array again, kills one task mid-run (SIGKILL, as
# a node failure would), resubmits that task alone, and checks the merged result
# again. Every daemon it started is stopped by PID on exit.
#
# Needs root and Debian's packages. Where it cannot run it says so and fails,
# unless SDSPCAAN_SKIP_SLURM=1 is set. Not part of vitest: .ci/run calls it after
# `npm test`. Usage: bash test/e2e/slurm.sh
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="$REPO/packages/sdspcaan-cli/dist/cli/bin.js"
NODE="$(command -v node)"
WAIT_SECONDS="${SDSPCAAN_SLURM_TIMEOUT:-600}"

say() { printf '[slurm-e2e] %s\n' "$*" >&2; }
cannot_run() {
  say "=================================================================="
  say "CANNOT RUN THE SLURM END-TO-END TEST: $*"
  say "=================================================================="
  if [ "${SDSPCAAN_SKIP_SLURM:-}" = "1" ]; then
    say "SDSPCAAN_SKIP_SLURM=1: skipped on request."
    exit 0
  fi
  say "Set SDSPCAAN_SKIP_SLURM=1 to skip it explicitly."
  exit 1
}

if [ "${SDSPCAAN_SKIP_SLURM:-}" = "1" ]; then
  say "SDSPCAAN_SKIP_SLURM=1: skipped on request."
  exit 0
fi
[ "$(id -u)" = "0" ] || cannot_run "it needs root (to install packages and run slurmd)."

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
  || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  command -v apt-get >/dev/null || cannot_run "slurm-wlm and munge are missing and there is no apt-get."
  say "installing slurm-wlm and munge"
  apt-get update -qq >/dev/null || cannot_run "apt-get update failed (no package access?)."
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null \
    || cannot_run "apt-get install slurm-wlm munge failed."
fi

if [ ! -f "$BIN" ]; then
  say "building (dist/ is missing)"
  (cd "$REPO" && npm run build >/dev/null)
fi

T="$(mktemp -d /tmp/sdspcaan-slurm-e2e.XXXXXX)"
chmod 700 "$T"
PIDS=()
cleanup() {
  local code=$?
  if command -v scancel >/dev/null && [ -n "${SLURM_CONF:-}" ]; then
    scancel --quiet --user=root >/dev/null 2>&1 || true
  fi
  # Stop what this script started, newest first, by PID.
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    kill "${PIDS[i]}" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ "$code" != 0 ]; then
    say "FAILED (exit $code). Logs:"
    for f in "$T"/*.log "$T"/run/*.log; do
      [ -f "$f" ] && { say "--- $f"; tail -n 30 "$f" >&2; }
    done
  fi
  rm -rf "$T"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

HOST="$(hostname -s)"
say "temporary directory $T, node $HOST"

# --- munge: our own key, socket and state, so nothing of the system's is touched.
mkdir -p "$T/munge"
chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge/munge.key"
SOCKET="$T/munge/munge.socket"
munged -F --force --key-file="$T/munge/munge.key" --socket="$SOCKET" \
  --pid-file="$T/munge/munged.pid" --log-file="$T/munge.log" \
  --seed-file="$T/munge/munged.seed" >/dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 1 50); do [ -S "$SOCKET" ] && break; sleep 0.1; done
[ -S "$SOCKET" ] || { say "munged did not start"; exit 1; }

# --- Slurm: one node (this host), no accounting, no cgroups.
free_port() {
  local p
  for p in $(seq "$1" $(($1 + 200))); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  echo "$1"
}
CTLD_PORT="$(free_port 16817)"
SLURMD_PORT="$(free_port $((CTLD_PORT + 1)))"
mkdir -p "$T/state" "$T/spool" "$T/run"
NODE_LINE="$(slurmd -C | head -n 1)"
cat >"$T/slurm.conf" <<EOF
ClusterName=sdspcaan-e2e
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCKET
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MinJobAge=3600
KillWait=5
$NODE_LINE State=UNKNOWN
PartitionName=e2e Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$T/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$T/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -f "$SLURM_CONF" >"$T/slurmd.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then break; fi
  sleep 0.3
done
sinfo -h -o '%T' | grep -qE '^(idle|mixed|allocated)' || { say "the node did not come up: $(sinfo 2>&1)"; exit 1; }
say "slurm is up: $(sinfo -h -o '%P %D %T %c')"

# --- The run: small generated data sets (CSV, label in the last column).
cd "$T/run"
"$NODE" --input-type=module -e "
import { writeFileSync } from 'node:fs';
const { makeSyntheticDataset } = await import('$REPO/packages/sdspcaan-cli/dist/index.js');
const specs = [['alpha', 150, 40, 4, 1], ['beta', 120, 60, 3, 2], ['gamma', 200, 30, 5, 3]];
for (const [name, samples, features, classes, seed] of specs) {
  const ds = makeSyntheticDataset({ samples, features, classes, seed });
  const rows = [];
  for (let i = 0; i < ds.X.rows; i++) rows.push([...ds.X.row(i), ds.y[i]].join(','));
  writeFileSync(name + '.csv', rows.join('\n') + '\n');
}"
RUN_ARGS=(experiment --data alpha.csv beta.csv gamma.csv --methods baseline,pca,sdspca,sdspcaan
  --grid quick --k-grid 4,8 --repeats 2 --max-iter 200 --no-figures)

"$NODE" "$BIN" "${RUN_ARGS[@]}" --out array --emit slurm --shard-count 6 --throttle 2 --workers 1 \
  >job.sh 2>emit.log
say "job script:"; sed 's/^/    /' job.sh >&2
grep -q -- '--array=0-5%2' job.sh

"$NODE" "$BIN" "${RUN_ARGS[@]}" --out single --workers 2 --no-progress >single.md 2>single.log
say "single-process run done: $(wc -l <single/results.jsonl) lines"

submit() { sbatch --parsable "$@" | cut -d';' -f1; }
wait_for() {
  local job="$1" start=$SECONDS
  while squeue -h -j "$job" 2>/dev/null | grep -q .; do
    if ((SECONDS - start > WAIT_SECONDS)); then say "timed out waiting for job $job"; squeue >&2; exit 1; fi
    sleep 1
  done
}
check_tasks() {
  # Every array task of the job ended COMPLETED with exit code 0.
  local job="$1" states
  states="$(scontrol -o show job "$job" | grep -o 'JobState=[A-Z_]* .*ExitCode=[0-9:]*' | sed -E 's/JobState=([A-Z_]+).*ExitCode=([0-9:]+)/\1 \2/' | sort | uniq -c)"
  say "job $job: $states"
  if scontrol -o show job "$job" | grep -o 'JobState=[A-Z_]*' | grep -vq 'JobState=COMPLETED'; then
    say "a task of job $job did not complete"; exit 1
  fi
}
# Records of a directory's results files, timings aside, sorted: what must not depend on sharding.
records() {
  "$NODE" --input-type=module -e "
import { readFileSync, readdirSync } from 'node:fs';
const dir = process.argv[1];
const lines = readdirSync(dir).filter((f) => /^results(\\.shard-\\d+-of-\\d+)?\\.jsonl\$/.test(f))
  .flatMap((f) => readFileSync(dir + '/' + f, 'utf8').split('\n').filter(Boolean));
const out = lines.map((l) => { const { fitMs, ...rest } = JSON.parse(l); return JSON.stringify(rest); });
out.sort();
process.stdout.write(out.join('\n') + '\n');" "$1"
}
compare_with_single() {
  "$NODE" "$BIN" report --out array --no-figures >array.md 2>report.log
  grep -q 'Merged 6 shard files' report.log || { say "report did not merge 6 shard files"; cat report.log >&2; exit 1; }
  grep -q 'Complete run' report.log || { say "the merged run is not complete"; cat report.log >&2; exit 1; }
  records single >single.records
  records array >array.records
  if ! cmp -s single.records array.records; then
    say "the shards' records differ from the single-process run's:"
    diff single.records array.records | head -20 >&2
    exit 1
  fi
  cmp -s single/table.md array/table.md || { say "table.md differs"; diff single/table.md array/table.md >&2; exit 1; }
  cmp -s single.md array.md || { say "the printed table differs"; exit 1; }
  say "$1: merged shards = single-process run ($(wc -l <array.records) records, same table)"
}

# --- 1. The whole array.
JOB="$(submit job.sh)"
say "submitted array job $JOB"
wait_for "$JOB"
check_tasks "$JOB"
for i in 0 1 2 3 4 5; do
  grep -q "of shard $i/6" "sdspcaan-${JOB}_$i.log" || { say "task $i's log does not report shard $i/6"; exit 1; }
done
compare_with_single "array run"

# --- 2. Again, one task killed mid-run and resubmitted alone.
rm -rf array
VICTIM=""
for attempt in 1 2 3; do
  JOB="$(submit job.sh)"
  say "attempt $attempt: submitted array job $JOB; waiting for a task to be part-way"
  start=$SECONDS
  while ((SECONDS - start < WAIT_SECONDS)); do
    for i in 0 1 2 3 4 5; do
      f="array/results.shard-$i-of-6.jsonl"
      if [ -f "$f" ] && [ "$(wc -l <"$f")" -ge 1 ] \
        && squeue -h -j "${JOB}_$i" -t RUNNING 2>/dev/null | grep -q .; then
        VICTIM="$i"
        break
      fi
    done
    [ -n "$VICTIM" ] && break
    squeue -h -j "$JOB" 2>/dev/null | grep -q . || break
    sleep 0.1
  done
  if [ -n "$VICTIM" ]; then
    scancel --signal=KILL --full "${JOB}_$VICTIM"
    sleep 1
    scancel "${JOB}_$VICTIM" 2>/dev/null || true
    done_lines="$(wc -l <"array/results.shard-$VICTIM-of-6.jsonl")"
    say "killed task $VICTIM mid-run with $done_lines line(s) written"
    wait_for "$JOB"
    if scontrol -o show job "${JOB}_$VICTIM" | grep -q 'JobState=COMPLETED'; then
      say "task $VICTIM completed before the kill landed; trying again"
      VICTIM=""
      rm -rf array
      continue
    fi
    break
  fi
  wait_for "$JOB"
  rm -rf array
done
[ -n "$VICTIM" ] || { say "could not catch a task part-way in 3 attempts"; exit 1; }
# The killed shard is incomplete: the merged report says so.
"$NODE" "$BIN" report --out array --no-figures >/dev/null 2>partial.log
grep -q 'Incomplete run' partial.log || { say "the report of the partial run does not say it is incomplete"; cat partial.log >&2; exit 1; }
RESUB="$(submit --array="$VICTIM" job.sh)"
say "resubmitted task $VICTIM as job $RESUB"
wait_for "$RESUB"
check_tasks "$RESUB"
grep -q "resumed" "sdspcaan-${RESUB}_$VICTIM.log"
say "task $VICTIM resumed: $(grep -o '[0-9]* fits of shard [^)]*)' "sdspcaan-${RESUB}_$VICTIM.log")"
compare_with_single "killed and resubmitted"

say "PASSED"
