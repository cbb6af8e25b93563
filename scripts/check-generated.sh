#!/usr/bin/env bash
# The generated tables must be exactly what their generators make of the data they come from:
# regenerate into a temporary folder and compare. Each check skips, saying so, when its data is
# absent.
#  - Mali counter tables (include/hwpc/mali/gpus/): scripts/gen/mali_tables.py of ../shared/data/mali.
#  - Adreno A6XX/A7XX counter tables (include/hwpc/adreno/generated/a6xx_counters.hpp, a7xx_counters.hpp):
#    scripts/gen/adreno_counters.py of ../shared/docs/FACTS-adreno6.md.
#  - metrics-discovery definitions (include/hwpc/metrics/mdapi/): scripts/gen/mdapi_tables.py of
#    ../shared/data/intel-mdapi.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

data=../shared/data/mali
if [ ! -d "$data/hardwarelayout" ]; then
  echo "check-generated: $data is absent; skipping the Mali table check"
else
  python3 scripts/gen/mali_tables.py --data "$data" --out "$tmp/mali"
  if ! diff -ru include/hwpc/mali/gpus "$tmp/mali"; then
    echo "check-generated: include/hwpc/mali/gpus differs from the generator's output;"
    echo "run python3 scripts/gen/mali_tables.py and commit the result"
    exit 1
  fi
  echo "check-generated: include/hwpc/mali/gpus matches $data"
fi

facts=../shared/docs/FACTS-adreno6.md
if [ ! -f "$facts" ]; then
  echo "check-generated: $facts is absent; skipping the Adreno table check"
else
  python3 scripts/gen/adreno_counters.py --facts "$facts" --out "$tmp/adreno"
  for f in a6xx_counters.hpp a7xx_counters.hpp; do
    if ! diff -u "include/hwpc/adreno/generated/$f" "$tmp/adreno/$f"; then
      echo "check-generated: include/hwpc/adreno/generated/$f differs from the generator's output;"
      echo "run python3 scripts/gen/adreno_counters.py and commit the result"
      exit 1
    fi
  done
  echo "check-generated: the Adreno counter tables match $facts"
fi

mdapi=../shared/data/intel-mdapi
if [ ! -f "$mdapi/md_metric_sets_TGL_GT2.cpp" ]; then
  echo "check-generated: $mdapi is absent; skipping the metrics-discovery table check"
else
  python3 scripts/gen/mdapi_tables.py --data "$mdapi" --out "$tmp/mdapi"
  if ! diff -ru include/hwpc/metrics/mdapi "$tmp/mdapi"; then
    echo "check-generated: include/hwpc/metrics/mdapi differs from the generator's output;"
    echo "run python3 scripts/gen/mdapi_tables.py and commit the result"
    exit 1
  fi
  echo "check-generated: include/hwpc/metrics/mdapi matches $mdapi"
fi
