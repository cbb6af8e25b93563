#!/usr/bin/env bash
# Benchmark regression check: in-cache accumulate must stay at least 3x the
# naive per-interval loop (docs/performance.md measures about 9-17x).
#
# Short and noise-tolerant for a shared 2-core CI machine: a few formats, 64
# KiB captures (no memory-bandwidth noise), several repetitions interleaved at
# random so that a burst of load hits both sides, CPU time rather than wall
# time, and the verdict on the median over formats of the per-format median
# ratios. Takes well under a minute once bench_decode is built.
#
# Environment: HWPC_BUILD_DIR (default build, as scripts/test.sh uses);
# HWPC_BENCH_MIN_RATIO (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${HWPC_BUILD_DIR:-build}
min_ratio=${HWPC_BENCH_MIN_RATIO:-3}
if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target bench_decode >/dev/null
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$build/bench/bench_decode" \
  --benchmark_filter='^(naive_)?accumulate/(snb_A13|hsw_A13_B8_C8|hsw_A45_B8_C8|bdw_A36_B8_C8|dg2_A24u40_A14u32_B8_C8)/64KiB$' \
  --benchmark_min_time=0.05 --benchmark_repetitions=7 --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true --benchmark_format=json >"$out"
python3 - "$out" "$min_ratio" <<'EOF'
import json, statistics, sys
data = json.load(open(sys.argv[1]))
limit = float(sys.argv[2])
median = {}
for b in data["benchmarks"]:
    if b.get("aggregate_name") == "median":
        median[b["run_name"]] = b["cpu_time"]
ratios = []
for name, t in sorted(median.items()):
    if name.startswith("accumulate/"):
        naive = median.get("naive_" + name)
        if naive is None:
            sys.exit("bench-check: no baseline for " + name)
        ratios.append(naive / t)
        print("%-52s %8.0f ns  naive %8.0f ns  %5.1fx" % (name, t, naive, naive / t))
if not ratios:
    sys.exit("bench-check: no benchmark ran")
overall = statistics.median(ratios)
print("median speed-up over the naive loop: %.1fx (must be >= %.1fx)" % (overall, limit))
if overall < limit:
    sys.exit("bench-check: accumulate regressed below %.1fx the naive loop" % limit)
EOF
