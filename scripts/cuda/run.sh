#!/usr/bin/env bash
# Build the GMMA microbenchmark for sm_90a and run it on the current GPU (H100, H200).
#
#   scripts/cuda/run.sh OUTPUT_FILE
#
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc), BUILD_DIR
# (default: build/cuda under the repository root). The result file's format and how to
# compare it with the model: docs/calibration.md.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUTPUT_FILE" >&2
  exit 2
fi
out=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build/cuda}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

mkdir -p "$build"
"$nvcc" -O2 -arch=sm_90a -o "$build/gmma_microbench" "$here/gmma_microbench.cu"
"$build/gmma_microbench" "$out"
