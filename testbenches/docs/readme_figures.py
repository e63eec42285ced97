#!/usr/bin/env python3
"""The README's scenario table rows state cycle counts of shipped scenarios: each total
(a number of at least 100 followed by "cycles") in a row that names a scenario with pinned
cycles (testbenches/cli/scenario_numbers.txt, checked by its own tests) must be one of them,
so that a figure in the README cannot drift from what the model gives. Likewise each "busy
... N%" in such a row must be the pinned tensor-core busy cycles (busy_cycles=) over the
pinned cycles, rounded.
  usage: readme_figures.py SOURCE_DIR"""
import re
import sys

src = sys.argv[1]
pins, busy = {}, {}
for line in open(f"{src}/testbenches/cli/scenario_numbers.txt"):
    if line.startswith("#") or not line.strip():
        continue
    m = re.search(r"\bcycles=(\d+)", line)
    if m:
        pins.setdefault(line.split()[0].split("/")[-1], set()).add(int(m.group(1)))
    b = re.search(r"\bbusy_cycles=(\d+)", line)
    if b:
        busy.setdefault(line.split()[0].split("/")[-1], set()).add(int(b.group(1)))
checked, bad = 0, []
for n, row in enumerate(open(f"{src}/README.md"), 1):
    m = re.match(r"\| `([\w.]+)\.json` \|", row)
    if not m or m.group(1) not in pins:
        continue
    for figure in re.findall(r"(\d{1,3}(?: \d{3})+|\d+) cycles", row):
        value = int(figure.replace(" ", ""))
        if value < 100:  # (latencies and rates, not a run's total)
            continue
        checked += 1
        if value not in pins[m.group(1)]:
            bad.append(f"README.md:{n}: {m.group(1)}.json: {figure} cycles, pinned {sorted(pins[m.group(1)])}")
    for pct in re.findall(r"busy[^%|]*?(\d+)%", row):
        checked += 1
        shares = {round(100 * b / c) for b in busy.get(m.group(1), ()) for c in pins[m.group(1)]}
        if int(pct) not in shares:
            bad.append(f"README.md:{n}: {m.group(1)}.json: busy {pct}%, pinned busy cycles over cycles give {sorted(shares)}")
for b in bad:
    print("FAIL", b)
print(f"{checked} README cycle figures checked against the pinned numbers, {len(bad)} drifted")
sys.exit(1 if bad or checked < 4 else 0)
