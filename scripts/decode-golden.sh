#!/usr/bin/env bash
# Captures `hwpc decode` output over emulated captures of every input kind, so
# two builds of the tool can be compared output for output:
#
#   bash scripts/decode-golden.sh OLD_HWPC /tmp/golden-old
#   bash scripts/decode-golden.sh build/examples/hwpc/hwpc /tmp/golden-new
#   python3 scripts/decode-golden-compare.py /tmp/golden-old /tmp/golden-new
#
# The matrix: a few platform/format pairs, each emulator fault alone, the
# three input kinds (raw, i915-stream, recording), each output (csv, json,
# summary csv/json, chrome trace JSON), with and without --metrics when the
# shared metric files are present. One file per case: stdout, then the exit
# status and stderr in NAME.err.
set -uo pipefail
tool=${1:?usage: decode-golden.sh HWPC OUTDIR}
out=${2:?usage: decode-golden.sh HWPC OUTDIR}
shared=${HWPC_SHARED_DIR:-$(cd "$(dirname "$0")/.." && pwd)/../shared}
mkdir -p "$out/captures"
# Paths inside the outputs are relative, so two runs compare equal.
tool=$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")
shared=$(cd "$shared" 2>/dev/null && pwd || echo "$shared")
cd "$out" || exit 1
out=.

# platform format metric-file set
cases=(
  "hsw A45_B8_C8 oa-hsw.xml RenderBasic"
  "bdw A36_B8_C8 oa-bdw.xml RenderBasic"
  "skl A36_B8_C8 oa-sklgt2.xml ComputeBasic"
  "tgl A36_B8_C8 oa-tglgt2.xml RenderBasic"
  "hsw C4_B8 - -"
)
device_vars=()
for v in EuCoresTotalCount=24 EuSlicesTotalCount=1 EuSubslicesTotalCount=3 EuThreadsCount=7 \
  SliceMask=1 SubsliceMask=7 DualSubsliceMask=3 GpuMinFrequency=300000000 \
  GpuMaxFrequency=1100000000 EuDualSubslicesTotalCount=3 EuDualSubslicesSlice0123Count=3; do
  device_vars+=(--device-var "$v")
done
faults=(none wrap ctx-switch tail-ahead overflow report-lost)
kinds=(raw i915-stream recording)

"$tool" --version >"$out/version.txt" 2>&1 || true
for c in "${cases[@]}"; do
  read -r plat fmt mfile mset <<<"$c"
  for f in "${faults[@]}"; do
    fl=()
    [ "$f" != none ] && fl=(--faults "$f")
    for k in "${kinds[@]}"; do
      base="$plat-$fmt-$f-$k"
      cap="captures/$base.bin"
      if ! "$tool" emulate --platform "$plat" --format "$fmt" --reports 48 --seed 7 "${fl[@]}" \
        --output-kind "$k" --out "$cap" --truth "$out/$base.truth.csv" 2>"$out/$base.emulate.err"; then
        echo "emulate failed: $base" >>"$out/skipped.txt"
        continue
      fi
      pf=()
      [ "$k" != recording ] && pf=(--platform "$plat" --format "$fmt")
      kf=(--input-kind "$k")
      run() {
        local name=$1
        shift
        "$tool" decode "${pf[@]}" "${kf[@]}" "$cap" "$@" >"$out/$name" 2>"$out/$name.err"
        echo "status $?" >>"$out/$name.err"
      }
      run "$base.csv"
      run "$base.json" --output json
      run "$base.summary.csv" --summary
      run "$base.summary.json" --summary --output json
      run "$base.perfetto.json" --output chrome-json
      if [ "$mfile" != - ] && [ -f "$shared/data/intel-metrics/$mfile" ]; then
        m=(--metrics "$shared/data/intel-metrics/$mfile" --set "$mset")
        # Raw files and streams carry no topology: give a GT2-like one.
        [ "$k" != recording ] && m+=("${device_vars[@]}")
        run "$base.m.csv" "${m[@]}"
        run "$base.m.json" --output json "${m[@]}"
        run "$base.m.summary.csv" --summary "${m[@]}"
        run "$base.m.perfetto.json" --output chrome-json "${m[@]}"
      fi
    done
  done
done
# The embedded default capture.
"$tool" decode >"$out/default.csv" 2>"$out/default.csv.err"
echo "status $?" >>"$out/default.csv.err"
