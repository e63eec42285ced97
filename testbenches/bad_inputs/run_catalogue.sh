#!/usr/bin/env bash
# Runs every entry of catalogue.txt: exit status 2, the expected fragment on stderr, and no
# output folder left behind.
#   usage: run_catalogue.sh FLYNN_BINARY
set -uo pipefail
FLYNN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-bad-inputs.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
cd "$HERE/cases" || exit 1
fail=0
n=0
while IFS='|' read -r name args fragment; do
  name="$(echo "$name" | xargs)"
  [[ -z "$name" || "$name" == \#* ]] && continue
  fragment="${fragment# }"
  out="$WORK/out_$name"
  read -r -a argv <<<"$args"
  "$FLYNN" "${argv[@]}" --outdir "$out" >"$WORK/stdout" 2>"$WORK/stderr"
  rc=$?
  n=$((n + 1))
  if [[ $rc -ne 2 ]]; then
    echo "FAIL $name: exit status $rc, expected 2 ($(head -c 300 "$WORK/stderr"))"; fail=1; continue
  fi
  if ! grep -qF -- "$fragment" "$WORK/stderr"; then
    echo "FAIL $name: stderr lacks '$fragment': $(head -c 400 "$WORK/stderr")"; fail=1; continue
  fi
  if [[ -e "$out" ]]; then
    echo "FAIL $name: left an output folder"; fail=1; continue
  fi
  echo "ok $name"
done < "$HERE/catalogue.txt"
[[ $n -ge 40 ]] || { echo "FAIL: only $n catalogue entries"; fail=1; }
[[ $fail -eq 0 ]] && echo "all $n bad inputs rejected with exit status 2 and a precise message"
exit $fail
