#!/usr/bin/env bash
# Every public header compiles on its own (it includes what it uses), with
# both compilers the project supports: g++ and clang++ (clang 14 rejects some
# C++20 that g++ accepts, such as consteval calls in a consteval template).
# Syntax only, warnings as errors, in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
check() {
  local cxx=$1 header=$2
  printf '#include "%s"\n' "${header#include/}" |
    "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Werror -Iinclude -x c++ - ||
    { echo "error: $header does not compile alone with $cxx" >&2; return 1; }
}
export -f check
status=0
for cxx in g++ clang++; do
  find include/hwpc -name '*.hpp' | sort | xargs -P "$jobs" -I{} bash -c "check $cxx {}" || status=1
done
count=$(find include/hwpc -name '*.hpp' | wc -l)
[ $status -eq 0 ] && echo "$count headers compile alone with g++ and clang++"
exit $status
