#!/usr/bin/env bash
# TMA copies stream and the unit's issue cost is an occupancy, on the H100-style SM:
#  - an 8 KB store (64 rows of 128 B) costs about one round trip through the hierarchy plus
#    its rows at the issue rate, not a round trip per row: the crossbar's latency 80 -> 160
#    adds about 2 x 80 cycles (one round trip), and 32 -> 64 rows add about 32 issue slots;
#  - 16 back-to-back copies of one 16-byte row each are issue-bound: 40 more cycles of
#    per-copy issue cost add 16 x 40 cycles.
#   usage: tma_stream_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/sensitivity_lib.sh"
sensitivity_setup tma-stream "$@"
K="$SRC/testbenches/cli/kernels"

scenario() {  # scenario NAME KERNEL BOX0 BOX1 (elements per row, rows)
  cat >"$WORK/$1.json" <<JSON
{
  "extends": "$SRC/scenarios/gmma/h100_sm.json",
  "name": "$1",
  "description": "TMA streaming test",
  "workload": {
    "kernel": "$2",
    "core": "sm",
    "memory": "gmem",
    "block": 32,
    "shared_bytes": 16392,
    "tensor_maps": [
      {"global": 0, "element_bytes": 2, "dims": [64, 64], "strides": [128], "box": [$3, $4]}
    ]
  }
}
JSON
}

scenario store64 "$K/tma_store_8k.s" 64 64
scenario store32 "$K/tma_store_8k.s" 64 32
scenario small "$K/tma_small_copies.s" 8 1
run s64 "$WORK/store64.json"
run s32 "$WORK/store32.json"
run s64lat "$WORK/store64.json" --set modules.xbar.latency=160
run small "$WORK/small.json"
run small80 "$WORK/small.json" --set modules.tma.issue_latency=80

a=$(stat s64 cycles) b=$(stat s64lat cycles) h=$(stat s32 cycles)
check "8 KB store: $a cycles, less than 3 unloaded round trips (about 600 each) plus its rows" "$a < 3 * 600 + 64 * 4"
check "8 KB store, crossbar latency 80 -> 160: $a -> $b cycles, one round trip more (2 x 80 = 160, within 100 .. 400), not one per row (64 x 160)" \
  "100 <= $b - $a <= 400"
check "store of 32 -> 64 rows: $h -> $a cycles, the 32 more rows at the link bandwidth (128 B on a 64 B link: 2 cycles each; within 16 .. 160)" \
  "16 <= $a - $h <= 160"
check "8 KB store: every byte written ($(stat s64 top.tma.bytes_stored))" "$(stat s64 top.tma.bytes_stored) == 8192"
check "the figures docs/modules/tma_loader.md quotes: the 8 KB store $a cycles (514), $((b - a)) more with the crossbar's latency doubled (159)" \
  "$a == 514 and $b - $a == 159"
c=$(stat small cycles) d=$(stat small80 cycles)
check "16 back-to-back copies, issue cost 40 -> 80: $c -> $d cycles, 16 x 40 = 640 more (within 15%)" \
  "abs(($d - $c) - 640) <= 0.15 * 640"
sensitivity_end "TMA streaming"
