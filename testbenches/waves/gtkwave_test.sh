#!/usr/bin/env bash
# Waveforms in real GTKWave: runs every shipped scenario with --trace vcd, opens each
# waves.vcd with its views (waves.gtkw, and waves.gmma.gtkw where the run writes one) in
# GTKWave under Xvfb, and converts each waves.vcd to FST.
#
# usage: gtkwave_test.sh FLYNN_BINARY SOURCE_DIR
#
# For each view, GTKWave runs check_view.tcl, which checks that the dump file's facilities
# loaded (as many as the file declares), that every signal the view names is a facility,
# that the view's signals and groups are displayed in order, and that its start time and
# markers took effect. GTKWave's own complaints (warnings, parse errors) fail the test too.
# Then vcd2fst converts each waves.vcd; the FST must be non-empty and, read back with
# fst2vcd, declare the same variables and end at the same time.
#
# Needs gtkwave (with vcd2fst and fst2vcd), xvfb-run, Xvfb and xauth: the Debian packages
# gtkwave, xvfb and xauth. Works in a fresh temporary folder; exits non-zero on any failure.
set -u

GTKWAVE_TIMEOUT=${FLYNN_GTKWAVE_TIMEOUT:-90}  # seconds per GTKWave run (normally about 1)
RUN_TIMEOUT=${FLYNN_RUN_TIMEOUT:-300}          # seconds per scenario run
GTKWAVE_JOBS=${FLYNN_GTKWAVE_JOBS:-3}          # GTKWave runs at a time

# Scenarios run with extra options to keep the test short. The GEMM shrinks to 64 x 256 x 64
# (still several wgmmas, so the GMMA view is written), its host reference with it (A and B
# keep their 512-element rows, C takes 256-element ones).
declare -A EXTRA=(
  ["gmma/h100_sm_gemm"]='--set workload.params=[64,256,64,1048576,4] --set workload.reference.gemm.m=64 --set workload.reference.gemm.n=256 --set workload.reference.gemm.k=64 --set workload.reference.gemm.lda=512 --set workload.reference.gemm.ldb=512'
)
# Scenarios that cannot run on their own, with the reason (none at present).
declare -A SKIP=()

# ---------------------------------------------------------------------------------------
# Inner mode, run under xvfb-run: checks each view listed in $2 (up to GTKWAVE_JOBS GTKWave
# runs at a time: a run mostly waits), writes "status<TAB>label<TAB>view<TAB>log" lines to
# $3 in the list's order, then END.
if [[ "${1:-}" == "--inner" ]]; then
  list=$2
  results=$3
  tcl=$4
  n=0
  while IFS=$'\t' read -r label dir view nvars; do
    n=$((n + 1))
    while [[ $(jobs -rp | wc -l) -ge $GTKWAVE_JOBS ]]; do wait -n; done
    (
      log="$dir/${view%.gtkw}.gtkwave.log"
      cd "$WORK_ROOT" || exit 1
      # GTKWave that cannot connect to the X server (a busy machine) is started again.
      for try in 1 2 3; do
        FLYNN_VIEW="$dir/$view" FLYNN_EXPECT_FACS="$nvars" \
          timeout -k 10 "$GTKWAVE_TIMEOUT" gtkwave --rcvar 'splash_disable on' -S "$tcl" \
            "$dir/waves.vcd" "$dir/$view" </dev/null >"$log" 2>&1
        rc=$?
        grep -q 'Could not initialize GTK' "$log" || break
        sleep $try
      done
      printf '%s\t%s\t%s\t%s\n' "$rc" "$label" "$view" "$log" >"$results.$n"
    ) &
  done <"$list"
  wait
  : >"$results"
  for ((i = 1; i <= n; i++)); do
    cat "$results.$i" >>"$results" 2>/dev/null || printf '255\tview %d\tunknown\t/dev/null\n' "$i" >>"$results"
  done
  echo "END" >>"$results"
  exit 0
fi

# ---------------------------------------------------------------------------------------
if [[ $# -ne 2 ]]; then
  echo "usage: $0 FLYNN_BINARY SOURCE_DIR" >&2
  exit 2
fi
FLYNN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
SRC="$(cd "$2" && pwd)"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SELF="$HERE/$(basename "${BASH_SOURCE[0]}")"
TCL="$HERE/check_view.tcl"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
export LC_ALL=C

[[ -x "$FLYNN" ]] || { echo "FAIL: $FLYNN is not an executable" >&2; exit 1; }
[[ -f "$TCL" ]] || { echo "FAIL: $TCL is missing" >&2; exit 1; }
missing=()
for tool in gtkwave vcd2fst fst2vcd xvfb-run Xvfb xauth timeout; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "FAIL: missing tools: ${missing[*]}" >&2
  echo "      this test opens the waveforms in GTKWave under Xvfb; install the Debian packages" >&2
  echo "      gtkwave, xvfb and xauth (apt-get install gtkwave xvfb xauth; scripts/test does)" >&2
  exit 1
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-waves-test.XXXXXX")"
trap 'cd / && rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
START=$SECONDS
failures=0
fail() {
  echo "FAIL - $*" >&2
  failures=$((failures + 1))
}

# 1. Run every shipped scenario with --trace vcd (and a base-protocol checker on every TLM link).
mapfile -t scenarios < <(cd "$SRC/scenarios" && find . -mindepth 2 -maxdepth 2 -name '*.json' | sed 's|^\./||; s|\.json$||' | sort)
[[ ${#scenarios[@]} -gt 0 ]] || { echo "FAIL: no scenarios under $SRC/scenarios" >&2; exit 1; }
: >"$WORK/views.txt"
runs=0
for s in "${scenarios[@]}"; do
  if [[ -n "${SKIP[$s]:-}" ]]; then
    echo "skip $s: ${SKIP[$s]}"
    continue
  fi
  if grep -q '"abstract": true' "$SRC/scenarios/$s.json"; then
    echo "skip $s: a base platform (\"abstract\": true), not run"
    continue
  fi
  out="out/$s"
  mkdir -p "$(dirname "$out")"
  read -r -a extra <<<"${EXTRA[$s]:-}"
  t0=$SECONDS
  timeout -k 10 "$RUN_TIMEOUT" "$FLYNN" run "$SRC/scenarios/$s.json" --trace vcd --check-protocol --outdir "$out" \
    --quiet "${extra[@]}" >"$out.stdout" 2>"$out.stderr"
  rc=$?
  if [[ $rc -ne 0 ]]; then
    fail "$s: flynn run --trace vcd exited with status $rc${extra[*]:+ (options: ${extra[*]})}"
    head -c 3000 "$out.stderr" >&2
    continue
  fi
  if [[ ! -s "$out/waves.vcd" || ! -s "$out/waves.gtkw" ]]; then
    fail "$s: waves.vcd or waves.gtkw missing or empty in the output folder"
    continue
  fi
  runs=$((runs + 1))
  nvars=$(grep -c '^\$var ' "$out/waves.vcd")
  views=""
  for v in "$out"/waves.gtkw "$out"/waves.*.gtkw; do
    [[ -f "$v" ]] || continue
    view=$(basename "$v")
    # The view must name its dump file, which must lie next to it.
    dump=$(sed -n 's/^\[dumpfile\] "\(.*\)"$/\1/p' "$v")
    if [[ "$dump" != "waves.vcd" ]]; then
      fail "$s/$view: [dumpfile] is '$dump', expected \"waves.vcd\" (next to the view)"
    fi
    printf '%s\t%s\t%s\t%s\n' "$s" "$out" "$view" "$nvars" >>"$WORK/views.txt"
    views+=" $view"
  done
  echo "ran $s in $((SECONDS - t0)) s: $nvars variables, views:$views"
done
[[ $runs -gt 0 ]] || { echo "FAIL: no scenario ran" >&2; exit 1; }
nviews=$(wc -l <"$WORK/views.txt")
echo "--- $runs scenarios ran in $((SECONDS - START)) s; opening $nviews views in GTKWave"

# 2. Open every view in GTKWave under one Xvfb server (started again if it fails to start,
# for example when another test takes the display number at the same moment).
mkdir -p "$WORK/home"
t0=$SECONDS
for attempt in 1 2 3; do
  HOME="$WORK/home" GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1 WORK_ROOT="$WORK" \
    FLYNN_GTKWAVE_TIMEOUT="$GTKWAVE_TIMEOUT" FLYNN_GTKWAVE_JOBS="$GTKWAVE_JOBS" \
    xvfb-run -a -e "$WORK/xvfb.log" -s "-screen 0 1600x1000x24" \
      bash "$SELF" --inner "$WORK/views.txt" "$WORK/results.txt" "$TCL" </dev/null
  rc=$?
  if [[ -f "$WORK/results.txt" ]] && tail -n 1 "$WORK/results.txt" | grep -qx END; then
    break
  fi
  echo "xvfb-run exited with status $rc without checking the views (attempt $attempt):" >&2
  tail -n 5 "$WORK/xvfb.log" >&2 2>/dev/null
  rm -f "$WORK/results.txt"*
  sleep 2
done
if [[ ! -f "$WORK/results.txt" ]]; then
  echo "FAIL: could not start GTKWave under Xvfb" >&2
  exit 1
fi
checked=0
while IFS=$'\t' read -r rc label view log; do
  [[ "$rc" == "END" ]] && break
  checked=$((checked + 1))
  found=$(grep '^flynn-check: ' "$log" | grep -v -e 'RESULT' -e 'FAIL' | sed 's/^flynn-check: //' | paste -sd ';' - | sed 's/;/; /g')
  # GTKWave's own complaints: anything that reads as a warning or an error.
  complaints=$(grep -v '^flynn-check: ' "$log" | grep -Ei 'warn|error|near byte|critical|unknown|not found|cannot|could not|abort|segmentation|fault' || true)
  if [[ "$rc" == 124 || "$rc" == 137 ]]; then
    fail "$label/$view: GTKWave timed out after $GTKWAVE_TIMEOUT s"
    sed 's/^/    /' "$log" >&2
  elif [[ "$rc" != 0 ]] || ! grep -qx 'flynn-check: RESULT ok' "$log"; then
    fail "$label/$view: GTKWave check failed (exit status $rc)"
    sed 's/^/    /' "$log" >&2
  elif [[ -n "$complaints" ]]; then
    fail "$label/$view: GTKWave complained:"
    printf '    %s\n' "$complaints" >&2
  else
    echo "ok $label/$view: $found"
  fi
done <"$WORK/results.txt"
[[ $checked -eq $nviews ]] || fail "$checked of $nviews views were checked"
echo "--- $checked views checked in GTKWave in $((SECONDS - t0)) s"

# 3. Convert every waves.vcd to FST and read it back.
t0=$SECONDS
converted=0
while IFS= read -r vcd; do
  dir=$(dirname "$vcd")
  label=${dir#out/}
  if ! timeout -k 10 "$RUN_TIMEOUT" vcd2fst "$vcd" "$dir/waves.fst" >"$dir/vcd2fst.log" 2>&1; then
    fail "$label: vcd2fst failed"
    sed 's/^/    /' "$dir/vcd2fst.log" >&2
    continue
  fi
  if [[ ! -s "$dir/waves.fst" ]]; then
    fail "$label: vcd2fst wrote no waves.fst"
    continue
  fi
  timeout -k 10 "$RUN_TIMEOUT" fst2vcd "$dir/waves.fst" >"$dir/back.vcd" 2>"$dir/fst2vcd.log" ||
    { fail "$label: fst2vcd cannot read the FST back"; continue; }
  vars=$(grep -c '^\$var ' "$vcd")
  back_vars=$(grep -c '^\$var ' "$dir/back.vcd")
  end=$(grep '^#' "$vcd" | tail -n 1)
  back_end=$(grep '^#' "$dir/back.vcd" | tail -n 1)
  if [[ "$vars" != "$back_vars" || "$end" != "$back_end" ]]; then
    fail "$label: the FST has $back_vars variables ending at $back_end; the VCD $vars ending at $end"
    continue
  fi
  converted=$((converted + 1))
  rm -f "$dir/back.vcd"
done < <(find out -name waves.vcd | sort)
echo "--- $converted VCD files converted to FST in $((SECONDS - t0)) s"
[[ $converted -eq $runs ]] || fail "$converted of $runs VCD files converted"

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s) in $((SECONDS - START)) s" >&2
  exit 1
fi
echo "all good: $runs scenarios, $checked views in GTKWave, $converted FST files, $((SECONDS - START)) s"
