#!/usr/bin/env bash
# Runs every shell command and C++ snippet of README.md and docs/*.md (scripts/check-docs.py
# says how blocks are marked). The commands run in a fresh clone of this tree (HEAD plus its
# uncommitted changes to tracked files) with ../shared beside it, on captures the emulators
# make there, with the hwpc tool of an existing build on PATH, so nothing is rebuilt:
#   HWPC_BUILD_DIR=build bash scripts/check-docs.sh      (default: build)
# The build needs the hwpc_tool and hwpc_example_* targets (and the bench_* targets for
# docs/performance.md, which it builds when they are missing).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$(realpath "${HWPC_BUILD_DIR:-build}")
if [ ! -x "$build/examples/hwpc" ]; then
  echo "check-docs: no $build/examples/hwpc: build it first (cmake --build $build --target hwpc_tool)" >&2
  exit 1
fi
if [ ! -d ../shared/data ]; then
  echo "check-docs: ../shared (the metric files and data the docs use) is absent" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A fresh clone of what is checked out, uncommitted edits included.
snapshot=$(git stash create 2>/dev/null || true)
git clone -q --no-checkout "$root" "$work/hwpc"
if [ -n "$snapshot" ]; then git -C "$work/hwpc" fetch -q "$root" "$snapshot"; fi
git -C "$work/hwpc" -c advice.detachedHead=false checkout -q "${snapshot:-HEAD}"
ln -s "$(realpath ../shared)" "$work/shared"
ln -s "$build" "$work/hwpc/build"  # build/examples/hwpc and the example programs, as the docs name them

export PATH="$build/examples:$PATH"
export HWPC_BUILD_DIR="$build" HWPC_SOURCE_DIR="$root"

# The captures the docs name, made by the emulators (and, for Adreno, the tests' .rd encoder).
(
  cd "$work/hwpc"
  hsw_xml=../shared/data/intel-metrics/oa-hsw.xml
  hwpc emulate --platform hsw --format A45_B8_C8 --reports 300 --output-kind recording \
    --metrics "$hsw_xml" --set RenderBasic --out capture.rec
  hwpc emulate --platform hsw --format A45_B8_C8 --reports 300 --output-kind raw --out capture.raw
  hwpc emulate --platform lnl --format PEC64u64 --driver xe --reports 300 \
    --output-kind xe-recording --metrics ../shared/data/intel-metrics-xe/oa-lnl.xml \
    --set RenderBasic --out capture.xerec
  hwpc emulate --platform lnl --format PEC64u64 --driver xe --reports 300 \
    --output-kind xe-stream --out xe-oa.bin
  hwpc emulate --platform skl --format A12 --reports 300 --output-kind i915-stream \
    --faults ctx-switch --out i915-oa.bin
  hwpc mali emulate --gpu G72 --l2-slices 1 --core-mask 0xf --samples 20 --out capture.hwpcmali
  hwpc mali emulate --gpu G72 --l2-slices 2 --core-mask 0xb --samples 1 --out g72-l2x2-0xb.hwpcmali
  # The same samples without the capture file: no header, no per-sample metadata.
  /usr/bin/python3 - <<'EOF'
data = open("capture.hwpcmali", "rb").read()[64:]
record = len(data) // 20
open("samples.bin", "wb").write(b"".join(data[i + 32:i + record] for i in range(0, len(data), record)))
EOF
  cat >"$work/make_rd.cpp" <<'EOF'
#include <cstdio>
#include "adreno_results_capture.hpp"
int main() {
  adreno_results::capture c;
  std::fwrite(c.w.bytes.data(), 1, c.w.bytes.size(), stdout);
}
EOF
  g++ -std=c++20 -I tests "$work/make_rd.cpp" -o "$work/make_rd"
  "$work/make_rd" >capture.rd
  gzip -k capture.rd
) >"$work/fixtures.log" 2>&1 || {
  cat "$work/fixtures.log" >&2
  echo "check-docs: making the captures failed" >&2
  exit 1
}

cd "$work/hwpc"
extra=()
if pkg-config --exists pugixml; then extra+=(-DHWPC_HAVE_PUGIXML $(pkg-config --libs pugixml)); fi
if pkg-config --exists zlib; then extra+=(-DHWPC_HAVE_ZLIB $(pkg-config --libs zlib)); fi
HWPC_DOCS_CXXFLAGS="${extra[*]}" /usr/bin/python3 scripts/check-docs.py "$work/hwpc" README.md docs/*.md
