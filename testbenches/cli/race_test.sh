#!/usr/bin/env bash
# Results land when they land: a kernel that reads an MMA's accumulators before the MMA's
# results are in the registers reads the old values, as on hardware, and fails its check;
# likewise a shared-memory read of a TMA copy's row before the row has landed, and a scalar
# load of a vector store's element before the element has reached memory.
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

# TMA rows land when they land: tma_copy's thread reads the first word of the box from
# shared memory and stores it to global memory, before (racy) or after its mbarrier.wait.
# Before, the row has not landed: the timed run stores the old word (zero), the golden
# interpreter (whose copies land at once) the tensor's, a mismatch; after, both agree.
TMA="$SRC/scenarios/gmma/tma_copy.json"
for when in before after; do
  python3 - "$SRC/scenarios/gmma/kernels/tma_copy.s" "$WORK/tma_$when.s" "$when" <<'PY'
import sys
src, out, when = sys.argv[1:4]
k = open(src).read().split("\n")
load = next(i for i, l in enumerate(k) if l.strip().startswith("tma.load"))
wait = next(i for i, l in enumerate(k) if l.strip().startswith("mbarrier.wait"))
read = ["        ld.shared.32 r9, [r5]", "        mov   r10, 20000", "        st.global.32 [r10], r9"]
at = load + 1 if when == "before" else wait + 1
k[at:at] = read
open(out, "w").write("\n".join(k))
PY
  "$FLYNN" run "$TMA" --quiet --no-hazard-check --set "workload.kernel=$WORK/tma_$when.s" --outdir "$WORK/tma_$when" \
    >"$WORK/tma_$when.log" 2>&1
  echo "rc=$?" >>"$WORK/tma_$when.log"
done
check "a shared read of a TMA row before its mbarrier.wait: $(grep -o 'mismatch: top.gmem: word at byte address 20000 is 0 [^,]*' "$WORK/tma_before.log" | head -c 100)" \
  "$(grep -c 'mismatch: top.gmem: word at byte address 20000 is 0 ' "$WORK/tma_before.log") == 1 and $(grep -c '^rc=1' "$WORK/tma_before.log") == 1"
check "the same read after the wait: $(tail -1 "$WORK/tma_after.log")" "$(grep -c '^rc=0' "$WORK/tma_after.log") == 1"

# Vector stores land element by element: a scalar load of the store's last element right
# after the vst reads the old word (the golden interpreter, in program order, the new one);
# behind a delay loop longer than the store it reads the new word.
VP="$SRC/testbenches/cli/programs/vector_store_then_scalar_load.s"
sed 's/^        ld    r4, C+392/        li    r1, 100\nwait:   dbnz  r1, wait\n        ld    r4, C+392/' "$VP" >"$WORK/vector_late.s"
for v in early:"$VP" late:"$WORK/vector_late.s"; do
  cat >"$WORK/vector_${v%%:*}.json" <<JSON
{"extends": "$SRC/scenarios/vector/cray_base.json", "name": "vector_${v%%:*}", "description": "race test",
 "workload": {"program": "${v#*:}", "init": [{"symbol": "A", "random": 50, "seed": 1, "min": 0, "max": 1000}]}}
JSON
  "$FLYNN" run "$WORK/vector_${v%%:*}.json" --quiet --outdir "$WORK/vector_${v%%:*}" >"$WORK/vector_${v%%:*}.log" 2>&1
  echo "rc=$?" >>"$WORK/vector_${v%%:*}.log"
done
check "a scalar load of a vector store's last element right after the vst: $(grep -o 'mismatch: top.mem: word at byte address 800 is 0 [^,]*' "$WORK/vector_early.log" | head -c 100)" \
  "$(grep -c 'mismatch: top.mem: word at byte address 800 is 0 ' "$WORK/vector_early.log") == 1"
check "the same load behind a delay loop: $(tail -1 "$WORK/vector_late.log")" "$(grep -c '^rc=0' "$WORK/vector_late.log") == 1"
sensitivity_end "race"
