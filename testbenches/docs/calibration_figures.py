#!/usr/bin/env python3
"""docs/calibration.md's table gives each calibration scenario's model figure ("N cycles");
each must be the scenario's pinned statistic (testbenches/cli/scenario_numbers.txt, checked
by its own tests: global_load_latency for the chases, tma_round_trip for the TMA copies),
rounded to two decimals, and the mma.sync ratio the text quotes must be the pinned
mma_sync_to_wgmma_rate, and the table of kinds must agree with each scenario's calibration targets
(kind, published figure) and with the pinned model figures, so that the page cannot drift
from what the model gives.
  usage: calibration_figures.py SOURCE_DIR"""
import json
import re
import sys

src = sys.argv[1]
pins = {}  # (scenario file name, statistic) -> pinned value
for line in open(f"{src}/testbenches/cli/scenario_numbers.txt"):
    if line.startswith("#") or not line.strip():
        continue
    name = line.split()[0].split("/")[-1]
    for key, value in re.findall(r"\b(\w+)=([-\d.]+)\b", line):
        pins[(name, key)] = float(value)
checked, bad = 0, []
text = open(f"{src}/docs/calibration.md").read()
for n, row in enumerate(text.split("\n"), 1):
    m = re.match(r"\| `(calibration_[\w]+)\.json` \|.*?\| ([\d.]+) cycles", row)
    if not m:
        continue
    name, figure = m.group(1), float(m.group(2))
    pinned = [v for (s, k), v in pins.items() if s == name and k in ("global_load_latency", "tma_round_trip")]
    checked += 1
    if not any(round(v, 2) == figure for v in pinned):
        bad.append(f"docs/calibration.md:{n}: {name}: {figure} cycles, pinned {pinned}")
ratio = pins.get(("calibration_h100_sm_mma_sync", "mma_sync_to_wgmma_rate"))
m = re.search(r"the one model\. .*?gives 5 cycles and\s+([\d.]+)", text, re.S)
checked += 1
if not m or ratio is None or round(ratio, 3) != float(m.group(1)):
    bad.append(f"docs/calibration.md: the mma.sync ratio quoted ({m.group(1) if m else 'none found'}), pinned {ratio}")
# The table of kinds: each row naming one scenario and one statistic must give the kind and
# the published figure that scenario's calibration target gives, and the model figure its
# pinned statistic gives (to the decimals the page shows), where one is pinned.
rows = 0
for n, row in enumerate(text.split("\n"), 1):
    m = re.match(r"\| `(calibration_\w+)\.json` \| `(\w+)` \| ([\d.]+) \| ([\d.]+) \| (\w+) \|", row)
    if not m:
        continue
    name, stat, model, published, kind = m.group(1), m.group(2), m.group(3), float(m.group(4)), m.group(5)
    rows += 1
    targets = [t for t in json.load(open(f"{src}/scenarios/gmma/{name}.json")).get("calibration", [])
               if t["stat"].rsplit(".", 1)[-1] == stat]
    if not any(t.get("kind") == kind and t["published"] == published for t in targets):
        bad.append(f"docs/calibration.md:{n}: {name} {stat}: {kind}, published {published}; the scenario has "
                   f"{[(t.get('kind'), t['published']) for t in targets]}")
    decimals = len(model.split(".")[1]) if "." in model else 0
    if (name, stat) in pins and round(pins[(name, stat)], decimals) != float(model):
        bad.append(f"docs/calibration.md:{n}: {name} {stat}: model {model}, pinned {pins[(name, stat)]}")
checked += rows
if rows < 6:
    bad.append(f"docs/calibration.md: {rows} rows of the table of kinds found, expected at least 6")
for b in bad:
    print("FAIL", b)
print(f"{checked} docs/calibration.md figures checked against the pinned numbers, {len(bad)} drifted")
sys.exit(1 if bad or checked < 5 else 0)
