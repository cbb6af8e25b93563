#!/usr/bin/env bash
# The generated Mali counter tables (include/hwpc/mali/gpus/) must be exactly what
# scripts/gen/mali_tables.py makes of the counter database in ../shared/data/mali:
# regenerate into a temporary folder and compare. Skips, saying so, when the data is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
data=../shared/data/mali
if [ ! -d "$data/hardwarelayout" ]; then
  echo "check-generated: $data is absent; skipping the Mali table check"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 scripts/gen/mali_tables.py --data "$data" --out "$tmp"
if ! diff -ru include/hwpc/mali/gpus "$tmp"; then
  echo "check-generated: include/hwpc/mali/gpus differs from the generator's output;"
  echo "run python3 scripts/gen/mali_tables.py and commit the result"
  exit 1
fi
echo "check-generated: include/hwpc/mali/gpus matches $data"
