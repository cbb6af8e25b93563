#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang with ASan + UBSan), writes
# the seed corpora, and runs every target for a time budget.
#
#   scripts/fuzz.sh                 # every target, FUZZ_SECONDS (default 20) each
#   scripts/fuzz.sh 600 formula     # 600 s of one target
#   FUZZ_JOBS=2 scripts/fuzz.sh     # libFuzzer jobs (and workers) per target
#
# Corpora grow in build-fuzz/corpus/<target> (seeded from make_corpus and
# tests/fuzz/corpus/<target>); a crash leaves its input in
# build-fuzz/artifacts/<target>/ and fails the script. Each run's last status
# line (executions, coverage) is collected in build-fuzz/fuzz-summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-${FUZZ_SECONDS:-20}}
shift || true
build=${HWPC_FUZZ_BUILD_DIR:-build-fuzz}
targets=(raw_reports oa_ring i915_stream recording xe_recording formula metric_xml mali_sample
  adreno xe_stream mali_kinstr mali_capture adreno_rd adreno_walk adreno_drawstate writers
  accounting time adreno_gzip_index)
[ $# -gt 0 ] && targets=("$@")

CXX=${FUZZ_CXX:-clang++} cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHWPC_FUZZ=ON -DHWPC_BUILD_TESTS=OFF -DHWPC_BUILD_BENCH=OFF -DHWPC_BUILD_EXAMPLES=OFF >/dev/null
ninja -C "$build" -j"${FUZZ_BUILD_JOBS:-2}" "${targets[@]/#/hwpc_fuzz_}" >/dev/null
# The seed generator: a plain program (no fuzzer runtime) built with the same compiler.
if [ ! -x "$build/make_corpus" ] || [ tests/fuzz/make_corpus.cpp -nt "$build/make_corpus" ]; then
  ${CORPUS_CXX:-${FUZZ_CXX:-clang++}} -std=c++20 -O1 -Iinclude tests/fuzz/make_corpus.cpp -o "$build/make_corpus"
fi
rm -rf "$build/seeds"
"$build/make_corpus" "$build/seeds" >/dev/null

summary="$build/fuzz-summary.txt"
: >"$summary"
status=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"
  artifacts="$build/artifacts/$t/"
  mkdir -p "$corpus" "$artifacts"
  seeds=("$build/seeds/$t")
  [ -d "tests/fuzz/corpus/$t" ] && seeds+=("tests/fuzz/corpus/$t")
  # Crashes found earlier stay in the corpus as regression inputs.
  [ -d "tests/fuzz/regress/$t" ] && seeds+=("tests/fuzz/regress/$t")
  log="$build/fuzz-$t.log"
  echo "== $t: ${seconds}s"
  jobs=()
  # With jobs, libFuzzer writes each job's log to fuzz-N.log in the current directory.
  [ "${FUZZ_JOBS:-0}" -gt 0 ] && jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
  if ! UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    "$build/tests/fuzz/hwpc_fuzz_$t" "$corpus" "${seeds[@]}" -max_total_time="$seconds" \
    -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${jobs[@]}" \
    -artifact_prefix="$artifacts" >"$log" 2>&1; then
    [ ${#jobs[@]} -gt 0 ] && cat fuzz-*.log >>"$log" && rm -f fuzz-*.log
    echo "!! $t failed: see $log and $artifacts"
    tail -30 "$log"
    status=1
  fi
  [ ${#jobs[@]} -gt 0 ] && [ -n "$(ls fuzz-*.log 2>/dev/null)" ] && cat fuzz-*.log >>"$log" &&
    rm -f fuzz-*.log
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  last=$(grep -E '#[0-9]+.*(cov|DONE)' "$log" | tail -1 || true)
  printf '%-12s %6ss runs=%s  %s\n' "$t" "$seconds" "$runs" "$last" | tee -a "$summary"
done
exit $status
