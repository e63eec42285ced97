#!/usr/bin/env bash
# Order independence: a platform gives the same statistics whatever its instances are called.
# Module instances are built in name order, so renaming them (here: reversing that order)
# changes the order SystemC creates and runs their processes; shared resources grant in
# simulated-time order, so no statistic may change. Each scenario runs once as shipped and
# once from its output folder's config.resolved.json with every instance renamed; the two
# stats.json must be equal under the renaming.
#   usage: order_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
FLYNN="$(realpath "$1")"
SRC="$(cd "$2" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-order.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
fail=0
n=0

# Two AT traffic generators contending for the banks of one memory in the same cycles.
cat >"$WORK/contention.json" <<'EOF'
{
  "name": "contention",
  "description": "two AT traffic generators contending for two shared banks from cycle 0",
  "modules": {
    "mem": {"type": "banked_memory", "banks": 2, "latency": 11, "shared_ports": 2, "multiported_banks": false},
    "a": {"type": "traffic_generator", "at": true, "streams": [{"kind": "linear", "stride": 8, "count": 40}]},
    "b": {"type": "traffic_generator", "at": true,
          "streams": [{"kind": "linear", "stride": 16, "count": 40, "base": 4096, "write": true}]}
  },
  "bindings": [["a.out", "mem.port0"], ["b.out", "mem.port1"]]
}
EOF

# The same with LT generators that synchronise before each request (quantum 1): each call is
# for the current cycle, and the memory grants the calls of a cycle in its arbiter's order.
python3 - "$WORK/contention.json" "$WORK/contention_lt.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["name"] = "contention_lt"
c["description"] = "two LT traffic generators (quantum 1) contending for two shared banks from cycle 0"
for g in ("a", "b"):
    c["modules"][g]["at"] = False
    c["modules"][g]["quantum"] = 1
json.dump(c, open(sys.argv[2], "w"), indent=1)
EOF

# LT generators running ahead of simulated time (quantum 1000) on a memory that makes each
# call for a later cycle wait for its cycle (lt_time_order, the default): granted in time
# order again.
python3 - "$WORK/contention_lt.json" "$WORK/contention_lt_ahead.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["name"] = "contention_lt_ahead"
c["description"] = "two LT traffic generators running ahead (quantum 1000) on a memory granting in time order"
for g in ("a", "b"):
    c["modules"][g]["quantum"] = 1000
c["modules"]["a"]["streams"][0]["stride"] = 16  # both on bank 0: the order of grants decides
json.dump(c, open(sys.argv[2], "w"), indent=1)
c["name"] = "contention_lt_call_order"
c["modules"]["mem"]["lt_time_order"] = False
json.dump(c, open(sys.argv[2].replace("ahead", "call_order"), "w"), indent=1)
EOF

check() {  # check NAME SCENARIO
  local name="$1" sc="$2"
  n=$((n + 1))
  if ! "$FLYNN" run "$sc" --quiet --outdir "$WORK/$name" >"$WORK/$name.log" 2>&1; then
    echo "FAIL $name: the run failed: $(head -c 300 "$WORK/$name.log")"; fail=1; return
  fi
  cp -r "$WORK/$name" "$WORK/$name.renamed"
  python3 - "$WORK/$name.renamed/config.resolved.json" <<'EOF'
import json, sys
path = sys.argv[1]
c = json.load(open(path))
names = sorted(c["modules"])
# zz_<name> for the first in name order, ..., so construction order is reversed.
new = {n: "z" * (len(names) - i) + "_" + n for i, n in enumerate(names)}
def rename(v):
    if isinstance(v, str):
        head, dot, rest = v.partition(".")
        if head in new and (dot or v == head):
            return new[head] + dot + rest
        return v
    if isinstance(v, list):
        return [rename(x) for x in v]
    if isinstance(v, dict):
        return {k: rename(x) for k, x in v.items()}
    return v
c["modules"] = {new[k]: v for k, v in c["modules"].items()}
c["bindings"] = rename(c["bindings"])
if "workload" in c:
    for k in ("core", "memory", "cpu", "vpu"):
        if k in c["workload"]:
            c["workload"][k] = rename(c["workload"][k])
if "calibration" in c:
    c["calibration"] = [dict(t, stat="top." + rename(t["stat"][4:])) for t in c["calibration"]]
json.dump(c, open(path, "w"), indent=1)
json.dump(new, open(path + ".names", "w"))
EOF
  if ! (cd "$WORK/$name.renamed" && "$FLYNN" run config.resolved.json --quiet --outdir "$WORK/$name.out") \
      >"$WORK/$name.renamed.log" 2>&1; then
    echo "FAIL $name: the renamed run failed: $(head -c 300 "$WORK/$name.renamed.log")"; fail=1; return
  fi
  if python3 - "$WORK/$name/stats.json" "$WORK/$name.out/stats.json" "$WORK/$name.renamed/config.resolved.json.names" <<'EOF'
import json, sys
a, b, names = (json.load(open(p)) for p in sys.argv[1:])
mods = {"top." + names[k[4:]]: v for k, v in a.pop("modules").items()}
bm = b.pop("modules")
a.pop("scenario", None); b.pop("scenario", None)
# Check texts name instances ("top.gmem: final memory ..."): compare them renamed.
def renamed(text):
    for old in sorted(names, key=len, reverse=True):
        text = text.replace("top." + old + ".", "top.@" + names[old] + ".").replace("top." + old + ":", "top.@" + names[old] + ":")
    return text.replace("top.@", "top.")
key = lambda c: json.dumps(c, sort_keys=True)  # checks are listed in instance-name order
a["checks"] = sorted((renamed(c) if isinstance(c, str) else c for c in a.get("checks", [])), key=key)
b["checks"] = sorted(b.get("checks", []), key=key)
diff = [k for k in set(mods) | set(bm) if mods.get(k) != bm.get(k)]
diff += [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
if diff:
    print("differs in", sorted(diff)[:8])
    sys.exit(1)
EOF
  then
    echo "ok   $name: identical statistics with the instances renamed"
  else
    echo "FAIL $name: statistics differ with the instances renamed"; fail=1
  fi
}

check contention "$WORK/contention.json"
check contention_lt "$WORK/contention_lt.json"
check contention_lt_ahead "$WORK/contention_lt_ahead.json"
check shared_2way "$SRC/scenarios/memory/shared_2way.json"
check vector_3ports "$SRC/scenarios/vector/average_vector_chained_3ports.json"
check simt_two_level "$SRC/scenarios/simt/two_level.json"
check gmma_calibration "$SRC/scenarios/gmma/calibration_h100_sm.json"
check h100_sm_gemm "$SRC/scenarios/gmma/h100_sm_gemm.json"

# With lt_time_order off the same platform grants in call order, and its summary and
# stats.json say so; in time order (the default) they say nothing.
n=$((n + 1))
"$FLYNN" run "$WORK/contention_lt_call_order.json" --outdir "$WORK/call_order" >"$WORK/call_order.log" 2>&1
"$FLYNN" run "$WORK/contention_lt_ahead.json" --outdir "$WORK/time_order" >"$WORK/time_order.log" 2>&1
if grep -q "^  note: top.mem: [1-9][0-9]* requests were granted in call order, not in simulated-time order" "$WORK/call_order.log" &&
   python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if s["notes"] and s["modules"]["top.mem"]["call_order_grants"] > 0 else 1)' "$WORK/call_order/stats.json" &&
   ! grep -q "note:" "$WORK/time_order.log" &&
   python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if "notes" not in s and s["modules"]["top.mem"]["call_order_grants"] == 0 else 1)' "$WORK/time_order/stats.json"; then
  echo "ok   call order: the run that granted in call order says so in its summary and stats.json; the time-order run does not"
else
  echo "FAIL call order: summary notes wrong: $(grep -h note: "$WORK/call_order.log" "$WORK/time_order.log" | head -c 400)"; fail=1
fi

[ $fail -eq 0 ] && echo "all $n platforms order-independent"
exit $fail
