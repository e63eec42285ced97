#!/usr/bin/env bash
# The everyday command line: per-command help, module listings (one type, text, Markdown,
# JSON), messages at the edges (--set, base platforms, negative numbers, directories),
# exact simulated time, and output folders (their root, and files Flynn did not write).
#
# usage: usability_test.sh FLYNN_BINARY SOURCE_DIR
set -u

source "$(dirname "$0")/lib.sh"
cli_test_setup usability-test "$@"
SHOWCASE="$SRC/scenarios/memory/showcase.json"
unset FLYNN_OUT

# --- help of every command ---
for cmd in run validate list sweep; do
  for h in --help -h; do
    flynn $cmd $h
    expect_rc 0
    stdout_has "usage: flynn $cmd"
    [[ ! -s "$WORK/.stderr" ]] || fail "$LAST: wrote to stderr"
  done
done
flynn run --help
for opt in --outdir --out-root --set --trace --max-cycles --check-protocol --log-level --quiet; do stdout_has "$opt"; done
flynn sweep --help
for opt in --outdir --out-root --jobs --slurm --sbatch --collect; do stdout_has "$opt"; done
pass "run, validate, list and sweep each answer --help and -h with their options, exit 0"

# --- listings ---
flynn list simt_core
expect_rc 0
stdout_has "simt_core - SIMT core"
grep -q "^banked_memory" "$WORK/.stdout" && fail "$LAST: lists other types"
for w in "Parameters" "Sockets and links" "Statistics" "Trace signals" warp_size "gmma" "gmma link" \
  warp_instructions idle_cycles_memory active_mask "TLM-2.0 base protocol"; do stdout_has "$w"; done
# Aligned: in each table, every row's second column starts where its heading's does.
python3 - "$WORK/.stdout" <<'PY' || fail "flynn list simt_core: columns are not aligned"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
heads = {"parameter": "type", "socket": "direction", "statistic": "kind", "signal": "bits"}
i = 0
tables = 0
while i < len(lines):
    words = lines[i].split()
    if words and words[0] in heads and len(words) > 1 and words[1] == heads[words[0]]:
        col = lines[i].index(" " + heads[words[0]]) + 1
        i += 1
        while i < len(lines) and lines[i].strip():
            row = lines[i]
            if row[col - 1] != " " or row[col] == " ":
                print("misaligned:", row); sys.exit(1)
            i += 1
        tables += 1
    i += 1
if tables != 4:
    print("expected 4 tables, found", tables); sys.exit(1)
PY
pass "list TYPE shows one type: parameters, sockets and links, statistics, trace signals, in aligned columns"

flynn list banked_memory --json
expect_rc 0
json_eval "$WORK/.stdout" "j['type']" | grep -qx banked_memory || fail "$LAST: type"
json_eval "$WORK/.stdout" "[s['direction'] for s in j['sockets']]" | grep -qF "['target']" || fail "$LAST: sockets"
json_eval "$WORK/.stdout" "[s['name'] for s in j['statistics']]" | grep -qF "'bank_conflicts'" || fail "$LAST: statistics"
json_eval "$WORK/.stdout" "[s['name'] for s in j['trace_signals']]" | grep -qF "'bank0_busy'" || fail "$LAST: signals"
cp "$WORK/.stdout" mem.json
flynn list banked_memory --markdown
expect_rc 0
stdout_has "| socket | direction | protocol | lanes |"
stdout_has "| statistic | kind | unit | description |"
stdout_has "| \`bank_conflicts\` | counter |"
# Every statistic of the JSON form is a row of the Markdown form (one is printed from the other).
for s in $(json_eval mem.json "' '.join(s['name'] for s in j['statistics'])"); do stdout_has "| \`$s\` |"; done
flynn list --json
expect_rc 0
[[ $(json_eval "$WORK/.stdout" "len(j)") -ge 13 ]] || fail "$LAST: fewer than 13 module types"
flynn list simt_corr
expect_rc 2
stderr_has "list: expected a module type"
stderr_has "did you mean 'simt_core'?"
stderr_has "found 'simt_corr'"
flynn list --json --markdown
expect_rc 2
pass "list TYPE --json and --markdown carry the same tables; an unknown type is named with a suggestion"

# --- messages and edges ---
flynn run "$SHOWCASE" --set modules.sm.max_warps=4
expect_rc 2
stderr_has "--set modules.sm.max_warps=4: modules.sm.type: expected a module type name"
[[ -e out ]] && fail "$LAST: left an output folder"
flynn run "$SRC/scenarios/simt/simt_base.json"
expect_rc 2
stderr_has "abstract: expected a scenario to run, found a base platform"
flynn validate "$SRC/scenarios/simt/simt_base.json"
expect_rc 0
stdout_has "a base platform"
mkdir -p sc
python3 - "$SRC/scenarios/simt/simt_base.json" sc/no_workload.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); del d["abstract"]; json.dump(d, open(sys.argv[2], "w"))
PY
flynn run sc/no_workload.json
expect_rc 2
stderr_has "sc/no_workload.json: workload: expected a workload for the programmable module sm"
# What extends a base is not a base itself.
printf '{"extends": "%s", "name": "derived"}\n' "$SRC/scenarios/simt/simt_base.json" >sc/derived.json
flynn validate sc/derived.json
expect_rc 2
stderr_has "workload: expected a workload for the programmable module sm"
pass "a --set that makes a module names the --set; a platform with a core and no workload is bad input unless abstract"

flynn run "$SHOWCASE" --max-cycles -1
expect_rc 2
stderr_has "--max-cycles: expected a non-negative integer, found '-1' (negative)"
flynn run "$SHOWCASE" --max-cycles=-5
expect_rc 2
stderr_has "(negative)"
flynn run "$SRC/scenarios"
expect_rc 2
stderr_has "expected a scenario file (JSON), found a directory"
flynn run "$WORK/none.json"
expect_rc 2
stderr_has "found nothing (no such file)"
pass "negative counts, a directory and a missing file as scenario are named as such"

# Simulated time exactly: a 0.546 ns clock (calibration_h800_l2: many cycles of it).
flynn run "$SRC/scenarios/gmma/calibration_h800_l2.json" --outdir t1
expect_rc 0
ps=$(json_eval t1/stats.json "j['sim_time_ps']")
cyc=$(json_eval t1/stats.json "j['cycles']")
[[ $ps -eq $((cyc * 546)) ]] || fail "sim_time_ps $ps, expected cycles x 546 = $((cyc * 546))"
ns=$(json_eval t1/stats.json "repr(j['sim_time_ns'])")
python3 -c "import sys; ps, ns = int(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if ns == ps / 1000 else 1)" "$ps" "$ns" ||
  fail "sim_time_ns $ns is not sim_time_ps / 1000 ($ps)"
whole=$((ps / 1000)); frac=$(printf '%03d' $((ps % 1000)) | sed 's/0*$//')
stdout_has "(${whole}${frac:+.$frac} ns simulated)"
pass "simulated time is exact: sim_time_ps = cycles x 546 ps ($ps), sim_time_ns = $ns, printed ${whole}${frac:+.$frac} ns"

# --- output folders ---
mkdir -p cwd && cd cwd
FLYNN_OUT="$WORK/root1" flynn run "$SHOWCASE"
expect_rc 0
[[ -f "$WORK/root1/showcase/stats.json" ]] || fail "FLYNN_OUT: no $WORK/root1/showcase/stats.json"
stdout_has "results: $WORK/root1/showcase/"
FLYNN_OUT="$WORK/root1" flynn run "$SHOWCASE" --out-root r2
expect_rc 0
[[ -f r2/showcase/stats.json ]] || fail "--out-root: no r2/showcase/stats.json"
stdout_has "results: $WORK/cwd/r2/showcase/"
[[ -e out ]] && fail "a run with a root set wrote into out/"
cd "$WORK"
pass "the output root is --out-root, else \$FLYNN_OUT, else out/, and the results folder is printed in full"

flynn run "$SHOWCASE" --outdir keep
expect_rc 0
echo "my notes" >keep/notes.txt
mkdir -p keep/plots && echo x >keep/plots/a.txt
flynn run "$SHOWCASE" --outdir keep
expect_rc 2
stderr_has "found notes.txt, plots/, plots/a.txt not written by Flynn"
[[ "$(cat keep/notes.txt)" == "my notes" && -f keep/plots/a.txt && -f keep/stats.json ]] || fail "$LAST: touched the folder"
rm -r keep/notes.txt keep/plots
flynn run "$SHOWCASE" --outdir keep
expect_rc 0
flynn run "$SHOWCASE" --outdir keep --trace vcd
expect_rc 0
flynn run "$SHOWCASE" --outdir keep
expect_rc 0
[[ -f keep/waves.vcd ]] && fail "a rerun kept a trace of the previous run"
pass "a rerun replaces what Flynn wrote and refuses a folder holding other files, naming them"

# --- debug output ---
DIV="$SRC/scenarios/simt/divergence.json"
flynn run "$DIV" --outdir quiet_run --quiet
expect_rc 0
[[ -s "$WORK/.stdout" ]] && fail "$LAST: printed without --debug"
flynn run "$DIV" --outdir dbg --quiet --debug Exec
expect_rc 0
issued=$(json_eval dbg/stats.json "j['modules']['top.sm']['warp_instructions']")
lines=$(grep -c ': top.sm: Exec: warp ' "$WORK/.stdout")
[[ $lines -eq $issued ]] || fail "$LAST: $lines Exec lines, expected one per warp instruction ($issued)"
grep -qE '^[0-9]+: top\.sm: Exec: warp [0-9]+ \(block [0-9]+\) pc [0-9]+ mask 0x[0-9a-f]+ [a-z]' "$WORK/.stdout" ||
  fail "$LAST: an Exec line lacks cycle, warp, block, pc, mask or instruction"
grep -q 'mask 0xffff ' "$WORK/.stdout" || fail "$LAST: no diverged (half-warp) issue in the divergence kernel"
cmp -s quiet_run/stats.json dbg/stats.json || fail "--debug changed stats.json"
pass "--debug Exec: one line per warp instruction ($lines) with cycle, warp, PC, mask and instruction; stats unchanged"

flynn run "$DIV" --outdir dbg --quiet --debug Exec,Barrier,Sched --debug-window 100:200
expect_rc 0
awk -F: '$1 < 100 || $1 >= 200 { bad = 1 } END { exit bad }' "$WORK/.stdout" || fail "$LAST: a line outside cycles 100..199"
grep -q ': Exec: ' "$WORK/.stdout" || fail "$LAST: no Exec line in the window"
flynn run "$SRC/scenarios/vector/daxpy.json" --outdir dbg --quiet --debug All --debug-modules mem
expect_rc 0
grep -q ': top.mem: Mem: port0 read 0x' "$WORK/.stdout" || fail "$LAST: no Mem line of top.mem"
grep -v ': top.mem: ' "$WORK/.stdout" | grep -q . && fail "$LAST: a line of another module"
flynn run "$SRC/scenarios/vector/daxpy.json" --outdir dbg --quiet --debug TLM,exec --debug-modules cpu
expect_rc 0
grep -qE ': top.cpu: TLM: mem read 0x[0-9a-f]+ 8 B: ok, issued [0-9]+, done [0-9]+ \(latency [0-9]+\)' "$WORK/.stdout" ||
  fail "$LAST: no TLM line with address, size, response and latency"
grep -q ': top.cpu: Exec: pc 0 (line ' "$WORK/.stdout" || fail "$LAST: no scalar Exec line"
flynn run "$SHOWCASE" --outdir dbg --quiet --debug TLM --set modules.gen.at=true --debug-window 0:20
expect_rc 0
for ph in BEGIN_REQ END_REQ BEGIN_RESP; do grep -q ": top.gen: TLM: out $ph request " "$WORK/.stdout" || fail "$LAST: no $ph line"; done
flynn run "$SRC/scenarios/simt/vecadd_1warp.json" --outdir dbg --quiet --debug Mem --debug-modules sm
expect_rc 0
stdout_has ": top.sm: Mem: warp 0 ld.global.32 r10, [r9]: 32 lanes of 4 B from 0x0, 1 transactions (coalesced)"
stdout_has ": top.sm: Mem: warp 0 ld.global.32 r10, [r9]: 32 lanes at 0x0 back"
flynn run "$SRC/scenarios/gmma/calibration_h100_sm.json" --outdir dbg --quiet --debug GMMA,TMA
expect_rc 0
stdout_has ": top.gmma: GMMA: wgmma m64n64k16 of warpgroup 0: warps arrived"
stdout_has ": top.tma: TMA: load 1: 8 rows of 128 B"
flynn run "$DIV" --debug Exce
expect_rc 2
stderr_has "--debug: expected debug flags (Exec, Mem, TLM, Sched, Barrier, GMMA, TMA, All); did you mean 'Exec'?, found 'Exce'"
flynn run "$DIV" --debug-window 1:2
expect_rc 2
stderr_has "expected --debug FLAGS with it"
flynn run --debug help
expect_rc 0
for f in Exec Mem TLM Sched GMMA TMA Barrier; do stdout_has "  $f "; done
pass "--debug-window, --debug-modules, the Mem, TLM, GMMA and TMA flags, and flag errors"

echo "all $checks checks passed"
