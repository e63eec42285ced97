#!/usr/bin/env bash
# Regenerates the PTX of the CUDA kernel set: workloads/cuda/NAME.cu -> OUT/NAME.ptx, with
# the one set of flags the checked-in files were made with. Without -lineinfo the PTX names
# no source path, so it is the same from any checkout.
#
#   workloads/cuda/regen_ptx.sh [OUT]        OUT defaults to workloads/cuda/ptx
#
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$here/ptx}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [[ ! -x "$nvcc" ]] && ! command -v "$nvcc" >/dev/null 2>&1; then
  echo "regen_ptx: nvcc not found (set NVCC)" >&2
  exit 3
fi
mkdir -p "$out"
for cu in "$here"/*.cu; do
  name=$(basename "$cu" .cu)
  # (compiled from the kernels' folder, by file name: nothing of the checkout's path goes in)
  (cd "$here" && "$nvcc" -ptx -arch=sm_90a -O3 -o "$out/$name.ptx.tmp" "$name.cu")
  mv "$out/$name.ptx.tmp" "$out/$name.ptx"
done
