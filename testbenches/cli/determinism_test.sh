#!/usr/bin/env bash
# Every shipped scenario, run twice with waveforms and a timeline, must give byte-identical
# output files (host.json, the host's timing, aside). Both runs of a scenario write to the
# same folder, moved aside after each, so that provenance.json, which records the command
# line with its --outdir, is compared too. Two scenarios are checked at a time.
#   usage: determinism_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
FLYNN="$1"
SRC="$2"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-determinism.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export FLYNN SRC WORK

# check_one SCENARIO: writes "ok" or FAIL lines to its folder's result file.
check_one() {
  local s="$1" d="${1//\//_}"
  local w="$WORK/$d"
  mkdir -p "$w"
  # A base platform ("abstract": true) validates and is not run.
  if grep -q '"abstract": true' "$SRC/scenarios/$s.json"; then
    if "$FLYNN" validate "$SRC/scenarios/$s.json" 2>&1 | grep -q "a base platform"; then
      echo ok >"$w/result"
    else
      echo "FAIL $s: a base platform that does not validate as one" >"$w/result"
    fi
    return
  fi
  for run in a b; do
    "$FLYNN" run "$SRC/scenarios/$s.json" --trace vcd,perfetto --quiet --outdir "$w/run/out" >"$w/$run.log" 2>&1
    echo $? >"$w/$run.rc"
    mkdir -p "$w/$run"
    [[ -d "$w/run/out" ]] && mv "$w/run/out" "$w/$run/"
  done
  # A shipped scenario runs clean (exit 0) both times: two identical failures are failures.
  if [[ "$(cat "$w/a.rc")" != 0 || "$(cat "$w/b.rc")" != 0 ]]; then
    echo "FAIL $s: exit status $(cat "$w/a.rc") then $(cat "$w/b.rc") (expected 0 both times): $(head -c 300 "$w/a.log")" >"$w/result"
    return
  fi
  local files
  files=$(cd "$w/a/out" 2>/dev/null && find . -type f ! -name host.json | sort)
  if [[ -z "$files" ]]; then
    echo "FAIL $s: no output" >"$w/result"
    return
  fi
  : >"$w/result"
  for f in $files; do
    cmp -s "$w/a/out/$f" "$w/b/out/$f" || echo "FAIL $s: $f differs between two runs" >>"$w/result"
  done
  [[ -s "$w/result" ]] || echo ok >"$w/result"
  rm -rf "$w/a" "$w/b"  # (keep the disk use of two scenarios at a time)
}
export -f check_one

list=$(cd "$SRC/scenarios" && find . -mindepth 2 -maxdepth 2 -name '*.json' | sed 's|^\./||; s|\.json$||' | sort)
printf '%s\n' "$list" | xargs -P 2 -I{} bash -c 'check_one "$1"' _ {}
fail=0
count=0
for r in "$WORK"/*/result; do
  if [[ "$(cat "$r")" == ok ]]; then
    count=$((count + 1))
  else
    cat "$r"
    fail=1
  fi
done
for s in $list; do
  [[ -f "$WORK/${s//\//_}/result" ]] || { echo "FAIL $s: not checked"; fail=1; }
done
[[ $count -gt 0 ]] || { echo "FAIL no scenario checked"; fail=1; }
[[ $fail -eq 0 ]] && echo "ok - $count scenarios gave byte-identical outputs in two runs"
exit $fail
