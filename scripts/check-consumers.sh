#!/usr/bin/env bash
# Installs hwpc into a scratch prefix and builds three consumers against it:
# CMake find_package, pkg-config, and Meson with hwpc as a subproject.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S . -B "$work/build" -G Ninja -DHWPC_BUILD_TESTS=OFF -DHWPC_BUILD_BENCH=OFF \
  -DHWPC_BUILD_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
cmake --install "$work/build" >/dev/null

cmake -S tests/consumer -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer"
echo "consumer (find_package): ok"

PKG_CONFIG_PATH="$work/prefix/share/pkgconfig" pkg-config --exists hwpc
g++ $(PKG_CONFIG_PATH="$work/prefix/share/pkgconfig" pkg-config --cflags hwpc) \
  tests/consumer/main.cpp -o "$work/consumer-pc"
"$work/consumer-pc"
echo "consumer (pkg-config): ok"

mkdir -p "$work/meson-consumer/subprojects" "$work/meson-consumer/consumer"
cp tests/consumer-meson/meson.build "$work/meson-consumer/meson.build"
cp tests/consumer/main.cpp "$work/meson-consumer/consumer/main.cpp"
ln -s "$root" "$work/meson-consumer/subprojects/hwpc"
meson setup "$work/meson-consumer/build" "$work/meson-consumer" >/dev/null
ninja -C "$work/meson-consumer/build" >/dev/null
"$work/meson-consumer/build/consumer"
echo "consumer (meson subproject): ok"
