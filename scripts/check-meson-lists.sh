#!/usr/bin/env bash
# CMake globs the sources; Meson lists them. Fails when a test, tool source or
# benchmark is missing from its Meson list, so the two builds cannot drift.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
check() {  # check FILE-GLOB LIST-FILE PATTERN-PREFIX STRIP-EXTENSION
  for f in $1; do
    local name
    name=$(basename "$f")
    [ "$4" = yes ] && name=${name%.cpp}
    if ! grep -q "'$3$name'" "$2"; then
      echo "$2 does not list $3$name (CMake builds $f)"
      status=1
    fi
  done
}
check "tests/test_*.cpp" tests/meson.build "" yes
check "examples/hwpc/*.cpp" examples/meson.build "hwpc/" no
check "bench/bench_*.cpp" bench/meson.build "" yes
exit $status
