# Wall-clock limits scaled to the machine (sourced). A limit that guards against a hang is
# set from what a reference run takes here and now (same build, same load, same
# sanitizers), not from a fixed number of seconds:
#   . "$SRC/testbenches/machine_scale.sh"
#   limit=$(scaled_limit "$FLYNN" "$SRC" FLOOR FACTOR)  # seconds: max(FLOOR, FACTOR x reference)

# reference_seconds FLYNN SRC: the wall seconds of the soak kernel at 100 000 iterations
# (about 46 M cycles of one warp's loads, stores and ALU work, no traces).
reference_seconds() {
  local out t0 t1
  out="$(mktemp -d "${TMPDIR:-/tmp}/flynn-scale.XXXXXX")"
  t0=$(date +%s%N)
  "$1" run "$2/scenarios/simt/soak.json" --set workload.params.0=100000 --outdir "$out/r" --quiet >/dev/null 2>&1
  t1=$(date +%s%N)
  rm -rf "$out"
  awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.3f\n", ns / 1e9 }'
}

# scaled_limit FLYNN SRC FLOOR FACTOR: whole seconds, at least FLOOR.
scaled_limit() {
  local ref
  ref=$(reference_seconds "$1" "$2")
  awk -v r="$ref" -v f="$3" -v k="$4" 'BEGIN { l = k * r; if (l < f) l = f; printf "%d\n", l + 0.999 }'
}
