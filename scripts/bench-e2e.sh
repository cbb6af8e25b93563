#!/usr/bin/env bash
# End-to-end: `hwpc decode --summary` of a 256 MiB raw capture already in the
# page cache, against bench/naive_decode_file (read the file into memory, run
# the naive per-interval loop). Both must print the same totals.
#
#   scripts/bench-e2e.sh [RUNS]
#
# Environment: HWPC_BUILD_DIR (default build-bench; configured Release and
# built here if needed), HWPC_E2E_FILE (default /tmp/hwpc-e2e-256MiB.raw,
# made with `hwpc emulate` when absent), HWPC_E2E_THREADS (default: every
# core). Prints the median wall time and the peak RSS of each program, and
# the ratio; with hyperfine installed, also hyperfine's own comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-11}
build=${HWPC_BUILD_DIR:-build-bench}
file=${HWPC_E2E_FILE:-/tmp/hwpc-e2e-256MiB.raw}
threads=${HWPC_E2E_THREADS:-$(nproc)}
plat=skl
fmt=A36_B8_C8

if [ ! -x "$build/examples/hwpc" ] || [ ! -x "$build/bench/naive_decode_file" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target hwpc_tool naive_decode_file >/dev/null
hwpc="$build/examples/hwpc"
naive="$build/bench/naive_decode_file"

# 256 MiB = 1048576 reports of 256 bytes, made as two halves (different
# seeds, wraps and never-landed reports) concatenated; the seam is just one
# more interval.
if [ ! -s "$file" ] || [ "$(stat -c %s "$file")" -ne $((256 << 20)) ]; then
  tmp=$(mktemp -d)
  "$hwpc" emulate --platform $plat --format $fmt --reports 524288 --seed 1 \
    --faults wrap,tail-ahead --output-kind raw --out "$tmp/a.raw" 2>/dev/null
  "$hwpc" emulate --platform $plat --format $fmt --reports 524288 --seed 2 \
    --faults wrap --output-kind raw --out "$tmp/b.raw" 2>/dev/null
  cat "$tmp/a.raw" "$tmp/b.raw" >"$file"
  rm -rf "$tmp"
fi

# Warm the page cache, and check that both print the same totals.
cat "$file" >/dev/null
a=$("$hwpc" decode --platform $plat --format $fmt --summary --threads "$threads" "$file")
b=$("$naive" $plat $fmt "$file")
if [ "$a" != "$b" ]; then
  echo "bench-e2e: hwpc and the naive program disagree" >&2
  exit 1
fi

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "capture: $file ($(stat -c %s "$file") bytes, $plat $fmt); $runs runs each, medians"
python3 - "$runs" "$hwpc" "$naive" "$file" "$plat" "$fmt" "$threads" <<'EOF'
import os, statistics, subprocess, sys, time
runs, hwpc, naive, file, plat, fmt, threads = sys.argv[1:]
runs = int(runs)
cmds = {
    "hwpc decode --summary --threads %s" % threads:
        [hwpc, "decode", "--platform", plat, "--format", fmt, "--summary", "--threads", threads, file],
    "hwpc decode --summary --threads 1":
        [hwpc, "decode", "--platform", plat, "--format", fmt, "--summary", "--threads", "1", file],
    "naive_decode_file": [naive, plat, fmt, file],
}
def once(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    if status != 0:
        sys.exit("bench-e2e: %s failed" % cmd)
    return dt, ru.ru_maxrss  # KiB on Linux
res = {}
for r in range(runs):  # interleaved, so drifting load hits every command alike
    for name, cmd in cmds.items():
        res.setdefault(name, []).append(once(cmd))
base = statistics.median(t for t, _ in res["naive_decode_file"])
print("%-40s %12s %14s %10s" % ("program", "median ms", "max RSS MiB", "speed-up"))
for name, v in res.items():
    t = statistics.median(x for x, _ in v)
    rss = max(m for _, m in v) / 1024
    print("%-40s %12.1f %14.1f %9.2fx" % (name, t * 1e3, rss, base / t))
EOF

if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 2 --runs "$runs" \
    "$hwpc decode --platform $plat --format $fmt --summary --threads $threads $file" \
    "$naive $plat $fmt $file"
fi
