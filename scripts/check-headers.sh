#!/usr/bin/env bash
# Every public header compiles on its own (it includes what it uses), with
# both compilers the project supports: g++ and clang++ (clang 14 rejects some
# C++20 that g++ accepts, such as consteval calls in a consteval template).
# Syntax only, warnings as errors, in parallel.
#
#   scripts/check-headers.sh                                  # g++ and clang++
#   HWPC_HEADER_COMPILERS=g++ scripts/check-headers.sh -fsanitize=address,undefined
#
# Arguments are extra compiler flags: users build the headers with their own,
# and some change what compiles. g++'s -fsanitize=undefined keeps null checks
# (-fno-delete-null-pointer-checks), so the address of a table entry compared
# with null is no constant expression there, and a static_assert over such a
# lookup fails under it alone.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
read -r -a compilers <<<"${HWPC_HEADER_COMPILERS:-g++ clang++}"
check() {
  local cxx=$1 header=$2
  shift 2
  printf '#include "%s"\n' "${header#include/}" |
    "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Werror "$@" -Iinclude -x c++ - ||
    { echo "error: $header does not compile alone with $cxx $*" >&2; return 1; }
}
export -f check
status=0
for cxx in "${compilers[@]}"; do
  find include/hwpc -name '*.hpp' | sort |
    xargs -P "$jobs" -I{} bash -c 'check "$@"' _ "$cxx" {} "$@" || status=1
done
count=$(find include/hwpc -name '*.hpp' | wc -l)
[ $status -eq 0 ] && echo "$count headers compile alone with ${compilers[*]}${*:+ ($*)}"
exit $status
