#!/usr/bin/env bash
# No lost data: a run killed at any moment (while simulating, while writing its outputs,
# by SIGKILL, SIGTERM or SIGINT) leaves at its --outdir either the previous complete
# results or, when there were none, nothing. Folders a killed run leaves half-written
# beside it are removed by the next run to that --outdir; folders that are not Flynn's are
# never touched.
#   usage: kill_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
FLYNN="$1"
SRC="$2"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-kill.XXXXXX")"
trap '[[ -n "${KEEP:-}" ]] || rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
SCENARIO="$SRC/scenarios/simt/soak.json"
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "ok - $*"; }
sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }

# The previous results: a complete run without a timeline. The killed runs add one
# (--trace vcd,perfetto), so their outputs, had they been published, are told apart by trace.json
# (and by provenance.json, which records that command line).
"$FLYNN" run "$SCENARIO" --outdir k --trace vcd --quiet || fail "the first run failed"
cp -r k ref
same_as_previous() { diff -r --exclude=host.json ref k >/dev/null 2>&1; }
complete_new() { [[ -f k/.flynn-output && -f k/trace.json && ! -e k/.flynn-partial ]] &&
                 diff -r --exclude=host.json --exclude=trace.json --exclude=provenance.json --exclude=.flynn-output \
                   ref k >/dev/null 2>&1; }  # (the marker lists trace.json too)
# env --default-signal: a background job of a script starts with SIGINT ignored.
start() { env --default-signal=INT,TERM "$FLYNN" run "$SCENARIO" --outdir k --trace vcd,perfetto --quiet >/dev/null 2>&1 & pid=$!; }
t0=$(date +%s%N)
"$FLYNN" run "$SCENARIO" --outdir timing --trace vcd,perfetto --quiet || fail "the timing run failed"
T=$(( ($(date +%s%N) - t0) / 1000000 ))  # ms for one whole run
rm -rf timing

# 1. Killed while simulating, by each signal: the previous results stay as they were.
for sig in KILL TERM INT; do
  start
  sleep_ms $((T / 4))
  kill -s "$sig" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  same_as_previous || fail "SIG$sig while simulating changed the previous results"
done
pass "SIGKILL, SIGTERM and SIGINT during a run leave the previous results intact"

# 2. Killed while writing: as soon as the folder being written appears.
start
await_writing() {  # until the run is writing into $1.tmp-PID (marked .flynn-partial), or has ended
  while kill -0 "$pid" 2>/dev/null && [[ ! -f "$1.tmp-$pid/.flynn-partial" ]]; do :; done
}
await_writing k
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[[ -f "k.tmp-$pid/.flynn-partial" ]] || fail "the run ended before it could be caught writing its outputs"
same_as_previous || fail "SIGKILL while writing the outputs changed the previous results"
pass "SIGKILL while the outputs are written leaves the previous results intact"
stale="k.tmp-$pid"

# 3. Killed at evenly spread moments of a whole run: previous or new results, never a mix.
kept=0 replaced=0
for i in $(seq 0 11); do
  start
  ms=$(( T * i / 10 ))
  sleep_ms "$ms"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if same_as_previous; then kept=$((kept + 1))
  elif complete_new; then replaced=$((replaced + 1)); rm -rf k && cp -r ref k  # back to the previous results for the next round
  else fail "a run killed after ${ms} ms left k/ neither the previous nor the new complete results"; fi
done
pass "12 runs killed at moments spread over a whole run each left complete results ($kept the previous, $replaced the new)"

# 4. The next run removes what killed runs left half-written, and nothing that is not Flynn's.
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

# 5. A first run (no previous results) killed while writing leaves no output folder.
start_new() { env --default-signal=INT,TERM "$FLYNN" run "$SCENARIO" --outdir fresh --trace vcd,perfetto --quiet >/dev/null 2>&1 & pid=$!; }
start_new
await_writing fresh
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[[ -f "fresh.tmp-$pid/.flynn-partial" ]] || fail "the first run ended before it could be caught writing its outputs"
[[ ! -e fresh ]] || fail "a first run killed while writing left a fresh/ folder"
pass "a first run killed while writing leaves no output folder"
