#!/usr/bin/env bash
# flynn-bench's options: bad values are refused with exit status 2 and a message naming the
# option, what it expects and what it found; the usage line lists every option.
#   bench_args_test.sh FLYNN_BENCH
set -u
BENCH="$1"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # expect RC TEXT ARGS...: exit status RC and TEXT in stderr
  local rc="$1" text="$2" got err
  shift 2
  err=$("$BENCH" "$@" 2>&1 >/dev/null)
  got=$?
  [[ $got -eq $rc ]] || fail "flynn-bench $*: exit $got, expected $rc ($err)"
  [[ "$err" == *"$text"* ]] || fail "flynn-bench $*: expected \"$text\" in: $err"
}
expect 2 '--cpu: expected a whole number from 0 to 1023, found "x"' --cpu x
expect 2 '--cpu: expected a whole number from 0 to 1023, found "-1"' --cpu -1
expect 2 '--cpu: expected a whole number from 0 to 1023, found "1024"' --cpu 1024
expect 2 '--repeat: expected a whole number from 1 to 100, found "0"' --repeat 0
expect 2 'usage: flynn-bench [--quick] [--repeat N (1 to 100)] [--cpu N] [--out DIR]' --frobnicate
# A CPU this machine does not let the process run on (one past the CPUs it has).
none=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)) + 1)')
if [[ $none -le 1023 ]]; then
  expect 2 "--cpu $none: this process may not run on that CPU" --cpu "$none"
fi
echo "PASS: flynn-bench options"
