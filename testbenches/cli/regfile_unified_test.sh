#!/usr/bin/env bash
# One register-file model for the ALU and the tensor path (h100_sm.json binds each
# sub-partition's register file to the SIMT core's operand collector, rfK.operands, and to
# the GMMA unit, rfK.port): one warp runs chains of mma.sync (10 registers read and 4
# written per instruction through its sub-partition's register file) while another warp runs
# a loop of multiply-adds (3 sources read, 1 result written each):
#  - on another sub-partition the ALU warp leaves the mma.sync rate exactly as when it is
#    idle (separate banks and crossbars);
#  - on the same sub-partition (warp 4 with warp 0) the two contend for its banks and its
#    crossbar: the mma.sync rate falls by more than 10%, the ALU warp's operand reads wait
#    (operand_conflict_cycles) and its loop ends later than on the other sub-partition;
#  - the register file counts the ALU warp's reads where they happen (operand_reads on the
#    sub-partition that runs it);
#  - the patent example's mma_engine generations with register operands count the reads
#    their register files answered, and those files' banks time them.
#   usage: regfile_unified_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/sensitivity_lib.sh"
sensitivity_setup regfile-unified "$@"
for who in none:99 same:4 other:5; do
  tag=${who%%:*}
  cat >"$WORK/$tag.json" <<JSON
{"extends": "$SRC/scenarios/gmma/h100_sm.json", "name": "rf_$tag", "description": "register-file contention test",
 "workload": {"kernel": "$SRC/testbenches/cli/kernels/mma_sync_beside_alu.s", "core": "sm", "memory": "gmem",
   "block": 192, "params": [${who##*:}, 16]}}
JSON
  run "$tag" "$WORK/$tag.json"
done
r_none=$(stat none top.gmma.mma_sync_fma_rate)
r_same=$(stat same top.gmma.mma_sync_fma_rate)
r_other=$(stat other top.gmma.mma_sync_fma_rate)
check "mma.sync rate with the ALU warp on another sub-partition: $r_other, idle: $r_none (equal)" "$r_other == $r_none"
check "mma.sync rate with the ALU warp on the same sub-partition: $r_same, < 0.9 x $r_none" "$r_same < 0.9 * $r_none"
check "the figures docs/calibration.md quotes: $r_none -> $r_same multiply-adds a cycle (293 -> 242)" \
  "round($r_none) == 293 and round($r_same) == 242"
w_same=$(stat same top.sm.operand_conflict_cycles)
w_other=$(stat other top.sm.operand_conflict_cycles)
c_same=$(stat same cycles)
c_other=$(stat other cycles)
check "the ALU warp's operand waits: $w_same beside the MMAs, $w_other alone on its sub-partition" "$w_same > $w_other"
check "the run: $c_same cycles beside the MMAs, $c_other apart" "$c_same > $c_other"
o0=$(stat same top.rf0.operand_reads)
o1=$(stat other top.rf1.operand_reads)
n0=$(stat none top.rf0.operand_reads)
check "operand reads counted on the ALU warp's sub-partition: rf0 $o0 (same), rf1 $o1 (other), rf0 $n0 (none: warp 0's own)" \
  "$o0 > 1500 and $o1 > 1500 and $n0 < 100"

# The patent example's register-operand generations read their fragments through register
# files: the engines' rf_reads are the reads their register files answered, and the files'
# banks time them (one bank instead of four: the warp-scope generation takes longer, with the
# same counts).
P="$SRC/scenarios/gmma/sm4_patent_example.json"
run patent "$P"
one=()
for w in 0 1 2 3; do one+=(--set "modules.rf3_$w.banks=1"); done
run patent_1bank "$P" "${one[@]}"
sum=0
for w in 0 1 2 3; do sum=$((sum + $(stat patent top.rf3_$w.reads))); done
check "gen3_warp's rf_reads $(stat patent top.gen3_warp.rf_reads) = its register files' reads ($sum)" \
  "$(stat patent top.gen3_warp.rf_reads) == $sum"
check "gen3_warp with one register bank: $(stat patent top.gen3_warp.mma_cycles) -> $(stat patent_1bank top.gen3_warp.mma_cycles) cycles, the same $(stat patent_1bank top.gen3_warp.rf_reads) reads" \
  "$(stat patent_1bank top.gen3_warp.mma_cycles) > $(stat patent top.gen3_warp.mma_cycles) and $(stat patent_1bank top.gen3_warp.rf_reads) == $(stat patent top.gen3_warp.rf_reads)"
sensitivity_end "register-file"
