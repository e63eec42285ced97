#!/usr/bin/env bash
# How the SIMT core's small kernels move with their parameters, checked from first principles
# (every run also passes its golden check, or the run fails):
#   1. saxpy (one warp, simt_base: each instruction waits for the previous one, inflight 1)
#      makes three global accesses one after the other (load x, load y, store y), so each
#      cycle of memory latency adds exactly 3 cycles to the run; with 4 instructions in
#      flight the two loads overlap and it adds 2; and the run is then shorter;
#   2. the tutorial's sweep (docs/tutorial.md, its kernel and scenario taken from the page):
#      8 blocks of one warp, each waiting out its memory accesses alone; with 1 resident warp
#      the blocks run one after another, with 2 the second warp's instructions fill the first
#      one's gaps (a warp issues every 8 cycles, an issue takes 4), so the run halves (within
#      5%); more warps are never slower and leave less time idle on memory; and no run is
#      shorter than the issue time of its 152 warp instructions (4 cycles each).
#   usage: simt_sensitivity_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/sensitivity_lib.sh"
sensitivity_setup simt-sensitivity "$@"

# 1. saxpy against the global memory's latency.
SAXPY="$SRC/scenarios/simt/saxpy.json"
for lat in 100 200 400; do
  run "s$lat" "$SAXPY" --set "modules.gmem.latency=$lat"
  run "f$lat" "$SAXPY" --set "modules.gmem.latency=$lat" --set modules.sm.inflight=4
done
s100=$(stat s100 cycles) s200=$(stat s200 cycles) s400=$(stat s400 cycles)
f100=$(stat f100 cycles) f200=$(stat f200 cycles) f400=$(stat f400 cycles)
check "saxpy, latency 100, 200, 400: $s100, $s200, $s400 cycles: 3 more per cycle of latency" \
  "$s200 - $s100 == 3 * 100 and $s400 - $s200 == 3 * 200"
check "saxpy with 4 in flight: $f100, $f200, $f400 cycles: 2 more per cycle of latency (the loads overlap)" \
  "$f200 - $f100 == 2 * 100 and $f400 - $f200 == 2 * 200"
check "saxpy with 4 in flight is shorter at every latency: $f100 < $s100, $f200 < $s200, $f400 < $s400" \
  "$f100 < $s100 and $f200 < $s200 and $f400 < $s400"

# 2. The tutorial's sweep of resident warps.
# The page's files, written where its sessions write them: beside a scenarios/ folder.
mkdir -p "$WORK/doc" && ln -s "$SRC/scenarios" "$WORK/doc/scenarios"
python3 - "$SRC/testbenches/docs" "$SRC/docs/tutorial.md" "$WORK/doc" <<'PY' || { echo "FAIL: cannot take the tutorial's files"; exit 1; }
import pathlib, sys
sys.path.insert(0, sys.argv[1])
import doc_examples
for kind, path, body, _ in doc_examples.blocks(pathlib.Path(sys.argv[2]).read_text()):
    if kind == "file":
        doc_examples.write_file(pathlib.Path(sys.argv[3]), path, body)
PY
CLAMP="$WORK/doc/tutorial/clamp.json"
for w in 1 2 4 8; do run "w$w" "$CLAMP" --set "modules.sm.max_warps=$w"; done
w1=$(stat w1 cycles) w2=$(stat w2 cycles) w4=$(stat w4 cycles) w8=$(stat w8 cycles)
m1=$(stat w1 top.sm.idle_cycles_memory) m2=$(stat w2 top.sm.idle_cycles_memory)
m4=$(stat w4 top.sm.idle_cycles_memory) m8=$(stat w8 top.sm.idle_cycles_memory)
i8=$(stat w8 top.sm.warp_instructions)
check "clamp with 1, 2, 4, 8 resident warps: $w1, $w2, $w4, $w8 cycles, fewer with each" "$w1 > $w2 > $w4 > $w8"
check "1 -> 2 warps: $w1 -> $w2 cycles, half within 5%" "abs(2 * $w2 - $w1) <= 0.05 * $w1"
check "idle on memory: $m1, $m2, $m4, $m8 cycles, less with each" "$m1 > $m2 > $m4 > $m8"
check "8 warps: $w8 cycles, at least the issue time of $i8 warp instructions at 4 cycles" "$i8 == 152 and $w8 >= 4 * $i8"

sensitivity_end
