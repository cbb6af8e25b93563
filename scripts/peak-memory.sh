#!/usr/bin/env bash
# Peak anonymous (not file-backed) memory of `hwpc decode`, `hwpc adreno` and
# `hwpc mali` as the input grows: a flat column means the command streams its
# input (mapped, so the page cache holds the file, not the process's heap).
#
#   scripts/peak-memory.sh [--only decode|adreno|adreno-rd|mali] [SIZES_MIB...]   # default 1 16 256 1024
#
# Inputs are generated in a temporary directory (under TMPDIR) and deleted at
# the end: a 1 MiB base repeated up to each size.
#   decode: an emulated SKL A36_B8_C8 capture (raw reports, and the same as an
#           i915 stream).
#   adreno: the A5xx query sequences of tests/adreno_seed.hpp, as raw dwords,
#           as hex text, and in an .rd capture (one submit per MiB: GPUADDR,
#           BUFFER_CONTENTS, CMDSTREAM_ADDR), plain and gzip-compressed (MiB is
#           then the decompressed size), each listed in full. `adreno-rd`: only
#           the .rd and .rd.gz rows.
#   mali:   an emulated Mali-G78 capture file (2 L2 slices, 4 cores), vinstr,
#           and kinstr_prfcnt with each copy's values offsets moved to it.
# Peak RssAnon is sampled from /proc/PID/status every 5 ms; VmHWM (all
# resident memory, file pages included) is shown for contrast.
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${HWPC_TOOL:-build/examples/hwpc}
only=
if [ "${1:-}" = --only ]; then
  only=$2
  shift 2
fi
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1 16 256 1024)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
want() { [ -z "$only" ] || [ "$only" = "$1" ] || { [ "$1" = adreno ] && [ "$only" = adreno-rd ]; }; }

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

peak() {  # peak CMD...: prints "peak_anon_kib hwm_kib seconds status"
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

# Adreno inputs of MIB MiB in $work: adreno.bin, adreno.txt, adreno.rd.
adreno_inputs() {  # adreno_inputs MIB [rd]: with rd, only adreno.rd
  python3 - "$work" "$1" "${2:-}" <<'PY'
import re, struct, sys
work, mib, rd_only = sys.argv[1], int(sys.argv[2]), sys.argv[3] == 'rd'
seed = open('tests/adreno_seed.hpp').read()
dws = []
for name in ('occlusion_begin', 'timestamp_begin', 'timestamp_end', 'occlusion_end'):
    body = re.search(name + r' = \{(.*?)\};', seed, re.S).group(1)
    body = re.sub(r'//[^\n]*', '', body)
    dws += [int(x, 16) for x in re.findall(r'0x[0-9a-fA-F]+', body)]
unit = struct.pack('<%dI' % len(dws), *dws)
mib_bytes = unit * ((1 << 20) // len(unit))
mib_bytes += b'\0' * ((1 << 20) - len(mib_bytes))  # zero dwords: padding
if not rd_only:
    with open(work + '/adreno.bin', 'wb') as f:
        for _ in range(mib):
            f.write(mib_bytes)
    # Hex text: 9 bytes per dword, so MIB MiB of text hold MIB / 9 MiB of dwords.
    line = ' '.join('%08x' % d for d in dws) + '\n'
    lines = ((mib << 20) // len(line)) or 1
    with open(work + '/adreno.txt', 'w') as f:
        for _ in range(lines):
            f.write(line)
# .rd: GPU id, then one submit per MiB, each buffer at its own address.
def section(t, payload):
    return struct.pack('<II', t, len(payload)) + payload
body = (1 << 20) - 8 - 20 - 8 - 20
buf = unit * (body // len(unit))
buf += b'\0' * (body - len(buf))  # whole sequences, then padding
with open(work + '/adreno.rd', 'wb') as f:
    f.write(section(13, struct.pack('<I', 540)))
    for k in range(mib):
        iova = 0x100000000 + (k << 21)
        f.write(section(3, struct.pack('<III', iova & 0xffffffff, len(buf), iova >> 32)))
        f.write(section(12, buf))
        f.write(section(6, struct.pack('<III', iova & 0xffffffff, len(buf) // 4, iova >> 32)))
PY
}

# Mali inputs of MIB MiB in $work: mali_vinstr.hwpc, mali_kinstr.hwpc.
mali_inputs() {
  local mib=$1
  # 1 MiB of samples, 8 blocks each (front-end, tiler, 2 L2 slices, 4 cores):
  # vinstr records of 32 + 8 * 256 bytes, kinstr samples of 11 items of 48
  # bytes and 8 blocks of 64 u64 values.
  "$tool" mali emulate --gpu Mali-G78 --l2-slices 2 --core-mask 0xf --samples 504 --seed 5 \
    --out "$work/v1.hwpc"
  "$tool" mali emulate --gpu Mali-G78 --reader kinstr --l2-slices 2 --core-mask 0xf \
    --samples 226 --seed 5 --out "$work/k1.hwpc"
  python3 - "$work" "$mib" <<'PY'
import struct, sys
work, mib = sys.argv[1], int(sys.argv[2])
def grow(src, dst, relocate):
    data = open(src, 'rb').read()
    head, payload = data[:64], bytearray(data[64:])
    # BLOCK items (type 0x2002) and where their values offsets sit.
    fields = []
    if relocate:
        pos = 0
        while pos < len(payload):
            ends = []
            while True:
                t = struct.unpack_from('<H', payload, pos)[0]
                if t == 0x2002:
                    fields.append(pos + 16)
                    ends.append(struct.unpack_from('<I', payload, pos + 16)[0])
                pos += 48
                if t == 0:
                    break
            step = ends[1] - ends[0]
            pos = max(ends) + step
    copies = max(1, (mib << 20) // len(payload))
    with open(dst, 'wb') as f:
        f.write(head)
        for k in range(copies):
            if relocate and k:
                for at in fields:
                    v = struct.unpack_from('<I', payload, at)[0]
                    struct.pack_into('<I', payload, at, v + len(payload))
            f.write(payload)
grow(work + '/v1.hwpc', work + '/mali_vinstr.hwpc', False)
grow(work + '/k1.hwpc', work + '/mali_kinstr.hwpc', True)
PY
  rm -f "$work/v1.hwpc" "$work/k1.hwpc"
}

printf '%-34s %8s %14s %12s %8s %s\n' command MiB peak_anon_KiB VmHWM_KiB seconds status
run() {  # run LABEL MIB ARGS...
  local label=$1 mib=$2
  shift 2
  read -r anon hwm secs rc < <(peak "$tool" "$@")
  printf '%-34s %8s %14s %12s %8s %s\n' "$label" "$mib" "$anon" "$hwm" "$secs" "$rc"
}

if want decode; then
  "$tool" emulate --platform skl --format A36_B8_C8 --reports 4096 --seed 3 \
    --output-kind raw --out "$work/base.raw"
  "$tool" emulate --platform skl --format A36_B8_C8 --reports 4000 --seed 3 \
    --output-kind i915-stream --out "$work/base.stream"
fi
for mib in "${sizes[@]}"; do
  if want decode; then
    grow "$work/base.raw" "$work/in.raw" "$mib"
    grow "$work/base.stream" "$work/in.stream" "$mib"
    run "decode raw --summary" "$mib" decode --platform skl --format A36_B8_C8 --summary \
      "$work/in.raw"
    run "decode raw (CSV rows)" "$mib" decode --platform skl --format A36_B8_C8 "$work/in.raw"
    run "decode i915-stream (CSV rows)" "$mib" decode --platform skl --format A36_B8_C8 \
      --input-kind i915-stream "$work/in.stream"
    rm -f "$work/in.raw" "$work/in.stream"
  fi
  if want adreno; then
    if [ "$only" = adreno-rd ]; then
      adreno_inputs "$mib" rd
    else
      adreno_inputs "$mib"
      run "adreno bin (listing)" "$mib" adreno "$work/adreno.bin"
      run "adreno hex (listing)" "$mib" adreno "$work/adreno.txt"
    fi
    run "adreno rd (listing)" "$mib" adreno "$work/adreno.rd"
    gzip -1 -c "$work/adreno.rd" >"$work/adreno.rd.gz"
    TMPDIR=$work run "adreno rd.gz (listing)" "$mib" adreno "$work/adreno.rd.gz"
    rm -f "$work"/adreno.*
  fi
  if want mali; then
    mali_inputs "$mib"
    run "mali vinstr (CSV rows)" "$mib" mali "$work/mali_vinstr.hwpc"
    run "mali kinstr (CSV rows)" "$mib" mali "$work/mali_kinstr.hwpc"
    rm -f "$work"/mali_*.hwpc
  fi
done
