#!/usr/bin/env python3
"""Checks the structure of a trace-event JSON timeline written by `flynn run --trace perfetto`.

  perfetto_check.py trace.json [CATEGORY_OR_TRACK_PREFIX ...]

Every event has a phase, name, pid and tid; timestamps are non-decreasing; every pid and
thread is named by metadata; slices ("X") of one track do not overlap; every async begin
("b") has one end ("e") of the same category and id, not earlier; counters ("C") carry a
value. Each further argument must name a category of async spans or a prefix of a track
name that has events. Prints a summary; exits 1 with the first problem found.
"""
import json
import sys


def main():
    path, wanted = sys.argv[1], sys.argv[2:]
    with open(path) as f:
        doc = json.load(f)
    ev = doc.get("traceEvents")
    if not isinstance(ev, list) or not ev:
        sys.exit("%s: no traceEvents" % path)
    pnames, tnames = {}, {}
    last_ts = -1.0
    tracks, spans, open_spans, cats, counters = {}, 0, {}, set(), 0
    for i, e in enumerate(ev):
        for k in ("ph", "name", "pid", "tid"):
            if k not in e:
                sys.exit("%s: event %d has no %s: %s" % (path, i, k, e))
        ph = e["ph"]
        if ph == "M":
            (pnames if e["name"] == "process_name" else tnames)[(e["pid"], e["tid"]) if e["name"] == "thread_name" else e["pid"]] = e["args"]["name"]
            continue
        ts = float(e["ts"])
        if ts < last_ts:
            sys.exit("%s: event %d at %s before the previous one at %s" % (path, i, ts, last_ts))
        last_ts = ts
        if e["pid"] not in pnames:
            sys.exit("%s: event %d: pid %s has no process_name" % (path, i, e["pid"]))
        if ph == "X":
            if (e["pid"], e["tid"]) not in tnames:
                sys.exit("%s: event %d: track %s/%s has no thread_name" % (path, i, e["pid"], e["tid"]))
            dur = float(e["dur"])
            if dur < 0:
                sys.exit("%s: event %d: negative duration" % (path, i))
            key = (e["pid"], e["tid"])
            prev_end = tracks.get(key, -1.0)
            if ts < prev_end - 1e-9:
                sys.exit("%s: event %d (%s) on track %s overlaps the previous slice (ends at %s)" %
                         (path, i, e["name"], tnames[key], prev_end))
            tracks[key] = ts + dur
        elif ph in ("b", "e"):
            key = (e["pid"], e.get("cat"), e.get("id"))
            cats.add(e.get("cat"))
            if ph == "b":
                if key in open_spans:
                    sys.exit("%s: event %d: a second begin of %s before its end" % (path, i, key))
                open_spans[key] = ts
                spans += 1
            else:
                if key not in open_spans:
                    sys.exit("%s: event %d: an end of %s without a begin" % (path, i, key))
                del open_spans[key]
        elif ph == "C":
            if "value" not in e.get("args", {}):
                sys.exit("%s: event %d: a counter without a value" % (path, i))
            counters += 1
        else:
            sys.exit("%s: event %d: unknown phase %s" % (path, i, ph))
    if open_spans:
        sys.exit("%s: %d async spans never end, e.g. %s" % (path, len(open_spans), next(iter(open_spans))))
    track_names = set(tnames.values())
    for w in wanted:
        if w not in cats and not any(t.startswith(w) for t in track_names):
            sys.exit("%s: no span category or track '%s' (categories: %s)" % (path, w, ", ".join(sorted(map(str, cats)))))
    print("%s: %d events, %d slices on %d tracks, %d async spans in %d categories, %d counter values" %
          (path, len(ev), sum(1 for e in ev if e["ph"] == "X"), len(tracks), spans, len(cats), counters))


if __name__ == "__main__":
    main()
