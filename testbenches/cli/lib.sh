# The harness of the command-line tests (sourced): arguments, a temporary work folder, and
# checks of one flynn command's exit status and output.
#
#   source "$(dirname "$0")/lib.sh"
#   cli_test_setup NAME "$@"   # FLYNN, SRC and WORK set, the current folder is WORK
#   flynn run X.json; expect_rc 0; stdout_has "cycles"; pass "X runs"
#
# A failed check prints what failed and the last command's output, and exits 1.

# cli_test_setup NAME FLYNN_BINARY SOURCE_DIR
cli_test_setup() {
  local name="$1"
  shift
  if [[ $# -ne 2 ]]; then
    echo "usage: $0 FLYNN_BINARY SOURCE_DIR" >&2
    exit 2
  fi
  FLYNN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
  SRC="$(cd "$2" && pwd)"
  export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
  [[ -x "$FLYNN" ]] || { echo "FAIL: $FLYNN is not an executable" >&2; exit 1; }
  command -v python3 >/dev/null || { echo "FAIL: python3 is needed to read JSON" >&2; exit 1; }
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-$name.XXXXXX")"
  trap 'cd / && rm -rf "$WORK"' EXIT
  cd "$WORK" || exit 1
}

checks=0
pass() {
  checks=$((checks + 1))
  echo "ok $checks - $*"
}
fail() {
  echo "FAIL - $*" >&2
  local f
  for f in stdout stderr; do
    if [[ -f "$WORK/.$f" ]]; then
      echo "--- $f of the last flynn command:" >&2
      head -c 4000 "$WORK/.$f" >&2
    fi
  done
  exit 1
}

# flynn ARGS...: runs flynn; sets rc and LAST, leaves its output in $WORK/.stdout and .stderr.
rc=0
LAST=""
flynn() {
  "$FLYNN" "$@" >"$WORK/.stdout" 2>"$WORK/.stderr"
  rc=$?
  LAST="flynn $*"
}
expect_rc() { [[ $rc -eq $1 ]] || fail "$LAST: exit status $rc, expected $1"; }
stdout_has() { grep -qF -- "$1" "$WORK/.stdout" || fail "$LAST: stdout does not contain '$1'"; }
stderr_has() { grep -qF -- "$1" "$WORK/.stderr" || fail "$LAST: stderr does not contain '$1'"; }

# json_eval FILE PYTHON_EXPR (over `j`, the parsed file): prints the value.
json_eval() {
  python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}
