#!/usr/bin/env bash
# Benchmark regression check, with generous margins (docs/performance.md has
# the measured figures):
#   - in-cache accumulate at least 3x the naive per-interval loop (measured
#     about 9-20x), for five i915 formats and two Xe formats (576-byte PEC64u64,
#     640-byte PEC64u64_B8_C8);
#   - in-cache deltas of those Xe formats at least 1.8x the naive column loop
#     (measured 2.9x with the 64-bit delta tiles);
#   - metric-set batch evaluation of RenderBasic (HSW, SKL GT2, TGL GT2, and
#     LNL from the Xe2 files) at most 2.5x the hand-written loop (measured
#     0.8-2.6x under load, median 1.7x);
#   - Mali: summing every counter of every sample (vinstr G78, kinstr_prfcnt G78
#     and G720) at least 3x the naive per-value map loop (measured 8-15x);
#   - Adreno: walking an .rd capture's nested IBs and recognising its counter
#     events at least 1x the naive recursive walk, issue 32's bar (2026-11-28,
#     counter events the compiler keeps in registers: 1.45x in the same
#     binary, 1.25-1.3x against the naive walk's faster build, which moves
#     10-15% with code placement; 1.26x in the fresh-clone CI run;
#     0.96-1.06x before, guarded at 0.75x);
#   - Adreno: the packet walk alone (no recogniser) at least 1.4x the naive
#     walker's whole job (measured 2.0x on 2026-11-28 with header_ok(); 1.3-1.7x
#     before it, guarded at 0.9x);
#   - Adreno: the query rows of `hwpc adreno --output csv` (query_capture, one
#     pass, every cell read) at least 0.25x the naive walker (measured
#     0.34-0.37x on 2026-11-28 with the walker typed on its sink; 0.31x with
#     reasons kept by id, guarded at 0.21x).
#
# Short and noise-tolerant for a shared 2-core CI machine: 64 KiB captures (no
# memory-bandwidth noise), 2^17 metric samples, several repetitions
# interleaved at random so that a burst of load hits both sides, CPU time
# rather than wall time, and each verdict on the median over rows of the
# per-row median ratios. About 40 s once built on an idle machine.
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
cmake --build "$build" -j"$(nproc)" --target bench_decode bench_metrics bench_vendors >/dev/null
out=$(mktemp)
metrics=$(mktemp)
vendors=$(mktemp)
trap 'rm -f "$out" "$metrics" "$vendors"' EXIT
"$build/bench/bench_decode" \
  --benchmark_filter='^((naive_)?accumulate/(snb_A13|hsw_A13_B8_C8|hsw_A45_B8_C8|bdw_A36_B8_C8|dg2_A24u40_A14u32_B8_C8|xe_PEC64u64|xe_PEC64u64_B8_C8)/64KiB|(naive_)?deltas/(xe_PEC64u64|xe_PEC64u64_B8_C8))$' \
  --benchmark_min_time=0.05 --benchmark_repetitions=7 --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true --benchmark_format=json >"$out"
HWPC_BENCH_SAMPLES=131072 "$build/bench/bench_metrics" \
  --benchmark_filter='^metric_set/RenderBasic/.*/(batch|hand_written)$' \
  --benchmark_min_time=0.05 --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true --benchmark_format=json >"$metrics"
"$build/bench/bench_vendors" \
  --benchmark_filter='^((naive_)?mali_sum/.*|(naive_)?adreno_walk/rd|adreno_(walk_only|rows)/rd)$' \
  --benchmark_min_time=0.05 --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true --benchmark_format=json >"$vendors"
python3 - "$out" "$metrics" "$vendors" "$min_ratio" <<'EOF_PY'
import json, statistics, sys
limit = float(sys.argv[4])
median = {}
for path in sys.argv[1:4]:
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            median[b["run_name"]] = b["cpu_time"]
failed = []
def check(label, pairs, at_least):
    if not pairs:
        sys.exit("bench-check: no %s benchmark ran" % label)
    ratios = []
    for name, base, t in pairs:
        ratios.append(base / t)
        print("%-56s %10.0f ns  baseline %10.0f ns  %5.2fx" % (name, t, base, base / t))
    overall = statistics.median(ratios)
    print("%s: median %.2fx (must be >= %.2fx)" % (label, overall, at_least))
    if overall < at_least:
        failed.append(label)
def pairs(prefix, base_of):
    out = []
    for name, t in sorted(median.items()):
        if name.startswith(prefix):
            base = median.get(base_of(name))
            if base is None:
                sys.exit("bench-check: no baseline for " + name)
            out.append((name, base, t))
    return out
check("accumulate vs naive", pairs("accumulate/", lambda n: "naive_" + n), limit)
check("Xe deltas vs naive", pairs("deltas/", lambda n: "naive_" + n), 1.8)
# hand-written time / batch time >= 1/2.5: batch at most 2.5x slower. Every
# set must have run (a hand-written loop that stops matching the batch
# evaluator bit for bit is not registered, which must not pass silently).
ran = {n.split("/")[2] for n in median if n.startswith("metric_set/")}
missing = {"hsw", "skl_gt2", "tgl_gt2", "lnl"} - ran
if ran and missing:
    sys.exit("bench-check: metric sets did not run: " + ", ".join(sorted(missing)))
check("metric sets, hand-written / batch",
      [p for p in pairs("metric_set/", lambda n: n.replace("/batch", "/hand_written"))
       if p[0].endswith("/batch")], 1 / 2.5)
check("Mali counter sums vs naive", pairs("mali_sum/", lambda n: "naive_" + n), 3)
check("Adreno .rd walk vs naive", pairs("adreno_walk/", lambda n: "naive_" + n), 1.0)
# The packet walk alone (no recogniser) against the naive walker's whole job: 2.0x measured.
check("Adreno .rd packet walk vs naive",
      pairs("adreno_walk_only/", lambda n: n.replace("adreno_walk_only/", "naive_adreno_walk/")),
      1.4)
# The full rows job (walk, recogniser, rows made, kept and written) against the same.
check("Adreno .rd query rows vs naive",
      pairs("adreno_rows/", lambda n: n.replace("adreno_rows/", "naive_adreno_walk/")), 0.25)
if failed:
    sys.exit("bench-check: regressed: " + ", ".join(failed))
EOF_PY
