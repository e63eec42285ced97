#!/usr/bin/env bash
# Sensitivity of the memory hierarchy's figures (scenarios/memory/dram_*.json and
# hierarchy_sliced.json) to their parameters, from first principles:
#   1. the pointer chase waits for every load: each cycle of tCL adds a cycle per load (256);
#   2. the row-conflict chase pays tRP on every conflict (29), the row-hit chase almost never;
#   3. refresh off is faster, by at most tRFC per refresh the run met;
#   4. a closed-page policy turns the chase's row hits into misses: tRCD more per hop;
#   5. the crossbar's latency: one warp of vecadd through L1, crossbar, L2 slices and DRAM
#      (refresh off): 90 more cycles each way add 180 to every global load's latency, and,
#      each access waiting for the one before (one instruction in flight), 180 to the run
#      for each of the 768 accesses;
#   6. the calibrated pointer chases on h800_sm.json (refresh off): 10 ns more in the
#      DRAM controller's front end add 10 / 0.546 = 18.3 SM cycles to every DRAM load (within
#      a cycle: responses are seen at the SM's clock edges) and almost nothing to the L2
#      chase (only its 65 cold misses);
#   7. the TMA round trips of calibration_h100_sm(_dram).json: 20 cycles more of the loader's
#      per-copy issue cost add 20 to each copy's round trip from the L2, and (refresh off) from
#      DRAM; 10 ns more in the DRAM front end add 18.3 to the DRAM one and less than a cycle
#      to the L2's (all within a cycle: the two clocks' edges);
#      with refresh on, the DRAM copies' mean round trip is longer, by less than tRFC;
#   8. each run passes its golden check (data moves at the cycle the stage hands it on).
#   usage: dram_sensitivity_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/sensitivity_lib.sh"
sensitivity_setup dram-sensitivity "$@"
M="$SRC/scenarios/memory"

# 1. tCL.
run chase "$M/dram_chase.json" --set modules.dram.refresh=false
run chase_cl "$M/dram_chase.json" --set modules.dram.refresh=false --set modules.dram.tCL=17
check "chase: tCL 7 -> 17 adds 10 cycles to each of the 256 loads (the final store's data follows tCWL)" \
  "$(stat chase_cl cycles) - $(stat chase cycles) == 256 * 10"

# 2. tRP on conflicts only.
run rows "$M/dram_chase_rows.json" --set modules.dram.refresh=false
run rows_rp "$M/dram_chase_rows.json" --set modules.dram.refresh=false --set modules.dram.tRP=17
conf=$(stat rows top.dram.row_conflicts)
check "rows: every access after the first two conflicts" "$conf == 30"
check "rows: tRP 7 -> 17 adds 10 cycles to each conflict" "$(stat rows_rp cycles) - $(stat rows cycles) == $conf * 10"
run chase_rp "$M/dram_chase.json" --set modules.dram.refresh=false --set modules.dram.tRP=17
check "chase: tRP does not touch row hits (no conflicts)" "$(stat chase_rp cycles) == $(stat chase cycles)"

# 3. Refresh.
run chase_ref "$M/dram_chase.json"
refs=$(stat chase_ref top.dram.refreshes)
check "chase: refresh costs time, at most tRFC (350) per refresh ($refs)" \
  "0 < $(stat chase_ref cycles) - $(stat chase cycles) <= $refs * 350"

# 4. Closed pages.
run chase_closed "$M/dram_chase.json" --set modules.dram.refresh=false --set modules.dram.policy=closed
check "chase, closed pages: no row hits" "$(stat chase_closed top.dram.row_hits) == 0"
check "chase, closed pages: tRCD (7) more on each of the open-page chase's row hits" \
  "$(stat chase_closed cycles) - $(stat chase cycles) == $(stat chase top.dram.row_hits) * 7"

# 5. Crossbar latency.
H="$M/hierarchy_sliced.json"
run x10 "$H" --set modules.sm.max_warps=1 --set modules.dram.refresh=false --set modules.xbar.latency=10
run x100 "$H" --set modules.sm.max_warps=1 --set modules.dram.refresh=false --set modules.xbar.latency=100
check "crossbar latency 10 -> 100: each global load waits 2 x 90 more" \
  "abs($(stat x100 top.sm.global_load_latency) - $(stat x10 top.sm.global_load_latency) - 180) < 1e-9"
check "crossbar latency 10 -> 100: the one-warp run grows by 180 for each of its 768 accesses" \
  "$(stat x100 cycles) - $(stat x10 cycles) == 768 * 180"

# 6. The DRAM controller's front end under the calibrated chases.
G="$SRC/scenarios/gmma"
for fe in 56 66; do
  run "d$fe" "$G/calibration_h800_dram.json" --set modules.dram.refresh=false --set modules.dram.frontend_latency=$fe
  run "l$fe" "$G/calibration_h800_l2.json" --set modules.dram.refresh=false --set modules.dram.frontend_latency=$fe
done
check "DRAM chase: front end 56 -> 66 ns adds 18.3 SM cycles to each load (within a cycle)" \
  "abs($(stat d66 top.sm.global_load_latency) - $(stat d56 top.sm.global_load_latency) - 10 / 0.546) < 1"
check "L2 chase: the same adds less than a cycle (65 cold misses in 4096 loads)" \
  "0 <= $(stat l66 top.sm.global_load_latency) - $(stat l56 top.sm.global_load_latency) < 1"

# 7. The TMA's per-copy issue cost and the DRAM front end under the TMA round trips.
for il in 40 60; do
  run "tl$il" "$G/calibration_h100_sm.json" --set calibration=[] --set modules.tma.issue_latency=$il
  run "td$il" "$G/calibration_h100_sm_dram.json" --set calibration=[] --set modules.dram.refresh=false \
    --set modules.tma.issue_latency=$il
done
run tdfe "$G/calibration_h100_sm_dram.json" --set calibration=[] --set modules.dram.refresh=false \
  --set modules.dram.frontend_latency=66
run tlfe "$G/calibration_h100_sm.json" --set calibration=[] --set modules.dram.frontend_latency=66
run tdref "$G/calibration_h100_sm_dram.json" --set calibration=[]
rt() { stat "$1" top.sm.tma_round_trip; }
check "TMA from the L2: issue cost 40 -> 60 adds 20 to each round trip (within a cycle)" \
  "abs($(rt tl60) - $(rt tl40) - 20) < 1"
check "TMA from DRAM (refresh off): issue cost 40 -> 60 adds 20 to each round trip (within a cycle)" \
  "abs($(rt td60) - $(rt td40) - 20) < 1"
check "TMA from DRAM (refresh off): front end 56 -> 66 ns adds 18.3 (within a cycle)" \
  "abs($(rt tdfe) - $(rt td40) - 10 / 0.546) < 1"
check "TMA from the L2: the DRAM front end changes it by less than a cycle" "abs($(rt tlfe) - $(rt tl40)) < 1"
check "TMA from DRAM: refresh adds $(rt tdref) - $(rt td40), less than tRFC (350 ns = 641 cycles)" \
  "0 < $(rt tdref) - $(rt td40) < 350 / 0.546"
check "the figures docs/calibration.md quotes: DRAM copies $(rt tdref) with refresh and $(rt td40) without (697, 605), DRAM chase $(stat d56 top.sm.global_load_latency) without (456)" \
  "round($(rt tdref)) == 697 and round($(rt td40)) == 605 and round($(stat d56 top.sm.global_load_latency)) == 456"

sensitivity_end "memory-hierarchy sensitivity"
