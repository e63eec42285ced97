#!/usr/bin/env bash
# Runs shipped scenarios, each with a TLM-2.0 base-protocol checker on every TLM link, and
# checks the numbers listed in scenario_numbers.txt.
# Usage: scenario_numbers_test.sh FLYNN_BINARY SOURCE_DIR [SCENARIO]  (default: every line)
set -euo pipefail
flynn=$1
src=$2
only=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ran=0

# expect DIR/SCENARIO MODULE key=value...
expect() {
  local scenario=$1 module=$2
  shift 2
  ran=$((ran + 1))
  # Several lines of one scenario check one run.
  if [ ! -f "$work/${scenario//\//_}/stats.json" ] &&
     ! "$flynn" run "$src/scenarios/$scenario.json" --outdir "$work/${scenario//\//_}" --quiet --check-protocol; then
    echo "FAIL $scenario: run failed"; fail=1; return
  fi
  if python3 - "$work/${scenario//\//_}/stats.json" "$module" "$@" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
mod = stats["modules"][sys.argv[2]]
bad = []
for kv in sys.argv[3:]:
    k, v = kv.rsplit("=", 1)
    if k.startswith("hist[") :  # hist[NAME][K]=V: bucket K of histogram NAME
        name, bucket = k[5:].split("][")
        got = mod[name][int(bucket.rstrip("]"))]
    elif k == "peak_le:":   # the most frequent element_ops_per_cycle
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

while read -r scenario rest; do
  case "$scenario" in ""|\#*) continue ;; esac
  [ -n "$only" ] && [ "$scenario" != "$only" ] && continue
  # shellcheck disable=SC2086
  expect "$scenario" $rest
done < "$(dirname "${BASH_SOURCE[0]}")/scenario_numbers.txt"
[ "$ran" -gt 0 ] || { echo "FAIL: no scenario matched '$only'"; exit 1; }
exit $fail
