#!/usr/bin/env bash
# CMake globs the sources; Meson lists them. Fails when a test, tool source or
# benchmark is missing from its Meson list, or when a Meson list names a file
# that no longer exists (a stale entry), so the two builds cannot drift.
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

# Stale entries: every quoted source in a list, and every quoted test or benchmark
# name ('test_x' stands for test_x.cpp, 'bench_x' for bench_x.cpp), must exist.
stale() {  # stale LIST-FILE NAME-PATTERN
  local dir entry
  dir=$(dirname "$1")
  while read -r entry; do
    case $entry in
    *.cpp | *.hpp | *.c | *.h) [ -f "$dir/$entry" ] && continue ;;
    *) [ -f "$dir/$entry.cpp" ] && continue ;;
    esac
    echo "$1 lists $entry, which does not exist in $dir/"
    status=1
  done < <(grep -v '^\s*#' "$1" | grep -oE "'[^']*'" | tr -d "'" |
    grep -E "^([^.][^ ]*\.(cpp|hpp|c|h)|$2)$" || true)
}
stale tests/meson.build 'test_[A-Za-z0-9_]+'
stale examples/meson.build 'hwpc/[A-Za-z0-9_]+'
stale bench/meson.build 'bench_[A-Za-z0-9_]+'
exit $status
