#!/usr/bin/env python3
"""docs/calibration.md's table gives each calibration scenario's model figure ("N cycles");
each must be the scenario's pinned statistic (testbenches/cli/scenario_numbers.txt, checked
by its own tests: global_load_latency for the chases, tma_round_trip for the TMA copies),
rounded to two decimals, and the mma.sync ratio the text quotes must be the pinned
mma_sync_to_wgmma_rate, so that the page cannot drift from what the model gives.
  usage: calibration_figures.py SOURCE_DIR"""
import re
import sys

src = sys.argv[1]
pins = {}
for line in open(f"{src}/testbenches/cli/scenario_numbers.txt"):
    if line.startswith("#") or not line.strip():
        continue
    name = line.split()[0].split("/")[-1]
    for key, value in re.findall(r"\b(global_load_latency|tma_round_trip|mma_sync_to_wgmma_rate)=([\d.]+)", line):
        pins[(name, key)] = float(value)
checked, bad = 0, []
text = open(f"{src}/docs/calibration.md").read()
for n, row in enumerate(text.split("\n"), 1):
    m = re.match(r"\| `(calibration_[\w]+)\.json` \|.*?\| ([\d.]+) cycles", row)
    if not m:
        continue
    name, figure = m.group(1), float(m.group(2))
    pinned = [v for (s, k), v in pins.items() if s == name and k != "mma_sync_to_wgmma_rate"]
    checked += 1
    if not any(round(v, 2) == figure for v in pinned):
        bad.append(f"docs/calibration.md:{n}: {name}: {figure} cycles, pinned {pinned}")
ratio = pins.get(("calibration_h100_sm_mma_sync", "mma_sync_to_wgmma_rate"))
m = re.search(r"the one model\. .*?gives 5 cycles and\s+([\d.]+)", text, re.S)
checked += 1
if not m or ratio is None or round(ratio, 3) != float(m.group(1)):
    bad.append(f"docs/calibration.md: the mma.sync ratio quoted ({m.group(1) if m else 'none found'}), pinned {ratio}")
for b in bad:
    print("FAIL", b)
print(f"{checked} docs/calibration.md figures checked against the pinned numbers, {len(bad)} drifted")
sys.exit(1 if bad or checked < 5 else 0)
