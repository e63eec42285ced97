#!/usr/bin/env bash
# Runs the shipped memory scenarios and checks the numbers the lecture's memory facts
# imply. Usage: scenario_numbers_test.sh FLYNN_BINARY SOURCE_DIR
set -euo pipefail
flynn=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# expect DIR/SCENARIO MODULE key=value...   (cycles= and instructions= are top-level)
expect() {
  local scenario=$1 module=$2
  shift 2
  if ! "$flynn" run "$src/scenarios/$scenario.json" --outdir "$work/$scenario" --quiet; then
    echo "FAIL $scenario: run failed"; fail=1; return
  fi
  if python3 - "$work/$scenario/stats.json" "$module" "$@" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
mod = stats["modules"][sys.argv[2]]
bad = []
for kv in sys.argv[3:]:
    k, v = kv.rsplit("=", 1)
    if k.startswith("peak_le:"):   # histogram: most cycles at exactly this many element ops
        hist = mod["element_ops_per_cycle"]
        got = max(range(len(hist)), key=lambda i: hist[i])
        k = "most frequent element_ops_per_cycle"
    else:
        got = stats[k] if k in ("cycles", "instructions") else mod[k]
    if abs(float(got) - float(v)) > 1e-6:
        bad.append(f"{k}: expected {v}, got {got}")
if bad:
    print("   " + "; ".join(bad))
    sys.exit(1)
PY
  then echo "ok   $scenario: $*"; else echo "FAIL $scenario"; fail=1; fi
}

# 16 banks >= latency 11: one element per cycle, first after 11 cycles.
expect memory/stride1_16banks top.mem cycles=74 elements_per_cycle=1 bank_conflicts=0
# 8 banks, latency 11: 8 served, then 3 stall cycles, 7 times over 64 elements.
expect memory/stride1_8banks top.mem cycles=95 bank_conflicts=7 bank_stall_cycles=21
# stride = bank count: one bank, one element per 11 cycles.
expect memory/stride16_16banks top.mem cycles=704 bank_conflicts=63 bank_stall_cycles=630
# relatively prime stride: full rate.
expect memory/stride3_16banks top.mem cycles=74 elements_per_cycle=1 bank_conflicts=0
# hashed mapping undoes the single-bank stride.
expect memory/stride16_xor top.mem cycles=74 bank_conflicts=0
# Shared memory, 32 banks: wavefronts per 32-lane request = most distinct words in a bank.
expect memory/shared_conflict_free top.smem wavefronts=64 word_accesses=2048 bank_conflicts=0
expect memory/shared_2way top.smem wavefronts=128 bank_stall_cycles=64
expect memory/shared_4way top.smem wavefronts=256 bank_stall_cycles=192
expect memory/shared_broadcast top.smem wavefronts=64 word_accesses=64
# The lecture's vector-machine table: same program pair, parameters varied.
expect vector/average_scalar_1bank top.cpu cycles=2004 instructions=304
expect vector/average_scalar_banked top.cpu cycles=1504 instructions=304 overlapped_memory=50
expect vector/average_vector top.vpu cycles=285 instructions=7 chained_operands=0
expect vector/average_vector_chained top.vpu cycles=182 instructions=7
expect vector/average_vector_chained_3ports top.vpu cycles=79 instructions=7
# 8 lanes x 3 chained units: 24 element operations per cycle, the most frequent rate.
expect vector/lanes8_vl32 top.vpu peak_element_ops_per_cycle=24 peak_le:=24
# 527 elements: 8 strips of 64 + 1 of 15 (9 loop iterations of 10 instructions + 4).
expect vector/strip_mine_527 top.vpu instructions=94 memory_elements=1054
# masks: the multiply unit spends 64 slots (simple) or 16 (density-time, 16 bits set).
expect vector/masked top.vpu fu_mul_busy_cycles=64 masked_off_elements=96
expect vector/masked_density_time top.vpu fu_mul_busy_cycles=16 masked_off_elements=0
expect vector/gather_scatter top.vpu memory_elements=20
# strided vector loads: stride = bank count -> one bank; relatively prime -> full rate.
expect vector/bank_conflicts_stride16 top.mem bank_conflicts=63 bank_stall_cycles=630
expect vector/bank_conflicts_stride17 top.mem bank_conflicts=0
expect vector/bank_conflicts_8banks top.mem bank_conflicts=14 bank_stall_cycles=42
# packed SIMD: 8 pixels per instruction sequence vs one pixel at a time.
expect vector/mmx_blend top.cpu instructions=261
expect vector/mmx_blend_scalar top.cpu instructions=2484
# array (4 PEs, same op across space) vs vector (pipelined units across time).
expect vector/array_vs_vector_array top.vpu fu_add_busy_cycles=1 fu_mul_busy_cycles=1 peak_element_ops_per_cycle=4
expect vector/array_vs_vector_vector top.vpu fu_add_busy_cycles=4 fu_mul_busy_cycles=4 peak_element_ops_per_cycle=1
exit $fail
