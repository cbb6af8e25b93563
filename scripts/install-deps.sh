#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build and test hwpc.
set -euo pipefail
# python3: the benchmark scripts read Google Benchmark's JSON with it.
# protobuf-compiler: tests decode written Perfetto traces with protoc against its schema.
# libdrm-dev: tests/test_live_uapi.cpp checks the i915 uapi numbers and layouts against <libdrm/i915_drm.h>.
pkgs=(g++ cmake ninja-build meson pkg-config libgtest-dev libbenchmark-dev libpugixml-dev zlib1g-dev libdrm-dev clang-format python3 protobuf-compiler)
# chromium: the HTML report is rendered headless in the tests (tests/test_report_browser.cpp).
pkgs+=(chromium)
# clang and its compiler-rt (libFuzzer, sanitizers): scripts/fuzz.sh.
pkgs+=(clang libclang-rt-14-dev)
# The Python package (python/, docs/python.md), for Debian's /usr/bin/python3:
# pybind11 and the interpreter's headers to build it (CMake or
# `pip install --no-build-isolation ./python`, offline), NumPy and pandas for
# its columns, Dask and distributed for fleets, pytest for its tests.
pkgs+=(python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pandas python3-dask
  python3-distributed python3-pytest python3-setuptools python3-pip)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi
