#!/usr/bin/env bash
# Hazard reports: an access that the kernel's synchronisation does not order after a
# conflicting one fails the run (exit 1, result "hazard") whether or not the data happened to
# differ, and names both instructions and what is missing. Each case is a shipped kernel
# with one synchronisation removed or weakened; the kernel as shipped runs clean.
#  - h100_sm_gemm with wgmma.wait_group 1 -> 3: the consumer hands a ring stage back before
#    its wgmmas have read it; the producer's next tma.load overwrites it (write-after-read).
#    The data happen to agree at default rates (exit 0 with --no-hazard-check).
#  - h100_sm_gemm with the epilogue ahead of wgmma.wait_group 0: the stores read accumulators
#    the last wgmma-group has not written yet (read-after-write on a register).
#  - tma_copy without its mbarrier.wait: the tma.store reads the box before the tma.load's
#    phase was waited on; with a generic ld.shared instead, the same for a warp's load, and
#    so for a ld.shared right after the tma.load, its wait left in place.
#  - tma_copy with a st.shared into the store's source before tma.wait (write-after-read).
#  - gtx285_core's reduction without the bar.sync between its steps: warps read their
#    partners' slots while those warps write them.
#   usage: hazard_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/sensitivity_lib.sh"
sensitivity_setup hazard "$@"

# variant NAME BASE_SCENARIO KERNEL_COPY: a copy of BASE_SCENARIO running KERNEL_COPY.
variant() {
  python3 - "$2" "$3" "$WORK/$1.json" "$1" <<'PY'
import json, os, sys
base, kernel, out, name = sys.argv[1:5]
c = json.load(open(base))
c["extends"] = os.path.join(os.path.dirname(base), c["extends"])
c["name"] = name
c["workload"]["kernel"] = kernel
json.dump(c, open(out, "w"), indent=1)
PY
}
# edit SOURCE OUT PYTHON: OUT is SOURCE's lines after the Python statements (over `k`).
edit() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
src, out, code = sys.argv[1:4]
k = open(src).read().split("\n")
before = list(k)
exec(code)
assert k != before, "the edit changed nothing"
open(out, "w").write("\n".join(k))
PY
}
# expect_hazard TAG SCENARIO PATTERN...: exit 1, result "hazard", every PATTERN in the report.
expect_hazard() {
  local tag="$1" sc="$2"
  shift 2
  "$FLYNN" run "$sc" --quiet --outdir "$WORK/$tag" >"$WORK/$tag.log" 2>&1
  local rc=$?
  local result
  result=$(python3 -c "import json; print(json.load(open('$WORK/$tag/stats.json'))['result'])" 2>/dev/null)
  local ok=1
  for p in "$@"; do grep -qF -- "$p" "$WORK/$tag.log" || { ok=0; echo "     (no '$p' in the report)"; }; done
  check "$tag: exit $rc, result $result, $(grep -o 'hazard: [a-z-]* on [a-z]* [^ ]*' "$WORK/$tag.log" | head -1)" \
    "$rc == 1 and '$result' == 'hazard' and $ok == 1"
}
expect_clean() {
  "$FLYNN" run "$2" --quiet --outdir "$WORK/$1" >"$WORK/$1.log" 2>&1
  local rc=$?
  check "$1: exit $rc, no hazard" "$rc == 0 and $(grep -c hazard "$WORK/$1.log") == 0"
}

G="$SRC/scenarios/gmma"
GEMM_K="$G/kernels/gemm_tma_gmma.s"
edit "$GEMM_K" "$WORK/wg3.s" 'k = [l.replace("wgmma.wait_group 1 ", "wgmma.wait_group 3 ") for l in k]'
variant gemm_wait_group_3 "$G/h100_sm_gemm.json" "$WORK/wg3.s"
expect_hazard gemm_wait_group_3 "$WORK/gemm_wait_group_3.json" "write-after-read on shared word" \
  "a wgmma of warpgroup 0 reads it" "a tma.load of warp 4 writes it" "missing: a wgmma.wait_group" \
  "the functional checks passed"
"$FLYNN" run "$WORK/gemm_wait_group_3.json" --quiet --no-hazard-check --outdir "$WORK/wg3_off" >/dev/null 2>&1
rc=$?
check "gemm_wait_group_3 with --no-hazard-check: exit $rc (the data happen to agree)" "$rc == 0"

edit "$GEMM_K" "$WORK/epi.s" '
w = [i for i, l in enumerate(k) if l.strip() == "wgmma.wait_group 0"]
del k[w[0]]
last = max(i for i, l in enumerate(k) if l.strip().startswith("st.global"))
k.insert(last + 1, "        wgmma.wait_group 0")'
variant gemm_early_epilogue "$G/h100_sm_gemm.json" "$WORK/epi.s"
expect_hazard gemm_early_epilogue "$WORK/gemm_early_epilogue.json" "read-after-write on register r0 of warp" \
  "a wgmma of warpgroup 0 writes it" "reads it (line" "st.global.64 [r252+0], r0" "the functional check failed too"

TMA_K="$G/kernels/tma_copy.s"
# (the wait moves to the end: a block may not finish while copies into it are landing)
edit "$TMA_K" "$WORK/tma_nowait.s" '
i = next(i for i, l in enumerate(k) if l.strip().startswith("mbarrier.wait"))
wait = k.pop(i)
k.insert(next(i for i, l in enumerate(k) if l.strip() == "tma.wait") + 1, wait)'
variant tma_store_without_wait "$G/tma_copy.json" "$WORK/tma_nowait.s"
expect_hazard tma_store_without_wait "$WORK/tma_store_without_wait.json" "read-after-write on shared word" \
  "a tma.load of warp 0 writes it" "a tma.store of warp 0 reads it" "missing: an mbarrier.wait on the barrier at shared 0x4000 for the phase the copy completes on (phase 0"
edit "$TMA_K" "$WORK/tma_ld.s" '
i = next(i for i, l in enumerate(k) if l.strip().startswith("mbarrier.wait"))
wait = k[i]
k[i] = "        ld.shared.32 r9, [r5]"
k.insert(next(i for i, l in enumerate(k) if l.strip() == "tma.wait") + 1, wait)'
variant tma_load_read_early "$G/tma_copy.json" "$WORK/tma_ld.s"
expect_hazard tma_load_read_early "$WORK/tma_load_read_early.json" "read-after-write on shared word 0x400 " \
  "warp 0 reads it (line" "missing: an mbarrier.wait"
edit "$TMA_K" "$WORK/tma_read_first.s" '
i = next(i for i, l in enumerate(k) if l.strip().startswith("tma.load"))
k.insert(i + 1, "        ld.shared.32 r9, [r5]")'
variant tma_read_right_after_load "$G/tma_copy.json" "$WORK/tma_read_first.s"
expect_hazard tma_read_right_after_load "$WORK/tma_read_right_after_load.json" "read-after-write on shared word 0x400 " \
  "a tma.load of warp 0 writes it" "warp 0 reads it (line" "missing: an mbarrier.wait"
edit "$TMA_K" "$WORK/tma_reuse.s" '
i = next(i for i, l in enumerate(k) if l.strip().startswith("tma.store"))
k.insert(i + 1, "        st.shared.32 [r5+64], r1")'
variant tma_source_reused "$G/tma_copy.json" "$WORK/tma_reuse.s"
expect_hazard tma_source_reused "$WORK/tma_source_reused.json" "write-after-read on shared word 0x440 " \
  "a tma.store of warp 0 reads it" "warp 0 writes it" "missing: tma.wait"
h=$(python3 -c "import json; m = json.load(open('$WORK/tma_source_reused/stats.json'))['modules']['top.sm']; print(m['hazards'], m['hazard_pairs'])")
check "tma_source_reused: the statistics count one unordered access in one pair of instructions (hazards hazard_pairs: $h)" \
  "'$h' == '1 1'"

edit "$SRC/scenarios/simt/kernels/reduce.s" "$WORK/reduce_nosync.s" 'k = [l.replace("skip:   bar.sync", "skip:   nop") for l in k]'
variant reduce_without_bar_sync "$SRC/scenarios/simt/gtx285_core.json" "$WORK/reduce_nosync.s"
expect_hazard reduce_without_bar_sync "$WORK/reduce_without_bar_sync.json" "on shared word" "missing: a bar.sync"

expect_clean gemm_as_shipped "$G/h100_sm_gemm.json"
expect_clean tma_copy_as_shipped "$G/tma_copy.json"
expect_clean reduce_as_shipped "$SRC/scenarios/simt/gtx285_core.json"
sensitivity_end "hazard"
