#!/usr/bin/env bash
# Sensitivity of the Hopper SM's figures to their parameters, checked from first principles
# (a pinned number is trusted when it moves the right way, by roughly the right amount):
#   1. h100_sm_gemm's 4-stage TMA ring hides most of the memory latency: the crossbar's
#      40 -> 320 cycles each way (560 more a round trip) lengthens the run by at least the
#      one round trip the ring cannot hide (the first stage's fill) and by at most 15%;
#   2. each ring stage fewer (4, 3, 2) is slower;
#   3. more shared-memory bank busy time is slower; half the crossbar's link bandwidth is
#      slower, and the TMA's 5 MB then need at least 5 MB / 32 B cycles;
#   Each check of a moved parameter also fails when the parameter is ignored (check_moves:
#   the same figure before and after does not pass).
#   4. a chain of wgmmas accumulating into one D waits for each D: with a tensor-core latency
#      of 500 the dependent interval exceeds the independent one by about that latency, and
#      at the shipped latency of 8 both run at the datapath rate (N/2 = 32 cycles); only the
#      dependent chain at 500 has accumulator waits;
#   5. the control for the racy-GEMM fault: the correct kernel with the same tensor cores a
#      quarter as fast passes its golden check, and takes at least its FMAs at 4 x 128 a cycle;
#   6. the SIMT core's load/store latency: vecadd with lat_lsu 0 (the issue loop decides at
#      the responses' own cycle), 1 and 6 passes its golden check each time, and each cycle
#      of it adds to the run, by at most a cycle per warp;
#   7. the fp8 and tf32 MMAs take the time of their 32 bytes of K: with the tensor cores at
#      half rate their interval doubles (128 -> 256) and their multiply-adds a cycle halve;
#   8. mma.sync's rate comes from its register-file path: each reads 1280 bytes of A, B and C
#      through the crossbar, ceil(1280 / W) cycles of it, and its 10 reads and 4 writes hold
#      its busiest banks 4 cycles, against 4 cycles of tensor core, so the rate follows
#      4 / max(4, ceil(1280 / W)) of wgmma's, W 128 -> 0.4, 256 -> 0.8, unlimited -> 1, less
#      the bank and crossbar cycles the loop's own instructions take in the same register file
#      (at most 15%); wgmma's rate stays 2048 throughout; with the tensor cores at half rate
#      and an unlimited crossbar mma.sync is tensor-bound at half the peak (1024 FMA a cycle);
#   9. the tensor cores' idle time by cause accounts for every cycle (busy plus the causes is
#      4 x the run, for both GEMM kernels), and moves with its causes: half the crossbar's link
#      bandwidth to the loader raises the time waiting on stage data; tensor cores a quarter as
#      fast leave less of it (the math, not the copies, is then what the run waits for).
#   usage: sensitivity_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/sensitivity_lib.sh"
sensitivity_setup sensitivity "$@"
GEMM="$SRC/scenarios/gmma/h100_sm_gemm.json"
CAL="$SRC/scenarios/gmma/calibration_h100_sm.json"


# 1. Latency behind the ring.
run lat40 "$GEMM" --set modules.xbar.latency=40
run lat320 "$GEMM" --set modules.xbar.latency=320
a=$(stat lat40 cycles) b=$(stat lat320 cycles)
check_moves "crossbar latency 40 -> 320: $a -> $b cycles, at least 560 (a round trip) and at most 15% longer" \
  "a + 560 <= b <= 1.15 * a" "$a" "$b"

# 2. Ring stages (the kernel's parameter 4).
run stages4 "$GEMM"
for s in 2 3; do run "stages$s" "$GEMM" --set "workload.params.4=$s"; done
c2=$(stat stages2 cycles) c3=$(stat stages3 cycles) c4=$(stat stages4 cycles)
check_moves "ring stages 4 -> 3: $c4 -> $c3 cycles, slower" "b > a" "$c4" "$c3"
check_moves "ring stages 3 -> 2: $c3 -> $c2 cycles, slower" "b > a" "$c3" "$c2"

# 3. Bank busy time.
run smem_busy2 "$GEMM" --set modules.smem.bank_busy=2
run link32 "$GEMM" --set modules.xbar.bytes_per_cycle=32
s2=$(stat smem_busy2 cycles) x32=$(stat link32 cycles) tb=$(stat link32 top.tma.bytes)
check_moves "shared bank busy 1 -> 2: $c4 -> $s2 cycles, slower" "b > a" "$c4" "$s2"
check_moves "crossbar link 64 -> 32 B a cycle: $c4 -> $x32 cycles, slower" "b > a" "$c4" "$x32"
check "crossbar link 32 B a cycle: $x32 cycles, at least the TMA's $tb bytes over it" "$x32 >= $tb / 32"

# 4. Dependent vs independent wgmmas (independent: each MMA overwrites D instead of adding).
sed 's/\(wgmma.m64n64k16.f32.bf16 r0, r240, r242,\) 1/\1 0/' "$SRC/scenarios/gmma/kernels/calibrate_m64n64.s" \
  >"$WORK/independent.s"
for lat in 8 500; do
  tc=()
  for k in 0 1 2 3; do tc+=(--set "modules.tc$k.latency=$lat"); done
  # The calibration targets hold at the shipped latency only: compare intervals, not targets.
  run "dep$lat" "$CAL" "${tc[@]}" --set calibration=[]
  run "ind$lat" "$CAL" "${tc[@]}" --set calibration=[] --set "workload.kernel=$WORK/independent.s"
done
d8=$(stat dep8 top.gmma.mma_interval) i8=$(stat ind8 top.gmma.mma_interval)
d500=$(stat dep500 top.gmma.mma_interval) i500=$(stat ind500 top.gmma.mma_interval)
check "tensor-core latency 8: dependent $d8, independent $i8 cycles: both at the datapath rate" \
  "abs($d8 - 32) <= 1 and abs($i8 - 32) <= 1"
check "tensor-core latency 500: dependent $d500 - independent $i500 = about the latency" \
  "500 - 32 <= $d500 - $i500 <= 500 + 16"
# The dependent chain's wait is the GMMA unit's accumulator wait: each of the 15 MMAs after
# the first has 32 column-group blocks (4 warps x 8) that wait for the previous MMA's D, at
# least the latency less the 32 cycles of datapath between them; none waits otherwise.
a500=$(stat dep500 top.gmma.accumulator_wait_cycles)
check "accumulator waits: $a500 cycles dependent at latency 500 (at least 15 x 32 x 468), $(stat dep8 top.gmma.accumulator_wait_cycles) at 8, $(stat ind500 top.gmma.accumulator_wait_cycles) independent" \
  "$a500 >= 15 * 32 * (500 - 32) and $(stat dep8 top.gmma.accumulator_wait_cycles) == 0 and $(stat ind500 top.gmma.accumulator_wait_cycles) == 0"

# 5. Control for the fault catalogue's racy GEMM: the correct kernel on the slower tensor cores.
slow=()
for k in 0 1 2 3; do slow+=(--set "modules.tc$k.fma_per_cycle=128"); done
run slow "$GEMM" "${slow[@]}"
[ -f "$WORK/slow/stats.json" ] && check "correct GEMM with tensor cores of 128 FMA a cycle: $(stat slow result), $(stat slow cycles) cycles, at least 2^27 / 512" \
  "'$(stat slow result)' == 'ok' and $(stat slow cycles) >= 134217728 / 512"

# 6. SIMT load/store latency (vecadd: 256 warps, 32 resident, two loads and a store each,
# the loads side by side; every run is checked against the golden interpreter, a mismatch
# fails the run).
VEC="$SRC/scenarios/simt/vecadd_warps.json"
for lat in 0 1 6; do run "lsu$lat" "$VEC" --set "modules.sm.lat_lsu=$lat"; done
l0=$(stat lsu0 cycles) l1=$(stat lsu1 cycles) l6=$(stat lsu6 cycles)
check "vecadd with lat_lsu 0, 1, 6: $l0, $l1, $l6 cycles, longer with each cycle of latency" "$l0 < $l1 < $l6"
check "lat_lsu 1 -> 6: $l1 -> $l6 cycles, at most 5 more for each of the 256 warps" "$l6 - $l1 <= 5 * 256"

# 7. The MMA types against the tensor cores' rate.
half=()
for k in 0 1 2 3; do half+=(--set "modules.tc$k.fma_per_cycle=256"); done
for t in fp8 tf32; do
  run "$t" "$SRC/scenarios/gmma/calibration_h100_sm_$t.json" --set calibration=[]
  run "${t}_half" "$SRC/scenarios/gmma/calibration_h100_sm_$t.json" --set calibration=[] "${half[@]}"
  a=$(stat "$t" top.gmma.mma_interval) b=$(stat "${t}_half" top.gmma.mma_interval)
  ra=$(stat "$t" top.gmma.mma_fma_rate) rb=$(stat "${t}_half" top.gmma.mma_fma_rate)
  check "$t MMAs: interval $a -> $b cycles, rate $ra -> $rb with the tensor cores at half rate" \
    "$a == 128 and $b == 256 and $rb * 2 == $ra"
done

# 8. mma.sync against the register file's crossbar width (W bytes a cycle).
SYNC="$SRC/scenarios/gmma/calibration_h100_sm_mma_sync.json"
for wd in 0 128 256; do
  xb=()
  for k in 0 1 2 3; do xb+=(--set "modules.rf$k.crossbar_bytes_per_cycle=$wd"); done
  run "sync$wd" "$SYNC" --set calibration=[] "${xb[@]}"
done
run sync_half "$SYNC" --set calibration=[] "${half[@]}" \
  --set modules.rf0.crossbar_bytes_per_cycle=0 --set modules.rf1.crossbar_bytes_per_cycle=0 \
  --set modules.rf2.crossbar_bytes_per_cycle=0 --set modules.rf3.crossbar_bytes_per_cycle=0
r0=$(stat sync0 top.gmma.mma_sync_to_wgmma_rate) r128=$(stat sync128 top.gmma.mma_sync_to_wgmma_rate)
r256=$(stat sync256 top.gmma.mma_sync_to_wgmma_rate)
check "mma.sync / wgmma rate with the crossbar at 128, 256 B a cycle and unlimited: $r128, $r256, $r0 (4/10, 4/5, 1, each at most 15% less)" \
  "0.85 * 0.4 <= $r128 <= 0.4 and 0.85 * 0.8 <= $r256 <= 0.8 and 0.85 <= $r0 <= 1 and $r128 < $r256 < $r0"
check "wgmma's rate meanwhile: $(stat sync128 top.gmma.mma_fma_rate), $(stat sync256 top.gmma.mma_fma_rate), $(stat sync0 top.gmma.mma_fma_rate)" \
  "$(stat sync128 top.gmma.mma_fma_rate) == 2048 and $(stat sync256 top.gmma.mma_fma_rate) == 2048 and $(stat sync0 top.gmma.mma_fma_rate) == 2048"
s0=$(stat sync0 top.gmma.mma_sync_fma_rate) sh=$(stat sync_half top.gmma.mma_sync_fma_rate)
check "mma.sync with an unlimited crossbar, tensor cores at full and half rate: $s0 -> $sh FMA a cycle (half the peak, 1024, within 3%)" \
  "abs($sh - 1024) <= 0.03 * 1024 and $sh < $s0"

# 9. The tensor cores' idle time by cause.
idle_sum() {  # busy + every cause, over the four tensor cores
  python3 - "$WORK/$1/stats.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["modules"]
g = m["top.gmma"]
total = sum(g[k] for k in g if k.startswith("tc_idle_"))
total += sum(m["top.tc%d" % k]["busy_cycles"] for k in range(4))
print(int(total))
PY
}
run coop "$SRC/scenarios/gmma/h100_sm_gemm_cooperative.json"
for r in stages4 coop; do
  check "$r: busy + idle causes over 4 tensor cores = $(idle_sum $r) = 4 x $(stat $r cycles)" "$(idle_sum $r) == 4 * $(stat $r cycles)"
done
w4=$(stat stages4 top.gmma.tc_idle_stage_wait)
check_moves "stage-data wait with the crossbar link at 64 -> 32 B a cycle (the run of 3.): $w4 -> $(stat link32 top.gmma.tc_idle_stage_wait), more" \
  "b > a" "$w4" "$(stat link32 top.gmma.tc_idle_stage_wait)"
check_moves "stage-data wait with tensor cores a quarter as fast: $w4 -> $(stat slow top.gmma.tc_idle_stage_wait), less" \
  "b < a" "$w4" "$(stat slow top.gmma.tc_idle_stage_wait)"

sensitivity_end
