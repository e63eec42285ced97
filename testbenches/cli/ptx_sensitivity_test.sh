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
#      26 registers x 256 threads instead of two halves the resident blocks and lengthens the run;
#   5. the Hopper GEMM (gemm_ws, 4 blocks one after another, each 4 K tiles fetched at once by
#      its TMA ring, on h100_sm.json's memory hierarchy): 80 more cycles of crossbar latency
#      each way (160 a round trip) lengthen it by at least the first copy's and at most one
#      exposed load and one exposed store per block; tensor cores at half rate are busy
#      exactly twice as long and lengthen the run by at most that extra busy time; its
#      epilogue's fp32 stores (8 rows of a column group on one bank per warp store) reach the
#      data array's banks at the cycles the stages hand them on: the run grows with the bank
#      busy time, and faster from 2 to 4 cycles than from 1 to 2;
#   6. the operand collector (operand_banks): sgemm_tiled's sources wait on shared register-file
#      banks less with each doubling of the banks, not at all with 32 (a bank for each of its 26
#      registers), and one bank serialises every instruction's sources: slower than 32 (on a
#      core issuing a warp per cycle, where the collector is not hidden behind the lanes).
#   7. sub-partitions: sgemm_tiled on 1, 2 and 4 schedulers (32 lanes each): never slower with
#      more, and never faster than sharing the one scheduler's issue cycles among them allows
#      (at most warp instructions x (1 - 1/P) cycles saved); its memory waits stay.
#   usage: ptx_sensitivity_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/sensitivity_lib.sh"
sensitivity_setup ptx-sensitivity "$@"
P="$SRC/scenarios/ptx"

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

# 5. The Hopper GEMM.
run ws "$P/gemm_ws.json"
run ws_lat "$P/gemm_ws.json" --set modules.xbar.latency=160
cws=$(stat ws cycles)
check "gemm_ws: 160 more cycles a round trip: at least the first copy's, at most a load and a store per block" \
  "160 <= $(stat ws_lat cycles) - $cws <= 4 * 2 * 160"
half="--set modules.tc0.fma_per_cycle=256 --set modules.tc1.fma_per_cycle=256 --set modules.tc2.fma_per_cycle=256 --set modules.tc3.fma_per_cycle=256"
# shellcheck disable=SC2086
run ws_half "$P/gemm_ws.json" $half
check "gemm_ws: tensor cores at half rate are busy twice as long" \
  "$(stat ws_half top.tc0.busy_cycles) == 2 * $(stat ws top.tc0.busy_cycles) == 16384"
check "gemm_ws: ... and lengthen the run by at most the extra busy time" \
  "0 < $(stat ws_half cycles) - $cws <= $(stat ws top.tc0.busy_cycles)"
run ws_b2 "$P/gemm_ws.json" --set modules.gmem.bank_busy=2
run ws_b4 "$P/gemm_ws.json" --set modules.gmem.bank_busy=4
check "gemm_ws: the data array's bank busy time 1, 2, 4: longer with each doubling" \
  "$cws < $(stat ws_b2 cycles) < $(stat ws_b4 cycles)"
check "gemm_ws: ... and more from 2 to 4 cycles than from 1 to 2" \
  "$(stat ws_b4 cycles) - $(stat ws_b2 cycles) >= $(stat ws_b2 cycles) - $cws"

# 6. Operand banks.
for b in 0 1 2 4 8 32; do run "ob$b" "$P/sgemm_tiled.json" --set modules.sm.lanes=32 --set modules.sm.operand_banks=$b; done
oc() { stat "ob$1" top.sm.operand_conflict_cycles; }
check "sgemm: no operand conflicts without banks or with 32" "$(oc 0) == 0 == $(oc 32)"
check "sgemm: fewer operand conflict cycles with each doubling of the banks" "$(oc 1) > $(oc 2) > $(oc 4) > $(oc 8) > 0"
check "sgemm: one register-file bank is slower than 32" "$(stat ob1 cycles) > $(stat ob32 cycles)"
check "sgemm: 32 banks time as no collector" "$(stat ob32 cycles) == $(stat ob0 cycles)"

# 7. Sub-partitions.
for sp in 1 2 4; do run "sp$sp" "$P/sgemm_tiled.json" --set modules.sm.lanes=32 --set modules.sm.sub_partitions=$sp; done
wi=$(stat sp1 instructions)
# (check_moves: each also fails with the same figure before and after, as a core ignoring
# sub_partitions would give.)
check_moves "sgemm: 1 -> 2 sub-partitions: $(stat sp1 cycles) -> $(stat sp2 cycles) cycles, faster, by at most half the $wi issue cycles" \
  "a - $wi / 2 <= b < a" "$(stat sp1 cycles)" "$(stat sp2 cycles)"
check_moves "sgemm: 2 -> 4 sub-partitions: $(stat sp2 cycles) -> $(stat sp4 cycles) cycles, faster" \
  "b < a" "$(stat sp2 cycles)" "$(stat sp4 cycles)"
check_moves "sgemm: 1 -> 4 sub-partitions: $(stat sp1 cycles) -> $(stat sp4 cycles) cycles, faster, by at most three quarters of the issue cycles" \
  "a - $wi * 3 / 4 <= b < a" "$(stat sp1 cycles)" "$(stat sp4 cycles)"

sensitivity_end "PTX sensitivity"
