#!/usr/bin/env bash
# The checked-in PTX of the CUDA kernel set is what nvcc makes of the sources: regenerates
# every workloads/cuda/NAME.cu into a temporary folder and compares it byte for byte with
# workloads/cuda/ptx/NAME.ptx (and that there is one PTX file per source, no more).
# Skipped (exit 77) where nvcc is missing, or is another release than the one that made the
# checked-in files (their header names it).
#   usage: ptx_regen_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
SRC="$(cd "$2" && pwd)"
CUDA="$SRC/workloads/cuda"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if ! [ -x "$nvcc" ]; then
  echo "skipped (ptx_regenerated): nvcc not found (set NVCC), so the checked-in PTX is not compared with what nvcc makes of the sources"
  exit 77
fi
want=$(grep -m1 -o "Cuda compilation tools, release [^ ]*, V[0-9.]*" "$CUDA/ptx/vecadd.ptx")
have=$("$nvcc" --version | grep -m1 -o "Cuda compilation tools, release [^ ]*, V[0-9.]*")
if [ "$want" != "$have" ]; then
  echo "skipped (ptx_regenerated): the checked-in PTX was made by \"$want\", this nvcc is \"$have\""
  exit 77
fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-ptx.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
if ! NVCC="$nvcc" bash "$CUDA/regen_ptx.sh" "$WORK" >"$WORK.log" 2>&1; then
  echo "FAIL regen_ptx.sh failed: $(head -c 600 "$WORK.log")"
  rm -f "$WORK.log"
  exit 1
fi
rm -f "$WORK.log"
fail=0
n=0
for cu in "$CUDA"/*.cu; do
  name=$(basename "$cu" .cu)
  n=$((n + 1))
  if ! [ -f "$CUDA/ptx/$name.ptx" ]; then
    echo "FAIL $name.cu has no checked-in workloads/cuda/ptx/$name.ptx"
    fail=1
  elif ! cmp -s "$WORK/$name.ptx" "$CUDA/ptx/$name.ptx"; then
    echo "FAIL workloads/cuda/ptx/$name.ptx differs from what nvcc makes of $name.cu:"
    diff "$CUDA/ptx/$name.ptx" "$WORK/$name.ptx" | head -20
    fail=1
  fi
done
for ptx in "$CUDA"/ptx/*.ptx; do
  name=$(basename "$ptx" .ptx)
  [ -f "$CUDA/$name.cu" ] || { echo "FAIL workloads/cuda/ptx/$name.ptx has no source $name.cu"; fail=1; }
done
[ $fail -eq 0 ] && echo "all $n kernels' PTX is what $have makes of their sources"
exit $fail
