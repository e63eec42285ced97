#!/usr/bin/env bash
# Statistics audit: each module type's statistics that no other test pins, provoked with a
# known count worked out from the mechanism (and `stat_coverage` below keeps every statistic
# of every module type named by some test).
#  - vector_unit: one instruction per functional unit at VL 8 (kernels/vector_units.s):
#    every unit 8 elements in 8 cycles with 1 lane, 2 with 4 lanes; at VL 6 on 4 lanes each
#    unit takes 2 groups for 6 elements (lane utilisation 6 / 8); the memory port holds each
#    of the 2 memory instructions latency + ceil(VL / lanes) - 1 cycles (11 + 8 - 1, 11 + 2 - 1);
#  - scalar_unit: the lecture's scalar loop, 4 + 50 x 6 instructions: 150 loads and stores,
#    49 taken branches; the vector code dispatches its 7 instructions;
#  - traffic_generator: 64 requests over 74 cycles (stride 1) and 704 (one bank);
#  - dram: closed pages have no row hits; row_hit_rate is row hits over column accesses, and
#    the column accesses per pseudo-channel add up to them;
#  - mma_engine: K = 16 is one K block, a warp's share (16 x 64 x 16) 32 cycles at 512 a
#    cycle; K = 64 four blocks and 128 cycles; operand bytes through registers by generation;
#  - register_file: reads wait for the crossbar only when it is narrower than they are;
#  - crossbar: link waits fall when the links are wider;
#  - gmma_unit: a warpgroup whose warps each wait in tma.wait for an 8 KB store before a wgmma:
#    its tensor cores' idle time goes to tc_idle_other_wait, and a slower crossbar (one more
#    round trip per store) adds to it;
#  - the TMA copy and the calibration kernel: memory bytes, requests per port and debug
#    accesses, mbarrier operations and TMA stores, the GMMA unit's blocks, D and B bytes and
#    start barrier, and the core's idle causes (see the comments above each).
#   usage: stat_audit_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/sensitivity_lib.sh"
sensitivity_setup stat-audit "$@"
K="$SRC/testbenches/cli/kernels"

# vector_unit
cat >"$WORK/vu.json" <<JSON
{"extends": "$SRC/scenarios/vector/cray_base.json", "name": "vu", "description": "statistics audit",
 "workload": {"program": "$K/vector_units.s", "init": []}}
JSON
sed 's/setvl 8/setvl 6/' "$K/vector_units.s" >"$WORK/vector_units6.s"
cat >"$WORK/vu6.json" <<JSON
{"extends": "$SRC/scenarios/vector/cray_base.json", "name": "vu6", "description": "statistics audit",
 "workload": {"program": "$WORK/vector_units6.s", "init": []}}
JSON
run vu1 "$WORK/vu.json"
run vu4 "$WORK/vu.json" --set modules.vpu.lanes=4
run vu6 "$WORK/vu6.json" --set modules.vpu.lanes=4
for pair in fu_logic_elements:fu_logic_busy_cycles fu_shift_elements:fu_shift_busy_cycles \
  fu_mul_elements:fu_mul_busy_cycles fu_div_elements:fu_div_busy_cycles fu_fadd_elements:fu_fadd_busy_cycles \
  fu_fmul_elements:fu_fmul_busy_cycles fu_cmp_elements:fu_cmp_busy_cycles; do
  el=${pair%%:*} busy=${pair##*:}
  e1=$(stat vu1 "top.vpu.$el") b1=$(stat vu1 "top.vpu.$busy")
  b4=$(stat vu4 "top.vpu.$busy") e6=$(stat vu6 "top.vpu.$el") b6=$(stat vu6 "top.vpu.$busy")
  check "vector $el, $busy: $e1 elements in $b1 cycles (1 lane), $b4 cycles (4 lanes), $e6 in $b6 at VL 6" \
    "$e1 == 8 and $b1 == 8 and $b4 == 2 and $e6 == 6 and $b6 == 2"
done
check "vector lane utilisation: $(stat vu1 top.vpu.lane_utilisation) (1 lane), $(stat vu6 top.vpu.lane_utilisation) (VL 6 on 4 lanes: 6 / 8)" \
  "$(stat vu1 top.vpu.lane_utilisation) == 1 and abs($(stat vu6 top.vpu.lane_utilisation) - 0.75) < 1e-9"
check "vector memory port: $(stat vu1 top.vpu.port0_elements) elements, held $(stat vu1 top.vpu.port0_busy_cycles) cycles (1 lane: 2 x 18), $(stat vu4 top.vpu.port0_busy_cycles) (4 lanes: 2 x 12)" \
  "$(stat vu1 top.vpu.port0_elements) == 16 and $(stat vu1 top.vpu.port0_busy_cycles) == 36 and $(stat vu4 top.vpu.port0_busy_cycles) == 24"
check "vector issue rate: $(stat vu1 top.vpu.issue_rate) (11 instructions, more than 0.1 a cycle), higher with 4 lanes ($(stat vu4 top.vpu.issue_rate))" \
  "0.1 < $(stat vu1 top.vpu.issue_rate) < $(stat vu4 top.vpu.issue_rate) <= 1"

# scalar_unit
run scalar "$SRC/scenarios/vector/average_scalar_1bank.json"
run vector "$SRC/scenarios/vector/average_vector.json"
check "scalar loop: $(stat scalar top.cpu.scalar_instructions) instructions, $(stat scalar top.cpu.memory_instructions) loads and stores, $(stat scalar top.cpu.branches_taken) taken branches, $(stat scalar top.cpu.vector_instructions) dispatched" \
  "$(stat scalar top.cpu.scalar_instructions) == 304 and $(stat scalar top.cpu.memory_instructions) == 150 and $(stat scalar top.cpu.branches_taken) == 49 and $(stat scalar top.cpu.vector_instructions) == 0"
check "vector code: $(stat vector top.cpu.vector_instructions) dispatched, $(stat vector top.cpu.scalar_instructions) scalar" \
  "$(stat vector top.cpu.vector_instructions) == 7 and $(stat vector top.cpu.scalar_instructions) == 0"

# traffic_generator
run s1 "$SRC/scenarios/memory/stride1_16banks.json"
run s16 "$SRC/scenarios/memory/stride16_16banks.json"
check "generator: $(stat s1 top.gen.requests_per_cycle), $(stat s16 top.gen.requests_per_cycle) requests a cycle (64 / 74, 64 / 704)" \
  "abs($(stat s1 top.gen.requests_per_cycle) - 64 / 74) < 1e-6 and abs($(stat s16 top.gen.requests_per_cycle) - 64 / 704) < 1e-6"

# dram
run chase "$SRC/scenarios/memory/dram_chase.json" --set modules.dram.refresh=false
run chase_closed "$SRC/scenarios/memory/dram_chase.json" --set modules.dram.refresh=false --set modules.dram.policy=closed
python3 - "$WORK/chase/stats.json" "$WORK/chase_closed/stats.json" >"$WORK/dram.txt" <<'PY'
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))["modules"]["top.dram"]
    acc = d["reads"] + d["writes"]
    per = d["bursts_per_pseudo_channel"]
    total = sum(per) if isinstance(per, list) else per
    print(d["row_hit_rate"], d["row_hits"], acc, total)
PY
read -r rate hits acc bursts < <(sed -n 1p "$WORK/dram.txt")
read -r crate chits cacc cbursts < <(sed -n 2p "$WORK/dram.txt")
check "dram: row hit rate $rate = $hits row hits / $acc column accesses (per pseudo-channel: $bursts); closed pages $crate" \
  "abs($rate - $hits / $acc) < 1e-6 and $hits > 0 and $bursts == $acc and $crate == 0 and $cbursts == $cacc"

# mma_engine
P="$SRC/scenarios/gmma/sm4_patent_example.json"
run patent "$P"
run patent_k64 "$P" --set modules.gen4_warpgroup.k=64
check "mma_engine: K 16 -> 64: $(stat patent top.gen4_warpgroup.k_blocks) -> $(stat patent_k64 top.gen4_warpgroup.k_blocks) K blocks, datapath $(stat patent top.gen4_warpgroup.datapath_cycles) -> $(stat patent_k64 top.gen4_warpgroup.datapath_cycles) cycles (1, 4; 32, 128)" \
  "$(stat patent top.gen4_warpgroup.k_blocks) == 1 and $(stat patent_k64 top.gen4_warpgroup.k_blocks) == 4 and $(stat patent top.gen4_warpgroup.datapath_cycles) == 32 and $(stat patent_k64 top.gen4_warpgroup.datapath_cycles) == 128"
u=$(stat patent top.gen4_warpgroup.tensor_utilisation) c=$(stat patent top.gen4_warpgroup.mma_cycles)
check "mma_engine: tensor utilisation $u = 64 x 64 x 16 / ($c cycles x 4 x 512)" "abs($u - 65536 / ($c * 2048)) < 1e-6"
# Operands through registers: the 8-thread and warp generations write A and B (64 x 16 and
# 16 x 64 bf16, 4 KB) into their register files, at least once and more often the smaller
# their instruction tiles (each unit gets its own rows and columns); the warpgroup reads
# them from shared memory and writes none.
w2=$(stat patent top.gen2_group8.rf_write_bytes) w3=$(stat patent top.gen3_warp.rf_write_bytes)
check "mma_engine operand bytes into registers: $w2 (8 x 8 x 4 tiles), $w3 (16 x 8 x 16), $(stat patent top.gen4_warpgroup.rf_write_bytes) (warpgroup, from shared memory)" \
  "$w2 > $w3 >= 4096 and $(stat patent top.gen4_warpgroup.rf_write_bytes) == 0"

# register_file
S="$SRC/scenarios/gmma/mma_sync.json"
w0=() w128=()
for k in 0 1 2 3; do w0+=(--set "modules.rf$k.crossbar_bytes_per_cycle=0"); w128+=(--set "modules.rf$k.crossbar_bytes_per_cycle=128"); done
run rf0 "$S" "${w0[@]}"
run rf128 "$S" "${w128[@]}"
check "register file: crossbar waits $(stat rf0 top.rf0.crossbar_wait_cycles) unlimited, $(stat rf128 top.rf0.crossbar_wait_cycles) at 128 B a cycle" \
  "$(stat rf0 top.rf0.crossbar_wait_cycles) == 0 and $(stat rf128 top.rf0.crossbar_wait_cycles) > 0"

# crossbar and gmma_unit
cat >"$WORK/tcw.json" <<JSON
{"extends": "$SRC/scenarios/gmma/h100_sm.json", "name": "tcw", "description": "statistics audit",
 "workload": {"kernel": "$K/tc_idle_tma_wait.s", "core": "sm", "memory": "gmem", "block": 128, "shared_bytes": 32768,
 "tensor_maps": [{"global": 0, "element_bytes": 2, "dims": [64, 256], "strides": [128], "box": [64, 64]}]}}
JSON
run tcw "$WORK/tcw.json"
run tcw_slow "$WORK/tcw.json" --set modules.xbar.latency=160
run tcw_wide "$WORK/tcw.json" --set modules.xbar.bytes_per_cycle=1024
o=$(stat tcw top.gmma.tc_idle_other_wait) os=$(stat tcw_slow top.gmma.tc_idle_other_wait)
check "tensor cores idle while the warps wait in tma.wait: $o cycles, $os with the crossbar 80 cycles slower each way (4 x about 160 more)" \
  "$o > 1000 and $os - $o >= 4 * 150"
check "crossbar link waits: $(stat tcw top.xbar.link_wait_cycles) at 64 B a cycle, $(stat tcw_wide top.xbar.link_wait_cycles) at 1024" \
  "$(stat tcw top.xbar.link_wait_cycles) > $(stat tcw_wide top.xbar.link_wait_cycles)"

# banked_memory and simt_core on the TMA copy (tma_copy.json): one thread loads a 64 x 8 bf16
# box whose rows 60..63 lie in the tensor (4 rows of 128 B read from global memory, the 4
# outside rows zero-filled) into shared memory and stores it to a second tensor (the same 4
# rows written); the box's 8 rows (1 KB) go into shared memory and the store reads them back;
# the block's shared memory is zeroed at launch by one debug access; the thread makes 3
# mbarrier operations (init, arrive.expect_tx, wait) and one tma.store; its warp issues the
# kernel's 14 instructions and waits on the copies most of the run, at no barrier or wgmma.
run tcopy "$SRC/scenarios/gmma/tma_copy.json"
copy() { stat tcopy "$1"; }
check "tma_copy global memory: $(copy top.gmem.bytes_read) B read, $(copy top.gmem.bytes_written) B written (4 rows of 128 B each way), port_requests $(copy top.gmem.port_requests) = $(copy top.gmem.reads) reads + $(copy top.gmem.writes) writes" \
  "$(copy top.gmem.bytes_read) == 512 and $(copy top.gmem.bytes_written) == 512 and sum($(copy top.gmem.port_requests)) == $(copy top.gmem.reads) + $(copy top.gmem.writes) == 8"
check "tma_copy shared memory: $(copy top.smem.bytes_written) B written (8 rows, 4 of zeros), $(copy top.smem.bytes_read) B read by the store, $(copy top.smem.debug_accesses) debug access (zeroed at launch)" \
  "$(copy top.smem.bytes_written) == 1024 and $(copy top.smem.bytes_read) == 1024 and $(copy top.smem.debug_accesses) == 1"
check "tma_copy core: $(copy top.sm.mbarrier_ops) mbarrier operations, $(copy top.sm.tma_stores) tma.store, per-slot instructions adding up to $(copy top.sm.warp_instructions) = 14, $(copy top.sm.idle_cycles_async) of $(copy cycles) cycles idle on the copies, $(copy top.sm.idle_cycles_barrier) on barriers, $(copy top.sm.idle_cycles_wgmma) on wgmma" \
  "$(copy top.sm.mbarrier_ops) == 3 and $(copy top.sm.tma_stores) == 1 and sum($(copy top.sm.warp_instructions_per_slot)) == $(copy top.sm.warp_instructions) == 14 and $(copy top.sm.idle_cycles_async) > $(copy cycles) / 2 and $(copy top.sm.idle_cycles_barrier) == 0 and $(copy top.sm.idle_cycles_wgmma) == 0"

# gmma_unit and simt_core on the calibration kernel (calibration_h100_sm.json): 16 dependent
# wgmma.m64n64k16 of a warpgroup (4 warps, one per sub-partition) after a bar.sync that waits
# for thread 0's loads and copies. Each MMA writes back D, 64 x 64 f32 (16 KB), in 32 blocks
# (4 warps x 8 column groups of 8 columns), and reads B (64 x 16 bf16, 2 KB) from shared
# memory once, delivered to the 4 sub-partitions. The warps wait at the barrier and in
# wgmma.wait_group. With warp 3 held back by 10 dependent adds (4 cycles each) before its
# first wgmma, that MMA starts at least 40 cycles after its first warp's arrival.
CAL="$SRC/scenarios/gmma/calibration_h100_sm.json"
run cal "$CAL"
awk '{print} /^        bar.sync$/ {print "        mov   r111, %warpid"; print "        setp.ne.s32 p5, r111, 3";
  print "   @p5  bra   go"; print "        .rept 10"; print "        add   r112, r112, 1"; print "        .endr"; print "go:"}' \
  "$SRC/scenarios/gmma/kernels/calibrate_m64n64.s" >"$WORK/late_warp.s"
run cal_late "$CAL" --set "workload.kernel=$WORK/late_warp.s" --set calibration=[]
gmma() { stat cal "top.gmma.$1"; }
check "gmma_unit: D $(gmma rf_write_bytes) B = 16 x 64 x 64 x 4, $(gmma tensor_core_blocks) tensor-core blocks = 16 x 4 x 8, B $(gmma b_multicast_bytes) B delivered = 4 x $(gmma b_smem_bytes) read" \
  "$(gmma rf_write_bytes) == 16 * 64 * 64 * 4 and $(gmma tensor_core_blocks) == 16 * 4 * 8 and $(gmma b_multicast_bytes) == 4 * $(gmma b_smem_bytes) == 4 * 16 * 2048"
check "gmma_unit start barrier: $(gmma start_barrier_cycles) cycles over the 16 MMAs (the warps run the same code from one release), $(stat cal_late top.gmma.start_barrier_cycles) with warp 3 held back 40 cycles" \
  "$(gmma start_barrier_cycles) <= 16 and $(stat cal_late top.gmma.start_barrier_cycles) >= $(gmma start_barrier_cycles) + 40"
check "calibration core: idle $(stat cal top.sm.idle_cycles_barrier) cycles on the bar.sync, $(stat cal top.sm.idle_cycles_wgmma) in wgmma.wait_group (none in tma_copy)" \
  "$(stat cal top.sm.idle_cycles_barrier) > 0 and $(stat cal top.sm.idle_cycles_wgmma) > 0"

# Coverage: every statistic of every module type is named by a test (outside its comments).
"$FLYNN" list --json >"$WORK/list.json"
python3 - "$WORK/list.json" "$SRC/testbenches" >"$WORK/coverage.txt" <<'PY'
import json, os, re, sys
types = json.load(open(sys.argv[1]))
text = ""
for root, _, files in os.walk(sys.argv[2]):
    if ".flynn-output" in files:  # a run's output folder names every statistic: not a test
        continue
    for f in files:
        if f.endswith((".sh", ".txt", ".cpp", ".py")):
            t = open(os.path.join(root, f), errors="ignore").read()
            # A name in a comment tests nothing: comments are left out.
            t = re.sub(r"//[^\n]*", "", t) if f.endswith(".cpp") else re.sub(r"(?m)^\s*#[^\n]*", "", t)
            text += t
missing = [t["type"] + "." + s["name"] for t in types for s in t["statistics"]
           if not re.search(r"\b" + re.escape(s["name"]) + r"\b", text)]
print(len(missing), " ".join(missing))
PY
check "every module type's statistics are named by a test (not named: $(cut -d' ' -f2- "$WORK/coverage.txt"))" \
  "$(cut -d' ' -f1 "$WORK/coverage.txt") == 0"
sensitivity_end "statistics-audit"
