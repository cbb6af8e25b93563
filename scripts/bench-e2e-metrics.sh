#!/usr/bin/env bash
# End-to-end with metrics: `hwpc decode REC --metrics F --set RenderBasic
# --output csv` of a 256 MiB SKL GT2 recording already in the page cache,
# beside the same command with --summary and beside bench/format_baseline,
# which formats as many values of the same kinds as that CSV holds with
# std::to_chars into a buffer (the formatting limit). Goal: the CSV within
# 1.3x of the baseline.
#
#   scripts/bench-e2e-metrics.sh [RUNS]
#
# Environment: HWPC_BUILD_DIR (default build-bench; configured Release and
# built here if needed), HWPC_E2E_REC (default /tmp/hwpc-e2e-256MiB.rec, made
# with `hwpc emulate` when absent), HWPC_SHARED_DIR (default ../shared, for
# data/intel-metrics/oa-sklgt2.xml), HWPC_E2E_EXTRA (more hwpc binaries to
# time with the CSV command, space-separated: builds to compare). Prints the
# median CPU time (user + system) and wall time of each program over
# interleaved runs, and the ratios to the baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
build=${HWPC_BUILD_DIR:-build-bench}
rec=${HWPC_E2E_REC:-/tmp/hwpc-e2e-256MiB.rec}
shared=${HWPC_SHARED_DIR:-../shared}
xml=$shared/data/intel-metrics/oa-sklgt2.xml
set_name=RenderBasic
if [ ! -f "$xml" ]; then
  echo "bench-e2e-metrics: $xml is missing (HWPC_SHARED_DIR)" >&2
  exit 1
fi

if [ ! -x "$build/examples/hwpc" ] || [ ! -x "$build/bench/format_baseline" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target hwpc_tool format_baseline >/dev/null
hwpc="$build/examples/hwpc"
base="$build/bench/format_baseline"

# 256 MiB of recording: 1016800 records of a 256-byte A36_B8_C8 report and
# its 8-byte record header, plus the recording's 440 bytes of header records
# (268435640 bytes), in one emulator run with counter wraps.
reports=1016800
if [ ! -s "$rec" ]; then
  "$hwpc" emulate --platform skl --format A36_B8_C8 --metrics "$xml" --set $set_name \
    --reports $reports --seed 1 --faults wrap --output-kind recording --out "$rec" 2>/dev/null
fi
cat "$rec" >/dev/null

# What the CSV holds, counted from its header and first rows: every column is
# an integer (report, offset, timestamp, the counters, ctx_id, the integer
# metrics, lost) except the double-valued metrics and the reason text. A
# metric column is a double when the set's formula makes one: its values in
# the first 1000 rows have a '.', an 'e' or are "inf"/"nan".
read -r rows ints doubles < <("$hwpc" decode "$rec" --metrics "$xml" --set $set_name --output csv |
  python3 -c '
import sys
rows = -1
dbl = None
for line in sys.stdin:
    rows += 1
    if rows == 0:
        hdr = line.rstrip("\n").split(",")
        dbl = [False] * len(hdr)
        continue
    if rows <= 1000:
        for j, v in enumerate(line.rstrip("\n").split(",")):
            if any(c in v for c in ".ein"):
                dbl[j] = True
text = hdr.index("reason")
doubles = sum(1 for j, d in enumerate(dbl) if d and j != text)
print(rows, len(hdr) - 1 - doubles, doubles)
')
csv_bytes=$("$hwpc" decode "$rec" --metrics "$xml" --set $set_name --output csv | wc -c)
base_bytes=$("$base" "$rows" "$ints" "$doubles" timer 2>&1 >/dev/null)

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "recording: $rec ($(stat -c %s "$rec") bytes, skl A36_B8_C8, $set_name of $xml)"
echo "CSV: $rows rows x ($ints integers + $doubles doubles + 1 text), $csv_bytes bytes;" \
  "baseline: the same counts, $base_bytes bytes; $runs interleaved runs each, medians"
python3 - "$runs" "$hwpc" "$base" "$rec" "$xml" "$set_name" "$rows" "$ints" "$doubles" \
  "${HWPC_E2E_EXTRA:-}" <<'EOF'
import os, statistics, subprocess, sys, time
runs, hwpc, base, rec, xml, set_name, rows, ints, doubles, extra = sys.argv[1:]
runs = int(runs)
cmds = {
    "format_baseline (the limit)": [base, rows, ints, doubles, "timer"],
    "hwpc decode --output csv": [hwpc, "decode", rec, "--metrics", xml, "--set", set_name,
                                 "--output", "csv"],
    "hwpc decode --summary": [hwpc, "decode", rec, "--metrics", xml, "--set", set_name,
                              "--summary"],
}
for b in extra.split():
    cmds["%s --output csv" % b] = [b, "decode", rec, "--metrics", xml, "--set", set_name,
                                   "--output", "csv"]
def once(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        sys.exit("bench-e2e-metrics: %s failed" % cmd)
    return ru.ru_utime + ru.ru_stime, wall
res = {}
for r in range(runs):  # interleaved, so drifting load hits every command alike
    for name, cmd in cmds.items():
        res.setdefault(name, []).append(once(cmd))
limit = statistics.median(c for c, _ in res["format_baseline (the limit)"])
print("%-48s %10s %10s %12s" % ("program", "CPU ms", "wall ms", "CPU / limit"))
for name, v in res.items():
    cpu = statistics.median(c for c, _ in v)
    wall = statistics.median(w for _, w in v)
    print("%-48s %10.0f %10.0f %11.2fx" % (name, cpu * 1e3, wall * 1e3, cpu / limit))
EOF
