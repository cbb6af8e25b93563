#!/usr/bin/env bash
# Peak anonymous (not file-backed) memory of `hwpc decode` as the input grows: a flat column means the command streams its input
# (mapped, so the page cache holds the file, not the process's heap).
#
#   scripts/peak-memory.sh [SIZES_MIB...]     # default: 1 16 256 1024
#
# Inputs are a 1 MiB emulated capture (SKL A36_B8_C8 raw reports, and the
# same as an i915 stream) repeated up to each size. Peak RssAnon is sampled from /proc/PID/status every 5 ms; VmHWM
# (all resident memory, file pages included) is shown for contrast.
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${HWPC_TOOL:-build/examples/hwpc}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1 16 256 1024)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$tool" emulate --platform skl --format A36_B8_C8 --reports 4096 --seed 3 \
  --output-kind raw --out "$work/base.raw"
"$tool" emulate --platform skl --format A36_B8_C8 --reports 4000 --seed 3 \
  --output-kind i915-stream --out "$work/base.stream"
grow() {  # grow BASE OUT MIB: BASE repeated until OUT holds MIB MiB (whole copies)
  local base=$1 out=$2 mib=$3
  : >"$out"
  local bs
  bs=$(stat -c %s "$base")
  local copies=$(((mib << 20) / bs))
  [ $copies -lt 1 ] && copies=1
  # Doubling keeps this fast for 1 GiB.
  cp "$base" "$out"
  local have=1
  while [ $((have * 2)) -le $copies ]; do
    cat "$out" "$out" >"$out.tmp" && mv "$out.tmp" "$out"
    have=$((have * 2))
  done
  while [ $have -lt $copies ]; do
    cat "$base" >>"$out"
    have=$((have + 1))
  done
}

peak() {  # peak CMD...: prints "peak_anon_kib hwm_kib seconds"
  python3 - "$@" <<'PY'
import subprocess, sys, time
start = time.time()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
anon = hwm = 0
def sample():
    global anon, hwm
    try:
        with open('/proc/%d/status' % p.pid) as f:
            for line in f:
                if line.startswith('RssAnon:'): anon = max(anon, int(line.split()[1]))
                if line.startswith('VmHWM:'): hwm = max(hwm, int(line.split()[1]))
    except (FileNotFoundError, ProcessLookupError):
        pass
while p.poll() is None:
    sample()
    time.sleep(0.005)
print(anon, hwm, '%.1f' % (time.time() - start), p.returncode)
PY
}

printf '%-34s %8s %14s %12s %8s %s\n' command MiB peak_anon_KiB VmHWM_KiB seconds status
for mib in "${sizes[@]}"; do
  grow "$work/base.raw" "$work/in.raw" "$mib"
  grow "$work/base.stream" "$work/in.stream" "$mib"
  for cmd in "decode raw --summary" "decode raw (CSV rows)" "decode i915-stream (CSV rows)"; do
    case $cmd in
      "decode raw --summary")
        args=(decode --platform skl --format A36_B8_C8 --summary "$work/in.raw") ;;
      "decode raw (CSV rows)")
        args=(decode --platform skl --format A36_B8_C8 "$work/in.raw") ;;
      "decode i915-stream (CSV rows)")
        args=(decode --platform skl --format A36_B8_C8 --input-kind i915-stream "$work/in.stream") ;;
    esac
    read -r anon hwm secs rc < <(peak "$tool" "${args[@]}")
    printf '%-34s %8s %14s %12s %8s %s\n' "$cmd" "$mib" "$anon" "$hwm" "$secs" "$rc"
  done
done
echo "hwpc mali reads one sample per file (its size is fixed by the layout): no size series."
