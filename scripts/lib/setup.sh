# Sourced by the entry-point scripts: installs missing Debian packages, configures and
# builds incrementally. Variables: FLYNN_ROOT (repo), FLYNN_BUILD (build folder).
FLYNN_ROOT=${FLYNN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
FLYNN_BUILD=${FLYNN_BUILD:-$FLYNN_ROOT/build}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

flynn_packages=(g++ cmake make pkg-config libsystemc-dev catch2 nlohmann-json3-dev
                libboost-program-options-dev python3)

flynn_install_missing() {
  local missing=()
  for p in "${flynn_packages[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "flynn: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

flynn_build() {
  if [ ! -f "$FLYNN_BUILD/CMakeCache.txt" ]; then
    cmake -S "$FLYNN_ROOT" -B "$FLYNN_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -Wno-dev >&2
  fi
  cmake --build "$FLYNN_BUILD" -j "${FLYNN_JOBS:-2}" "$@" >&2
}
