#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds the out-of-tree example against
# it twice, with find_package(flynn CONFIG) and with pkg-config, and runs both.
#   usage: out_of_tree_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD="$1"
SRC="$2"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-oot.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

cmake --install "$BUILD" --prefix "$WORK/prefix" >"$WORK/install.log"
for f in bin/flynn lib/cmake/flynn/flynnConfig.cmake lib/pkgconfig/flynn.pc include/flynn/memory/banked_memory.h \
         include/flynn/tlm/lanes_extension.h include/flynn/platform/platform.h; do
  [[ -e "$WORK/prefix/$f" ]] || { echo "FAIL: $f not installed" >&2; exit 1; }
done
echo "ok - installed headers, libraries, the flynn command, the CMake package and flynn.pc"

"$WORK/prefix/bin/flynn" --version >/dev/null
echo "ok - the installed flynn command runs"

cmake -S "$SRC/testbenches/integration/out_of_tree" -B "$WORK/cmake-build" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
  >"$WORK/configure.log" || { cat "$WORK/configure.log" >&2; exit 1; }
cmake --build "$WORK/cmake-build" -j 2 >"$WORK/build.log" || { cat "$WORK/build.log" >&2; exit 1; }
out="$("$WORK/cmake-build/my_vector_platform")"
echo "$out"
[[ "$out" == *"correct"* ]] || { echo "FAIL: the CMake-built example did not check out" >&2; exit 1; }
echo "ok - find_package(flynn CONFIG): a user's sc_main with a banked memory and a vector unit"

export PKG_CONFIG_PATH="$WORK/prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# shellcheck disable=SC2046
g++ -O1 -o "$WORK/pc-example" "$SRC/testbenches/integration/out_of_tree/main.cpp" $(pkg-config --cflags --libs flynn)
out="$("$WORK/pc-example")"
[[ "$out" == *"correct"* ]] || { echo "FAIL: the pkg-config-built example did not check out" >&2; exit 1; }
echo "ok - pkg-config flynn: the same example"
