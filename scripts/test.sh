#!/usr/bin/env bash
# Builds hwpc (CMake, warnings as errors) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${HWPC_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWPC_WERROR=ON "$@"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
