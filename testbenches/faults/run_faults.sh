#!/usr/bin/env bash
# Runs every entry of catalogue.txt: exit status 1 within the time limit, every expected
# fragment on stderr, and the report (or the golden-check mismatch) recorded in stats.json.
#   usage: run_faults.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
FLYNN="$1"
SRC="$(cd "$2" && pwd)"
HERE="$SRC/testbenches/faults"
# A case's time limit guards against a hang only: 250 times a reference run here (at least
# 120 s; the slowest case takes about 3 reference runs), or FLYNN_FAULT_LIMIT_S.
. "$SRC/testbenches/machine_scale.sh"
LIMIT_S="${FLYNN_FAULT_LIMIT_S:-$(scaled_limit "$FLYNN" "$SRC" 120 250)}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-faults.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# Programs made from shipped ones (@WORK@/NAME), so that they follow them. The racy ones are
# reported as hazards (the synchronisation they lack, docs/hazards.md) whatever the timing;
# the parameters below also make their data differ, which the report adds:
# - k_gemm_early_release.s: the GEMM with wgmma.wait_group 3 instead of 1 before the consumer
#   hands the previous ring stage back to the producer. A stage can then be refilled by TMA
#   while the wgmmas that read it are still queued in the GMMA unit; the unit reads its
#   operands at the cycles it models and the rows land at theirs, so when a refill lands
#   first the MMA computes with the next k-step's data and the result differs from the golden
#   interpreter's (which runs the program in order), as it would on hardware. (The catalogue
#   runs it with tensor cores a quarter as fast, 128 FMA per cycle: the queued MMAs then take
#   long enough that the refill, through the L2 and the crossbar, lands before they read.
#   The correct kernel with the same parameters is golden-checked in sensitivity_test.sh.)
sed 's/wgmma.wait_group 1 /wgmma.wait_group 3 /' "$SRC/scenarios/gmma/kernels/gemm_tma_gmma.s" \
  >"$WORK/k_gemm_early_release.s"
grep -q "wgmma.wait_group 3 " "$WORK/k_gemm_early_release.s" || { echo "FAIL the GEMM kernel's wait_group 1 was not found"; exit 1; }
# - k_tma_store_source_overwritten.s: tma_copy.s with a race: right after the tma.store the
#   thread overwrites the first word of the store's source in shared memory, before tma.wait.
#   The copy reads its rows from shared memory at their own cycles, after the overwrite has
#   landed, so global memory receives the new word; the golden interpreter, which copies at
#   the tma.store, has the old one.
sed 's/^\( *tma.store \[r5\], 1, r3\)$/\1\n        mov   r6, 12345\n        st.shared.32 [r5], r6/' \
  "$SRC/scenarios/gmma/kernels/tma_copy.s" >"$WORK/k_tma_store_source_overwritten.s"
grep -q "st.shared.32" "$WORK/k_tma_store_source_overwritten.s" || { echo "FAIL tma_copy.s's tma.store was not found"; exit 1; }
# - k_ptx_gemm_ws_no_full_wait.ptx: gemm_ws's PTX whose consumer warpgroups do not wait on
#   the full barriers (each mbarrier.try_wait.parity before the producer's setmaxnreg.dec
#   becomes a setp that sets `done`). Their wgmma then read the ring before the TMA rows have
#   landed: the timed run computes with stale shared memory, the golden PTX interpreter
#   (whose copies land at once, and whose producer thread runs first) does not. (With the
#   tensor cores a quarter as fast, as above, so that the block is still running when the
#   copies land; at full speed it ends first, and the report is the block-exit fault of
#   tma_block_exits_before_landing.)
sed '/setmaxnreg.dec/,$!s/^mbarrier\.try_wait\.parity\.shared::cta\.b64 done, \[%r[0-9]*\], \(%r[0-9]*\);$/setp.eq.u32 done, \1, \1;/' \
  "$SRC/workloads/cuda/ptx/gemm_ws.ptx" >"$WORK/k_ptx_gemm_ws_no_full_wait.ptx"
[ "$(grep -c 'setp.eq.u32 done' "$WORK/k_ptx_gemm_ws_no_full_wait.ptx")" = 3 ] ||
  { echo "FAIL gemm_ws.ptx's three consumer try_waits were not found"; exit 1; }
fail=0
n=0
while IFS='|' read -r name args fragments; do
  name="$(echo "$name" | xargs)"
  [[ -z "$name" || "$name" == \#* ]] && continue
  args="${args//@SRC@/$SRC}"
  args="${args//@CASES@/$HERE/cases}"
  args="${args//@WORK@/$WORK}"
  read -r -a argv <<<"$args"
  out="$WORK/out_$name"
  t0=$(date +%s)
  timeout "$LIMIT_S" "$FLYNN" run "${argv[@]}" --quiet --outdir "$out" >"$WORK/stdout" 2>"$WORK/stderr"
  rc=$?
  n=$((n + 1))
  if [[ $rc -eq 124 ]]; then
    echo "FAIL $name: still running after $LIMIT_S s (250 reference runs)"; fail=1; continue
  fi
  if [[ $rc -ne 1 ]]; then
    echo "FAIL $name: exit status $rc, expected 1 ($(head -c 400 "$WORK/stderr"))"; fail=1; continue
  fi
  missing=""
  while [[ -n "$fragments" ]]; do
    f="${fragments%%;;*}"
    [[ "$fragments" == *";;"* ]] && fragments="${fragments#*;;}" || fragments=""
    f="${f#"${f%%[![:space:]]*}"}"
    f="${f%"${f##*[![:space:]]}"}"
    [[ -z "$f" ]] && continue
    grep -qF -- "$f" "$WORK/stderr" || missing+=" '$f'"
  done
  if [[ -n "$missing" ]]; then
    echo "FAIL $name: stderr lacks$missing: $(head -c 600 "$WORK/stderr")"; fail=1; continue
  fi
  if ! grep -q '"result": "\(fault\|deadlock\|cycle_limit\|mismatch\|hazard\)"' "$out/stats.json" 2>/dev/null ||
     ! grep -q '"message": ' "$out/stats.json"; then
    echo "FAIL $name: stats.json does not record the fault and its report"; fail=1; continue
  fi
  echo "ok $name ($(( $(date +%s) - t0 )) s)"
done < "$HERE/catalogue.txt"
[[ $fail -eq 0 ]] && echo "all $n simulated faults reported with exit status 1"
exit $fail
