#!/usr/bin/env bash
# End-to-end tests of the flynn command: exit statuses, output folder contents,
# determinism, error reporting and output folder safety.
#
# usage: cli_test.sh FLYNN_BINARY SOURCE_DIR
# Works in a fresh temporary folder; prints one line per check and exits non-zero on the
# first failure.
set -u

source "$(dirname "$0")/lib.sh"
cli_test_setup cli-test "$@"
SHOWCASE="$SRC/scenarios/memory/showcase.json"
BASE="$SRC/scenarios/memory/base.json"
[[ -f "$SHOWCASE" ]] || { echo "FAIL: $SHOWCASE is missing" >&2; exit 1; }

no_tmp_leftovers() {
  local left
  left="$(find "$WORK" -name '*.tmp-*' -print)"
  [[ -z "$left" ]] || fail "temporary folders left behind: $left"
}

# --------------------------------------------------------------------------- basics

flynn --help
expect_rc 0
for word in run validate list; do stdout_has "$word"; done
pass "--help exits 0 and mentions run, validate and list"

flynn --version
expect_rc 0
stdout_has "flynn"
pass "--version exits 0"

flynn
expect_rc 2
pass "no arguments exit 2"

flynn frobnicate
expect_rc 2
stderr_has "frobnicate"
pass "an unknown command exits 2"

flynn run "$SHOWCASE" --no-such-option
expect_rc 2
pass "an unknown option exits 2"

flynn list
expect_rc 0
for word in banked_memory traffic_generator banks latency word_bytes streams; do stdout_has "$word"; done
pass "list exits 0 and shows module types and parameters"

flynn list --markdown
expect_rc 0
stdout_has "| parameter | type | default | unit | description |"
stdout_has "| --- | --- | --- | --- | --- |"
stdout_has "| \`banks\` |"
stdout_has "banked_memory"
grep -qE '^\| `latency` \| .* \|$' "$WORK/.stdout" || fail "$LAST: no Markdown table row for latency"
pass "list --markdown prints Markdown tables"

flynn validate "$SHOWCASE"
expect_rc 0
stdout_has "valid"
[[ ! -e out ]] || fail "validate wrote an output folder"
pass "validate showcase.json exits 0 and writes nothing"

flynn validate
expect_rc 2
pass "validate without a scenario exits 2"

# --------------------------------------------------------------------------- a traced run

flynn run "$SHOWCASE" --outdir out1 --trace vcd
expect_rc 0
for f in config.resolved.json stats.json stats.txt host.json waves.vcd waves.gtkw; do
  [[ -s out1/$f ]] || fail "run --trace vcd: out1/$f is missing or empty"
done
pass "run --outdir out1 --trace vcd exits 0 and writes all six files"

[[ "$(json_eval out1/stats.json 'type(j["cycles"]).__name__')" == int ]] ||
  fail "stats.json: \"cycles\" is not an integer"
[[ "$(json_eval out1/stats.json 'j["cycles"] > 0')" == True ]] || fail "stats.json: cycles is 0"
[[ "$(json_eval out1/stats.json 'type(j["sim_time_ns"]).__name__ in ("int", "float")')" == True ]] ||
  fail "stats.json: \"sim_time_ns\" is not a number"
[[ "$(json_eval out1/stats.json '"top.mem" in j["modules"] and "top.gen" in j["modules"]')" == True ]] ||
  fail "stats.json: modules lacks top.mem or top.gen"
[[ "$(json_eval out1/stats.json 'j["result"]')" == ok ]] || fail "stats.json: result is not ok"
pass "stats.json has integer cycles, sim_time_ns and modules.top.mem"

[[ "$(json_eval out1/config.resolved.json 'j["modules"]["mem"]["latency"]')" == 11 ]] ||
  fail "config.resolved.json: modules.mem.latency is not 11"
[[ "$(json_eval out1/config.resolved.json '"bank_busy" in j["modules"]["mem"]')" == True ]] ||
  fail "config.resolved.json: the default modules.mem.bank_busy is missing"
pass "config.resolved.json holds the resolved parameters, defaults included"

[[ -s out1/provenance.json ]] || fail "out1/provenance.json is missing"
python3 - out1/provenance.json out1/stats.json "$SHOWCASE" <<'EOF' || fail "out1/provenance.json is incomplete"
import json, os, sys
p, st = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
def h(path):  # FNV-1a 64
    x = 0xcbf29ce484222325
    for b in open(path, "rb").read():
        x = ((x ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % x
assert p["flynn_version"] and p["source_revision"], p
assert p["command_line"][:3] == ["flynn", "run", sys.argv[3]], p["command_line"]
assert p["sets"] == [], p["sets"]
roles = [i["role"] for i in p["inputs"]]
assert roles == ["scenario", "extends"], roles
for i in p["inputs"]:
    f = os.path.join(os.path.dirname(sys.argv[1]), i["file"])
    assert not i["file"].startswith("/"), i
    assert i["fnv1a64"] == h(f) and i["bytes"] == os.path.getsize(f), i
assert "fingerprint" not in st and "command_line" not in st
EOF
flynn run "$SRC/scenarios/simt/vecadd_1warp.json" --outdir prov_simt --set modules.sm.lanes=16 --quiet
expect_rc 0
[[ "$(json_eval prov_simt/provenance.json 'j["sets"]')" == "['modules.sm.lanes=16']" ]] || fail "$LAST: provenance.json lacks the --set"
[[ "$(json_eval prov_simt/config.resolved.json 'j["workload"]["kernel"]')" == inputs/vecadd.s ]] ||
  fail "$LAST: config.resolved.json does not name the copied kernel"
cmp -s prov_simt/inputs/vecadd.s "$SRC/scenarios/simt/kernels/vecadd.s" || fail "$LAST: inputs/vecadd.s is not the kernel"
(cd prov_simt && "$FLYNN" run config.resolved.json --outdir ../prov_simt_again --quiet) || fail "config.resolved.json did not run again"
cmp -s prov_simt/stats.json prov_simt_again/stats.json || fail "the run again from config.resolved.json gave other stats"
pass "provenance.json records version, command line, --set overrides and a hash of every input; config.resolved.json runs again"

grep -q '^\[dumpfile\]' out1/waves.gtkw || fail "waves.gtkw: no [dumpfile] line"
grep '^\[dumpfile\]' out1/waves.gtkw | grep -qE '^\[dumpfile\][[:space:]]+"?/' &&
  fail "waves.gtkw: the dumpfile is an absolute path"
grep -qF '/work' out1/waves.gtkw && fail "waves.gtkw mentions /work"
grep -qF "$WORK" out1/waves.gtkw && fail "waves.gtkw mentions the run folder $WORK"
grep -qF "$SRC" out1/waves.gtkw && fail "waves.gtkw mentions the source folder $SRC"
grep -q 'waves.vcd' out1/waves.gtkw || fail "waves.gtkw does not refer to waves.vcd"
grep -q '^\$enddefinitions' out1/waves.vcd || fail "waves.vcd has no \$enddefinitions"
pass "waves.gtkw refers to waves.vcd by a relative name"

# --------------------------------------------------------------------------- default folder

flynn run "$SHOWCASE" --quiet
expect_rc 0
[[ -s out/showcase/stats.json && -s out/showcase/config.resolved.json ]] ||
  fail "run without --outdir did not write out/showcase/ in the current folder"
[[ ! -e out/showcase/waves.vcd ]] || fail "run without --trace wrote waves.vcd"
pass "run without --outdir writes out/showcase/ relative to the current folder"

# --------------------------------------------------------------------------- determinism

flynn run "$SHOWCASE" --outdir out2 --trace vcd --quiet
expect_rc 0
for f in stats.json config.resolved.json stats.txt waves.vcd waves.gtkw; do
  cmp -s out1/$f out2/$f || fail "determinism: out1/$f and out2/$f differ"
done
for f in stats.json config.resolved.json stats.txt; do
  cmp -s out1/$f out/showcase/$f || fail "tracing changed $f (out1 vs out/showcase)"
done
pass "two runs give byte-identical stats.json, config.resolved.json, stats.txt, waves.vcd"

# --------------------------------------------------------------------------- bad input

cat >badkey.json <<'EOF'
{
  "name": "badkey",
  "modles": {},
  "modules": {
    "mem": {"type": "banked_memory", "size_bytes": 65536},
    "gen": {"type": "traffic_generator", "streams": [{"kind": "linear", "count": 4}]}
  },
  "bindings": [["gen.out", "mem.port0"]]
}
EOF
flynn run badkey.json --outdir badout
expect_rc 2
stderr_has "badkey.json"
stderr_has "modles"
stderr_has "did you mean 'modules'?"
[[ ! -e badout ]] || fail "a bad scenario left its --outdir behind"
no_tmp_leftovers
pass "a scenario with an unknown key exits 2, names file and path, writes nothing"

flynn run badkey.json
expect_rc 2
[[ ! -e out/badkey ]] || fail "a bad scenario wrote out/badkey"
no_tmp_leftovers
pass "a bad scenario without --outdir writes nothing either"

flynn validate badkey.json
expect_rc 2
stderr_has "badkey.json: modles: expected"
pass "validate of a bad scenario exits 2"

flynn run "$SHOWCASE" --outdir banks0 --set modules.mem.banks=0
expect_rc 2
stderr_has "modules.mem.banks"
stderr_has "--set modules.mem.banks=0"
[[ ! -e banks0 ]] || fail "--set modules.mem.banks=0 left its --outdir behind"
pass "--set modules.mem.banks=0 exits 2 naming modules.mem.banks"

flynn run "$SHOWCASE" --outdir badtrace --trace fst
expect_rc 2
stderr_has "--trace"
[[ ! -e badtrace ]] || fail "--trace fst left its --outdir behind"
pass "--trace with an unknown format exits 2"

printf '{\n  "name": "x",\n  }\n' >malformed.json
flynn validate malformed.json
expect_rc 2
stderr_has "malformed.json:3:3"
pass "malformed JSON exits 2 with FILE:LINE:COL"

flynn validate nothere.json
expect_rc 2
stderr_has "nothere.json"
pass "a missing scenario file exits 2 naming it"

# --------------------------------------------------------------------------- output folder safety

mkdir notflynn
echo "precious" >notflynn/file.txt
flynn run "$SHOWCASE" --outdir notflynn --quiet
expect_rc 2
stderr_has "notflynn"
[[ "$(ls -A notflynn)" == file.txt ]] || fail "the foreign folder's contents changed: $(ls -A notflynn)"
[[ "$(cat notflynn/file.txt)" == precious ]] || fail "notflynn/file.txt changed"
no_tmp_leftovers
pass "an --outdir that is not a Flynn output folder exits 2 and is left untouched"

echo "precious" >plainfile
flynn run "$SHOWCASE" --outdir plainfile --quiet
expect_rc 2
[[ -f plainfile && "$(cat plainfile)" == precious ]] || fail "the --outdir file changed"
pass "an --outdir that is an existing file exits 2 and is left untouched"

echo stale >out1/stale.txt
flynn run "$SHOWCASE" --outdir out1 --quiet
expect_rc 2
stderr_has "found stale.txt not written by Flynn"
[[ -f out1/stale.txt ]] || fail "rerunning into out1 removed a file Flynn did not write"
rm out1/stale.txt
flynn run "$SHOWCASE" --outdir out1 --quiet
expect_rc 0
[[ -s out1/stats.json ]] || fail "rerunning into out1: stats.json missing"
[[ ! -e out1/waves.vcd ]] || fail "rerunning into out1 without --trace kept the old waves.vcd"
no_tmp_leftovers
[[ -z "$(find "$WORK" -maxdepth 1 -name 'out1.*' -print)" ]] || fail "out1.* leftovers beside out1"
pass "rerunning into a previous Flynn output folder replaces it (and refuses while it holds a file Flynn did not write)"

# --------------------------------------------------------------------------- simulation failures

size="$(json_eval "$BASE" 'j["modules"]["mem"]["size_bytes"]')"
[[ "$size" == 65536 ]] || fail "base.json: modules.mem.size_bytes is $size, expected 65536"
beyond=1000000
hex="$(printf '0x%x' "$beyond")"
flynn run "$SHOWCASE" --outdir fault --set modules.gen.streams.0.base=$beyond --quiet
expect_rc 1
stderr_has "fault"
grep -qE -- "$hex|$beyond" "$WORK/.stderr" || fail "$LAST: stderr names neither $hex nor $beyond"
[[ "$(json_eval fault/stats.json 'j["result"]')" == fault ]] || fail "fault/stats.json: result is not fault"
pass "an access beyond the memory ($beyond > $size) exits 1 naming the address"

flynn run "$SHOWCASE" --outdir limit --max-cycles 10 --quiet
expect_rc 1
stderr_has "cycle limit"
[[ "$(json_eval limit/stats.json 'j["result"]')" == cycle_limit ]] ||
  fail "limit/stats.json: result is not cycle_limit"
pass "--max-cycles 10 exits 1 mentioning the cycle limit"

# --------------------------------------------------------------------------- float data

SAXPY="$SRC/scenarios/simt/saxpy.json"
flynn run "$SAXPY" --outdir saxpy
expect_rc 0
stdout_has "workload.expect[0]: 8 words as expected"
pass "a SIMT kernel with the binary32 parameter 2.5 over float images meets its float expectation"

flynn run "$SAXPY" --outdir mismatch_f32 --set 'workload.expect.0.floats=[3, 5.5, 8, 10.5, 12, 14.5, 17, 20.5]' --quiet
expect_rc 1
stderr_has "workload.expect[0]: element 7 (byte address 8220) is 19.5 (0x419c0000), expected 20.5 (0x41a40000)"
[[ "$(json_eval mismatch_f32/stats.json 'j["result"]')" == mismatch ]] || fail "mismatch_f32/stats.json: result is not mismatch"
pass "a failed float expectation prints both values as numbers with their bits (exit 1)"

flynn run "$SAXPY" --outdir mismatch_int --set 'workload.expect=[{"address": 8192, "values": [3]}]' --quiet
expect_rc 1
stderr_has "workload.expect[0]: element 0 (byte address 8192) is 1077936128 (0x40400000), expected 3 (0x3)"
pass "a failed integer expectation prints both values with their bits in hex (exit 1)"

GEMM="$SRC/scenarios/gmma/h100_sm_gemm.json"
flynn run "$GEMM" --outdir gemm_reference --quiet
expect_rc 0
grep -q 'C equals the host GEMM (512x512x512)' gemm_reference/stats.json || fail "gemm_reference/stats.json: no host GEMM check"
flynn run "$GEMM" --outdir gemm_reference_wrong --set workload.reference.gemm.b_transposed=false --quiet
expect_rc 1
stderr_has "the host GEMM reference: C[0][0] is 6.424004, the host GEMM gives 6.002201"
[[ "$(json_eval gemm_reference_wrong/stats.json 'j["result"]')" == mismatch ]] || fail "gemm_reference_wrong/stats.json: result is not mismatch"
pass "a SIMT GEMM is checked against a host GEMM of its input images as well as the golden interpreter; a wrong reference is a mismatch (exit 1)"

# --------------------------------------------------------------------------- LT vs AT

flynn run "$SHOWCASE" --outdir at --set modules.gen.at=true --quiet
expect_rc 0
[[ "$(json_eval at/config.resolved.json 'j["modules"]["gen"]["at"]')" == True ]] ||
  fail "at/config.resolved.json: modules.gen.at is not true"
python3 - out2/stats.json at/stats.json <<'EOF' || fail "LT and AT runs differ"
import json, sys
lt, at = (json.load(open(f)) for f in sys.argv[1:3])
ok = True
if lt["cycles"] != at["cycles"]:
    print("cycles: LT %s, AT %s" % (lt["cycles"], at["cycles"]), file=sys.stderr)
    ok = False
for k in sorted(set(lt["modules"]["top.mem"]) | set(at["modules"]["top.mem"])):
    a, b = lt["modules"]["top.mem"].get(k), at["modules"]["top.mem"].get(k)
    if a != b:
        print("top.mem.%s: LT %s, AT %s" % (k, a, b), file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
EOF
pass "the AT variant gives the same cycles and top.mem stats as LT"

no_tmp_leftovers
pass "no temporary folders left behind"

# --------------------------------------------------------------------------- GMMA SM faults
GEMM="$SRC/scenarios/gmma/h100_sm_gemm.json"
KER="$SRC/testbenches/cli/kernels"
flynn run "$GEMM" --set "workload.kernel=$KER/wgmma_bad_descriptor.s" --set workload.block=128 --out gmma_fault
expect_rc 1
stderr_has "PC 5 (line 8: wgmma.m64n64k16.f32.bf16 r0, r240, r242, 0): A descriptor"
stderr_has "expected to lie in the first 128-byte row of a 1024-byte-aligned 128B swizzle pattern"
pass "an invalid wgmma descriptor is a simulated fault naming the instruction and PC (exit 1)"

flynn run "$GEMM" --set "workload.kernel=$KER/wgmma_missing_warp.s" --set workload.block=128 --out gmma_fault
expect_rc 1
stderr_has "deadlock: block 0 warp 0 at PC 11 (line 14: wgmma.wait_group 0) waits for wgmma groups that never complete"
stderr_has "wgmma start barrier: warpgroup 0: warps 0, 1, 2 of 4 arrived"
pass "a warp of the warpgroup that never issues the wgmma gives a deadlock report naming the warps (exit 1)"

flynn run "$GEMM" --set "workload.kernel=$KER/mbarrier_never.s" --set workload.block=128 --out gmma_fault
expect_rc 1
stderr_has "waits on the mbarrier at shared 0x40 for the phase of parity 0, which never completes (phase 0: 1 of 2 arrivals"
pass "a wait on an mbarrier phase that never completes is reported (exit 1)"

flynn run "$GEMM" --set 'workload.tensor_maps=[{"global":0,"dims":[512,512],"strides":[1000],"box":[64,64]}]' --out gmma_bad_input
expect_rc 2
stderr_has "workload.tensor_maps[0]: expected a valid tensor descriptor, found strides[1] = 1000: expected a non-zero multiple of 16 bytes"
[[ ! -e gmma_bad_input ]] || fail "$LAST: left an output folder"
pass "an invalid tensor map in the scenario is bad input naming its JSON path (exit 2)"

flynn run "$GEMM" --set 'workload.tensor_maps=[{"global":0,"dims":[512,512],"strides":[1024],"box":[300,64]}]' --out gmma_fault
expect_rc 2
stderr_has "workload.tensor_maps[0].box[0]: expected 1 .. 256 elements, found 300"
pass "a tensor map box over 256 is bad input (exit 2)"

# --------------------------------------------------------------------------- calibration targets
CAL="$SRC/scenarios/gmma/calibration_h100_sm.json"
flynn run "$CAL" --out cal_ok
expect_rc 0
stdout_has "calibration: top.sm.shared_load_latency = 29, published 29 (+0.0%, tolerance 10.0%)"
stdout_has "calibration: top.sm.tma_round_trip = 362.328, published 367"
stdout_has "published 29 (+0.0%, tolerance 10.0%), a consistency check;"
stdout_has "published 367 (-1.3%, tolerance 10.0%), fitted;"
pass "the H100 SM preset reproduces its published latencies and prints model vs published, and whether each was fitted"

flynn run "$CAL" --set 'calibration=[{"stat":"top.sm.shared_load_latency","published":29}]' --out cal_nokind
expect_rc 2
stderr_has 'calibration[0].kind: expected "fitted", "consistency" or "predicted"'
pass "a calibration target must say whether its figure was fitted, restates a parameter, or is a prediction (exit 2)"

flynn run "$CAL" --set 'calibration=[{"stat":"top.sm.shared_load_latency","published":50,"tolerance":0.1,"kind":"predicted"}]' --out cal_off
expect_rc 1
stderr_has "top.sm.shared_load_latency = 29, published 50 (-42.0%, tolerance 10.0%), a prediction: outside the tolerance"
pass "a model figure outside a published figure's tolerance fails the run (exit 1)"

flynn run "$CAL" --set 'calibration=[{"stat":"top.sm.shared_load_latncy","published":50,"kind":"predicted"}]' --out cal_bad
expect_rc 2
stderr_has "calibration[0].stat: expected a statistic of the platform (module.stat, e.g. top.sm.ipc); did you mean 'top.sm.shared_load_latency'?"
[[ ! -e cal_bad ]] || fail "$LAST: left an output folder"
pass "an unknown statistic in a calibration target is bad input (exit 2)"

flynn run "$CAL" --trace vcd --out cal_trace
expect_rc 0
[[ -f cal_trace/waves.gmma.gtkw ]] || fail "$LAST: no waves.gmma.gtkw"
grep -q '^\[timestart\] [1-9]' cal_trace/waves.gmma.gtkw || fail "waves.gmma.gtkw does not start at the wgmma"
grep -q '^\*-[0-9.]* [0-9]* [0-9]* [0-9]* -1' cal_trace/waves.gmma.gtkw || fail "waves.gmma.gtkw has no markers A and B"
[[ "$(grep -m1 -n 'top.gmma' cal_trace/waves.gmma.gtkw | cut -d: -f1)" -lt "$(grep -m1 -n 'top.sm\.' cal_trace/waves.gmma.gtkw | cut -d: -f1)" ]] ||
  fail "waves.gmma.gtkw does not show the GMMA unit first"
for sig in "top.gmma.state" "top.gmma.mma_id" "top.gmma.b_column_group" "top.tc0.busy" "top.sm.mbar0_phase" "top.sm.mbar0_pending_bytes"; do
  grep -qF "$sig" cal_trace/waves.gmma.gtkw || fail "waves.gmma.gtkw lacks $sig"
done
pass "--trace vcd on the GMMA SM writes a view of one wgmma from start barrier to end signal"
# Between the view's markers A and B the GMMA unit's signals follow that wgmma alone
# (mma_id 1, although 16 are queued): state 1, 2, 3, 4 once each in order, 4 from marker B.
python3 - cal_trace/waves.vcd cal_trace/waves.gmma.gtkw <<'PY' || fail "waves.gmma.gtkw: the GMMA unit's state does not follow one wgmma from marker A to B"
import re, sys
t = open(sys.argv[1]).read()
a, b = map(int, re.search(r"^\*\S+ \d+ (\d+) (\d+) ", open(sys.argv[2]).read(), re.M).groups())
scope = re.search(r"\$scope module gmma \$end(.*?)\$upscope", t, re.S).group(1)
ids = dict((n, i) for i, n in re.findall(r"\$var wire \d+ (\S+) (\w+)", scope))
changes = {"state": [], "mma_id": []}
now = 0
for line in t[t.index("$enddefinitions"):].splitlines():
    if line.startswith("#"):
        now = int(line[1:])
    for name in changes:
        if line.startswith("b") and line.split()[1] == ids[name]:
            changes[name].append((now, int(line.split()[0][1:], 2)))
def at(name, when):
    return ([v for c, v in changes[name] if c <= when] or [0])[-1]
states = [at("state", a)] + [v for c, v in changes["state"] if a < c <= b]
assert at("state", a - 1) == 0 and states == [1, 2, 3, 4] and at("state", b) == 4, (a, b, states)
assert at("mma_id", a) == 1 and not [c for c, v in changes["mma_id"] if a < c <= b], changes["mma_id"][:4]
assert max(v for c, v in changes["mma_id"]) == 16 and at("state", b + 1000) != 4
PY
pass "the GMMA view's state steps once through start barrier, operand fetch, math and end between markers A and B"
for view in waves.gtkw waves.gmma.gtkw; do
  [[ "$(grep -B1 -x 'top.sm.active_mask\[31:0\]' "cal_trace/$view" | head -n 1)" == "@22" ]] ||
    fail "cal_trace/$view: top.sm.active_mask is not shown in hex (@22)"
  [[ "$(grep -B1 -x 'top.sm.active_lanes\[7:0\]' "cal_trace/$view" | head -n 1)" == "@24" ]] ||
    fail "cal_trace/$view: top.sm.active_lanes is not shown in decimal (@24)"
done
pass "the GTKWave views show active_mask in hex and counts in decimal"
# The sub-partition register files' banks and crossbar, busy while the MMAs' accumulators
# cross them: each signal rises and falls.
python3 - cal_trace/waves.vcd <<'PY' || fail "the register file's bank and crossbar signals do not toggle in waves.vcd"
import re, sys
t = open(sys.argv[1]).read()
scope = re.search(r"\$scope module rf0 \$end(.*?)\$upscope", t, re.S).group(1)
ids = dict((n, i) for i, n in re.findall(r"\$var wire 1 (\S+) (\w+) \$end", scope))
body = t[t.index("$enddefinitions"):]
for name in ("bank0_busy", "crossbar_busy"):
    i = ids[name]
    ones = len(re.findall(r"^1" + re.escape(i) + r"$", body, re.M))
    zeros = len(re.findall(r"^0" + re.escape(i) + r"$", body, re.M))
    assert ones > 0 and zeros > 1, (name, ones, zeros)
PY
pass "--trace vcd shows the register files' banks and crossbar busy"
flynn run "$SRC/scenarios/memory/stride1_8banks.json" --trace vcd --out tg_trace
expect_rc 0
python3 - tg_trace/waves.vcd <<'PY' || fail "the traffic generator's requests_in_flight does not rise and fall in waves.vcd"
import re, sys
t = open(sys.argv[1]).read()
i = re.search(r"\$var wire 16 (\S+) requests_in_flight", t).group(1)
body = t[t.index("$enddefinitions"):]
vals = [int(v, 2) for v in re.findall(r"^b([01]+) " + re.escape(i) + r"$", body, re.M)]
assert max(vals) > 1 and vals[-1] == 0, vals[:20]
PY
pass "--trace vcd shows the traffic generator's requests in flight"

# --------------------------------------------------------------------------- sweeps and plots
flynn sweep "$SRC/sweeps/vector_banks.json" --outdir sw --jobs 2
expect_rc 0
stdout_has "sweep vector_banks: 7 points, 7 ok, 0 failed, 0 not run"
[[ "$(wc -l < sw/results.csv)" -eq 8 ]] || fail "sw/results.csv: expected a header and 7 rows"
grep -q '^0,points/0000_banks-1,1,ok,569,' sw/results.csv || fail "sw/results.csv: 1 bank should take 569 cycles"
grep -q '^4,points/0004_banks-16,16,ok,79,' sw/results.csv || fail "sw/results.csv: 16 banks should take 79 cycles"
[[ "$(json_eval sw/results.json 'len(j["rows"])')" == 7 ]] || fail "sw/results.json: expected 7 rows"
pass "flynn sweep runs every point in its own folder and writes one table"

cp sw/points/0003_banks-8/stats.json kept.json
touch -d '2000-01-01' sw/points/0003_banks-8/stats.json
rm -rf sw/points/0005_banks-32
flynn sweep "$SRC/sweeps/vector_banks.json" --outdir sw
expect_rc 0
[[ -f sw/points/0005_banks-32/stats.json ]] || fail "the removed point was not run again"
[[ "$(stat -c %Y sw/points/0003_banks-8/stats.json)" == "$(date -d '2000-01-01' +%s)" ]] || fail "a finished point was run again"
cmp -s kept.json sw/points/0003_banks-8/stats.json || fail "a finished point changed"
pass "a sweep run again keeps finished points and runs only the missing ones"

# A sweep killed while writing its table leaves results.csv.tmp-PID; the next one removes
# it when that process is gone.
echo partial > sw/results.csv.tmp-999999999
echo partial > sw/results.json.tmp-999999998
flynn sweep "$SRC/sweeps/vector_banks.json" --outdir sw --collect
expect_rc 0
stdout_has "7 ok"
[[ -z "$(ls sw | grep tmp-)" ]] || fail "temporary files of a killed sweep were left: $(ls sw | grep tmp-)"
pass "flynn sweep --collect rebuilds the table from the point folders and removes a killed sweep's temporary files"

# A kernel named by an axis is relative to the sweep file, whatever the current directory.
mkdir -p rel_sweep/k
cp "$SRC/scenarios/simt/kernels/vecadd.s" rel_sweep/k/vecadd_copy.s
printf '{"base": "%s", "axes": [{"path": "workload.kernel", "values": ["k/vecadd_copy.s"]}]}' \
  "$SRC/scenarios/simt/vecadd_1warp.json" > rel_sweep/s.json
(cd "$SRC" && "$FLYNN" sweep "$OLDPWD/rel_sweep/s.json" --outdir "$OLDPWD/rel_out" >/dev/null 2>&1)
grep -q '^0,.*,ok,' rel_out/results.csv 2>/dev/null || fail "a sweep's relative kernel path was not taken relative to the sweep file"
pass "a relative kernel in a sweep's axis is relative to the sweep file"

# bad_sweep JSON MESSAGE: a sweep file over the vector machine (its "base" filled in) is bad
# input with MESSAGE on stderr, and leaves no output folder.
bad_sweep() {
  printf "$1" "$SRC/scenarios/vector/average_vector.json" > bad_sweep.json
  flynn sweep bad_sweep.json --outdir sw_bad
  expect_rc 2
  stderr_has "$2"
  [[ ! -e sw_bad ]] || fail "$LAST: left an output folder"
}
bad_sweep '{"base": "%s", "axes": [{"path": "modules.mem.bankz", "values": [1, 2]}]}' \
  "modules.mem.bankz: expected a parameter of this module (did you mean 'banks'?)"
bad_sweep '{"base": "%s", "mode": "zip", "axes": [{"path": "modules.mem.banks", "values": [1, 2]}, {"path": "modules.mem.latency", "values": [3]}]}' \
  "axes[1].values: expected 2 values (zip: as many as axes[0]), found 1 values"
bad_sweep '{"base": "%s", "mode": 1, "axes": [{"path": "modules.mem.banks", "values": [1, 2]}]}' \
  'mode: expected "grid" (every combination) or "zip" (lists in step), found the number 1'
pass "a bad sweep file is bad input naming the JSON path (exit 2)"

# A sweep over copies of the vector machine's files, changed between runs.
mkdir -p st/sc/programs
cp "$SRC/scenarios/vector/average_vector.json" "$SRC/scenarios/vector/cray_base.json" st/sc/
cp "$SRC/scenarios/vector/programs/average_vector.s" st/sc/programs/
printf '{"name": "st", "base": "sc/average_vector.json", "axes": [{"path": "modules.mem.banks", "values": [4, 8]}], "metrics": ["top.mem.bank_conflicts"]}\n' >st/sweep.json
mtimes() { stat -c '%n %Y' st/out/points/*/stats.json; }
flynn sweep st/sweep.json --outdir st/out
expect_rc 0
touch -d '2000-01-01' st/out/points/*/stats.json
flynn sweep st/sweep.json --outdir st/out
expect_rc 0
[[ -z "$(mtimes | grep -v ' 946684800$')" ]] || fail "$LAST: points ran again with nothing changed: $(mtimes)"
printf '{"name": "st", "base": "sc/average_vector.json", "axes": [{"path": "modules.mem.banks", "values": [4, 8, 16]}], "metrics": ["top.mem.bank_conflicts"]}\n' >st/sweep.json
flynn sweep st/sweep.json --outdir st/out
expect_rc 0
stdout_has "3 points, 3 ok"
[[ -z "$(mtimes | grep -v 0002_banks-16 | grep -v ' 946684800$')" ]] || fail "$LAST: a new axis value ran other points again"
echo "; a comment changes the program file, not the program" >>st/sc/programs/average_vector.s
flynn sweep st/sweep.json --outdir st/out
expect_rc 0
[[ -z "$(mtimes | grep ' 946684800$')" ]] || fail "$LAST: a changed program file did not run every point again: $(mtimes)"
touch -d '2000-01-01' st/out/points/*/stats.json
sed -i 's/"latency": 11/"latency": 12/' st/sc/cray_base.json
grep -q '"latency": 12' st/sc/cray_base.json || fail "the test could not change cray_base.json"
flynn sweep st/sweep.json --outdir st/out --collect
expect_rc 1
stdout_has "3 stale"
grep -q '^0,points/0000_banks-4,4,stale,.*earlier configuration or earlier input files' st/out/results.csv ||
  fail "$LAST: the table does not mark stale points: $(head -3 st/out/results.csv)"
flynn sweep st/sweep.json --outdir st/out
expect_rc 0
[[ -z "$(mtimes | grep ' 946684800$')" ]] || fail "$LAST: a changed base file did not run every point again: $(mtimes)"
[[ "$(json_eval st/out/points/0000_banks-4/config.resolved.json 'j["modules"]["mem"]["latency"]')" == 12 ]] ||
  fail "$LAST: the point did not take the changed base file"
pass "a sweep reuses a point only while its configuration and every file it reads are unchanged"

printf '{"name": "st", "base": "sc/average_vector.json", "axes": [{"path": "modules.mem.banks", "values": [4]}], "metrics": ["top.mem.bank_conflict"]}\n' >st/typo.json
flynn sweep st/typo.json --outdir st/typo
expect_rc 2
stderr_has "st/typo.json: metrics[0]: expected a statistic the points write"
stderr_has "did you mean 'top.mem.bank_conflicts'?"
stderr_has "found 'top.mem.bank_conflict', which no point has"
[[ ! -e st/typo ]] || fail "$LAST: a sweep with a misspelled metric wrote its folder"
printf '{"name": "st", "base": "sc/average_vector.json", "axes": [{"path": "modules.mem.banks", "values": [4, 8, 0]}]}\n' >st/zero.json
flynn sweep st/zero.json --outdir st/zero
expect_rc 2
stderr_has "st/zero.json: point 0002_banks-0 (axes[0] modules.mem.banks=0): --set modules.mem.banks=0: modules.mem.banks: expected"
[[ ! -e st/zero ]] || fail "$LAST: a sweep with an invalid point ran or wrote something"
pass "a misspelled metric and an invalid point are bad input before anything runs (exit 2)"

# A point that hits its cycle limit and one whose run cannot write its folder: both in the
# table with their status and message.
printf '{"name": "st", "base": "sc/average_vector.json", "axes": [{"path": "max_cycles", "values": [0, 50, 60]}]}\n' >st/limit.json
mkdir -p st/limit/points
echo '{}' >st/limit/sweep.json
echo 'not a folder' >st/limit/points/0002_max_cycles-60
flynn sweep st/limit.json --outdir st/limit
expect_rc 1
stdout_has "3 points, 1 ok, 2 failed"
grep -q '^0,points/0000_max_cycles-0,0,ok,' st/limit/results.csv || fail "$LAST: point 0 is not ok"
grep -q '^1,points/0001_max_cycles-50,50,cycle_limit,50,.*,"cycle limit of 50 reached' st/limit/results.csv ||
  fail "$LAST: the cycle-limited point lacks its status or message: $(sed -n 3p st/limit/results.csv)"
grep -q '^2,points/0002_max_cycles-60,60,failed,.*exit status 2: flynn: error: --outdir' st/limit/results.csv ||
  fail "$LAST: the point without results lacks its message: $(sed -n 4p st/limit/results.csv)"
[[ "$(json_eval st/limit/results.json 'j["rows"][1]["message"][:20]')" == "cycle limit of 50 re" ]] ||
  fail "results.json: no message for the cycle-limited point"
pass "the sweep table carries each point's status and failure message"

"$SRC/scripts/plot" sw/results.csv --x modules.mem.banks --y cycles --logx --out banks.png >/dev/null ||
  fail "scripts/plot failed"
[[ "$(head -c 8 banks.png | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]] || fail "banks.png is not a PNG"
pass "scripts/plot turns the sweep table into a PNG chart"

# --------------------------------------------------------------------------- progress and logs
flynn run "$SRC/scenarios/simt/vecadd_warps.json" --outdir prog_quiet
expect_rc 0
[[ ! -s "$WORK/.stderr" ]] || fail "$LAST: wrote to stderr although it is not a terminal"
# (script, from util-linux's bsdutils, gives the run a terminal; Debian always has it.)
command -v script >/dev/null || fail "the progress check needs the script command (bsdutils), which is missing"
if command -v script >/dev/null; then
  FLYNN_PROGRESS_AFTER=0 script -qec "$FLYNN run $SRC/scenarios/simt/vecadd_warps.json --outdir prog_tty" /dev/null \
    > tty.out 2>&1 || fail "the run on a terminal failed"
  grep -q "flynn: vecadd_warps: [0-9]* cycles simulated, [0-9]* cycles/s" tty.out ||
    fail "no progress line on a terminal: $(head -c 300 tty.out)"
  cmp -s prog_quiet/stats.json prog_tty/stats.json || fail "a run showing progress gave different stats"
  pass "progress shows on a terminal only, and does not change the results"
fi

flynn run "$CAL" --log-level top.gmma=high --log-level tma=high --outdir cal_log
expect_rc 0
stdout_has "flynn/log: top.gmma: wgmma m64n64k16 of warpgroup 0: warps arrived"
stdout_has "flynn/log: top.tma: load of 1024 bytes"
grep -q "flynn/log: top.sm" "$WORK/.stdout" && fail "$LAST: top.sm logged although only top.gmma and top.tma were raised"
flynn run "$CAL" --log-level debug --outdir cal_log2
expect_rc 0
stdout_has "flynn/log: top.sm: block 0 launched"
flynn run "$CAL" --log-level top.gmmx=high --outdir cal_log3
expect_rc 2
stderr_has "--log-level top.gmmx=high: expected a module instance (did you mean 'top.gmma'?)"
pass "--log-level sets the log verbosity globally and per module instance"

# --------------------------------------------------------------------------- timelines
flynn run "$CAL" --trace perfetto --outdir cal_timeline
expect_rc 0
[[ -f cal_timeline/trace.json && ! -e cal_timeline/waves.vcd ]] || fail "$LAST: expected trace.json only"
python3 "$SRC/testbenches/cli/perfetto_check.py" cal_timeline/trace.json "warp slot" gmma.start_barrier gmma.operands \
  gmma.math tma.load port0 || fail "cal_timeline/trace.json is not a valid timeline"
flynn run "$SRC/scenarios/vector/daxpy.json" --trace vcd,perfetto --outdir daxpy_both
expect_rc 0
[[ -f daxpy_both/trace.json && -f daxpy_both/waves.vcd ]] || fail "$LAST: expected trace.json and waves.vcd"
python3 "$SRC/testbenches/cli/perfetto_check.py" daxpy_both/trace.json port0 || fail "daxpy_both/trace.json is not a valid timeline"
flynn run "$CAL" --trace perfetto --outdir cal_timeline2
expect_rc 0
cmp -s cal_timeline/trace.json cal_timeline2/trace.json || fail "two runs gave different timelines"
flynn run "$CAL" --trace json --outdir cal_bad_trace
expect_rc 2
stderr_has "--trace: expected \"vcd\", \"perfetto\" or \"vcd,perfetto\", found \"json\""
pass "--trace perfetto writes a trace-event timeline: warps, GMMA phases, TMA copies, memory transactions"

# --------------------------------------------------------------------------- cycle limit
# A run stopped by the cycle limit reports the limit as its cycle count, also when the
# LT generator's next synchronisation (its quantum, 1000 cycles) lies beyond it.
[[ "$(json_eval limit/stats.json 'j["cycles"]')" == 10 ]] ||
  fail "limit/stats.json: cycles is $(json_eval limit/stats.json 'j["cycles"]') after --max-cycles 10, expected 10"
pass "a run stopped by --max-cycles 10 reports 10 cycles"

echo "all $checks checks passed"
