#!/usr/bin/env bash
# Every shipped scenario, run twice with waveforms and a timeline, must give byte-identical
# output files (host.json, the host's timing, aside). Both runs write to the same folder,
# moved aside after each, so that provenance.json, which records the command line with its
# --outdir, is compared too.
#   usage: determinism_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
FLYNN="$1"
SRC="$2"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-determinism.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
fail=0
count=0
while IFS= read -r s; do
  for run in a b; do
    "$FLYNN" run "$SRC/scenarios/$s.json" --trace vcd,perfetto --quiet --outdir "$WORK/run/${s//\//_}" \
      >"$WORK/$run.log" 2>&1
    echo $? >"$WORK/$run.rc"
    mkdir -p "$WORK/$run"
    [[ -d "$WORK/run/${s//\//_}" ]] && mv "$WORK/run/${s//\//_}" "$WORK/$run/"
  done
  if ! cmp -s "$WORK/a.rc" "$WORK/b.rc"; then
    echo "FAIL $s: exit status $(cat "$WORK/a.rc") then $(cat "$WORK/b.rc")"
    fail=1
    continue
  fi
  d="${s//\//_}"
  files=$(cd "$WORK/a/$d" 2>/dev/null && find . -type f ! -name host.json | sort)
  [[ -n "$files" ]] || { echo "FAIL $s: no output"; fail=1; continue; }
  for f in $files; do
    cmp -s "$WORK/a/$d/$f" "$WORK/b/$d/$f" || { echo "FAIL $s: $f differs between two runs"; fail=1; }
  done
  count=$((count + 1))
done < <(cd "$SRC/scenarios" && find . -mindepth 2 -maxdepth 2 -name '*.json' | sed 's|^\./||; s|\.json$||' | sort)
[[ $fail -eq 0 ]] && echo "ok - $count scenarios gave byte-identical outputs in two runs"
exit $fail
