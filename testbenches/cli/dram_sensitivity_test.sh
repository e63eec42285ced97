#!/usr/bin/env bash
# Sensitivity of the DRAM timing stage's figures (scenarios/memory/dram_*.json) to its
# parameters, from first principles:
#   1. the pointer chase waits for every load: each cycle of tCL adds a cycle per load (256);
#   2. the row-conflict chase pays tRP on every conflict (29), the row-hit chase almost never;
#   3. refresh off is faster, by at most tRFC per refresh the run met;
#   4. a closed-page policy turns the chase's row hits into misses: tRCD more per hop;
#   5. each run passes its golden check (data moves at the cycle the stage hands it on).
#   usage: dram_sensitivity_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
FLYNN="$1"
SRC="$(cd "$2" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-dram-sensitivity.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
M="$SRC/scenarios/memory"
fail=0
n=0
. "$(dirname "$0")/sensitivity_lib.sh"

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

[ $fail -eq 0 ] && echo "all DRAM sensitivity checks hold"
exit $fail
