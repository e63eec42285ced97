#!/usr/bin/env bash
# The `ideal` switches and flynn attribute. Each switch takes its module's time away and
# nothing else: the run still passes its functional check, and the cycles fall by about what
# the module's own time was (direction and rough size from the mechanism):
#  - banked_memory: a stride-16 vector load on 16 banks (every element in one bank) loses its
#    bank conflicts;
#  - cache (a perfect cache): the SIMT core's global loads are served at once, the L2 and the
#    DRAM below see none;
#  - crossbar: a pointer chase through the L2 loses two crossbar crossings (2 x 80 cycles,
#    more for the far partition) per load;
#  - dram: a pointer chase through the DRAM stage loses its DRAM latency;
#  - tensor_core: the tensor cores take no cycles (busy_cycles 0);
#  - register_file: mma.sync's operand reads no longer queue on the crossbar;
# and flynn attribute runs a scenario with each resource made ideal in turn.
#   usage: attribute_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/sensitivity_lib.sh"
sensitivity_setup attribute "$@"
S="$SRC/scenarios"

run conf "$S/vector/bank_conflicts_stride16.json"
run conf_ideal "$S/vector/bank_conflicts_stride16.json" --set modules.mem.ideal=true
a=$(stat conf cycles) b=$(stat conf_ideal cycles)
check "ideal banked_memory, stride 16 on 16 banks: $a -> $b cycles, its $(stat conf top.mem.bank_stall_cycles) bank-stall cycles gone (within 20%)" \
  "abs(($a - $b) - $(stat conf top.mem.bank_stall_cycles)) <= 0.2 * $(stat conf top.mem.bank_stall_cycles)"
check "ideal banked_memory: no bank conflicts ($(stat conf_ideal top.mem.bank_conflicts))" "$(stat conf_ideal top.mem.bank_conflicts) == 0"

run hv "$S/memory/hierarchy_vecadd.json"
run hv_l1 "$S/memory/hierarchy_vecadd.json" --set modules.l1.ideal=true
check "perfect L1: global load latency $(stat hv top.sm.global_load_latency) -> $(stat hv_l1 top.sm.global_load_latency) cycles, under 20" \
  "$(stat hv_l1 top.sm.global_load_latency) < 20 < $(stat hv top.sm.global_load_latency)"
check "perfect L1: the L2 and the DRAM time no request ($(stat hv_l1 top.l2.reads), $(stat hv_l1 top.dram.reads))" \
  "$(stat hv_l1 top.l2.reads) == 0 and $(stat hv_l1 top.dram.reads) == 0"

run l2 "$S/gmma/calibration_h800_l2.json" --set 'calibration=[]'
run l2_x "$S/gmma/calibration_h800_l2.json" --set 'calibration=[]' --set modules.xbar.ideal=true
l=$(stat l2 top.sm.global_load_latency) lx=$(stat l2_x top.sm.global_load_latency)
check "ideal crossbar, L2 pointer chase: $l -> $lx cycles a load, 160 .. 240 less (two crossings of 80, 40 more each way to the far partition)" \
  "160 <= $l - $lx <= 240"

run dc "$S/memory/dram_chase.json"
run dc_i "$S/memory/dram_chase.json" --set modules.dram.ideal=true
check "ideal DRAM, pointer chase: global load latency $(stat dc top.sm.global_load_latency) -> $(stat dc_i top.sm.global_load_latency) cycles, less" \
  "$(stat dc_i top.sm.global_load_latency) < $(stat dc top.sm.global_load_latency)"

run wt "$S/gmma/wgmma_types.json"
run wt_i "$S/gmma/wgmma_types.json" --set modules.tc0.ideal=true --set modules.tc1.ideal=true \
  --set modules.tc2.ideal=true --set modules.tc3.ideal=true
check "ideal tensor cores: busy $(stat wt top.tc0.busy_cycles) -> $(stat wt_i top.tc0.busy_cycles) cycles, $(stat wt cycles) -> $(stat wt_i cycles) in all" \
  "$(stat wt_i top.tc0.busy_cycles) == 0 and $(stat wt_i cycles) < $(stat wt cycles)"

run ms "$S/gmma/calibration_h100_sm_mma_sync.json" --set 'calibration=[]'
run ms_i "$S/gmma/calibration_h100_sm_mma_sync.json" --set 'calibration=[]' --set modules.rf0.ideal=true \
  --set modules.rf1.ideal=true --set modules.rf2.ideal=true --set modules.rf3.ideal=true
check "ideal register files, mma.sync: $(stat ms cycles) -> $(stat ms_i cycles) cycles, fewer" "$(stat ms_i cycles) < $(stat ms cycles)"

n=$((n + 1))
if "$FLYNN" attribute "$S/memory/hierarchy_vecadd.json" --outdir "$WORK/att" --jobs 2 >"$WORK/att.log" 2>&1 &&
   python3 - "$WORK/att/attribution.json" "$(stat hv cycles)" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
assert a["baseline"]["cycles"] == int(sys.argv[2]), a["baseline"]
names = sorted(e["resource"] for e in a["ideal"])
assert names == ["dram", "gmem", "l1", "l2", "smem"], names
assert all(e["result"] == "ok" and e["cycles"] <= a["baseline"]["cycles"] for e in a["ideal"]), a["ideal"]
saved = [e["time_saved"] for e in a["ideal"]]
assert saved == sorted(saved, reverse=True), saved
PY
then
  echo "ok   flynn attribute hierarchy_vecadd: a row per timing resource (l1 and l2 apart), sorted by time saved"
else
  echo "FAIL flynn attribute hierarchy_vecadd: $(tail -c 600 "$WORK/att.log")"; fail=1
fi
n=$((n + 1))
if "$FLYNN" attribute "$S/gmma/h100_sm_gemm.json" --outdir "$WORK/attg" --jobs 2 >"$WORK/attg.log" 2>&1 &&
   grep -q "^  l2\* *cache" "$WORK/attg.log" && grep -q "^  tc\* *tensor_core" "$WORK/attg.log"; then
  echo "ok   flynn attribute h100_sm_gemm: the four L2 slices are one resource, the four tensor cores another"
else
  echo "FAIL flynn attribute h100_sm_gemm: $(tail -c 600 "$WORK/attg.log")"; fail=1
fi
sensitivity_end "ideal-switch"
