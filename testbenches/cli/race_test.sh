#!/usr/bin/env bash
# Results land when they land: a kernel that reads an MMA's accumulators before the MMA's
# results are in the registers reads the old values, as on hardware, and fails its check.
# h100_sm_gemm's kernel with its epilogue (the C stores of the accumulators) moved ahead of
# `wgmma.wait_group 0`, behind a short delay loop of N iterations (4, 16, 48): the stores issue before
# the last MMAs' D lands, so the run is a mismatch against the golden interpreter (exit 1)
# for every N tried (with the hazard checking off: it would name the race whatever the data;
# hazard_test.sh tests that). The kernel as shipped passes.
#   usage: race_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/sensitivity_lib.sh"
sensitivity_setup race "$@"
GEMM="$SRC/scenarios/gmma/h100_sm_gemm.json"

python3 - "$SRC/scenarios/gmma/kernels/gemm_tma_gmma.s" "$WORK" <<'PY'
import sys
src, work = sys.argv[1], sys.argv[2]
lines = open(src).read().split("\n")
wait = [i for i, l in enumerate(lines) if l.strip() == "wgmma.wait_group 0"]
assert len(wait) == 1, "one wgmma.wait_group 0 in the kernel"
del lines[wait[0]]
epi = next(i for i, l in enumerate(lines) if l.strip().startswith("; epilogue"))
last_store = max(i for i, l in enumerate(lines) if l.strip().startswith("st.global"))
for n in (4, 16, 48):
    k = list(lines)
    k.insert(last_store + 1, "        wgmma.wait_group 0")
    k[epi:epi] = ["        mov   r255, 0", "delay:  add   r255, r255, 1",
                  f"        setp.lt.s32 p7, r255, {n}", "   @p7  bra   delay"]
    open(f"{work}/racy_{n}.s", "w").write("\n".join(k))
PY

for iters in 4 16 48; do
  python3 - "$GEMM" "$WORK/racy_$iters.s" "$WORK/racy_$iters.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["extends"] = sys.argv[1].rsplit("/", 1)[0] + "/" + c["extends"]
c["name"] = "gemm_racy_epilogue"
c["workload"]["kernel"] = sys.argv[2]
json.dump(c, open(sys.argv[3], "w"), indent=1)
PY
  "$FLYNN" run "$WORK/racy_$iters.json" --quiet --no-hazard-check --outdir "$WORK/out_$iters" >"$WORK/racy_$iters.log" 2>&1
  rc=$?
  check "epilogue ahead of wgmma.wait_group 0, delay loop of $iters: exit $rc (1: a mismatch), $(grep -o 'mismatch: [^,]*' "$WORK/racy_$iters.log" | head -c 120)" \
    "$rc == 1 and $(grep -c 'mismatch' "$WORK/racy_$iters.log") >= 1"
done
"$FLYNN" run "$GEMM" --quiet --outdir "$WORK/shipped" >"$WORK/shipped.log" 2>&1
rc=$?
check "the kernel as shipped: exit $rc" "$rc == 0"
sensitivity_end "race"
