#!/usr/bin/env bash
# Installs hwpc into a scratch prefix and builds three consumers against it: CMake
# find_package (COMPONENTS xml gzip), pkg-config (hwpc, hwpc-xml, hwpc-gzip), and Meson with
# hwpc as a subproject (dependency('hwpc-xml'), dependency('hwpc-gzip')). Each builds
# tests/consumer/main.cpp (the core alone), tests/consumer/parts.cpp (the XML loader and gzip
# input) and the README's C++ snippets as a consumer would write them (the programs
# scripts/check-docs.py makes of them; check-docs.sh runs them).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/snippets"
/usr/bin/python3 scripts/check-docs.py --emit-cpp "$work/snippets" README.md
n=$(ls "$work/snippets" | wc -l)
[ "$n" -gt 0 ] || { echo "check-consumers: no C++ snippet in README.md" >&2; exit 1; }

cmake -S . -B "$work/build" -G Ninja -DHWPC_BUILD_TESTS=OFF -DHWPC_BUILD_BENCH=OFF \
  -DHWPC_BUILD_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
cmake --install "$work/build" >/dev/null

cmake -S tests/consumer -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DHWPC_SNIPPETS_DIR="$work/snippets" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer"
"$work/consumer/consumer_parts"
echo "consumer (find_package, COMPONENTS xml gzip; $n README snippets built): ok"

export PKG_CONFIG_PATH="$work/prefix/share/pkgconfig"
pkg-config --exists hwpc hwpc-xml hwpc-gzip
g++ $(pkg-config --cflags hwpc) tests/consumer/main.cpp -o "$work/consumer-pc"
"$work/consumer-pc"
g++ $(pkg-config --cflags hwpc-xml hwpc-gzip) tests/consumer/parts.cpp \
  $(pkg-config --libs hwpc-xml hwpc-gzip) -o "$work/consumer-pc-parts"
"$work/consumer-pc-parts"
mkdir "$work/pc"
for s in "$work"/snippets/*.cpp; do
  g++ $(pkg-config --cflags hwpc-xml hwpc-gzip) "$s" $(pkg-config --libs hwpc-xml hwpc-gzip) \
    -o "$work/pc/$(basename "${s%.cpp}")"
done
echo "consumer (pkg-config hwpc, hwpc-xml, hwpc-gzip; $n README snippets built): ok"
unset PKG_CONFIG_PATH

mkdir -p "$work/meson-consumer/subprojects" "$work/meson-consumer/consumer"
cp tests/consumer-meson/meson.build "$work/meson-consumer/meson.build"
cp tests/consumer/main.cpp tests/consumer/parts.cpp "$work/meson-consumer/consumer/"
cp -r "$work/snippets" "$work/meson-consumer/snippets"
ln -s "$root" "$work/meson-consumer/subprojects/hwpc"
meson setup "$work/meson-consumer/build" "$work/meson-consumer" >/dev/null
ninja -C "$work/meson-consumer/build" >/dev/null
"$work/meson-consumer/build/consumer"
"$work/meson-consumer/build/consumer_parts"
echo "consumer (meson subproject, hwpc-xml and hwpc-gzip; $n README snippets built): ok"
