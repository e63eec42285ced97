#!/usr/bin/env python3
"""The timeline and the statistics count the same events: runs the Hopper SM's calibration
kernel (scenarios/gmma/calibration_h100_sm.json) with --trace perfetto and checks that its
slices agree with stats.json:
  - the core's instruction slices (every slice of top.sm but its "waiting: ..." spans) are the
    run's warp instructions;
  - each memory's spans on port i are its port_requests[i], and its reads plus writes;
  - the GMMA unit has one start-barrier, operands and math span per wgmma, and the
    start-barrier spans last start_barrier_cycles in all;
  - the TMA loader has one span per copy, from the loader's start of the copy to its last row
    written, so their mean plus the loader's issue_latency (the copy's wait from the warp's
    tma.load to that start) is mean_copy_latency.
  usage: trace_stats_test.py FLYNN_BINARY SOURCE_DIR
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

flynn, src = sys.argv[1], sys.argv[2]
fails = 0
checks = 0


def check(what, got, expected, tol=1e-6):
    global fails, checks
    checks += 1
    ok = abs(got - expected) <= tol * max(1.0, abs(expected))
    print(("ok   " if ok else "FAIL ") + f"{what}: {got} (statistics: {expected})")
    fails += 0 if ok else 1


with tempfile.TemporaryDirectory() as work:
    out = os.path.join(work, "cal")
    r = subprocess.run([flynn, "run", os.path.join(src, "scenarios/gmma/calibration_h100_sm.json"), "--outdir", out,
                        "--trace", "perfetto", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit("FAIL the run failed: " + r.stdout[:600])
    stats = json.load(open(os.path.join(out, "stats.json")))
    config = json.load(open(os.path.join(out, "config.resolved.json")))
    events = json.load(open(os.path.join(out, "trace.json")))["traceEvents"]

ns_per_cycle = stats["sim_time_ps"] / 1000.0 / stats["cycles"]  # (one clock here: 0.546 ns)
process = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
slices = collections.Counter()  # (track, category) -> complete slices
spans = collections.defaultdict(list)  # (track, category) -> async span lengths in cycles
begun = {}
for e in events:
    if e["ph"] == "X":
        slices[(process[e["pid"]], "waiting" if e["name"].startswith("waiting: ") else "instruction")] += 1
    elif e["ph"] == "b":
        begun[(e["pid"], e["cat"], e["id"])] = e["ts"]
    elif e["ph"] == "e":
        t0 = begun.pop((e["pid"], e["cat"], e["id"]))
        spans[(process[e["pid"]], e["cat"])].append((e["ts"] - t0) * 1000.0 / ns_per_cycle)  # ts: microseconds

mod = stats["modules"]
check("top.sm instruction slices", slices[("top.sm", "instruction")], stats["instructions"])
for mem in ("top.gmem", "top.smem"):
    ports = mod[mem]["port_requests"]
    for i, n in enumerate(ports):
        check(f"{mem} port{i} spans", len(spans[(mem, f"port{i}")]), n)
    total = sum(len(v) for (m, _), v in spans.items() if m == mem)
    check(f"{mem} spans in all", total, mod[mem]["reads"] + mod[mem]["writes"])
g = mod["top.gmma"]
for phase in ("start_barrier", "operands", "math"):
    check(f"top.gmma gmma.{phase} spans", len(spans[("top.gmma", "gmma." + phase)]), g["wgmma"])
check("top.gmma start-barrier span cycles", round(sum(spans[("top.gmma", "gmma.start_barrier")]), 6),
      g["start_barrier_cycles"])
tma = spans[("top.tma", "tma.load")]
check("top.tma tma.load spans", len(tma), mod["top.tma"]["copies"])
check("top.tma mean span + issue_latency", round(sum(tma) / len(tma) + config["modules"]["tma"]["issue_latency"], 6),
      mod["top.tma"]["mean_copy_latency"])
if fails:
    sys.exit(1)
print(f"all {checks} trace/statistics checks hold")
