#!/usr/bin/env bash
# The README's first command: installs what is missing, builds the hwpc tool,
# lists the report formats, and decodes the default capture (HSW A45_B8_C8
# reports made by the built-in OA unit emulator) with the RenderBasic metrics
# of ../shared/data/intel-metrics/oa-hsw.xml.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build=${HWPC_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target hwpc_tool -j"$(nproc)"
hwpc="$build/examples/hwpc"

echo
echo "== hwpc formats"
"$hwpc" formats

echo
echo "== hwpc decode (no FILE: the emulator's default capture), first intervals, first counters"
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
"$hwpc" decode >"$rows"
head -6 "$rows" | cut -d, -f1-10

xml=../shared/data/intel-metrics/oa-hsw.xml
# One row of CSV printed as "name value" lines.
transpose() { awk -F, 'NR == 1 { n = split($0, h, ",") } NR == 2 { for (i = 1; i <= n; ++i) printf "  %-32s %s\n", h[i], $i }'; }
if [ -f "$xml" ]; then
  echo
  echo "== hwpc decode --metrics $xml --set RenderBasic --summary"
  summary=$(mktemp)
  trap 'rm -f "$rows" "$summary"' EXIT
  "$hwpc" decode --metrics "$xml" --set RenderBasic --summary >"$summary"
  transpose <"$summary"
  # The figures that say whether the capture looks like a GPU.
  echo
  echo "== RenderBasic at a glance"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i }
    NR == 2 {
      printf "  GpuBusy %.1f %%, AvgGpuCoreFrequency %.0f MHz\n", $col["GpuBusy"], $col["AvgGpuCoreFrequency"] / 1e6
      printf "  EuActive %.1f %% + EuStall %.1f %% + EuIdle %.1f %% = %.1f %%\n", $col["EuActive"],
        $col["EuStall"], $col["EuIdle"], $col["EuActive"] + $col["EuStall"] + $col["EuIdle"]
    }' "$summary"
else
  echo
  echo "== hwpc decode --summary ($xml is absent, so no metrics: counters only)"
  "$hwpc" decode --summary | transpose
fi
