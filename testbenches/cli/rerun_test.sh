#!/usr/bin/env bash
# A run's output folder holds what it needs to run again: every shipped scenario is run,
# its folder moved elsewhere, and its config.resolved.json run from there. The second run
# must exit the same way and write the same stats.json and config.resolved.json, and no
# saved configuration may name a file by an absolute path.
#   usage: rerun_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
FLYNN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
SRC="$(cd "$2" && pwd)"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-rerun.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/first" "$WORK/moved" "$WORK/again" "$WORK/elsewhere"
fail=0
count=0
while IFS= read -r s; do
  d="${s//\//_}"
  grep -q '"abstract": true' "$SRC/scenarios/$s.json" && continue  # a base platform: not run
  "$FLYNN" run "$SRC/scenarios/$s.json" --quiet --outdir "$WORK/first/$d" >"$WORK/first.log" 2>&1
  rc1=$?
  if [[ ! -f "$WORK/first/$d/config.resolved.json" ]]; then
    echo "FAIL $s: no config.resolved.json (exit status $rc1): $(head -c 300 "$WORK/first.log")"
    fail=1
    continue
  fi
  mv "$WORK/first/$d" "$WORK/moved/$d"
  # From another folder, by a relative path: nothing may depend on the working folder.
  (cd "$WORK/elsewhere" && "$FLYNN" run "../moved/$d/config.resolved.json" --quiet --outdir "../again/$d") \
    >"$WORK/again.log" 2>&1
  rc2=$?
  # A shipped scenario runs clean (exit 0) both times: matching failures are failures.
  if [[ $rc1 -ne 0 || $rc2 -ne 0 ]]; then
    echo "FAIL $s: exit status $rc1, then $rc2 from config.resolved.json (expected 0 both times): $(head -c 300 "$WORK/again.log")"
    fail=1
    continue
  fi
  for f in stats.json config.resolved.json; do
    cmp -s "$WORK/moved/$d/$f" "$WORK/again/$d/$f" ||
      { echo "FAIL $s: $f differs when config.resolved.json runs again"; fail=1; }
  done
  grep -qE '"(/|[A-Za-z]:\\)' "$WORK/moved/$d/config.resolved.json" &&
    { echo "FAIL $s: config.resolved.json names an absolute path"; fail=1; }
  grep -qF -e "$WORK" -e "$SRC" "$WORK/moved/$d/config.resolved.json" &&
    { echo "FAIL $s: config.resolved.json names the source or run folder"; fail=1; }
  count=$((count + 1))
done < <(cd "$SRC/scenarios" && find . -mindepth 2 -maxdepth 2 -name '*.json' | sed 's|^\./||; s|\.json$||' | sort)
[[ $fail -eq 0 ]] && echo "ok - $count scenarios ran again from their config.resolved.json with identical stats.json"
exit $fail
