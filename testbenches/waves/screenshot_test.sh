#!/usr/bin/env bash
# scripts/screenshot_waves writes where it is told: without a PNG argument a picture of the
# GMMA view in the current folder, with one that file, and never anything under docs/images
# unless named. Installs nothing (FLYNN_NO_INSTALL=1).
#
# usage: screenshot_test.sh FLYNN_BINARY SOURCE_DIR
#
# Needs gtkwave, xvfb-run, Xvfb, xauth, xwd and netpbm (the Debian packages gtkwave, xvfb,
# xauth, x11-apps, netpbm); without them it is skipped (exit status 77).
set -u

if [[ $# -ne 2 ]]; then
  echo "usage: $0 FLYNN_BINARY SOURCE_DIR" >&2
  exit 2
fi
FLYNN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
SRC="$(cd "$2" && pwd)"
SHOT="$SRC/scripts/screenshot_waves"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 LC_ALL=C

[[ -x "$FLYNN" ]] || { echo "FAIL: $FLYNN is not an executable" >&2; exit 1; }
missing=()
for tool in gtkwave xvfb-run Xvfb xauth xwd xwdtopnm pnmquant pnmtopng; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "SKIP: missing tools: ${missing[*]} (Debian packages gtkwave, xvfb, xauth, x11-apps, netpbm)"
  exit 77
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/flynn-screenshot-test.XXXXXX")"
trap 'cd / && rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
fail() {
  echo "FAIL - $*" >&2
  [[ -f "$WORK/shot.log" ]] && sed 's/^/    /' "$WORK/shot.log" >&2
  exit 1
}
images() { (cd "$SRC/docs/images" && find . -type f -printf '%p %s %T@\n' | sort && md5sum ./* | sort); }
shot() { FLYNN_BIN="$FLYNN" FLYNN_NO_INSTALL=1 bash "$SHOT" "$@" </dev/null >"$WORK/shot.log" 2>&1; }

before=$(images)
png="gtkwave_calibration_h100_sm_gmma.png"
shot || fail "scripts/screenshot_waves (no arguments) exited with status $?"
[[ -s "$png" ]] || fail "no $png in the current folder"
[[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] || fail "$png is not a PNG"
grep -qF "wrote $WORK/$png (" "$WORK/shot.log" || fail "the script does not say it wrote $WORK/$png"
echo "ok - without arguments: $png in the current folder ($(wc -c <"$png") bytes)"

shot "$SRC/scenarios/gmma/calibration_h100_sm.json" waves.gmma.gtkw pictures/gmma.png ||
  fail "scripts/screenshot_waves with a PNG exited with status $?"
[[ -s pictures/gmma.png ]] || fail "no pictures/gmma.png"
[[ "$(ls)" == "$(printf '%s\n' "$png" pictures shot.log)" ]] || fail "files other than the PNGs written: $(ls | tr '\n' ' ')"
echo "ok - with PNG pictures/gmma.png: that file"

[[ "$(images)" == "$before" ]] || fail "docs/images changed"
echo "ok - docs/images untouched"
