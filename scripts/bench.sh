#!/usr/bin/env bash
# Builds the benchmarks (Release) and runs them: every figure beside its
# baselines, medians of 5 repetitions. Extra arguments go to Google Benchmark
# (e.g. --benchmark_filter=hsw_A45).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${HWPC_BUILD_DIR:-build-bench}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHWPC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target bench_decode bench_metrics bench_vendors -j"$(nproc)"
for b in bench_decode bench_metrics bench_vendors; do
  "$build/bench/$b" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_enable_random_interleaving=true "$@"
done
