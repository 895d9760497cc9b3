#!/usr/bin/env bash
# End-to-end test of `experiment --emit slurm` on a real single-node Slurm.
#
# Installs Debian's slurm-wlm and munge when missing, starts munged, slurmctld and
# slurmd on this host with a throw-away configuration under a temporary directory,
# and uses the script that `sdspcaan experiment --emit slurm` prints for a small run
# (3 generated data sets x 2 repeats x 4 built-in methods and the example plug-in's
# Fisherfaces, copied into the run's directory and loaded with --plugin, quick grid,
# 6 shards):
#
# 1. submits it with `bash job.sh` (the array, and the report job that depends on
#    it), checks that the report job started only after every array task ended and
#    that the tables it wrote, and the records (timings aside), are those of a
#    single-process run of the same command;
# 2. submits the array again, kills one task mid-run (SIGKILL, as a node failure
#    would), resubmits that task alone, and checks the merged result again;
# 3. submits it with `bash job.sh` again and sends one running task the signal Slurm
#    sends before the time limit (USR1 to the batch shell): the task must stop its
#    run cleanly, requeue itself and resume, and the report job must run after it
#    and write the same tables as the single-process run.
#
# Every daemon it started is stopped by PID on exit. Needs root and Debian's
# packages. Where it cannot run it says so and fails, unless SDSPCAAN_SKIP_SLURM=1
# is set. Not part of vitest: .ci/run calls it after `npm test`.
# Usage: bash test/e2e/slurm.sh
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
    [ -f "$T/slurmctld.log" ] && grep -E 'kill_job|Requeu|_job_complete|Allocate|_start_job' "$T/slurmctld.log" >&2
    for f in "$T"/*.log "$RUN"/*.log; do
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
# The run's directory holds what sbatch's #SBATCH reader and a shell treat specially
# (a space, quotes, '#', "packjob", '$'): the script's --chdir must reach Slurm as it is.
RUN="$T/run dir 'q' \"dq\" #1 packjob \$x"
mkdir -p "$T/state" "$T/spool" "$RUN"
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
# cred_expire is also how long a requeued job waits before it may start again (120 s by default).
AuthInfo=socket=$SOCKET,cred_expire=10
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
cd "$RUN"
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
# The plug-in lies outside the repository, with no node_modules beside it, under a name
# and in a folder a shell would split or expand: every task and the report job load it.
cp "$REPO/examples/plugins/fisherfaces.mjs" "fisher faces.mjs"
PLUGIN="$RUN/fisher faces.mjs"
RUN_ARGS=(experiment --plugin "fisher faces.mjs" --data alpha.csv beta.csv gamma.csv
  --methods baseline,pca,sdspca,sdspcaan,fisherfaces
  --grid quick --k-grid 2,4,8 --repeats 2 --max-iter 200 --no-figures)

"$NODE" "$BIN" "${RUN_ARGS[@]}" --out array --emit slurm --shard-count 6 --throttle 2 --workers 1 \
  >job.sh 2>emit.log
say "job script:"; sed 's/^/    /' job.sh >&2
grep -q -- '--array=0-5%2' job.sh
grep -q -- '^#SBATCH --signal=B:USR1@' job.sh
grep -q -- '^#SBATCH --requeue$' job.sh
grep -q -- '^#SBATCH --chdir="' job.sh
# Tasks and the report job load the plug-in by its absolute path, quoted for the shell.
QUOTED_PLUGIN="$("$NODE" -e "process.stdout.write(\"'\" + process.argv[1].replace(/'/g, \"'\\\\''\") + \"'\")" "$PLUGIN")"
[ "$(grep -cF -- "--plugin $QUOTED_PLUGIN" job.sh)" -ge 2 ] \
  || { say "job.sh does not load the plug-in by its absolute path in the tasks and the report"; exit 1; }

"$NODE" "$BIN" "${RUN_ARGS[@]}" --out single --workers 2 --no-progress >single.md 2>single.log
say "single-process run done: $(wc -l <single/results.jsonl) lines"
grep -q '| Fisherfaces |' single/table.md || { say "the table has no column of the plug-in's method"; cat single/table.md >&2; exit 1; }

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
    say "a task of job $job did not complete:"
    scontrol -o show job "$job" | grep -oE 'JobId=[0-9]+|ArrayTaskId=[^ ]+|JobState=[A-Z_]+|Reason=[^ ]+|Restarts=[0-9]+|BeginTime=[^ ]+' | paste -sd' ' >&2
    squeue -a >&2
    exit 1
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
  "$NODE" "$BIN" report --out array --no-figures --plugin "$PLUGIN" >array.md 2>report.log
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

# Submits job.sh with bash (the array and its report job); sets ARRAY and REPORT.
submit_with_report() {
  bash job.sh >submit.out
  ARRAY="$(sed -nE 's/^Submitted array job ([0-9]+), and report job ([0-9]+) .*/\1/p' submit.out)"
  REPORT="$(sed -nE 's/^Submitted array job ([0-9]+), and report job ([0-9]+) .*/\2/p' submit.out)"
  [ -n "$ARRAY" ] && [ -n "$REPORT" ] || { say "bash job.sh did not say what it submitted:"; cat submit.out >&2; exit 1; }
  say "bash job.sh submitted array job $ARRAY and report job $REPORT"
}
# The report job completed, started after every task of the array ended, and wrote the
# tables of the single-process run.
check_report_job() {
  local array="$1" report="$2" started last_end
  wait_for "$report"
  scontrol -o show job "$report" | grep -q 'JobState=COMPLETED' \
    || { say "report job $report did not complete: $(scontrol -o show job "$report")"; exit 1; }
  started="$(scontrol -o show job "$report" | sed -E 's/.* StartTime=([^ ]+) .*/\1/')"
  last_end="$(scontrol -o show job "$array" | sed -E 's/.* EndTime=([^ ]+) .*/\1/' | sort | tail -n 1)"
  if [[ "$started" < "$last_end" ]]; then
    say "report job $report started at $started, before the array's last task ended ($last_end)"; exit 1
  fi
  local log="sdspcaan-report-$report.log"
  grep -q 'Merged 6 shard files' "$log" || { say "the report job did not merge 6 shard files"; cat "$log" >&2; exit 1; }
  grep -q 'Complete run' "$log" || { say "the report job's run is not complete"; cat "$log" >&2; exit 1; }
  cmp -s single/table.md array/table.md || { say "the report job's table.md differs"; diff single/table.md array/table.md >&2; exit 1; }
  say "report job $report started at $started, after the array's last task ended at $last_end, and wrote the single-process run's table"
}

# --- 1. The whole array, submitted with its report job.
submit_with_report
wait_for "$ARRAY"
check_tasks "$ARRAY"
for i in 0 1 2 3 4 5; do
  grep -q "of shard $i/6" "sdspcaan-${ARRAY}_$i.log" || { say "task $i's log does not report shard $i/6"; exit 1; }
done
check_report_job "$ARRAY" "$REPORT"
compare_with_single "array run"

# --- 2. Again, one task killed mid-run and resubmitted alone.
rm -rf array
# The fits task $2 of job $1 plans (its log's "Shard I/6: N fits" line), or a large number
# while the line is not written yet.
planned_fits() {
  local n
  n="$(grep -oE "Shard $2/6: [0-9]+ fits" "sdspcaan-${1}_$2.log" 2>/dev/null | grep -oE '[0-9]+ fits' | cut -d' ' -f1)"
  echo "${n:-1000000}"
}
VICTIM=""
for attempt in 1 2 3; do
  JOB="$(submit job.sh)"
  say "attempt $attempt: submitted array job $JOB; waiting for a task to be part-way"
  start=$SECONDS
  while ((SECONDS - start < WAIT_SECONDS)); do
    for i in 0 1 2 3 4 5; do
      f="array/results.shard-$i-of-6.jsonl"
      if [ -f "$f" ] && [ "$(wc -l <"$f")" -ge 1 ] \
        && [ "$(wc -l <"$f")" -lt "$(planned_fits "$JOB" "$i")" ] \
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
    # A task killed after its last fit was written (its process ending) is complete too.
    if scontrol -o show job "${JOB}_$VICTIM" | grep -q 'JobState=COMPLETED' \
      || [ "$done_lines" -ge "$(planned_fits "$JOB" "$VICTIM")" ]; then
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
"$NODE" "$BIN" report --out array --no-figures --plugin "$PLUGIN" >/dev/null 2>partial.log
grep -q 'Incomplete run' partial.log || { say "the report of the partial run does not say it is incomplete"; cat partial.log >&2; exit 1; }
RESUB="$(submit --array="$VICTIM" job.sh)"
say "resubmitted task $VICTIM as job $RESUB"
wait_for "$RESUB"
check_tasks "$RESUB"
grep -q "resumed" "sdspcaan-${RESUB}_$VICTIM.log"
say "task $VICTIM resumed: $(grep -o '[0-9]* fits of shard [^)]*)' "sdspcaan-${RESUB}_$VICTIM.log")"
compare_with_single "killed and resubmitted"

# --- 3. Again with its report job; one task is sent the pre-limit signal mid-run.
# Sets VICTIM to a task of job $1 that is running and has written a line, or leaves it
# empty when the job ends first.
catch_running_task() {
  local job="$1" start=$SECONDS i f
  VICTIM=""
  while ((SECONDS - start < WAIT_SECONDS)); do
    for i in 0 1 2 3 4 5; do
      f="array/results.shard-$i-of-6.jsonl"
      if [ -f "$f" ] && [ "$(wc -l <"$f")" -ge 1 ] \
        && squeue -h -j "${job}_$i" -t RUNNING 2>/dev/null | grep -q .; then
        VICTIM="$i"
        return
      fi
    done
    squeue -h -j "$job" -t PENDING,RUNNING 2>/dev/null | grep -q . || return
    sleep 0.1
  done
}
rm -rf array
SIGNALLED=""
for attempt in 1 2 3; do
  submit_with_report
  catch_running_task "$ARRAY"
  if [ -n "$VICTIM" ]; then
    # Slurm 22.05 delivers the signal but answers "Job can not be altered now" for an
    # array task, and scancel then sends it again every few seconds, which would stop
    # the requeued run too: one request is all a time limit sends, so scancel gets 3 s.
    timeout 3 scancel --signal=USR1 --batch "${ARRAY}_$VICTIM" 2>/dev/null || true
    say "sent USR1 to the batch shell of task $VICTIM"
    wait_for "$ARRAY"
    if grep -q 'requeueing to resume' "sdspcaan-${ARRAY}_$VICTIM.log"; then
      SIGNALLED="$VICTIM"
      break
    fi
    say "task $VICTIM finished before the signal landed; trying again"
  fi
  wait_for "$ARRAY"
  wait_for "$REPORT"
  rm -rf array
done
[ -n "$SIGNALLED" ] || { say "could not signal a task part-way in 3 attempts"; exit 1; }
check_tasks "$ARRAY"
LOG="sdspcaan-${ARRAY}_$SIGNALLED.log"
grep -q 'Interrupted: stopping' "$LOG" || { say "task $SIGNALLED's run was not stopped by the signal"; cat "$LOG" >&2; exit 1; }
grep -q "Stopped. Every finished fit is in array/results.shard-$SIGNALLED-of-6.jsonl" "$LOG" || { say "task $SIGNALLED's run did not stop cleanly"; cat "$LOG" >&2; exit 1; }
scontrol -o show job "${ARRAY}_$SIGNALLED" | grep -q 'Restarts=1' \
  || { say "task $SIGNALLED was not requeued once: $(scontrol -o show job "${ARRAY}_$SIGNALLED")"; exit 1; }
RESUMED="$(grep -oE '[0-9]+ fits of shard [0-9]+/6 \([0-9]+ resumed' "$LOG" | tail -n 1 | grep -oE '[0-9]+ resumed' | cut -d' ' -f1)"
[ "${RESUMED:-0}" -ge 1 ] || { say "the requeued task $SIGNALLED did not resume finished fits"; cat "$LOG" >&2; exit 1; }
say "task $SIGNALLED stopped on the signal, was requeued and resumed ($RESUMED fits kept)"
check_report_job "$ARRAY" "$REPORT"
compare_with_single "signalled and requeued"

say "PASSED"
