#!/usr/bin/env bash
# Sensitivity of the PTX kernels' figures (scenarios/ptx) to their parameters and data,
# checked from first principles:
#   1. the transpose's padding column: the 32 x 32 tile has 31 extra shared wavefronts per
#      column read (32 lanes on one bank), the 32 x 33 tile none, and on a core that issues a
#      warp per cycle the padded kernel is faster;
#   2. atomics are serialised by the memory: a histogram whose bytes are all equal (every lane
#      of a warp on one bin) does the same atomic operations as uniform bytes but takes longer,
#      its shared memory serving each lane of a warp atomic in a wavefront of its own;
#   3. vecadd's global-memory latency 200 -> 400: the run gets longer, by at most the extra
#      latency of each access a warp waits for, per round of resident blocks;
#   4. sgemm_tiled's registers decide its occupancy: a register file that holds one block of
#      26 registers x 256 threads instead of two halves the resident blocks and lengthens the run.
#   usage: ptx_sensitivity_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
FLYNN="$1"
SRC="$(cd "$2" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-ptx-sensitivity.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
P="$SRC/scenarios/ptx"
fail=0

n=0
. "$(dirname "$0")/sensitivity_lib.sh"

# 1. Padding.
run naive "$P/transpose_naive.json"
run padded "$P/transpose_padded.json"
check "naive transpose: 31 extra wavefronts per shared column read (512 warp reads)" \
  "$(stat naive top.smem.bank_conflicts) == 512 * 31"
check "padded transpose: no bank conflicts" "$(stat padded top.smem.bank_conflicts) == 0"
check "padded transpose is faster on a warp-per-cycle core" "$(stat padded cycles) < $(stat naive cycles)"

# 2. Atomics on one bin (on the base core with 32 lanes, a warp instruction per cycle: with
#    8 lanes the issue rate bounds the kernel and hides the shared memory).
cat > "$WORK/histogram_one_bin.json" <<JSON
{"extends": "$P/histogram.json", "name": "histogram_one_bin",
 "workload": {"init": [{"symbol": "data", "fill": 4096, "value": 0}]}}
JSON
run uniform "$P/histogram.json" --set modules.sm.lanes=32
run onebin "$WORK/histogram_one_bin.json" --set modules.sm.lanes=32
check "histogram: the same shared atomics either way" \
  "$(stat onebin top.smem.atomic_operations) == $(stat uniform top.smem.atomic_operations) == 16384"
# 512 warp atomics x 32 lanes one after another, plus 256 warp stores and loads of the bins
check "histogram: one bin, each lane of a warp atomic in a wavefront of its own" \
  "$(stat onebin top.smem.wavefronts) == 512 * 32 + 256"
check "histogram: uniform bytes need fewer shared wavefronts" \
  "$(stat uniform top.smem.wavefronts) < $(stat onebin top.smem.wavefronts)"
check "histogram: one bin takes longer than uniform bytes" "$(stat onebin cycles) > $(stat uniform cycles)"

# 3. Latency.
run lat200 "$P/vecadd.json"
run lat400 "$P/vecadd.json" --set modules.gmem.latency=400
c200=$(stat lat200 cycles)
c400=$(stat lat400 cycles)
check "vecadd: 200 more cycles of latency lengthen the run" "$c400 > $c200"
# 32 blocks of 8 warps, 4 resident at a time: 8 rounds; with one instruction in flight each
# warp waits for three accesses in turn (two loads, a store), each at most 200 cycles longer
check "vecadd: by at most 200 cycles x 3 accesses x 8 rounds" "0 < $c400 - $c200 <= 200 * 3 * 8"

# 4. Occupancy.
run rf64 "$P/sgemm_tiled.json"
run rf32 "$P/sgemm_tiled.json" --set modules.sm.register_file_bytes=32768
check "sgemm: 26 registers x 256 threads: two blocks in 64 KB, one in 32 KB" \
  "$(stat rf64 top.sm.resident_blocks_peak) == 2 and $(stat rf32 top.sm.resident_blocks_peak) == 1"
check "sgemm: one resident block is slower" "$(stat rf32 cycles) > $(stat rf64 cycles)"

[ $fail -eq 0 ] && echo "all PTX sensitivity checks hold"
exit $fail
