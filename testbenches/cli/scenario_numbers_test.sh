#!/usr/bin/env bash
# Runs the shipped memory scenarios and checks the numbers the lecture's memory facts
# imply. Usage: scenario_numbers_test.sh FLYNN_BINARY SOURCE_DIR
set -euo pipefail
flynn=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# expect SCENARIO MODULE key=value...   (cycles= is the top-level cycle count)
expect() {
  local scenario=$1 module=$2
  shift 2
  if ! "$flynn" run "$src/scenarios/memory/$scenario.json" --outdir "$work/$scenario" --quiet; then
    echo "FAIL $scenario: run failed"; fail=1; return
  fi
  if python3 - "$work/$scenario/stats.json" "$module" "$@" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
mod = stats["modules"][sys.argv[2]]
bad = []
for kv in sys.argv[3:]:
    k, v = kv.split("=")
    got = stats[k] if k == "cycles" else mod[k]
    if abs(float(got) - float(v)) > 1e-6:
        bad.append(f"{k}: expected {v}, got {got}")
if bad:
    print("   " + "; ".join(bad))
    sys.exit(1)
PY
  then echo "ok   $scenario: $*"; else echo "FAIL $scenario"; fail=1; fi
}

# 16 banks >= latency 11: one element per cycle, first after 11 cycles.
expect stride1_16banks top.mem cycles=74 elements_per_cycle=1 bank_conflicts=0
# 8 banks, latency 11: 8 served, then 3 stall cycles, 7 times over 64 elements.
expect stride1_8banks top.mem cycles=95 bank_conflicts=7 bank_stall_cycles=21
# stride = bank count: one bank, one element per 11 cycles.
expect stride16_16banks top.mem cycles=704 bank_conflicts=63 bank_stall_cycles=630
# relatively prime stride: full rate.
expect stride3_16banks top.mem cycles=74 elements_per_cycle=1 bank_conflicts=0
# hashed mapping undoes the single-bank stride.
expect stride16_xor top.mem cycles=74 bank_conflicts=0
# Shared memory, 32 banks: wavefronts per 32-lane request = most distinct words in a bank.
expect shared_conflict_free top.smem wavefronts=64 word_accesses=2048 bank_conflicts=0
expect shared_2way top.smem wavefronts=128 bank_stall_cycles=64
expect shared_4way top.smem wavefronts=256 bank_stall_cycles=192
expect shared_broadcast top.smem wavefronts=64 word_accesses=64
exit $fail
