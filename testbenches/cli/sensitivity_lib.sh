# Helpers of the sensitivity tests (sourced), after `set -uo pipefail`:
#   . "$(dirname "$0")/sensitivity_lib.sh"
#   sensitivity_setup NAME "$@"   # FLYNN, SRC, a temporary WORK; fail=0, n=0
#   run TAG SCENARIO ARGS...; check "what" "python expression"; ...
#   check_moves "what" "python expression over a and b" A B  # and fails with b = a
#   sensitivity_end                # prints the summary, exits with $fail

# sensitivity_setup NAME FLYNN_BINARY SOURCE_DIR
sensitivity_setup() {
  FLYNN="$2"
  SRC="$(cd "$3" && pwd)"
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-$1.XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
  export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
  fail=0
  n=0
}
# sensitivity_end [WHAT]: "all N WHAT checks hold" when none failed; exits with $fail.
sensitivity_end() {
  [ $fail -eq 0 ] && echo "all $n ${1:-sensitivity} checks hold"
  exit $fail
}

# run TAG SCENARIO ARGS...: runs, fails the test unless it exits 0.
run() {
  local tag="$1" sc="$2"
  shift 2
  if ! "$FLYNN" run "$sc" "$@" --quiet --outdir "$WORK/$tag" >"$WORK/$tag.log" 2>&1; then
    echo "FAIL $tag: the run failed: $(head -c 400 "$WORK/$tag.log")"
    fail=1
  fi
}
# stat TAG PATH: a value of stats.json ("cycles" or "top.gmma.mma_interval"), as Python
# prints it (a list as a Python list); MISSING when there is none, which fails a check. The
# run's statistics are flattened once into TAG.values (PATH, a tab, the value) and read from
# there, again whenever stats.json is newer.
stat() {
  local json="$WORK/$1/stats.json" flat="$WORK/$1.values"
  if [[ ! -f "$flat" || "$json" -nt "$flat" ]]; then
    python3 - "$json" >"$flat" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for k, v in s.items():
    if k != "modules":
        print(k, v, sep="\t")
for inst, stats in s.get("modules", {}).items():
    for k, v in stats.items():
        print(inst + "." + k, v, sep="\t")
EOF
  fi
  awk -F '\t' -v p="$2" '$1 == p { print $2; found = 1; exit } END { if (!found) print "MISSING" }' "$flat"
}
# check DESCRIPTION PYTHON-EXPRESSION: the expression (over the numbers substituted in it)
# must hold.
check() {
  n=$((n + 1))
  if python3 -c "import sys; sys.exit(0 if ($2) else 1)"; then
    echo "ok   $1"
  else
    echo "FAIL $1: $2"
    fail=1
  fi
}
# check_moves DESCRIPTION EXPRESSION A B: a figure A before and B after a parameter moved;
# EXPRESSION (over the Python names a and b) must hold for them and must not hold for b = a,
# so that a model ignoring the parameter (the same figure twice) fails the check.
check_moves() {
  n=$((n + 1))
  local holds=1 control=1
  python3 -c "import sys; a, b = $3, $4; sys.exit(0 if ($2) else 1)" || holds=0
  python3 -c "import sys; a, b = $3, $3; sys.exit(0 if ($2) else 1)" || control=0
  if [ $holds -eq 1 ] && [ $control -eq 0 ]; then
    echo "ok   $1"
  elif [ $holds -eq 0 ]; then
    echo "FAIL $1: $2 with a = $3, b = $4"
    fail=1
  else
    echo "FAIL $1: $2 also holds with the parameter ignored (a = b = $3): the check cannot fail"
    fail=1
  fi
}
