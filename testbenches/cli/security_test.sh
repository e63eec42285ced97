#!/usr/bin/env bash
# Input from colleagues is safe (docs/security.md): each check is an attack on flynn with a
# hostile sweep, scenario, kernel or output folder, and what must hold. Every check runs
# whatever the others gave (a summary at the end), so that one run lists every hole.
#   usage: security_test.sh FLYNN_BINARY SOURCE_DIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cli_test_setup security "$@"

failures=0
# check NAME CONDITION...: CONDITION is a command; its failure is reported, the test goes on.
check() {
  local name="$1"
  shift
  if "$@"; then
    pass "$name"
  else
    failures=$((failures + 1))
    echo "FAIL - $name ($LAST: exit status $rc)" >&2
    head -c 600 "$WORK/.stderr" >&2 2>/dev/null
    echo >&2
  fi
}
# Risky runs (the attacks on reading without bound) get a memory and time limit, so that a
# flynn that has the hole fails the check instead of taking the machine. Under
# AddressSanitizer (which reserves terabytes of address space) there is no address-space
# limit, and memory figures are allowed five times as much.
sanitized=0
[[ -n "${ASAN_OPTIONS:-}" ]] && sanitized=1
mb_factor=$((sanitized ? 5 : 1))
bounded() {
  LAST="flynn $*"
  ( ((sanitized)) || ulimit -v 6000000; timeout 60 "$FLYNN" "$@") >"$WORK/.stdout" 2>"$WORK/.stderr"
  rc=$?
}
# peak_rss_mb ARGS...: runs flynn and prints its exit status and peak resident memory in MB.
peak_rss_mb() {
  python3 - "$FLYNN" "$@" <<'EOF'
import os, resource, subprocess, sys
def limit():  # a flynn with the hole fails instead of taking the machine
    if not os.environ.get("ASAN_OPTIONS"):
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
with open(".stdout", "w") as o, open(".stderr", "w") as e:
    r = subprocess.run(sys.argv[1:], stdout=o, stderr=e, timeout=120, preexec_fn=limit)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
EOF
}
is() { [[ "$1" == "$2" ]]; }
no_file() { [[ ! -e "$1" && ! -L "$1" ]]; }

BASE="$SRC/scenarios/memory/showcase.json"
mkdir -p bin
printf '#!/bin/bash\necho 4242\n' >bin/sbatch  # a stand-in sbatch: nothing is submitted
chmod +x bin/sbatch
export PATH="$WORK/bin:$PATH"
# run_tasks DIR N: runs the array tasks 0..N-1 of DIR/slurm/job.sh as Slurm would.
run_tasks() {
  local t
  [[ -f "$1/slurm/job.sh" ]] || return 0
  for ((t = 0; t < $2; t++)); do (cd "$1/slurm" && SLURM_ARRAY_TASK_ID=$t bash job.sh) >/dev/null 2>&1; done
}

# ---- 1. Slurm job files that cannot be injected -------------------------------------------------
printf '{"name": "x\\ntouch %s/PWNED_name #", "base": "%s",\n "axes": [{"path": "modules.mem.banks", "values": [4, 8]}]}\n' \
  "$WORK" "$BASE" >name.json
flynn sweep name.json --slurm --outdir o_name
run_tasks o_name 2
check "a sweep name with a newline is bad input naming the character, and no job runs it" \
  eval 'is $rc 2 && grep -qF "name: expected letters, digits" .stderr && grep -qF "with '"'"'\\n'"'"' at character 2" .stderr && no_file PWNED_name && no_file o_name'

printf '{"name": "sets", "base": "%s", "sets": ["description=x\\ntouch %s/PWNED_sets #"],\n "axes": [{"path": "modules.mem.banks", "values": [4, 8]}]}\n' \
  "$BASE" "$WORK" >sets.json
flynn sweep sets.json --slurm --outdir o_sets
run_tasks o_sets 2
check "a sets value with a newline is bad input, and no task runs its second half" \
  eval 'is $rc 2 && grep -qF "sets[0]: expected a \"PATH=VALUE\" override without control characters" .stderr && no_file PWNED_sets'

# Values that are hostile as shell text but fine as data: each task runs its own point.
cat >values.json <<EOF
{"name": "values", "base": "$BASE",
 "axes": [{"path": "description", "values": ["a\nb; touch $WORK/PWNED_value #", "\$(touch $WORK/PWNED_subst)", "it's \`touch $WORK/PWNED_tick\`"]},
          {"path": "modules.mem.banks", "values": [4, 8]}]}
EOF
flynn sweep values.json --slurm --outdir o_values
check "a sweep with hostile values is submitted as one array of 6 tasks" \
  eval 'is $rc 0 && is "$(grep -c "^#SBATCH" o_values/slurm/job.sh)" 3 && grep -qx "#SBATCH --array=0-5" o_values/slurm/job.sh && grep -qx "#SBATCH --job-name=\"flynn-values\"" o_values/slurm/job.sh'
run_tasks o_values 6
(cd o_values/slurm && SLURM_ARRAY_TASK_ID="0; touch $WORK/PWNED_task" bash job.sh) >/dev/null 2>&1
task_rc=$?
flynn sweep values.json --outdir o_values --collect
values_ok() {
  local p d
  for p in o_values/points/*/; do
    d="$(json_eval "$p/config.resolved.json" 'j["description"]')"
    case "$(basename "$p")" in
      0000_* | 0001_*) [[ "$d" == $'a\nb; touch '"$WORK/PWNED_value #" ]] || return 1 ;;
      0002_* | 0003_*) [[ "$d" == "\$(touch $WORK/PWNED_subst)" ]] || return 1 ;;
      *) [[ "$d" == "it's \`touch $WORK/PWNED_tick\`" ]] || return 1 ;;
    esac
  done
}
check "each task runs exactly its point's arguments as data: 6 ok, nothing outside the runs" \
  eval 'is $rc 0 && grep -qF "6 points, 6 ok" .stdout && values_ok && no_file PWNED_value && no_file PWNED_subst && no_file PWNED_tick'
check "a task number that is not a number runs nothing (exit 2)" \
  eval 'is $task_rc 2 && no_file PWNED_task'

# ---- 2. Names never leave the output root -------------------------------------------------------
mkdir -p r/root
printf '{"name": "../../../escape", "base": "%s", "axes": [{"path": "modules.mem.banks", "values": [4]}]}\n' "$BASE" >trav.json
flynn sweep trav.json --out-root r/root
check "a sweep name with '..' and '/' is bad input; nothing is written outside the output root" \
  eval 'is $rc 2 && grep -qF "name: expected letters, digits" .stderr && no_file r/escape && [[ -z "$(ls r/root)" ]]'

# ---- 3. Deletes only of what Flynn wrote --------------------------------------------------------
printf '{"name": "stale", "base": "%s", "axes": [{"path": "modules.mem.banks", "values": [4, 8]}]}\n' "$BASE" >stale.json
flynn sweep stale.json --outdir o_stale
echo "my notes" >o_stale/points/0000_banks-4/NOTES.txt
printf '{"name": "stale", "base": "%s", "sets": ["modules.mem.latency=12"], "axes": [{"path": "modules.mem.banks", "values": [4, 8]}]}\n' \
  "$BASE" >stale.json
flynn sweep stale.json --outdir o_stale
check "a stale point folder holding a user's file is not deleted: that point fails and says why" \
  eval 'is $rc 1 && [[ "$(cat o_stale/points/0000_banks-4/NOTES.txt 2>/dev/null)" == "my notes" ]] && grep -q "^0,.*,failed,.*NOTES.txt not written by Flynn" o_stale/results.csv && grep -q "^1,.*,ok," o_stale/results.csv'

flynn run "$BASE" --outdir target --quiet
ln -s target link
flynn run "$BASE" --outdir link --quiet
check "--outdir naming a link to another results folder is refused; the folder and the link stay" \
  eval 'is $rc 2 && grep -qF "found a symbolic link" .stderr && [[ -L link && -f target/stats.json && -f target/.flynn-output ]]'

flynn run "$BASE" --outdir victim --quiet
sh -c 'exit 0' &
dead=$!
wait $dead
ln -s victim "res.tmp-$dead"
flynn run "$BASE" --outdir res --quiet
check "a link named like a dead run's temporary folder is left alone, its target untouched" \
  eval 'is $rc 0 && [[ -L "res.tmp-$dead" && -f victim/stats.json && -f victim/config.resolved.json ]]'

flynn run "$BASE" --outdir legacy --quiet
echo "Flynn output folder" >legacy/.flynn-output  # the marker of earlier versions: no list
echo "mine" >legacy/NOTES.txt
flynn run "$BASE" --outdir legacy --quiet
check "a folder with the one-line marker of earlier versions is refused when it holds a user's file" \
  eval 'is $rc 2 && grep -qF "NOTES.txt not written by Flynn" .stderr && [[ -f legacy/NOTES.txt ]]'
rm legacy/NOTES.txt
flynn run "$BASE" --outdir legacy --quiet
check "... and replaced when it holds only the files a run writes" \
  eval 'is $rc 0 && [[ "$(head -1 legacy/.flynn-output)" == "Flynn output folder" && $(wc -l <legacy/.flynn-output) -gt 2 ]]'

printf '{"name": "logs", "base": "%s", "axes": [{"path": "modules.mem.banks", "values": [4]}]}\n' "$BASE" >logs.json
flynn sweep logs.json --outdir o_logs
echo "precious" >precious.txt
rm -f o_logs/points/0000_banks-4.log
ln -s "$WORK/precious.txt" o_logs/points/0000_banks-4.log
printf '{"name": "logs", "base": "%s", "sets": ["modules.mem.latency=12"], "axes": [{"path": "modules.mem.banks", "values": [4]}]}\n' \
  "$BASE" >logs.json
flynn sweep logs.json --outdir o_logs
check "a point's log planted as a link is bad input; the file it points at is not truncated" \
  eval 'is $rc 2 && grep -qF "found a symbolic link" .stderr && [[ "$(cat precious.txt)" == precious ]]'

# ---- 4. Bounded inputs --------------------------------------------------------------------------
python3 -c '
import sys
n = 100000
open("deep.json", "w").write("{\"name\": \"d\", \"modules\": " + "{\"a\": " * n + "1" + "}" * n + "}")
' 
bounded validate deep.json
check "JSON nested 100000 deep is bad input (line:column), not a crash" \
  eval 'is $rc 2 && grep -qF "deep.json:1:" .stderr && grep -qF "expected JSON nested at most 64 levels deep" .stderr'

# Origins: 60 levels of 200-character keys over 20000 values; each value's origin is kept
# without its path, so memory stays near the size of the documents (quadratic before).
python3 - <<'EOF'
import json
key = "k" * 200
def nest(n, leaf):
    for i in range(n):
        leaf = {key + str(i): leaf}
    return leaf
json.dump({"name": "q", "modules": {"m": {"type": "banked_memory"}}, "notes": nest(60, {"x0": 0})}, open("qbase.json", "w"))
json.dump({"extends": "qbase.json", "notes": nest(60, {"x%d" % i: 1 for i in range(20000)})}, open("qchild.json", "w"))
EOF
LAST="flynn validate qchild.json"
read -r q_rc q_mb < <(peak_rss_mb validate qchild.json)
rc=$q_rc
check "origins of a deep scenario take memory near its size: peak ${q_mb} MB < $((100 * mb_factor)) MB (exit 2: 'notes' is no key)" \
  eval 'is $rc 2 && [[ $q_mb -lt $((100 * mb_factor)) ]] && grep -qF "qbase.json: notes: expected one of the scenario keys" .stderr'

mkdir -p chain
python3 -c '
import json
for i in range(10000):
    d = {"extends": "c%d.json" % (i + 1)} if i < 9999 else {"name": "c", "modules": {"m": {"type": "banked_memory"}}}
    json.dump(d, open("chain/c%d.json" % i, "w"))
'
bounded validate chain/c0.json
check "an extends chain of 10000 files is bad input, not a crash" \
  eval 'is $rc 2 && grep -qF "extends: expected a chain of at most 32 files" .stderr'

mkfifo fifo
printf '{"extends": "/dev/zero", "name": "z"}\n' >zero.json
printf '{"extends": "fifo", "name": "f"}\n' >fifo.json
bounded validate zero.json
check "/dev/zero as extends is bad input at once" \
  eval 'is $rc 2 && grep -qF "/dev/zero: expected a scenario file (JSON), found a character device" .stderr'
bounded validate fifo.json
check "a FIFO as extends is bad input at once (no wait for a writer)" \
  eval 'is $rc 2 && grep -qF "fifo: expected a scenario file (JSON), found a FIFO" .stderr'
bounded run "$SRC/scenarios/simt/vecadd_1warp.json" --set workload.kernel=/dev/zero --outdir o_zero
check "/dev/zero as a kernel is bad input at once" \
  eval 'is $rc 2 && grep -qF "/dev/zero: expected a kernel file (SIMT assembly), found a character device" .stderr'
bounded run "$SRC/scenarios/ptx/saxpy.json" --set workload.ptx="$WORK/fifo" --outdir o_fifo
check "a FIFO as PTX is bad input at once" \
  eval 'is $rc 2 && grep -qF "fifo: expected a PTX file, found a FIFO" .stderr'
head -c $((17 << 20)) /dev/zero | tr '\0' ' ' >huge.json
bounded validate huge.json
check "a scenario file over 16 MiB is bad input before it is read" \
  eval 'is $rc 2 && grep -qF "huge.json: expected a scenario file (JSON) of at most 16 MiB" .stderr'

LAST="flynn run vecadd_1warp.json --set workload.init=[fill 2^27]"
read -r f_rc f_mb < <(peak_rss_mb run "$SRC/scenarios/simt/vecadd_1warp.json" --outdir o_fill \
  --set 'workload.init=[{"address": 0, "fill": 134217728, "value": 7}]')
rc=$f_rc
check "a fill image larger than its memory is refused before it is built: peak ${f_mb} MB < $((200 * mb_factor)) MB" \
  eval 'is $rc 2 && [[ $f_mb -lt $((200 * mb_factor)) ]] && grep -qF "workload.init[0].fill: expected an image inside the memory" .stderr'

printf '{"name": "big", "base": "%s", "sets": ["modules.mem.size_bytes=1073741824"],\n "axes": [{"path": "modules.mem.latency", "values": [10, 11, 12, 13]}]}\n' \
  "$BASE" >big.json
LAST="flynn sweep big.json --jobs 4"
read -r b_rc b_mb < <(peak_rss_mb sweep big.json --jobs 4 --outdir o_big)
rc=$b_rc
check "a sweep of 1 GiB memories 4 at a time is over the memory budget before anything is built (peak ${b_mb} MB)" \
  eval 'is $rc 2 && [[ $b_mb -lt $((200 * mb_factor)) ]] && grep -qF "expected model memory within the memory budget of 2 GiB" .stderr && no_file o_big'
flynn validate "$BASE" --set modules.mem.size_bytes=1073741824 --memory-budget 3G
check "a run's budget: 1 GiB of memory (4 GiB with the golden copies) is over 3G, named" \
  eval 'is $rc 2 && grep -qF "modules.mem: expected model memory within the memory budget of 3 GiB (--memory-budget)" .stderr'
flynn validate "$BASE" --set modules.mem.size_bytes=1073741824 --memory-budget 5G
check "... and within 5G" eval 'is $rc 0'

python3 - <<'EOF'
lines = [".version 8.0", ".target sm_90", ".address_size 64"]
for k in range(41):
    lines.append(".visible .entry k%d()\n{" % k)
    lines += ["  .reg .b32 %%q%d_<65536>;" % q for q in range(16)]
    lines.append("  ret;\n}")
open("regs.ptx", "w").write("\n".join(lines) + "\n")
EOF
bounded run "$SRC/scenarios/ptx/saxpy.json" --set workload.ptx="$WORK/regs.ptx" --set workload.kernel=k0 --outdir o_regs
check "41 kernels declaring 2^20 registers each are bad input (a cap per file)" \
  eval 'is $rc 2 && grep -qF "expected at most 2^20 registers declared in a file" .stderr'

python3 -c '
import json
axes = [{"path": "modules.mem.latency", "values": list(range(1, 257))} for _ in range(8)]
json.dump({"name": "huge", "base": "'"$BASE"'", "axes": axes}, open("grid.json", "w"))
'
flynn sweep grid.json --outdir o_grid
check "a grid of 2^64 points is bad input, not '0 points'" \
  eval 'is $rc 2 && grep -qF "axes: expected at most 100000 points, found 1.84e+19 points" .stderr && no_file o_grid'

mkdir -p chain20
cp "$SRC/scenarios/memory/base.json" chain20/c19.json
python3 -c '
import json
for i in range(19):
    json.dump({"extends": "c%d.json" % (i + 1)}, open("chain20/c%d.json" % i, "w"))
'
flynn run chain20/c0.json --outdir o_chain20 --set 'modules.gen.streams=[{"kind": "linear", "count": 4, "size": 8}]' --quiet
check "provenance records every file of an extends chain (20 of 20)" \
  eval 'is $rc 0 && is "$(json_eval o_chain20/provenance.json "len([i for i in j[\"inputs\"] if i[\"role\"] in (\"scenario\", \"extends\")])")" 20'

# ---- 5. Interrupted sweeps ----------------------------------------------------------------------
printf '{"name": "intr", "base": "%s", "axes": [{"path": "modules.mem.latency", "values": [10, 11]}]}\n' "$BASE" >intr.json
flynn sweep intr.json --outdir o_intr
cp o_intr/results.csv intr_before.csv
cp o_intr/sweep.json intr_before.json
printf '{"name": "intr", "base": "%s", "sets": ["modules.gen.streams.1.count=200000000", "modules.gen.streams.1.stride=0", "max_cycles=0"],\n "axes": [{"path": "modules.mem.latency", "values": [20, 21, 22]}]}\n' \
  "$BASE" >intr.json
"$FLYNN" sweep intr.json --outdir o_intr --jobs 2 >.stdout 2>.stderr &
sweep_pid=$!
for _ in $(seq 1 100); do
  [[ -n "$(pgrep -f "o_intr/points/0001_latency-21")" ]] && break
  sleep 0.1
done
sleep 0.3
kill -TERM "$sweep_pid"
wait "$sweep_pid"
rc=$?
LAST="flynn sweep intr.json (SIGTERM)"
sleep 0.5
check "a sweep stopped by SIGTERM stops its runs and exits 143" \
  eval 'is $rc 143 && [[ -z "$(pgrep -f "$WORK/o_intr/points")" && -z "$(pgrep -f " o_intr/points")" ]] && grep -qF "interrupted by signal 15" .stderr'
check "... and leaves the last finished sweep's tables with its sweep.json, this one marked unfinished" \
  eval 'cmp -s o_intr/results.csv intr_before.csv && cmp -s o_intr/sweep.json intr_before.json && [[ -f o_intr/sweep.pending.json ]]'

# ---- 6. Short, escaped excerpts; no spreadsheet formulas ----------------------------------------
python3 -c '
open("long.s", "w").write(".kernel long\n" + "A" * 5000 + " r1, r2\n\x1b[31m r1\n")
'
flynn run "$SRC/scenarios/simt/vecadd_1warp.json" --set workload.kernel="$WORK/long.s" --outdir o_long
check "an assembler error quotes a short excerpt of a 5000-character token, no raw escape" \
  eval 'is $rc 2 && [[ $(wc -c <.stderr) -lt 600 ]] && ! grep -q $'"'"'\x1b'"'"' .stderr && grep -qF "..." .stderr'
printf '{"name": "k\\u001b[31m%s"}\n' "$(head -c 3000 /dev/zero | tr '\0' k)" >esc.json
flynn validate esc.json
check "a scenario name with an escape and 3000 characters is quoted short and escaped" \
  eval 'is $rc 2 && [[ $(wc -c <.stderr) -lt 600 ]] && ! grep -q $'"'"'\x1b'"'"' .stderr'

printf '{"name": "csv", "base": "%s", "axes": [{"path": "description", "values": ["=HYPERLINK(\\"http://x\\")", "+1", "@SUM(A1)", "-2", "plain"]}]}\n' \
  "$BASE" >csv.json
flynn sweep csv.json --outdir o_csv
check "results.csv writes text cells that start with =, +, - or @ behind an apostrophe" \
  eval 'is $rc 0 && grep -qF ",\"'"'"'=HYPERLINK(\"\"http://x\"\")\"," o_csv/results.csv && grep -qF ",'"'"'+1," o_csv/results.csv && grep -qF ",'"'"'@SUM(A1)," o_csv/results.csv && grep -qF ",'"'"'-2," o_csv/results.csv && grep -qF ",plain," o_csv/results.csv'

echo "$checks checks passed, $failures failed"
[[ $failures -eq 0 ]]
