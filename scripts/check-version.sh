#!/usr/bin/env bash
# The version lives in VERSION alone. Every build reports it: CMake's project version (and
# so the pkg-config files and the package's version file), Meson's project version, and the
# Python package's. Nothing else spells a version.
#   scripts/check-version.sh [CMAKE_BUILD_DIR [MESON_BUILD_DIR]]   (default: build, build-meson)
# A build directory that does not exist is configured in a scratch folder (core only).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(cat VERSION)
status=0
fail() { echo "check-version: $*" >&2; status=1; }
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ && $(wc -l <VERSION) -eq 1 ]] ||
  fail "VERSION must be one line MAJOR.MINOR.PATCH, not '$version'"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake_build=${1:-build}
if [ ! -f "$cmake_build/CMakeCache.txt" ]; then
  cmake_build=$work/cmake
  cmake -S . -B "$cmake_build" -DHWPC_BUILD_TESTS=OFF -DHWPC_BUILD_BENCH=OFF \
    -DHWPC_BUILD_EXAMPLES=OFF -DHWPC_BUILD_PYTHON=OFF >/dev/null
fi
got=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$cmake_build/CMakeCache.txt")
[ "$got" = "$version" ] || fail "CMake ($cmake_build) says '$got', VERSION says '$version'"
for pc in "$cmake_build"/hwpc*.pc; do
  got=$(sed -n 's/^Version: //p' "$pc")
  [ "$got" = "$version" ] || fail "$pc says Version: '$got'"
done

meson_build=${2:-build-meson}
if [ ! -f "$meson_build/meson-info/intro-projectinfo.json" ]; then
  meson_build=$work/meson
  meson setup "$meson_build" -Dtests=false -Dexamples=false -Dbench=false >"$work/meson.log" 2>&1 ||
    { cat "$work/meson.log" >&2; exit 1; }
fi
got=$(meson introspect "$meson_build" --projectinfo |
  /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
[ "$got" = "$version" ] || fail "Meson ($meson_build) says '$got', VERSION says '$version'"

got=$(cd python && /usr/bin/python3 setup.py --version 2>/dev/null | tail -1)
[ "$got" = "$version" ] || fail "python/setup.py says '$got', VERSION says '$version'"

# No build description spells a version of its own.
if grep -nE "project\(hwpc VERSION [0-9]" CMakeLists.txt ||
  grep -nE "^\s*version: *'[0-9]" meson.build ||
  grep -nE "^version *= *['\"][0-9]" python/setup.py python/pyproject.toml; then
  fail "a version is written above; read VERSION instead"
fi
[ $status -eq 0 ] && echo "check-version: CMake, Meson and the Python package all say $version"
exit $status
