#!/usr/bin/env bash
# Traces of long runs: h100_sm_gemm with full tracing (VCD and timeline) stays under a
# memory bound (the writers spill sorted runs to disk), and a trace window with a module
# pattern gives the full trace's events inside the window, for those modules only.
#
# usage: trace_test.sh FLYNN_BINARY SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
cli_test_setup trace-test "$@"

# Peak memory of a run (the child's maximum resident set, MB).
peak_mb() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
if r.returncode:
    sys.stderr.write(r.stderr); sys.exit(1)
print(f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.1f}")
PY
}

GEMM="$SRC/scenarios/gmma/h100_sm_gemm.json"
untraced=$(peak_mb "$FLYNN" run "$GEMM" --outdir plain --quiet) || fail "h100_sm_gemm did not run"
traced=$(peak_mb "$FLYNN" run "$GEMM" --outdir full --quiet --trace vcd,perfetto) || fail "h100_sm_gemm traced did not run"
vcd_mb=$(( $(stat -c %s full/waves.vcd) / 1048576 )); json_mb=$(( $(stat -c %s full/trace.json) / 1048576 ))
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 200 else 1)" "$traced" ||
  fail "h100_sm_gemm with --trace vcd,perfetto peaked at $traced MB, expected under 200 MB"
[[ $json_mb -gt 200 ]] || fail "trace.json is $json_mb MB: expected a trace far larger than the memory bound"
pass "h100_sm_gemm: $traced MB peak with full tracing ($json_mb MB trace.json, $vcd_mb MB waves.vcd), $untraced MB without"
rm -rf full plain

CAL="$SRC/scenarios/gmma/calibration_h100_sm.json"
"$FLYNN" run "$CAL" --outdir all --quiet --trace vcd,perfetto || fail "calibration_h100_sm traced did not run"
"$FLYNN" run "$CAL" --outdir win --quiet --trace vcd,perfetto --trace-window 500:800 --trace-modules sm,top.gmma ||
  fail "the windowed run failed"
python3 - all win <<'PY' || fail "the windowed trace differs from the full trace's window"
import json, sys
clock_ps, start, end = 546, 500 * 546, 800 * 546   # h100_sm.json's clock: 0.546 ns
def events(d):
    return json.load(open(d + "/trace.json"))["traceEvents"]
def procs(ev):
    return {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
full, win = events(sys.argv[1]), events(sys.argv[2])
fp, wp = procs(full), procs(win)
assert sorted(wp.values()) == ["top.gmma", "top.sm"], wp
ps = lambda e: round(e["ts"] * 1e6)
assert all(start <= ps(e) < end for e in win if "ts" in e), "an event outside the window"
# Every complete slice of the two modules inside the window is in the windowed trace.
key = lambda e, p: (p[e["pid"]], e["name"], e["ts"], e["dur"])
inside = {key(e, fp) for e in full if e["ph"] == "X" and fp[e["pid"]] in wp.values()
          and ps(e) >= start and ps(e) + round(e["dur"] * 1e6) <= end}
got = {key(e, wp) for e in win if e["ph"] == "X"}
assert inside and inside <= got, (len(inside), len(inside - got))
print(f"{len(got)} slices in the window, {len(inside)} of them whole in the full trace")
PY
# The VCD: each signal of the windowed file starts with the value it has at cycle 500 in
# the full file.
python3 - all/waves.vcd win/waves.vcd <<'PY' || fail "windowed VCD values at the window's start"
import sys
def parse(path):
    codes, vals, t = {}, {}, 0
    changes = []
    for line in open(path):
        w = line.split()
        if not w: continue
        if w[0] == "$var": codes[w[3]] = w[4]
        elif w[0].startswith("#"): t = int(w[0][1:])
        elif w[0].startswith("b"): changes.append((t, codes[w[1]], int(w[0][1:], 2)))
        elif w[0][0] in "01" and len(w) == 1: changes.append((t, codes[w[0][1:]], int(w[0][0])))
    return changes
def value_at(changes, name, t):
    v = 0
    for (ct, n, x) in changes:
        if n == name and ct <= t: v = x
    return v
full, win = parse(sys.argv[1]), parse(sys.argv[2])
start = 500 * 546
names = {n for (_, n, _) in win}
assert names, "no signal in the windowed VCD"
for n in names:
    assert value_at(win, n, start) == value_at(full, n, start), n
print(f"{len(names)} signals start with their values at cycle 500")
PY
pass "--trace-window 500:800 --trace-modules sm,top.gmma: the full trace's events in the window, for those modules"

"$FLYNN" run "$CAL" --outdir bad --quiet --trace vcd --trace-window 800:500 2>err; rc=$?
[[ $rc -eq 2 ]] && grep -q "expected END after START" err || fail "--trace-window 800:500: exit $rc, $(cat err)"
"$FLYNN" run "$CAL" --outdir bad --quiet --trace vcd --trace-modules nothing 2>err; rc=$?
[[ $rc -eq 2 ]] && grep -q "expected a pattern matching a module" err || fail "--trace-modules nothing: exit $rc"
"$FLYNN" run "$CAL" --outdir bad --quiet --trace-window 5:10 2>err; rc=$?
[[ $rc -eq 2 ]] && grep -q "found no --trace" err || fail "--trace-window without --trace: exit $rc"
[[ -e bad ]] && fail "a bad trace option left an output folder"
pass "a reversed window, a pattern matching nothing and a window without --trace are bad input"
echo "all $checks checks passed"
