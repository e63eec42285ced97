# Sourced by the entry-point scripts: installs missing Debian packages, configures and
# builds incrementally. Variables: FLYNN_ROOT (repo), FLYNN_BUILD (build folder).
FLYNN_ROOT=${FLYNN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
FLYNN_BUILD=${FLYNN_BUILD:-$FLYNN_ROOT/build}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

flynn_packages=(g++ cmake make pkg-config libsystemc-dev catch2 nlohmann-json3-dev
                libboost-program-options-dev python3)

# flynn_install_missing [--ask] [PACKAGE...]: installs those of the build's packages and the
# given ones that are missing with apt-get (through sudo when not root), naming them first.
# --ask: when stdin is a terminal, asks before installing (returns 1 on no). With
# FLYNN_NO_INSTALL=1 it installs nothing: it names the missing packages and returns 1.
flynn_install_missing() {
  local ask=0 answer=""
  if [ "${1:-}" = "--ask" ]; then
    ask=1
    shift
  fi
  local missing=()
  for p in "${flynn_packages[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "${FLYNN_NO_INSTALL:-0}" = 1 ]; then
    echo "flynn: missing Debian packages: ${missing[*]}; not installing them (FLYNN_NO_INSTALL=1)" >&2
    return 1
  fi
  if [ $ask -eq 1 ] && [ -t 0 ]; then
    read -r -p "flynn: missing Debian packages: ${missing[*]}. Install them with apt-get now? [y/N] " answer || answer=""
    case "$answer" in
      [yY]*) ;;
      *)
        echo "flynn: not installed; install them with: apt-get install ${missing[*]}" >&2
        return 1
        ;;
    esac
  fi
  echo "flynn: installing the missing Debian packages ${missing[*]} with apt-get" >&2
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

# The clang build with AddressSanitizer and UndefinedBehaviorSanitizer (and the libFuzzer
# targets) in FLYNN_SANITIZE_BUILD; builds the given targets, or everything.
FLYNN_SANITIZE_BUILD=${FLYNN_SANITIZE_BUILD:-$FLYNN_ROOT/build-sanitize}
flynn_sanitize_build() {
  flynn_install_missing clang libclang-rt-14-dev
  if [ ! -f "$FLYNN_SANITIZE_BUILD/CMakeCache.txt" ]; then
    cmake -S "$FLYNN_ROOT" -B "$FLYNN_SANITIZE_BUILD" -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLYNN_SANITIZE=ON -DFLYNN_FUZZ=ON -Wno-dev >&2
  fi
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake --build "$FLYNN_SANITIZE_BUILD" -j "${FLYNN_JOBS:-2}" "${targets[@]}" >&2
}

# Sanitizer settings for that build: any report aborts the process (and fails its test or
# fuzzer).
# - A run that ends in a deadlock leaves SystemC threads suspended with their stacks, which
#   are never unwound; what those frames own is reported as leaked and is suppressed as
#   SystemC's (fuzz/lsan.supp). That needs the whole allocation stack, so with
#   `--full-stacks` allocations are unwound slowly (libstdc++ has no frame pointers, and the
#   fast unwinder stops inside it); the fuzzers, which never simulate, keep the fast one.
# - LeakSanitizer needs to stop the process's threads (ptrace); where the machine does not
#   allow that, leak checking is switched off with a warning and ASan+UBSan still run.
flynn_sanitizer_env() {
  local leaks=1 probe unwind=""
  [ "${1:-}" = "--full-stacks" ] && unwind=":fast_unwind_on_malloc=0"
  probe="$(mktemp -d)"
  printf 'int main() { return 0; }\n' > "$probe/p.c"
  if ! clang -fsanitize=address "$probe/p.c" -o "$probe/p" 2>/dev/null ||
     ASAN_OPTIONS=detect_leaks=1 "$probe/p" 2>&1 | grep -q "LeakSanitizer has encountered a fatal error"; then
    leaks=0
    echo "flynn: warning: LeakSanitizer cannot run on this machine; leak checking is off" >&2
  fi
  rm -rf "$probe"
  export ASAN_OPTIONS="detect_leaks=$leaks:abort_on_error=1"
  export LSAN_OPTIONS="suppressions=$FLYNN_ROOT/fuzz/lsan.supp:print_suppressions=0$unwind"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
}
