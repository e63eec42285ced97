#!/usr/bin/env bash
# No lost data: a run killed at any moment (while simulating, while writing its outputs,
# by SIGKILL, SIGTERM or SIGINT) leaves at its --outdir either the previous complete
# results or, when there were none, nothing. Folders a killed run leaves half-written
# beside it are removed by the next run to that --outdir; folders that are not Flynn's are
# never touched.
#
# Every kill is placed by the run's own progress, never by a wall-clock delay:
# - while simulating: at the run's first debug line (--debug Exec) of a cycle window that
#   starts at the chosen cycle, so the simulation has reached that cycle; the lines the run
#   printed show it had not finished simulating when it was killed;
# - while writing: when the run's output folder (k.tmp-PID, marked .flynn-partial) or a
#   given file in it appears.
#   usage: kill_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
FLYNN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
SRC="$(cd "$2" && pwd)"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-kill.XXXXXX")"
trap '[[ -n "${KEEP:-}" ]] || rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
SCENARIO="$SRC/scenarios/simt/soak.json"
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "ok - $*"; }
poll() { sleep 0.001; }
cycle_of() { sed -n 's/^\([0-9][0-9]*\): .*/\1/p' | tail -n 1; }  # the cycle of the last debug line

# --- Killed while simulating: the soak kernel at 100 000 iterations (about 46 M cycles),
# long in simulation and small in output.
LONG=(--set workload.params.0=100000)
"$FLYNN" run "$SCENARIO" "${LONG[@]}" --outdir L --quiet || fail "the first long run failed"
cp -r L Lref
CYCLES=$(python3 -c "import json; print(json.load(open('L/stats.json'))['cycles'])")
unchanged_long() { diff -r --exclude=host.json Lref L >/dev/null 2>&1; }
mkfifo lines
# start_long CYCLE: a long run to L printing its debug lines from CYCLE on into the FIFO,
# drained by a reader that writes the first line to reached and every line to seen.
start_long() {
  rm -f reached seen
  env --default-signal=INT,TERM "$FLYNN" run "$SCENARIO" "${LONG[@]}" --outdir L --quiet \
    --debug Exec --debug-window "$1": >lines 2>/dev/null &
  pid=$!
  { IFS= read -r first && { echo "$first" >seen; echo "$first" >reached; }; cat >>seen; } <lines &
  reader=$!
}
# kill_long CYCLE SIGNAL: kills the run as soon as it has simulated to CYCLE; fails unless
# the simulation was still going (the run had printed lines up to CYCLE but not to its end,
# and had not begun to write L.tmp-PID), and unless L holds the previous results.
kill_long() {
  start_long "$1"
  while kill -0 "$pid" 2>/dev/null && [[ ! -s reached ]]; do poll; done
  local writing=no
  [[ -e "L.tmp-$pid" ]] && writing=yes
  kill -s "$2" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  wait "$reader" 2>/dev/null
  [[ -s reached ]] || fail "the run printed no debug line from cycle $1 on"
  local at
  at=$(cycle_of <seen)
  [[ $writing == no && $at -lt $((CYCLES - 100000)) ]] ||
    fail "SIG$2 at cycle $1 landed after the simulation (last line at cycle $at of $CYCLES, writing: $writing)"
  unchanged_long || fail "SIG$2 at cycle $1 (the simulation at cycle $at of $CYCLES) changed the previous results"
}

# 1. Killed while simulating, by each signal, a tenth of the way in.
for sig in KILL TERM INT; do kill_long $((CYCLES / 10)) "$sig"; done
pass "SIGKILL, SIGTERM and SIGINT while simulating (from cycle $((CYCLES / 10)) of $CYCLES) leave the previous results intact"

# 2. Killed at evenly spread cycles of the simulation, from its first cycle to 90%.
for i in $(seq 0 9); do kill_long $((CYCLES * i / 10)) KILL; done
pass "SIGKILL at cycles 0, 10%, ..., 90% of the simulation left the previous results each time"

# --- Killed while writing: the shipped soak kernel with a full timeline (trace.json, tens of
# MB), so that writing the outputs is a long phase of the run.
"$FLYNN" run "$SCENARIO" --outdir k --trace vcd --quiet || fail "the first run failed"
cp -r k ref
# The killed runs add a timeline (--trace vcd,perfetto), so their outputs, had they been
# published, are told apart by trace.json (and by provenance.json, which records that
# command line).
same_as_previous() { diff -r --exclude=host.json ref k >/dev/null 2>&1; }
complete_new() { [[ -f k/.flynn-output && -f k/trace.json && ! -e k/.flynn-partial ]] &&
                 diff -r --exclude=host.json --exclude=trace.json --exclude=provenance.json --exclude=.flynn-output \
                   ref k >/dev/null 2>&1; }  # (the marker lists trace.json too)
# env --default-signal: a background job of a script starts with SIGINT ignored.
start() { env --default-signal=INT,TERM "$FLYNN" run "$SCENARIO" --outdir "$1" --trace vcd,perfetto --quiet >/dev/null 2>&1 & pid=$!; }
await_file() {  # until the run has created $1 (a path with PID for its process id), or has ended
  while kill -0 "$pid" 2>/dev/null && [[ ! -e "${1//PID/$pid}" ]]; do poll; done
}

# 3. Killed while writing: as soon as the folder being written appears.
start k
await_file k.tmp-PID/.flynn-partial
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[[ -f "k.tmp-$pid/.flynn-partial" ]] || fail "the run ended before it could be caught writing its outputs"
same_as_previous || fail "SIGKILL while writing the outputs changed the previous results"
pass "SIGKILL while the outputs are written leaves the previous results intact"
stale="k.tmp-$pid"

# 4. Killed at each stage of writing, by each signal: previous or new results, never a mix.
# (A stage the run has passed before its kill lands ends as new results.)
kept=0 replaced=0
for sig in KILL TERM INT; do
  for file in k.tmp-PID/config.resolved.json k.tmp-PID/stats.json k.tmp-PID/trace.json \
              k.tmp-PID/waves.vcd k.tmp-PID/.flynn-output; do
    start k
    await_file "$file"
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    if same_as_previous; then kept=$((kept + 1))
    elif complete_new; then replaced=$((replaced + 1)); rm -rf k && cp -r ref k  # back to the previous results
    else fail "SIG$sig once ${file//PID/$pid} was written left k/ neither the previous nor the new complete results"; fi
  done
done
[[ $kept -gt 0 ]] || fail "no kill while writing landed before the new results were published"
pass "15 runs killed at the stages of writing left complete results ($kept the previous, $replaced the new)"

# 5. The next run removes what killed runs left half-written, and nothing that is not Flynn's.
mkdir -p "k.tmp-999999999" "k.old.tmp-999999998" && echo mine > "k.tmp-999999999/notes.txt"
echo mine > "k.old.tmp-999999998/notes.txt"
"$FLYNN" run "$SCENARIO" --outdir k --trace vcd --quiet || fail "the cleaning run failed"
same_as_previous || fail "a complete run did not reproduce the previous results"
[[ ! -e "$stale" ]] || fail "the half-written $stale was left after the next run"
left=$(ls -d k.tmp-* k.old.tmp-* 2>/dev/null | grep -v -e 'k.tmp-999999999$' -e 'k.old.tmp-999999998$')
[[ -z "$left" ]] || fail "half-written folders left after the next run: $left"
[[ -f k.tmp-999999999/notes.txt && -f k.old.tmp-999999998/notes.txt ]] ||
  fail "a folder without Flynn's markers was deleted"
pass "the next run removes half-written output folders and leaves folders without Flynn's markers alone"

# 6. A first run (no previous results) killed while writing leaves no output folder.
start fresh
await_file fresh.tmp-PID/.flynn-partial
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[[ -f "fresh.tmp-$pid/.flynn-partial" ]] || fail "the first run ended before it could be caught writing its outputs"
[[ ! -e fresh ]] || fail "a first run killed while writing left a fresh/ folder"
pass "a first run killed while writing leaves no output folder"
